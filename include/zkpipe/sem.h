/*! zkpipe/sem.h : a FIFO counting semaphore whose acquire takes n units.
 *
 * With n = 1 it is the partition semaphore (at most `capacity` items being synthesized); with
 * n = bytes it is a byte budget. Waiters are served strictly in arrival order: a request that
 * does not fit blocks every later request, even smaller ones that would fit, so a large
 * request is never starved by a stream of small ones.
 *
 * An acquire returns a permit, a plain value recording what was taken. Whoever holds the
 * permit releases it, exactly once; ownership may be handed on (zkpipe_chan_send releases the
 * permit it is given when the item is delivered).
 *
 * Argument order: the object first, then outputs, then inputs. Only zkpipe_sem_create
 * allocates; no function here starts a thread. */
#ifndef ZKPIPE_SEM_H
#define ZKPIPE_SEM_H

#include "zkpipe/alloc.h"
#include "zkpipe/common.h"
#include "zkpipe/status.h"

ZKPIPE_EXTERN_C_BEGIN

/* A semaphore. Opaque; every function below may be called from any thread concurrently,
 * except zkpipe_sem_destroy. */
typedef struct zkpipe_sem zkpipe_sem;

/* What one acquire took. A zero-filled permit is empty. The caller may read `sem` and `units`
 * (never write them); `ticket` and `slot` are private.
 * - empty:    sem == NULL (nothing held; releasing it is a no-op);
 * - held:     sem != NULL, ticket != 0;
 * - released: sem != NULL, ticket == 0 (releasing it again is ZKPIPE_ESTATE).
 * A permit has one owner at a time: calls on the same permit must not race. */
typedef struct zkpipe_permit {
    zkpipe_sem *sem; /* the semaphore the units came from; NULL when empty */
    uint64_t units;  /* units held (or, once released, that were held last) */
    uint64_t ticket; /* this acquisition's number in `sem`, never reused; 0 once released */
    uint32_t slot;   /* where `sem` tracks it (1-based), 0 when untracked */
} zkpipe_permit;

/* Outstanding permits a semaphore tracks one by one (fewer when its capacity is smaller), so
 * that releasing a stale copy of a permit is refused exactly; see zkpipe_permit_release. */
#define ZKPIPE_SEM_TRACKED_PERMITS 256

/*! zkpipe_sem_create() : a semaphore of `capacity` units, all available.
 * @param out receives the semaphore; the caller frees it with zkpipe_sem_destroy.
 * @param capacity total units, >= 1.
 * @param allocator NULL for the C library; copied.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (out NULL, capacity 0, allocator incomplete),
 *         ZKPIPE_ENOMEM (memory or the mutex; then *out is left unchanged, nothing leaked).
 * Thread safety: any thread. Allocates one block of about 160 + 20 * min(capacity,
 * ZKPIPE_SEM_TRACKED_PERMITS) bytes (5.3 KiB at most). */
ZKPIPE_API zkpipe_status zkpipe_sem_create(zkpipe_sem **out, uint64_t capacity,
                                           const zkpipe_allocator *allocator);

/*! zkpipe_sem_destroy() : frees `sem`. NULL is a no-op. No thread may be waiting on it (close
 * it and let waiters return first) and no permit of it may be released afterwards.
 * Thread safety: no other call on `sem` may run concurrently. */
ZKPIPE_API void zkpipe_sem_destroy(zkpipe_sem *sem);

/*! zkpipe_sem_acquire() : takes `units` units, blocking until they are available and every
 * earlier waiter has been served.
 * @param permit receives the permit (written only on ZKPIPE_OK; the caller owns it).
 * @param units 0 yields an empty permit at once (nothing to wait for); > capacity fails.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (sem or permit NULL), ZKPIPE_ETOOBIG (units > capacity:
 *         returned at once, it could never be served), ZKPIPE_ECLOSED (closed before or while
 *         waiting), ZKPIPE_ENOMEM or ZKPIPE_EUNSUPPORTED (a wait needs a condition variable on
 *         CLOCK_MONOTONIC and could not have one; nothing was taken).
 * Thread safety: any thread. Does not allocate: a waiter lives on the caller's stack. */
ZKPIPE_API ZKPIPE_MUST_CHECK zkpipe_status zkpipe_sem_acquire(zkpipe_sem *sem,
                                                              zkpipe_permit *permit,
                                                              uint64_t units);

/*! zkpipe_sem_try_acquire() : zkpipe_sem_acquire without blocking.
 * @return as zkpipe_sem_acquire, or ZKPIPE_EAGAIN when it would have to wait (the units are
 *         not available, or others are already waiting). */
ZKPIPE_API zkpipe_status zkpipe_sem_try_acquire(zkpipe_sem *sem, zkpipe_permit *permit,
                                                uint64_t units);

