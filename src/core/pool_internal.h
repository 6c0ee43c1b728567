/* The chunk size the pool picks for a loop (zkpipe_pool_parallel_for's chunk 0), for callers
 * whose iterations are too cheap to hand to another thread a few at a time. */
#ifndef ZKPIPE_CORE_POOL_INTERNAL_H
#define ZKPIPE_CORE_POOL_INTERNAL_H

#include <stddef.h>

#include "zkpipe/pool.h"

/* Indices per chunk for a loop of n on `pool`: a few chunks per thread (one on a 1-thread
 * pool), as chunk 0 asks for, but at least `min`: a loop whose iterations take nanoseconds
 * gives each chunk enough of them to outweigh waking a worker and waiting for it
 * (microseconds), so that a short loop runs on the caller alone. min >= 1. */
static inline size_t zkpipe__pool_chunk(const zkpipe_pool *pool, size_t n, size_t min)
{
    unsigned threads = zkpipe_pool_threads(pool);
    size_t parts = threads == 1 ? 1 : (size_t)threads * 4;
    size_t chunk = n / parts + (n % parts != 0);
    return chunk < min ? min : chunk;
}

#endif
