/* A partition's byte reservation following its ledger (reservation.h says the rule). */
#include "engine/reservation.h"

#include <string.h>

#include "sync/sem_internal.h"

zkpipe_status zkpipe__reservation_take(zkpipe__reservation *r, zkpipe_sem *budget,
                                       zkpipe__admission *adm, const zkpipe_stage_ops *table,
                                       const void *source, zkpipe__plan plan, int shrink,
                                       zkpipe__key_claim *claim)
{
    memset(r, 0, sizeof *r);
    r->adm = adm;
    r->table = table;
    r->source = source;
    r->slack = plan.slack;
    if (budget != NULL)
        zkpipe__sem_join(budget); /* before asking: counted as able to move until it waits */
    zkpipe_status st =
        zkpipe__key_admit(claim->cache, claim->key, budget, plan.units, 1, &r->permit,
                          &claim->handle, claim->detail, claim->detail_cap);
    if (st != ZKPIPE_OK) {
        if (budget != NULL)
            zkpipe__sem_leave(budget);
        return st;
    }
    claim->pinned = claim->key != NULL;
    r->budget = budget;
    r->keys = claim->cache;
    r->units = r->held = r->follow = r->admitted = budget != NULL ? plan.units : 0;
    r->taught = plan.units;
    r->shrink = shrink && budget != NULL && plan.profiled;
    return ZKPIPE_OK;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Before a charge takes the ledger to `after` bytes: the units it lacks, from the budget. */
static void grow(zkpipe__reservation *r, uint64_t after)
{
    if (after > r->taught) {
        /* Admissions from now on reserve at least this much, without waiting for the close. */
        zkpipe__admission_raise(r->adm, r->table, r->source, after);
        r->taught = after;
    }
    if (after <= r->held)
        return;
    zkpipe_status st = zkpipe__sem_grow(r->budget, &r->permit, after - r->held, r->late,
                                        r->keys != NULL ? zkpipe__keys_look : NULL, r->keys);
    /* Refused only once the engine is going (the budget closed): the charge goes on
     * uncovered, counted below. */
    if (st == ZKPIPE_OK) {
        r->held = after;
        r->units = max64(r->units, after);
    }
}

void zkpipe__reservation_follow(void *ctx, uint64_t before, uint64_t after)
{
    zkpipe__reservation *r = ctx;
    r->peak = max64(r->peak, after);
    if (after > before && r->budget != NULL)
        grow(r, after);
    if (after < before) {
        uint64_t freed = before - after;
        r->follow = min64(r->follow, max64(after, r->follow > freed ? r->follow - freed : 0));
    } else if (after > r->follow) {
        r->regrowth = max64(r->regrowth, after - r->follow);
    }
    if (r->shrink) {
        /* follow <= units, so this cannot wrap. */
        uint64_t target = max64(after, r->follow + min64(r->slack, r->units - r->follow));
        target = min64(target, r->units);
        if (target < r->held &&
            zkpipe_permit_release_units(&r->permit, r->held - target) == ZKPIPE_OK) {
            atomic_fetch_add_explicit(&r->adm->returned_early, r->held - target,
                                      memory_order_relaxed);
            r->held = target;
        }
    }
    /* Without a budget nothing was admitted, and nothing can be over it. */
    if (r->budget != NULL && after > r->admitted && after - r->admitted > r->over) {
        if (r->over == 0)
            atomic_fetch_add_explicit(&r->adm->over_events, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&r->adm->over_bytes, after - r->admitted - r->over,
                                  memory_order_relaxed);
        r->over = after - r->admitted;
    }
}

void zkpipe__reservation_end(zkpipe__reservation *r)
{
    if (zkpipe_permit_is_held(&r->permit))
        zkpipe_permit_release(&r->permit);
    r->held = 0;
    if (r->budget != NULL) {
        zkpipe__sem_leave(r->budget);
        r->budget = NULL;
    }
}
