/* A partition's share of the byte budget, which follows its ledger (zkpipe_ledger_set_hook).
 *
 * Admitted with `units` = the plan's (admission.h). Then, with ZKPIPE_RESERVATION_FOLLOW and
 * once a partition of the same source has been proved (its slack known; before that the
 * reservation is held whole):
 *   follow: starts at units; each release of b bytes lowers it to max(ledger, follow - b),
 *     never raising it: the bytes a partition frees go back to the budget at once, and a
 *     ledger above its reservation (an underestimate) gives back only what it frees below it;
 *   held:   min(units, max(ledger, follow + slack)), never raised: the units actually held,
 *     where `slack` is the most this partition's source has grown back above `follow` after
 *     freeing (learned from closed ledgers: a prover that frees a, b, c and then allocates
 *     MSM scratch keeps the scratch's units);
 * every unit is returned at the end. A charge beyond `held` grows the reservation first
 * (the hook runs before the counters change): the units come from the budget ahead of every
 * admission, waiting for them where they are not free, or as the budget's one overdraft
 * (sync/sem_internal.h: in synthesis only while every other partition waits for the budget
 * too; `late`, i.e. proving, whenever the overdraft is free), so the accounted bytes never
 * exceed the budget by more than one partition's shortfall. A partition is a member of the
 * budget (zkpipe__sem_join) from before its admission to its end. The reservation lives in
 * the item and travels with it through the channel, like the partition permit; only the
 * item's owner touches it. */
#ifndef ZKPIPE_ENGINE_RESERVATION_H
#define ZKPIPE_ENGINE_RESERVATION_H

#include "engine/admission.h"
#include "engine/key_cache_internal.h"
#include "zkpipe/sem.h"

typedef struct zkpipe__reservation {
    zkpipe_permit permit;   /* of the budget; empty without one */
    zkpipe_sem *budget;     /* NULL without one, and once ended */
    zkpipe_key_cache *keys; /* the engine's, bound to the budget (NULL: none) */
    zkpipe__admission *adm;
    const zkpipe_stage_ops *table; /* the partition's source, for zkpipe__admission_raise */
    const void *source;            /* ... */
    uint64_t admitted;             /* acquired at admission */
    uint64_t units;                /* the most held: admitted, raised by growth */
    uint64_t held;                 /* held now */
    uint64_t follow;               /* see above */
    uint64_t slack;                /* ... */
    uint64_t peak;                 /* the ledger's highest byte total */
    uint64_t taught;               /* the highest peak told to the admission table while open */
    uint64_t regrowth;             /* the most the ledger rose above `follow` */
    uint64_t over;                 /* the most the ledger rose above `admitted` (budgeted only) */
    int late;   /* proving: its growth may overdraw whenever the overdraft is free */
    int shrink; /* ZKPIPE_RESERVATION_FOLLOW, a budget, a profiled source */
} zkpipe__reservation;

/* The key a partition uses, pinned as it is admitted (engine/key_cache_internal.h). */
typedef struct zkpipe__key_claim {
    zkpipe_key_cache *cache; /* the engine's, or NULL */
    zkpipe_key *key;         /* the partition's, or NULL */
    void *handle;            /* set once pinned */
    int pinned;              /* the partition holds a pin on `key` */
    char *detail;            /* a load's failure goes here */
    size_t detail_cap;
} zkpipe__key_claim;

/* Joins `budget` (NULL: no budget, nothing acquired, still observing the ledger) and
 * acquires `plan.units` of it, blocking in FIFO order, and pins claim->key (loading it, its
 * units asked for with the partition's; idle keys released while they do not fit; claim->cache
 * must be bound to `budget` or NULL). (table, source) name the partition's source. Returns
 * what zkpipe_sem_acquire does or a load's error; on error nothing is held or pinned and the
 * budget left. `r` is overwritten. */
zkpipe_status zkpipe__reservation_take(zkpipe__reservation *r, zkpipe_sem *budget,
                                       zkpipe__admission *adm, const zkpipe_stage_ops *table,
                                       const void *source, zkpipe__plan plan, int shrink,
                                       zkpipe__key_claim *claim);

/* The ledger hook (ctx: the reservation). For a charge beyond what is held it blocks until
 * the budget covers it (zkpipe/acct.h: the hook runs before the counters change). */
void zkpipe__reservation_follow(void *ctx, uint64_t before, uint64_t after);

/* Returns every unit still held and leaves the budget. Idempotent. */
void zkpipe__reservation_end(zkpipe__reservation *r);

#endif
