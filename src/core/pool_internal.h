/* The chunk size the pool picks for a loop (zkpipe_pool_parallel_for's chunk 0), for callers
 * whose iterations are too cheap to hand to another thread a few at a time; and the bounds of
 * even shares, for callers that cut their work into parts themselves. */
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

/* The first index of part k, 0 <= k <= parts, of n indices shared out over `parts` parts as
 * evenly as possible: part k holds [zkpipe__pool_share(n, parts, k), ...(k + 1)). Without the
 * product n k, which could overflow. parts >= 1. */
static inline size_t zkpipe__pool_share(size_t n, size_t parts, size_t k)
{
    return n / parts * k + n % parts * k / parts;
}

#endif