/*! zkpipe_sem_acquire_timed() : zkpipe_sem_acquire that gives up after `timeout_ns`
 * nanoseconds, measured on CLOCK_MONOTONIC (wall-clock changes do not affect it).
 * @return as zkpipe_sem_acquire, or ZKPIPE_ETIMEDOUT (nothing taken; with timeout_ns 0 when it
 *         would have to wait). */
ZKPIPE_API ZKPIPE_MUST_CHECK zkpipe_status zkpipe_sem_acquire_timed(zkpipe_sem *sem,
                                                                    zkpipe_permit *permit,
                                                                    uint64_t units,
                                                                    uint64_t timeout_ns);

/*! zkpipe_permit_release() : gives the permit's units back to its semaphore and marks the
 * permit released; waiters that now fit are woken in FIFO order. Works after close too.
 * An empty permit is a no-op. A permit that is not an outstanding acquisition changes nothing
 * and returns ZKPIPE_ESTATE: one released before, a stale copy of one released before (even
 * while other permits of the same size are outstanding), a forged ticket. This is exact while
 * at most ZKPIPE_SEM_TRACKED_PERMITS permits of the semaphore are outstanding; permits
 * acquired beyond that are only counted, and a stale copy of one of them is refused when the
 * count of such permits and their units cannot cover it. The count never exceeds capacity.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (permit NULL), ZKPIPE_ESTATE.
 * Thread safety: any thread (see zkpipe_permit for the permit itself). */
ZKPIPE_API zkpipe_status zkpipe_permit_release(zkpipe_permit *permit);

/*! zkpipe_permit_release_units() : gives `units` of the permit's units back to its semaphore
 * and keeps the rest held (permit->units shrinks by `units`); waiters that now fit are woken in
 * FIFO order. For a holder whose need shrinks while it works, e.g. a byte reservation that
 * follows a ledger as buffers are freed (zkpipe_ledger_set_hook). Giving back every unit
 * releases the permit, as zkpipe_permit_release does; 0 units change nothing. A copy of the
 * permit taken before a partial release is stale afterwards: releasing it is refused
 * (ZKPIPE_ESTATE), exactly while the permit is among the tracked ones (see
 * zkpipe_permit_release). Works after close too.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (permit NULL, units > permit->units, or units > 0 from an
 *         empty permit), ZKPIPE_ESTATE (not an outstanding acquisition, as for
 *         zkpipe_permit_release).
 * Thread safety: any thread (see zkpipe_permit for the permit itself). Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_permit_release_units(zkpipe_permit *permit, uint64_t units);

/*! zkpipe_permit_is_held() : 1 when `permit` holds units, 0 otherwise (NULL included). */
ZKPIPE_API int zkpipe_permit_is_held(const zkpipe_permit *permit);

/*! zkpipe_sem_close() : every waiter returns ZKPIPE_ECLOSED, and so does every later acquire.
 * Releases keep working so held permits can be returned. Closing twice, or NULL, is a no-op.
 * Thread safety: any thread. */
ZKPIPE_API void zkpipe_sem_close(zkpipe_sem *sem);

/*! zkpipe_sem_set_limit() : lends at most `limit` of the capacity's units at once, from now
 * on: an acquire is served only while the units held stay within the limit. Raising it
 * serves waiters that now fit, in FIFO order, at once; lowering it revokes nothing (permits
 * held stay valid and are released as usual): it takes effect as held units come back. A
 * request larger than the limit (but within capacity) waits until the limit is raised. The
 * limit starts at the capacity. For a controller that adjusts concurrency online (the
 * engine's ZKPIPE_CONCURRENCY_AUTO does this to its partition permits).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (sem NULL, limit 0 or above the capacity).
 * Thread safety: any thread. Does not allocate. Works after close too (nothing is served). */
ZKPIPE_API zkpipe_status zkpipe_sem_set_limit(zkpipe_sem *sem, uint64_t limit);

/*! zkpipe_sem_limit() : the limit set last (the capacity until zkpipe_sem_set_limit).
 * @return 0 for NULL. Thread safety: any thread; never blocks. */
ZKPIPE_API uint64_t zkpipe_sem_limit(const zkpipe_sem *sem);

/*! zkpipe_sem_available() / zkpipe_sem_capacity() / zkpipe_sem_waiters() : units an acquire
 * could take now (within the limit), total units, threads waiting now. Values may be stale as
 * soon as they are returned.
 * @return 0 for NULL. Thread safety: any thread; they never block. */
ZKPIPE_API uint64_t zkpipe_sem_available(const zkpipe_sem *sem);
ZKPIPE_API uint64_t zkpipe_sem_capacity(const zkpipe_sem *sem);
ZKPIPE_API uint64_t zkpipe_sem_waiters(const zkpipe_sem *sem);

ZKPIPE_EXTERN_C_END

#endif
