/* The two kinds of engine threads and a partition's end.
 *
 * A synthesis worker takes a partition, acquires its permit (and budget bytes), opens its
 * ledger, has the partition's operations synthesize it and sends the item through the channel;
 * a prover worker receives it, has the operations prove it and ends it. Every partition ends
 * exactly once, in zkpipe__item_end, whatever path it took. */
#include <stdio.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "engine/reentry.h"

static void raise_max(atomic_uint_fast64_t *max, uint64_t v)
{
    uint_fast64_t cur = atomic_load(max);
    while (v > cur && !atomic_compare_exchange_weak(max, &cur, v))
        ;
}

static int canceled(zkpipe_engine *e, const zkpipe__item *it)
{
    return atomic_load(&e->canceling) || atomic_load(&it->job->canceled);
}

/* Records the time `it` entered `stage` and, with a trace, samples the registry. */
static void mark(zkpipe_engine *e, zkpipe__item *it, uint32_t stage)
{
    it->at[stage] = zkpipe_trace_now();
    zkpipe__observe_stage(e->observe, it, stage, it->at[stage]);
    if (e->config.trace != NULL)
        zkpipe_trace_counters(e->config.trace, e->acct);
}

/* What a stage operation is given for `it`; `ledger` NULL once it is closed. */
static zkpipe_stage_call call_for(zkpipe_engine *e, zkpipe__item *it, zkpipe_pool *pool,
                                  unsigned worker)
{
    zkpipe_partition_result *r = &it->job->results[it->index];
    zkpipe_stage_call call;
    memset(&call, 0, sizeof call);
    call.ctx = it->ctx;
    call.partition = it->index;
    call.job = it->job->id;
    call.ledger = zkpipe_ledger_is_open(&it->ledger) ? &it->ledger : NULL;
    call.pool = pool;
    call.backend = e->config.backend;
    call.prover_threads = e->config.prover_threads;
    call.worker = worker;
    call.allocator = &e->allocator;
    call.detail = r->detail;
    call.detail_cap = sizeof r->detail;
    call.key = it->key.pinned ? it->key.handle : NULL;
    return call;
}

/* Counts the item into the waist and opens its ledger in SYNTH. */
static zkpipe_status enter(zkpipe_engine *e, zkpipe__item *it)
{
    /* Counted before the ledger opens, so the count is never below the registry's. */
    raise_max(&e->peak_in_flight, atomic_fetch_add(&e->in_flight, 1) + 1);
    it->in_waist = 1;
    zkpipe_status st = zkpipe_ledger_open(&it->ledger, e->acct, ZKPIPE_STAGE_SYNTH);
    if (st != ZKPIPE_OK)
        return st;
    zkpipe_ledger_set_hook(&it->ledger, zkpipe__reservation_follow, &it->res);
    if (e->config.trace != NULL) {
        char name[64];
        snprintf(name, sizeof name, "job %llu partition %zu", (unsigned long long)it->job->id,
                 it->index);
        zkpipe_trace_track_name(e->config.trace, it->track, name);
    }
    mark(e, it, ZKPIPE_STAGE_SYNTH);
    return ZKPIPE_OK;
}

/* The partition's estimate, for the budget: a partition larger than the whole budget could
 * never be admitted. */
static zkpipe_status estimate(zkpipe_engine *e, zkpipe__item *it, unsigned worker, uint64_t *bytes)
{
    *bytes = 0;
    if (it->ops.estimate == NULL)
        return ZKPIPE_OK;
    zkpipe_stage_call call = call_for(e, it, NULL, worker);
    call.ledger = NULL;
    zkpipe__reentry_call(call.detail, call.detail_cap);
    zkpipe_status st = it->ops.estimate(&call, bytes);
    zkpipe__reentry_call(NULL, 0);
    if (st == ZKPIPE_OK && e->budget != NULL && *bytes > e->config.budget_bytes) {
        zkpipe_partition_result *r = &it->job->results[it->index];
        snprintf(r->detail, sizeof r->detail,
                 "the partition's estimate of %llu bytes exceeds the budget of %llu bytes",
                 (unsigned long long)*bytes, (unsigned long long)e->config.budget_bytes);
        st = ZKPIPE_ETOOBIG;
    }
    return st;
}

