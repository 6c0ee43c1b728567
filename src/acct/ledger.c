/* Ledgers: the only writers of a registry's counters. Each operation is one write section of
 * the gate (acct_internal.h), so a snapshot sees it entirely or not at all. */
#include <string.h>

#include "acct/acct_internal.h"

static uint64_t ledger_total(const zkpipe_ledger *ledger)
{
    uint64_t total = 0;
    for (uint32_t used = ledger->kinds_used; used != 0; used &= used - 1)
        total += ledger->bytes[__builtin_ctz(used)];
    return total;
}

static void enter_stage(zkpipe__stage_counters *s)
{
    uint64_t n = atomic_fetch_add_explicit(&s->live_items, 1, memory_order_relaxed) + 1;
    atomic_fetch_add_explicit(&s->entered, 1, memory_order_relaxed);
    zkpipe__raise_peak(&s->peak_items, n);
}

static void add_buffers(zkpipe__kind_counters *k, uint64_t buffers, uint64_t bytes)
{
    uint64_t b = atomic_fetch_add_explicit(&k->live_buffers, buffers, memory_order_relaxed);
    zkpipe__raise_peak(&k->peak_buffers, b + buffers);
    uint64_t n = atomic_fetch_add_explicit(&k->live_bytes, bytes, memory_order_relaxed);
    zkpipe__raise_peak(&k->peak_bytes, n + bytes);
}

static void sub_buffers(zkpipe__kind_counters *k, uint64_t buffers, uint64_t bytes)
{
    atomic_fetch_sub_explicit(&k->live_buffers, buffers, memory_order_relaxed);
    atomic_fetch_sub_explicit(&k->live_bytes, bytes, memory_order_relaxed);
}

