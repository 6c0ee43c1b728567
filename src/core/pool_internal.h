/* Internal entry point of the thread pool that lets tests replace thread creation, so the
 * ZKPIPE_ETHREAD path can be walked like the allocation failures are. */
#ifndef ZKPIPE_CORE_POOL_INTERNAL_H
#define ZKPIPE_CORE_POOL_INTERNAL_H

#include <pthread.h>

#include "zkpipe/pool.h"

/* Starts a thread like pthread_create (returns 0 or an error number); `ctx` is the value
 * given to zkpipe__pool_create_with. */
typedef int (*zkpipe__pool_spawn_fn)(void *ctx, pthread_t *thread, void *(*start)(void *),
                                     void *arg);

/* zkpipe_pool_create with `spawn` in place of pthread_create. */
zkpipe_status zkpipe__pool_create_with(zkpipe_pool **out, unsigned nthreads,
                                       const zkpipe_allocator *allocator,
                                       zkpipe__pool_spawn_fn spawn, void *spawn_ctx);

#endif
