/*! zkpipe/pool.h : a fixed-size thread pool for data-parallel loops.
 *
 * A pool made for `nthreads` threads starts exactly `nthreads - 1` worker threads at creation
 * and none afterwards; the thread that calls zkpipe_pool_parallel_for is the remaining one and
 * does its share of the work. Workers sleep on a condition variable between calls and are
 * joined by zkpipe_pool_destroy. The pool has no other state, global or hidden. */
#ifndef ZKPIPE_POOL_H
#define ZKPIPE_POOL_H

#include "zkpipe/alloc.h"
#include "zkpipe/common.h"
#include "zkpipe/status.h"

ZKPIPE_EXTERN_C_BEGIN

/* A thread pool. Opaque; thread-safe as documented per function. */
typedef struct zkpipe_pool zkpipe_pool;

/* Largest thread count a pool accepts (callers included). */
#define ZKPIPE_POOL_MAX_THREADS 1024

/* The body of a parallel loop: handles indices [begin, end) of the range. `worker` is in
 * [0, zkpipe_pool_threads(pool)) and bodies running concurrently on different threads never
 * share it, so it can index per-thread scratch space. */
typedef void (*zkpipe_pool_fn)(void *ctx, size_t begin, size_t end, unsigned worker);

/*! zkpipe_pool_create() : a pool for `nthreads` threads, the caller of parallel_for included.
 * @param out receives the pool; the caller owns it and frees it with zkpipe_pool_destroy.
 * @param nthreads 0 selects the number of online CPUs (sysconf); 1 starts no thread at all;
 *        n starts n - 1 worker threads. At most ZKPIPE_POOL_MAX_THREADS.
 * @param allocator NULL for the C library; copied.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (out NULL, allocator incomplete, nthreads too large),
 *         ZKPIPE_ENOMEM, ZKPIPE_ETHREAD (a worker could not be started; the ones already
 *         started are joined and nothing is leaked).
 * Thread safety: any thread. Allocates one block of about 300 + 24 * nthreads bytes (64-bit). */
ZKPIPE_API zkpipe_status zkpipe_pool_create(zkpipe_pool **out, unsigned nthreads,
                                            const zkpipe_allocator *allocator);

/*! zkpipe_pool_destroy() : joins the pool's workers and frees it. NULL is a no-op.
 * Thread safety: no other call on `pool` may run or start concurrently, and it must not be
 * called from inside a loop body running on the pool. */
ZKPIPE_API void zkpipe_pool_destroy(zkpipe_pool *pool);

/*! zkpipe_pool_threads() : the number of threads a parallel_for on `pool` may use, the caller
 * included (the resolved value when the pool was created with 0). NULL counts as 1.
 * Thread safety: any thread. */
ZKPIPE_API unsigned zkpipe_pool_threads(const zkpipe_pool *pool);

/*! zkpipe_pool_parallel_for() : calls `fn` on consecutive chunks covering [0, n) exactly once
 * and returns when every call has returned. Chunks run on the pool's workers and on the
 * calling thread, in no fixed order.
 * @param pool NULL (or a 1-thread pool) runs every chunk inline on the caller, worker 0.
 * @param chunk indices per call; 0 picks a size giving each thread a few chunks.
 * @param fn must not be NULL (unless n is 0); `ctx` is passed to it untouched.
 * @return ZKPIPE_OK (also when n is 0: fn is not called), ZKPIPE_EINVAL (fn NULL).
 * Thread safety: any thread. Calls from different threads on one pool are serialised: a call
 * waits until the loop in progress has finished (a loop of one chunk runs inline at once). A
 * call made from inside a loop body running on the same pool (nested) runs inline on that
 * thread with that body's `worker` index. Bodies on pool A that wait for a loop on pool B
 * whose bodies call into A deadlock. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_pool_parallel_for(zkpipe_pool *pool, size_t n, size_t chunk,
                                                  zkpipe_pool_fn fn, void *ctx);

ZKPIPE_EXTERN_C_END

#endif
