/* The registry's layout and the write gate shared by ledgers, snapshots and peak resets. */
#ifndef ZKPIPE_ACCT_ACCT_INTERNAL_H
#define ZKPIPE_ACCT_ACCT_INTERNAL_H

#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>

#include "zkpipe/acct.h"

#define ZKPIPE__CACHE_LINE 64
/* Writers spread over this many gate words so that threads working on different ledgers
 * rarely touch the same cache line to enter and leave their write sections. */
#define ZKPIPE__GATE_STRIPE_BITS 3
#define ZKPIPE__GATE_STRIPES (1 << ZKPIPE__GATE_STRIPE_BITS)
/* Set in every gate word while a snapshot or peak reset copies or rewrites the counters. */
#define ZKPIPE__GATE_CLOSED ((uint64_t)1 << 63)

typedef struct zkpipe__kind_counters {
    _Atomic uint64_t live_buffers;
    _Atomic uint64_t live_bytes;
    _Atomic uint64_t peak_buffers;
    _Atomic uint64_t peak_bytes;
} zkpipe__kind_counters;

/* One stage's counters. Items and kinds start on their own cache lines so that a move, which
 * touches two stages, contends only with writers on those stages. */
typedef struct zkpipe__stage_counters {
    alignas(ZKPIPE__CACHE_LINE) _Atomic uint64_t live_items;
    _Atomic uint64_t peak_items;
    _Atomic uint64_t entered; /* left = entered - live_items, so it needs no counter */
    alignas(ZKPIPE__CACHE_LINE) zkpipe__kind_counters kind[ZKPIPE_KIND_MAX];
} zkpipe__stage_counters;

typedef struct zkpipe__gate_stripe {
    alignas(ZKPIPE__CACHE_LINE) _Atomic uint64_t word; /* writers inside | GATE_CLOSED */
} zkpipe__gate_stripe;

/* All-zero is a valid empty registry with only the built-in kinds and stages, which is what
 * lets the default registry be a static object with no initialisation step. */
struct zkpipe_acct {
    zkpipe__gate_stripe gate[ZKPIPE__GATE_STRIPES];
    alignas(ZKPIPE__CACHE_LINE) _Atomic uint64_t live_items;
    _Atomic uint64_t live_bytes;
    _Atomic uint64_t peak_bytes;
    zkpipe__stage_counters stage[ZKPIPE_STAGE_MAX];
    alignas(ZKPIPE__CACHE_LINE) _Atomic int names_lock;
    /* The trace that samples this registry on ledger operations (zkpipe_trace_watch), or
     * NULL. Read inside the write sections, so a trace that stops watching needs only close
     * and reopen the gate to know that no ledger operation still holds it. */
    _Atomic(struct zkpipe_trace *) watcher;
    /* Host-registered entries; published by a release store after their name is written. */
    _Atomic uint32_t extra_kinds;
    _Atomic uint32_t extra_stages;
    char kind_names[ZKPIPE_KIND_MAX - ZKPIPE_KIND_BUILTIN_COUNT][ZKPIPE_ACCT_NAME_MAX + 1];
    char stage_names[ZKPIPE_STAGE_MAX - ZKPIPE_STAGE_BUILTIN_COUNT][ZKPIPE_ACCT_NAME_MAX + 1];
    zkpipe_allocator allocator;
};

/* 1 when `name` is 1..ZKPIPE_ACCT_NAME_MAX characters of [a-z0-9_]; reads at most
 * ZKPIPE_ACCT_NAME_MAX + 1 bytes. */
int zkpipe__acct_name_valid(const char *name);

static inline uint32_t zkpipe__kind_count(const zkpipe_acct *acct)
{
    return ZKPIPE_KIND_BUILTIN_COUNT +
           atomic_load_explicit(&acct->extra_kinds, memory_order_acquire);
}

static inline uint32_t zkpipe__stage_count(const zkpipe_acct *acct)
{
    return ZKPIPE_STAGE_BUILTIN_COUNT +
           atomic_load_explicit(&acct->extra_stages, memory_order_acquire);
}

/* Brief waits (a writer at a closed gate, a snapshot draining writers) spin a little, then
 * yield: on a machine with fewer cores than threads the thread we wait for may need ours. */
static inline void zkpipe__backoff(unsigned *spins)
{
    if (++*spins > 64)
        sched_yield();
}

/* Enters a write section. Counter updates between enter and leave are never seen half done
 * by a snapshot. `key` (the ledger) picks the stripe; leave must get the returned stripe. */
static inline zkpipe__gate_stripe *zkpipe__gate_enter(zkpipe_acct *acct, const void *key)
{
    /* Fibonacci hashing: every address bit moves the top bits, so ledgers at the same offset
     * of different thread stacks or heap pages still spread over the stripes. */
    uint64_t h = (uint64_t)(uintptr_t)key * UINT64_C(0x9E3779B97F4A7C15);
    zkpipe__gate_stripe *s = &acct->gate[h >> (64 - ZKPIPE__GATE_STRIPE_BITS)];
    for (;;) {
        uint64_t w = atomic_fetch_add_explicit(&s->word, 1, memory_order_acquire);
        if ((w & ZKPIPE__GATE_CLOSED) == 0)
            return s;
        atomic_fetch_sub_explicit(&s->word, 1, memory_order_relaxed);
        unsigned spins = 0;
        while (atomic_load_explicit(&s->word, memory_order_relaxed) & ZKPIPE__GATE_CLOSED)
            zkpipe__backoff(&spins);
    }
}

static inline void zkpipe__gate_leave(zkpipe__gate_stripe *s)
{
    atomic_fetch_sub_explicit(&s->word, 1, memory_order_release);
}

/* Closes every stripe and waits until no writer is inside: the caller then has the counters
 * to itself until zkpipe__gate_open. Closers exclude each other through stripe 0. */
void zkpipe__gate_close(zkpipe_acct *acct);
void zkpipe__gate_open(zkpipe_acct *acct);

/* trace.c: whether a watching trace's sample is due now (then the caller, once out of its
 * write section, must call zkpipe__trace_sample_due), and the sample itself. */
int zkpipe__trace_due(struct zkpipe_trace *trace);
void zkpipe__trace_sample_due(struct zkpipe_trace *trace);

/* Inside a write section: the watching trace whose sample is due, or NULL. */
static inline struct zkpipe_trace *zkpipe__watch_check(zkpipe_acct *acct)
{
    struct zkpipe_trace *t = atomic_load_explicit(&acct->watcher, memory_order_acquire);
    return t != NULL && zkpipe__trace_due(t) ? t : NULL;
}

/* Leaves a write section, then takes the sample `due` asked for. */
static inline void zkpipe__gate_leave_watched(zkpipe__gate_stripe *s, struct zkpipe_trace *due)
{
    zkpipe__gate_leave(s);
    if (due != NULL)
        zkpipe__trace_sample_due(due);
}

/* Raises *peak to at least v. */
static inline void zkpipe__raise_peak(_Atomic uint64_t *peak, uint64_t v)
{
    uint64_t cur = atomic_load_explicit(peak, memory_order_relaxed);
    while (cur < v && !atomic_compare_exchange_weak_explicit(peak, &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed)) {
    }
}

#endif
