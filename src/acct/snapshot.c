/* Consistent snapshots and peak resets.
 *
 * Why a gate rather than a seqlock: a seqlock needs a single sequence word that every ledger
 * operation of every thread increments twice, and its reader may retry without bound while
 * writers keep coming. Here writers only count themselves in and out on one of several gate
 * stripes (usually a cache line no other thread touches), and a snapshot closes the gate,
 * waits for the writers inside to leave, copies, and reopens. A writer waits only while a
 * copy is being made (about a microsecond), a snapshot only for sections that already began
 * (a few tens of nanoseconds each), and peak resets reuse the same exclusion. */
#include <string.h>

#include "acct/acct_internal.h"

void zkpipe__gate_close(zkpipe_acct *acct)
{
    unsigned spins = 0;
    while (
        atomic_fetch_or_explicit(&acct->gate[0].word, ZKPIPE__GATE_CLOSED, memory_order_acquire) &
        ZKPIPE__GATE_CLOSED) {
        while (atomic_load_explicit(&acct->gate[0].word, memory_order_relaxed) &
               ZKPIPE__GATE_CLOSED)
            zkpipe__backoff(&spins);
    }
    for (int i = 1; i < ZKPIPE__GATE_STRIPES; i++)
        atomic_fetch_or_explicit(&acct->gate[i].word, ZKPIPE__GATE_CLOSED, memory_order_relaxed);
    for (int i = 0; i < ZKPIPE__GATE_STRIPES; i++) {
        spins = 0;
        while (atomic_load_explicit(&acct->gate[i].word, memory_order_acquire) !=
               ZKPIPE__GATE_CLOSED)
            zkpipe__backoff(&spins);
    }
}

void zkpipe__gate_open(zkpipe_acct *acct)
{
    for (int i = ZKPIPE__GATE_STRIPES - 1; i >= 0; i--)
        atomic_fetch_and_explicit(&acct->gate[i].word, ~ZKPIPE__GATE_CLOSED, memory_order_release);
}

static uint64_t load(_Atomic uint64_t *v)
{
    return atomic_load_explicit(v, memory_order_relaxed);
}

zkpipe_status zkpipe_acct_snapshot(zkpipe_acct *acct, zkpipe_snapshot *out)
{
    if (acct == NULL || out == NULL)
        return ZKPIPE_EINVAL;
    memset(out, 0, sizeof *out);
    zkpipe__gate_close(acct);
    uint32_t kinds = zkpipe__kind_count(acct);
    uint32_t stages = zkpipe__stage_count(acct);
    out->live_items = load(&acct->live_items);
    out->live_bytes = load(&acct->live_bytes);
    out->peak_bytes = load(&acct->peak_bytes);
    for (uint32_t s = 0; s < stages; s++) {
        zkpipe__stage_counters *c = &acct->stage[s];
        zkpipe_snapshot_stage *o = &out->stage[s];
        o->live_items = load(&c->live_items);
        o->peak_items = load(&c->peak_items);
        o->entered = load(&c->entered);
        for (uint32_t k = 0; k < kinds; k++) {
            o->kind[k].live_buffers = load(&c->kind[k].live_buffers);
            o->kind[k].live_bytes = load(&c->kind[k].live_bytes);
            o->kind[k].peak_buffers = load(&c->kind[k].peak_buffers);
            o->kind[k].peak_bytes = load(&c->kind[k].peak_bytes);
        }
    }
    zkpipe__gate_open(acct);
    /* Everything below works on the copy, outside the gate. */
    out->kind_count = kinds;
    out->stage_count = stages;
    for (uint32_t k = 0; k < kinds; k++)
        strcpy(out->kind_names[k], zkpipe_acct_kind_name(acct, k));
    for (uint32_t s = 0; s < stages; s++) {
        zkpipe_snapshot_stage *o = &out->stage[s];
        strcpy(out->stage_names[s], zkpipe_acct_stage_name(acct, s));
        o->left = o->entered - o->live_items;
        for (uint32_t k = 0; k < kinds; k++) {
            o->live_buffers += o->kind[k].live_buffers;
            o->live_bytes += o->kind[k].live_bytes;
        }
    }
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_acct_reset_peaks(zkpipe_acct *acct)
{
    if (acct == NULL)
        return ZKPIPE_EINVAL;
    zkpipe__gate_close(acct);
    atomic_store_explicit(&acct->peak_bytes, load(&acct->live_bytes), memory_order_relaxed);
    for (uint32_t s = 0; s < ZKPIPE_STAGE_MAX; s++) {
        zkpipe__stage_counters *c = &acct->stage[s];
        atomic_store_explicit(&c->peak_items, load(&c->live_items), memory_order_relaxed);
        for (uint32_t k = 0; k < ZKPIPE_KIND_MAX; k++) {
            zkpipe__kind_counters *kc = &c->kind[k];
            atomic_store_explicit(&kc->peak_buffers, load(&kc->live_buffers), memory_order_relaxed);
            atomic_store_explicit(&kc->peak_bytes, load(&kc->live_bytes), memory_order_relaxed);
        }
    }
    zkpipe__gate_open(acct);
    return ZKPIPE_OK;
}

uint64_t zkpipe_acct_live_bytes(const zkpipe_acct *acct)
{
    return acct == NULL ? 0 : atomic_load_explicit(&acct->live_bytes, memory_order_relaxed);
}

uint64_t zkpipe_snapshot_in_waist(const zkpipe_snapshot *snap)
{
    if (snap == NULL)
        return 0;
    return snap->stage[ZKPIPE_STAGE_SYNTH].live_items +
           snap->stage[ZKPIPE_STAGE_PENDING].live_items +
           snap->stage[ZKPIPE_STAGE_QUEUED].live_items;
}

uint64_t zkpipe_snapshot_resident(const zkpipe_snapshot *snap)
{
    if (snap == NULL)
        return 0;
    return zkpipe_snapshot_in_waist(snap) + snap->stage[ZKPIPE_STAGE_PROVING].live_items +
           snap->stage[ZKPIPE_STAGE_FINALIZE].live_items;
}