static void synth_one(zkpipe_engine *e, zkpipe__item *it, unsigned worker)
{
    const int early = e->config.release == ZKPIPE_RELEASE_EARLY;
    uint64_t bytes;
    zkpipe_status st = estimate(e, it, worker, &bytes);
    if (st == ZKPIPE_OK && canceled(e, it))
        st = ZKPIPE_ECANCELED;
    if (st == ZKPIPE_OK)
        st = zkpipe_sem_acquire(e->permits, &it->permit, 1);
    if (st == ZKPIPE_OK) {
        it->source = it->ops.source != NULL ? it->ops.source(it->ctx, it->index) : NULL;
        zkpipe__plan plan =
            zkpipe__admission_plan(&e->adm, it->table, it->source, bytes, e->config.budget_bytes);
        zkpipe_partition_result *r = &it->job->results[it->index];
        it->key = (zkpipe__key_claim){
            e->config.keys, it->ops.key != NULL ? it->ops.key(it->ctx, it->index) : NULL,
            NULL,           0,
            r->detail,      sizeof r->detail};
        st = zkpipe__reservation_take(&it->res, e->budget, &e->adm, it->table, it->source, plan,
                                      e->config.reservation == ZKPIPE_RESERVATION_FOLLOW, &it->key);
    }
    if (st == ZKPIPE_OK)
        st = enter(e, it);
    if (st == ZKPIPE_OK) {
        zkpipe_stage_call call = call_for(e, it, NULL, worker);
        void *payload = NULL;
        zkpipe__reentry_call(call.detail, call.detail_cap);
        st = it->ops.synthesize(&call, &payload);
        zkpipe__reentry_call(NULL, 0);
        if (st == ZKPIPE_OK)
            it->payload = payload;
    }
    if (st == ZKPIPE_OK)
        st = zkpipe_ledger_move(&it->ledger, ZKPIPE_STAGE_PENDING);
    if (st == ZKPIPE_OK) {
        mark(e, it, ZKPIPE_STAGE_PENDING);
        zkpipe__unaccounted_sample(&e->unaccounted); /* the item's buffers are all there */
    }
    if (st == ZKPIPE_OK && canceled(e, it))
        st = ZKPIPE_ECANCELED;
    if (st == ZKPIPE_OK && early)
        zkpipe_permit_release(&it->permit); /* the experiment: nothing bounds pending now */
    if (st == ZKPIPE_OK)
        st = zkpipe_chan_send(e->ch, it, early ? NULL : &it->permit);
    if (st == ZKPIPE_OK) {
        /* The item belongs to the channel now: it may already be proved and gone. */
        if (e->config.trace != NULL)
            zkpipe_trace_counters(e->config.trace, e->acct);
        return;
    }
    /* The semaphores and the channel close only when the engine is destroyed. */
    zkpipe__item_end(e, it, st == ZKPIPE_ECLOSED ? ZKPIPE_ECANCELED : st);
}

void *zkpipe__synth_worker(void *arg)
{
    zkpipe_engine *e = arg;
    unsigned worker = atomic_fetch_add(&e->synth_taken, 1);
    zkpipe__reentry_enter(e);
    zkpipe__item *it;
    while ((it = zkpipe__engine_take(e)) != NULL)
        synth_one(e, it, worker);
    zkpipe__engine_worker_exit(e);
    return NULL;
}

/* Before proving `it`: 0 when it was cancelled (and has ended), else 1 with its payload taken
 * (the operation consumes it) and its reservation allowed to overdraw. */
static int prove_begin(zkpipe_engine *e, zkpipe__item *it, void **payload)
{
    if (e->config.trace != NULL)
        zkpipe_trace_counters(e->config.trace, e->acct);
    if (canceled(e, it)) {
        zkpipe__item_end(e, it, ZKPIPE_ECANCELED);
        return 0;
    }
    if (e->prove_hook != NULL)
        e->prove_hook(e->prove_hook_ctx);
    it->res.late = 1; /* nothing but the budget can block it now: it may overdraw */
    *payload = it->payload;
    it->payload = NULL;
    return 1;
}

/* After proving `it` with status `st`: every partition that was proved passes FINALIZE,
 * whether the operation moved it there or not; then it ends. */
static void prove_end(zkpipe_engine *e, zkpipe__item *it, zkpipe_status st)
{
    if (st == ZKPIPE_OK && zkpipe_ledger_stage(&it->ledger) != ZKPIPE_STAGE_FINALIZE)
        st = zkpipe_ledger_move(&it->ledger, ZKPIPE_STAGE_FINALIZE);
    if (st == ZKPIPE_OK)
        mark(e, it, ZKPIPE_STAGE_FINALIZE);
    zkpipe__item_end(e, it, st);
}

static void prove_one(zkpipe_engine *e, zkpipe__item *it, zkpipe_pool *pool, unsigned worker)
{
    void *payload;
    if (!prove_begin(e, it, &payload))
        return;
    zkpipe_partition_result *r = &it->job->results[it->index];
    zkpipe_stage_call call = call_for(e, it, pool, worker);
    zkpipe__reentry_call(call.detail, call.detail_cap);
    zkpipe_status st = it->ops.prove(&call, payload, r);
    zkpipe__reentry_call(NULL, 0);
    prove_end(e, it, st);
}

