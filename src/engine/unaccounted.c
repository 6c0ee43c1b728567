/* The unaccounted-bytes estimate (unaccounted.h). */
#include "engine/unaccounted.h"

#include "core/memory.h"

/* Resident bytes not in a ledger now; INT64_MIN where the resident set cannot be read. */
static int64_t outside_ledgers(zkpipe_acct *acct)
{
    uint64_t rss;
    if (zkpipe__rss_bytes(&rss) != ZKPIPE_OK)
        return INT64_MIN;
    /* Both far below 2^63 on any machine. */
    return (int64_t)rss - (int64_t)zkpipe_acct_live_bytes(acct);
}

void zkpipe__unaccounted_init(zkpipe__unaccounted *u, zkpipe_acct *acct)
{
    u->acct = acct;
    int64_t base = outside_ledgers(acct);
    u->readable = base != INT64_MIN;
    u->baseline = u->readable ? base : 0;
    atomic_init(&u->now, 0);
    atomic_init(&u->peak, 0);
}

uint64_t zkpipe__unaccounted_sample(zkpipe__unaccounted *u)
{
    if (!u->readable)
        return 0;
    int64_t out = outside_ledgers(u->acct);
    uint64_t v = out != INT64_MIN && out > u->baseline ? (uint64_t)(out - u->baseline) : 0;
    atomic_store_explicit(&u->now, v, memory_order_relaxed);
    uint_fast64_t cur = atomic_load_explicit(&u->peak, memory_order_relaxed);
    while (v > cur && !atomic_compare_exchange_weak(&u->peak, &cur, v))
        ;
    return v;
}

uint64_t zkpipe__unaccounted_peak(const zkpipe__unaccounted *u)
{
    return atomic_load_explicit(&u->peak, memory_order_relaxed);
}
