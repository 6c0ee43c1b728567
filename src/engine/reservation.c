/* A partition's byte reservation following its ledger (reservation.h says the rule). */
#include "engine/reservation.h"

#include <string.h>

zkpipe_status zkpipe__reservation_take(zkpipe__reservation *r, zkpipe_sem *budget,
                                       zkpipe__admission *adm, zkpipe__plan plan, int shrink,
                                       zkpipe__key_claim *claim)
{
    memset(r, 0, sizeof *r);
    r->adm = adm;
    r->slack = plan.slack;
    zkpipe_status st = zkpipe__key_admit(claim->cache, claim->key, budget, plan.units, &r->permit,
                                         &claim->handle, claim->detail, claim->detail_cap);
    if (st != ZKPIPE_OK)
        return st;
    claim->pinned = claim->key != NULL;
    r->units = r->held = r->follow = budget != NULL ? plan.units : 0;
    r->budgeted = budget != NULL;
    r->shrink = shrink && r->budgeted && plan.profiled;
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

void zkpipe__reservation_follow(void *ctx, uint64_t before, uint64_t after)
{
    zkpipe__reservation *r = ctx;
    r->peak = max64(r->peak, after);
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
    /* Without a budget nothing is held, and nothing can be over it. */
    if (r->budgeted && after > r->held && after - r->held > r->over) {
        if (r->over == 0)
            atomic_fetch_add_explicit(&r->adm->over_events, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&r->adm->over_bytes, after - r->held - r->over,
                                  memory_order_relaxed);
        r->over = after - r->held;
    }
}

void zkpipe__reservation_end(zkpipe__reservation *r)
{
    if (zkpipe_permit_is_held(&r->permit))
        zkpipe_permit_release(&r->permit);
    r->held = 0;
}