/* Proves the `n` items `b` holds: those of the first one's table together through its
 * prove_batch (when it has one), then each other one alone, in the order received. */
static void prove_held(zkpipe_engine *e, zkpipe__batch *b, size_t n, zkpipe_pool *pool,
                       unsigned worker)
{
    const zkpipe__item *first = b->held[0];
    void (*batch)(const zkpipe_stage_call *, void *const *, zkpipe_partition_result *const *,
                  zkpipe_status *, size_t) = first->ops.prove_batch;
    const zkpipe_stage_ops *table = first->table;
    size_t k = 0;
    for (size_t i = 0; batch != NULL && i < n; i++) {
        zkpipe__item *it = b->held[i];
        if (it->table != table)
            continue;
        b->held[i] = NULL;
        if (!prove_begin(e, it, &b->payloads[k]))
            continue;
        b->items[k] = it;
        b->calls[k] = call_for(e, it, pool, worker);
        b->outs[k] = &it->job->results[it->index];
        b->statuses[k] = ZKPIPE_ESTATE; /* what an operation that says nothing leaves */
        k++;
    }
    if (k > 0) {
        /* A refused call's line goes to the first partition's detail. */
        zkpipe__reentry_call(b->calls[0].detail, b->calls[0].detail_cap);
        batch(b->calls, b->payloads, b->outs, b->statuses, k);
        zkpipe__reentry_call(NULL, 0);
        for (size_t i = 0; i < k; i++)
            prove_end(e, b->items[i], b->statuses[i]);
    }
    for (size_t i = 0; i < n; i++)
        if (b->held[i] != NULL)
            prove_one(e, b->held[i], pool, worker);
}

/* 1 when partitions wait for a synthesis worker or a permit. */
static int work_waiting(zkpipe_engine *e)
{
    if (zkpipe_sem_waiters(e->permits) > 0)
        return 1;
    pthread_mutex_lock(&e->lock);
    int queued = e->head != NULL;
    pthread_mutex_unlock(&e->lock);
    return queued;
}

/* ZKPIPE_CONCURRENCY_AUTO: what this prover sees of the waist as it asks for work, for the
 * controller (autotune.h): the items ready, and whether synthesis is held back by the limit:
 * every permit it lends is taken while partitions wait for one, and nothing waits for the
 * budget (which no permit helps). A synthesis worker that has just delivered and not yet asked
 * for its next permit counts as held back too: the partitions are there. */
static void tune(zkpipe_engine *e)
{
    zkpipe_chan_counters ch;
    if (zkpipe_chan_stats(e->ch, &ch) != ZKPIPE_OK)
        return;
    uint64_t ready = ch.queued + ch.waiting_senders;
    int held_back = ready == 0 && zkpipe_sem_available(e->permits) == 0 &&
                    zkpipe_sem_waiters(e->budget) == 0 && work_waiting(e);
    uint64_t limit = zkpipe__autotune_observe(&e->tune, ready, held_back);
    if (limit > 0)
        zkpipe_sem_set_limit(e->permits, limit);
}

void *zkpipe__prove_worker(void *arg)
{
    zkpipe_engine *e = arg;
    unsigned worker = atomic_fetch_add(&e->pools_taken, 1);
    zkpipe_pool *pool = e->pools[worker];
    zkpipe__batch *b = &e->batches[worker];
    zkpipe__reentry_enter(e);
    void *v;
    for (;;) {
        if (e->autotuning)
            tune(e);
        uint64_t t0 = zkpipe_trace_now();
        if (zkpipe_chan_recv(e->ch, &v) != ZKPIPE_OK)
            break;
        atomic_fetch_add_explicit(&e->prover_idle_ns, zkpipe_trace_now() - t0,
                                  memory_order_relaxed);
        /* Items of operations that prove in batches take what else is ready, up to max_batch
         * held at once (each already in PROVING): never waiting, so a lone item goes alone. */
        size_t n = 0;
        b->held[n++] = v;
        const zkpipe__item *first = v;
        while (first->ops.prove_batch != NULL && n < e->config.max_batch &&
               zkpipe_chan_try_recv(e->ch, &v) == ZKPIPE_OK)
            b->held[n++] = v;
        prove_held(e, b, n, pool, worker);
    }
    zkpipe__engine_worker_exit(e);
    return NULL;
}

static double seconds(uint64_t from_ns, uint64_t to_ns)
{
    return from_ns != 0 && to_ns > from_ns ? 1e-9 * (double)(to_ns - from_ns) : 0.0;
}

