/* The controller behind ZKPIPE_CONCURRENCY_AUTO: how many partitions are admitted to
 * synthesis (the limit of the partition semaphore, zkpipe_sem_set_limit), adjusted online
 * from what the prover workers see of the narrow waist as each one asks for work.
 *
 * At each receive a prover reports `ready`, the items synthesized and waiting for a prover
 * (in the channel, plus the synthesis workers blocked in front of a full channel), and
 * whether synthesis is held back by the limit (every permit it lends taken, partitions
 * waiting for one, nothing waiting for the byte budget). A prover that finds nothing ready
 * while synthesis is held back idles because of the limit, and only then would a higher
 * limit help.
 *
 * The rule:
 *   - a receive starved by the limit raises it by one at once (the prover idles now for want
 *     of one more partition in flight; waiting for the end of a window would leave it idle
 *     for a whole window per permit missing) and starts a new window;
 *   - otherwise, once per window of `limit + capacity + prover_workers` receives (the
 *     resident bound: long enough for a change to turn the pipeline over once before it is
 *     judged), a window whose every receive found r >= 2 items ready lowers it by r - 1:
 *     one permit less removes at most one ready item at each instant, so r - 1 fewer still
 *     leave one ready whenever a prover asks (the provers stay fed with fewer partitions,
 *     fewer bytes, in flight);
 *   - otherwise it stays.
 * Raising at once and lowering only after a whole window is deliberate: an idle prover is
 * lost throughput now, a surplus only bytes held a little longer (and the budget bounds
 * those whatever the limit). A raise too many is taken back by the next windows.
 * Always within [1, max] (max: synth_workers). Every quantity is a count the engine
 * measures; no duration or machine-dependent constant enters the rule. What bounds the
 * bytes is the budget, whatever the limit: the controller only chooses concurrency below it.
 *
 * Shared by the prover workers: one mutex, taken once per receive. */
#ifndef ZKPIPE_ENGINE_AUTOTUNE_H
#define ZKPIPE_ENGINE_AUTOTUNE_H

#include <pthread.h>
#include <stdint.h>

#include "zkpipe/status.h"

typedef struct zkpipe__autotune {
    pthread_mutex_t lock;
    uint64_t max;       /* the highest limit: synth_workers */
    uint64_t rest;      /* capacity + prover_workers: the window beyond the limit */
    uint64_t limit;     /* (lock) admitted permits now */
    uint64_t seen;      /* (lock) receives in the current window */
    uint64_t min_ready; /* (lock) fewest items ready at a receive of the window */
    uint64_t changes;   /* (lock) times the limit changed */
} zkpipe__autotune;

/* Starts at `start` (clamped to [1, max]). ZKPIPE_OK or ZKPIPE_ENOMEM (the mutex). */
zkpipe_status zkpipe__autotune_init(zkpipe__autotune *t, uint64_t start, uint64_t max,
                                    uint64_t capacity, uint64_t prover_workers);
void zkpipe__autotune_destroy(zkpipe__autotune *t);

/* One receive's view (see the top). Returns the new limit when this receive ended a window
 * that changed it, 0 otherwise; the caller applies it (zkpipe_sem_set_limit). */
uint64_t zkpipe__autotune_observe(zkpipe__autotune *t, uint64_t ready, int starved_by_limit);

/* The limit now, and how many times it changed. */
uint64_t zkpipe__autotune_limit(zkpipe__autotune *t, uint64_t *changes);

#endif
