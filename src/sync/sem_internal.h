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

/* Growth past a permit, and the one overdraft.
 *
 * For holders whose need shows only while they work (the engine's partitions: a ledger that
 * charges beyond its reservation grows it first). Such holders are members: each calls
 * zkpipe__sem_join before its admission (zkpipe__sem_admit) and zkpipe__sem_leave after its
 * last release; a member's life has an early phase and a late one (the engine's: synthesis,
 * then proving). A member's growth (zkpipe__sem_grow) queues ahead of every admission and
 * acquire (a member that grows is already admitted: serving it first lets it finish and give
 * its units back). When it cannot be served it may overdraw: take what is free and hold the
 * rest beyond the capacity as the semaphore's one debt. One permit holds the debt at a time
 * (its further growth overdraws at once); every unit given back pays the debt before anything
 * else is served, and once paid the overdraft is free again. So the units held never exceed
 * the capacity plus the debt, and the debt is what one member could not get.
 *
 * Who may overdraw while it is free: a member in its late phase, at once; one in its early
 * phase only while every member waits in this semaphore, for its admission or for early
 * growth: then no other member can move until the debt is paid, and the overdrawer is the only
 * one that reaches its late phase (docs/ARCHITECTURE.md, "Admission by bytes", has the
 * argument that some member can always move). While there is a debt nothing is admitted, not
 * even a member asking for no units. */

/* Counts a member in (before its admission) or out (after its last release; wakes growers
 * that may overdraw now). Thread safety: any thread. */
void zkpipe__sem_join(zkpipe_sem *sem);
void zkpipe__sem_leave(zkpipe_sem *sem);

/* A member's admission: zkpipe__sem_acquire_looking (look may be NULL: none), counted as a
 * member waiting while it waits, served in turn even for 0 units, never while there is a
 * debt. */
zkpipe_status zkpipe__sem_admit(zkpipe_sem *sem, zkpipe_permit *permit, uint64_t units,
                                zkpipe__sem_look_fn look, void *ctx);

/* Adds `units` to the member's `permit` (an empty one becomes a permit of `sem`), blocking
 * ahead of other waiters until they are free or it may overdraw (late: the member is in its
 * late phase); while it waits, `look` (NULL: none) is called as zkpipe__sem_acquire_looking
 * calls it (a lower request it gives is ignored: growth is what the ledger needs), and before
 * it overdraws: units it can have given back (idle keys) are used before going over.
 * @return ZKPIPE_OK (permit->units grew by `units`), ZKPIPE_EINVAL (NULL, a permit of another
 *         semaphore), ZKPIPE_ESTATE (a permit that is not outstanding), ZKPIPE_ECLOSED,
 *         ZKPIPE_ENOMEM or ZKPIPE_EUNSUPPORTED (the wait's condition variable); on error the
 *         permit is unchanged. */
zkpipe_status zkpipe__sem_grow(zkpipe_sem *sem, zkpipe_permit *permit, uint64_t units, int late,
                               zkpipe__sem_look_fn look, void *ctx);

/* What members waited for, since the semaphore was created. */
typedef struct zkpipe__sem_waits {
    uint64_t admissions, admission_ns; /* admissions that waited, and for how long in all */
    uint64_t growths, growth_ns;       /* growths that waited, ... */
    uint64_t overdrafts;               /* debts begun */
    uint64_t overdraft_bytes;          /* units overdrawn in all */
    uint64_t debt_peak;                /* the largest debt */
    uint64_t debt;                     /* the debt now */
} zkpipe__sem_waits;

/* A consistent copy of the figures. Thread safety: any thread. */
void zkpipe__sem_waits_get(zkpipe_sem *sem, zkpipe__sem_waits *out);

#endif