/* One span per stage the partition entered, each ending where the next one began. */
static void trace_spans(zkpipe_engine *e, const zkpipe__item *it)
{
    for (uint32_t s = 0; s < ZKPIPE_STAGE_BUILTIN_COUNT; s++) {
        if (it->at[s] == 0)
            continue;
        uint32_t next = s + 1;
        while (it->at[next] == 0)
            next++;
        zkpipe_trace_span(e->config.trace, it->track, zkpipe_acct_stage_name(e->acct, s), it->at[s],
                          it->at[next]);
    }
}

void zkpipe__item_end(zkpipe_engine *e, zkpipe__item *it, zkpipe_status status)
{
    zkpipe_job *job = it->job;
    zkpipe_partition_result *r = &job->results[it->index];
    if (it->payload != NULL) {
        zkpipe_stage_call call = call_for(e, it, NULL, 0);
        zkpipe__reentry_call(call.detail, call.detail_cap);
        it->ops.discard(&call, it->payload);
        zkpipe__reentry_call(NULL, 0);
        it->payload = NULL;
    }
    if (it->in_waist) {
        atomic_fetch_sub(&e->in_flight, 1);
        it->in_waist = 0;
    }
    if (it->proving) {
        atomic_fetch_sub(&e->proving, 1);
        it->proving = 0;
    }
    int opened = zkpipe_ledger_is_open(&it->ledger);
    zkpipe_ledger_close(&it->ledger);
    if (opened)
        zkpipe__admission_learn(&e->adm, it->table, it->source, it->res.peak, it->res.regrowth,
                                it->res.over, status == ZKPIPE_OK);
    if (zkpipe_permit_is_held(&it->permit))
        zkpipe_permit_release(&it->permit);
    zkpipe__reservation_end(&it->res);
    if (it->key.pinned) {
        zkpipe_key_unpin(it->key.key);
        it->key.pinned = 0;
    }
    if (opened)
        zkpipe__unaccounted_sample(&e->unaccounted);
    const uint64_t *at = it->at;
    it->at[ZKPIPE__ENGINE_MARKS - 1] = zkpipe_trace_now();
    r->status = status;
    if (status == ZKPIPE_OK)
        r->detail[0] = '\0';
    else if (r->detail[0] == '\0')
        snprintf(r->detail, sizeof r->detail, "%s", zkpipe_status_str(status));
    r->synth_s = seconds(at[ZKPIPE_STAGE_SYNTH], at[ZKPIPE_STAGE_PENDING]);
    r->wait_s = seconds(at[ZKPIPE_STAGE_PENDING], at[ZKPIPE_STAGE_PROVING]);
    r->prove_s = seconds(at[ZKPIPE_STAGE_PROVING], at[ZKPIPE__ENGINE_MARKS - 1]);
    zkpipe__observe_end(e->observe, it, status, at[ZKPIPE__ENGINE_MARKS - 1]);
    if (e->config.trace != NULL) {
        trace_spans(e, it);
        zkpipe_trace_counters(e->config.trace, e->acct);
    }
    atomic_fetch_add(status == ZKPIPE_OK          ? &e->proved
                     : status == ZKPIPE_ECANCELED ? &e->canceled
                                                  : &e->failed,
                     1);
    if (atomic_fetch_sub(&job->remaining, 1) == 1) {
        zkpipe__job_finish(job);
        zkpipe__engine_job_done(e);
    }
}

zkpipe_ledger *zkpipe__item_ledger(void *item, void *ctx)
{
    (void)ctx;
    return &((zkpipe__item *)item)->ledger;
}

void zkpipe__item_on_send(void *item, void *ctx)
{
    zkpipe_engine *e = ctx;
    zkpipe__item *it = item;
    it->at[ZKPIPE_STAGE_QUEUED] = zkpipe_trace_now();
    zkpipe__observe_stage(e->observe, it, ZKPIPE_STAGE_QUEUED, it->at[ZKPIPE_STAGE_QUEUED]);
}

/* Under the channel's lock, right after the ledger left QUEUED for PROVING: the engine's counts
 * change at the same instant as the registry's. */
void zkpipe__item_on_recv(void *item, void *ctx)
{
    zkpipe_engine *e = ctx;
    zkpipe__item *it = item;
    it->at[ZKPIPE_STAGE_PROVING] = zkpipe_trace_now();
    zkpipe__observe_stage(e->observe, it, ZKPIPE_STAGE_PROVING, it->at[ZKPIPE_STAGE_PROVING]);
    if (it->in_waist) {
        atomic_fetch_sub(&e->in_flight, 1);
        it->in_waist = 0;
    }
    atomic_fetch_add(&e->proving, 1);
    it->proving = 1;
}

void zkpipe__item_drop(void *item, void *ctx)
{
    zkpipe__item_end(ctx, item, ZKPIPE_ECANCELED);
}
