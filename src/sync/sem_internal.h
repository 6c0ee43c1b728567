/* What the layers above may do with a semaphore's permits beyond zkpipe/sem.h. */
#ifndef ZKPIPE_SYNC_SEM_INTERNAL_H
#define ZKPIPE_SYNC_SEM_INTERNAL_H

#include "zkpipe/sem.h"

/* Moves `units` of `from`'s units (0 < units < from->units) into a new permit `out` of the same
 * semaphore, in one step: the units are never free in between, so one acquire can cover two
 * holders (the engine admits a partition and loads its key with one FIFO request, then gives
 * the key its own share). A copy of `from` taken before is stale afterwards.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, an empty permit, units out of range), ZKPIPE_ESTATE
 *         (not an outstanding acquisition). Thread safety: as zkpipe_permit_release_units. */
zkpipe_status zkpipe__permit_split(zkpipe_permit *from, zkpipe_permit *out, uint64_t units);

/* Called by a waiter of zkpipe__sem_acquire_looking, with the semaphore unlocked and the
 * waiter still in its place in the queue; may release permits of the semaphore (which may
 * serve the waiter itself), and may lower the waiter's request *units (a higher value is
 * ignored) when it learns that it needs less: the waiter keeps its place and is served for the
 * lower amount, or at once with an empty permit for 0. Returns the nanoseconds to wait before
 * calling it again (0: at once). */
typedef uint64_t (*zkpipe__sem_look_fn)(void *ctx, uint64_t *units);

/* zkpipe_sem_acquire that, while it waits, calls `look` at once and then whenever the wait
 * `look` asked for has passed, without leaving its place: for a holder of units that can be
 * given back on demand (the engine's idle keys), which the waiter gives back itself, FIFO
 * order kept. permit->units says what was granted: `units`, or less if `look` lowered it.
 * @return as zkpipe_sem_acquire; ZKPIPE_EINVAL for a NULL look. */
zkpipe_status zkpipe__sem_acquire_looking(zkpipe_sem *sem, zkpipe_permit *permit, uint64_t units,
                                          zkpipe__sem_look_fn look, void *ctx);

#endif