zkpipe_status zkpipe_ledger_open(zkpipe_ledger *ledger, zkpipe_acct *acct, uint32_t stage)
{
    if (ledger == NULL || acct == NULL || stage >= zkpipe__stage_count(acct))
        return ZKPIPE_EINVAL;
    memset(ledger, 0, sizeof *ledger);
    zkpipe__gate_stripe *g = zkpipe__gate_enter(acct, ledger);
    enter_stage(&acct->stage[stage]);
    atomic_fetch_add_explicit(&acct->live_items, 1, memory_order_relaxed);
    struct zkpipe_trace *due = zkpipe__watch_check(acct);
    zkpipe__gate_leave_watched(g, due);
    ledger->acct = acct;
    ledger->stage = stage;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_ledger_charge(zkpipe_ledger *ledger, uint32_t kind, uint64_t bytes)
{
    if (ledger == NULL || ledger->acct == NULL || kind >= zkpipe__kind_count(ledger->acct))
        return ZKPIPE_EINVAL;
    if (bytes > UINT64_MAX - ledger_total(ledger))
        return ZKPIPE_EOVERFLOW;
    /* Before the counters change: a reservation grows first (and may wait for the bytes),
     * so the budget covers the bytes before any counter shows them. */
    if (ledger->hook != NULL) {
        uint64_t before = ledger_total(ledger);
        ledger->hook(ledger->hook_ctx, before, before + bytes);
    }
    zkpipe_acct *acct = ledger->acct;
    zkpipe__gate_stripe *g = zkpipe__gate_enter(acct, ledger);
    add_buffers(&acct->stage[ledger->stage].kind[kind], 1, bytes);
    uint64_t live = atomic_fetch_add_explicit(&acct->live_bytes, bytes, memory_order_relaxed);
    zkpipe__raise_peak(&acct->peak_bytes, live + bytes);
    struct zkpipe_trace *due = zkpipe__watch_check(acct);
    zkpipe__gate_leave_watched(g, due);
    ledger->buffers[kind]++;
    ledger->bytes[kind] += bytes;
    ledger->kinds_used |= 1u << kind;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_ledger_release(zkpipe_ledger *ledger, uint32_t kind, uint64_t bytes)
{
    if (ledger == NULL || ledger->acct == NULL || kind >= zkpipe__kind_count(ledger->acct))
        return ZKPIPE_EINVAL;
    if (ledger->buffers[kind] == 0 || bytes > ledger->bytes[kind])
        return ZKPIPE_EUNDERFLOW;
    zkpipe_acct *acct = ledger->acct;
    zkpipe__gate_stripe *g = zkpipe__gate_enter(acct, ledger);
    sub_buffers(&acct->stage[ledger->stage].kind[kind], 1, bytes);
    atomic_fetch_sub_explicit(&acct->live_bytes, bytes, memory_order_relaxed);
    struct zkpipe_trace *due = zkpipe__watch_check(acct);
    zkpipe__gate_leave_watched(g, due);
    uint64_t before = ledger->hook != NULL ? ledger_total(ledger) : 0;
    ledger->buffers[kind]--;
    ledger->bytes[kind] -= bytes;
    if (ledger->buffers[kind] == 0 && ledger->bytes[kind] == 0)
        ledger->kinds_used &= ~(1u << kind);
    if (ledger->hook != NULL)
        ledger->hook(ledger->hook_ctx, before, before - bytes);
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_ledger_move(zkpipe_ledger *ledger, uint32_t stage)
{
    if (ledger == NULL || ledger->acct == NULL || stage >= zkpipe__stage_count(ledger->acct))
        return ZKPIPE_EINVAL;
    zkpipe_acct *acct = ledger->acct;
    zkpipe__stage_counters *from = &acct->stage[ledger->stage];
    zkpipe__stage_counters *to = &acct->stage[stage];
    zkpipe__gate_stripe *g = zkpipe__gate_enter(acct, ledger);
    atomic_fetch_sub_explicit(&from->live_items, 1, memory_order_relaxed);
    enter_stage(to);
    if (from != to) {
        for (uint32_t used = ledger->kinds_used; used != 0; used &= used - 1) {
            int k = __builtin_ctz(used);
            sub_buffers(&from->kind[k], ledger->buffers[k], ledger->bytes[k]);
            add_buffers(&to->kind[k], ledger->buffers[k], ledger->bytes[k]);
        }
    }
    struct zkpipe_trace *due = zkpipe__watch_check(acct);
    zkpipe__gate_leave_watched(g, due);
    ledger->stage = stage;
    return ZKPIPE_OK;
}

void zkpipe_ledger_close(zkpipe_ledger *ledger)
{
    if (ledger == NULL || ledger->acct == NULL)
        return;
    zkpipe_acct *acct = ledger->acct;
    zkpipe__stage_counters *s = &acct->stage[ledger->stage];
    uint64_t total = ledger_total(ledger);
    zkpipe__gate_stripe *g = zkpipe__gate_enter(acct, ledger);
    atomic_fetch_sub_explicit(&s->live_items, 1, memory_order_relaxed);
    for (uint32_t used = ledger->kinds_used; used != 0; used &= used - 1) {
        int k = __builtin_ctz(used);
        sub_buffers(&s->kind[k], ledger->buffers[k], ledger->bytes[k]);
    }
    atomic_fetch_sub_explicit(&acct->live_bytes, total, memory_order_relaxed);
    atomic_fetch_sub_explicit(&acct->live_items, 1, memory_order_relaxed);
    struct zkpipe_trace *due = zkpipe__watch_check(acct);
    zkpipe__gate_leave_watched(g, due);
    memset(ledger, 0, sizeof *ledger);
}

zkpipe_status zkpipe_ledger_set_hook(zkpipe_ledger *ledger, zkpipe_ledger_hook_fn hook, void *ctx)
{
    if (ledger == NULL || ledger->acct == NULL)
        return ZKPIPE_EINVAL;
    ledger->hook = hook;
    ledger->hook_ctx = hook != NULL ? ctx : NULL;
    return ZKPIPE_OK;
}

uint64_t zkpipe_ledger_bytes(const zkpipe_ledger *ledger)
{
    return ledger != NULL && ledger->acct != NULL ? ledger_total(ledger) : 0;
}

int zkpipe_ledger_is_open(const zkpipe_ledger *ledger)
{
    return ledger != NULL && ledger->acct != NULL;
}

uint32_t zkpipe_ledger_stage(const zkpipe_ledger *ledger)
{
    return ledger == NULL ? UINT32_MAX : ledger->stage;
}
