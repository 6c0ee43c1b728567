/* The two kinds of engine threads and a partition's end.
 *
 * A synthesis worker takes a partition, acquires its permit (and budget bytes), synthesizes it
 * into its ledger and sends it through the channel; a prover worker receives it, proves it and
 * ends it. Every partition ends exactly once, in zkpipe__item_end, whatever path it took. */
#include <stdio.h>

#include "acct/charged_alloc.h"
#include "core/alloc_internal.h"
#include "engine/engine_internal.h"
#include "groth16/groth16_internal.h"

/* Bytes of one scalar in h, which the prover charges before releasing a, b and c. */
#define H_ELEMENT_BYTES 32

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
    if (e->config.trace != NULL)
        zkpipe_trace_counters(e->config.trace, e->acct);
}

/* What the partition's ledger holds at most, its circuit aside: synthesis's buffers
 * (*synth), then h beside them before a, b and c go, and the prover's workspace (*total). */
static zkpipe_status partition_bytes(const zkpipe_engine *e, const zkpipe_partition *p,
                                     uint64_t *synth, uint64_t *total)
{
    const zkpipe_groth16_pk *pk = p->pk;
    uint64_t n = (uint64_t)1 << pk->log_n;
    uint64_t workspace = pk->ops->workspace_bytes(pk, e->config.prover_threads);
    *synth = p->synth_bytes;
    if (*synth == 0) {
        zkpipe_status st = zkpipe_synth_estimate(
            synth, NULL, pk->ops->curve, (size_t)n - pk->num_inputs, pk->num_inputs, pk->num_aux);
        if (st != ZKPIPE_OK)
            return st;
    }
    if (*synth > UINT64_MAX - H_ELEMENT_BYTES * n ||
        workspace > UINT64_MAX - H_ELEMENT_BYTES * n - *synth)
        return ZKPIPE_EOVERFLOW;
    *total = *synth + H_ELEMENT_BYTES * n + workspace;
    return ZKPIPE_OK;
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
    if (e->config.trace != NULL) {
        char name[64];
        snprintf(name, sizeof name, "job %llu partition %zu", (unsigned long long)it->job->id,
                 it->index);
        zkpipe_trace_track_name(e->config.trace, it->track, name);
    }
    mark(e, it, ZKPIPE_STAGE_SYNTH);
    return ZKPIPE_OK;
}

/* Builds the partition's circuit and synthesizes it into it->res, both charged to its
 * ledger: the circuit (kind CIRCUIT) while it exists, the buffers until they are freed. */
static zkpipe_status synthesize(zkpipe_engine *e, zkpipe__item *it, uint64_t synth_bytes)
{
    const zkpipe_partition *p = &it->job->parts[it->index];
    zkpipe__charged charged = {e->allocator, &it->ledger, ZKPIPE_KIND_CIRCUIT};
    zkpipe_allocator circuit_allocator = zkpipe__charged_allocator(&charged);
    zkpipe_cs *cs;
    zkpipe_status st =
        zkpipe_cs_create(&cs, p->pk->ops->curve, ZKPIPE_CS_WITNESS, &circuit_allocator);
    if (st != ZKPIPE_OK)
        return st;
    st = p->build(cs, p->ctx, it->index);
    uint64_t need;
    if (st == ZKPIPE_OK)
        st = zkpipe_cs_synth_bytes(cs, &need, NULL);
    /* More than the budget was asked for: synthesizing could overrun it. */
    if (st == ZKPIPE_OK && need > synth_bytes)
        st = ZKPIPE_EMISMATCH;
    if (st == ZKPIPE_OK)
        st = zkpipe__synth_with(&it->res, cs, NULL, &it->ledger, &e->allocator);
    zkpipe_cs_destroy(cs);
    return st;
}

static void synth_one(zkpipe_engine *e, zkpipe__item *it)
{
    const int early = e->config.release == ZKPIPE_RELEASE_EARLY;
    uint64_t synth_bytes, total;
    zkpipe_status st = partition_bytes(e, &it->job->parts[it->index], &synth_bytes, &total);
    if (st == ZKPIPE_OK && canceled(e, it))
        st = ZKPIPE_ECANCELED;
    if (st == ZKPIPE_OK)
        st = zkpipe_sem_acquire(e->permits, &it->permit, 1);
    if (st == ZKPIPE_OK && e->budget != NULL)
        st = zkpipe_sem_acquire(e->budget, &it->bytes, total);
    if (st == ZKPIPE_OK)
        st = enter(e, it);
    if (st == ZKPIPE_OK)
        st = synthesize(e, it, synth_bytes);
    if (st == ZKPIPE_OK)
        st = zkpipe_ledger_move(&it->ledger, ZKPIPE_STAGE_PENDING);
    if (st == ZKPIPE_OK)
        mark(e, it, ZKPIPE_STAGE_PENDING);
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
    zkpipe__item *it;
    while ((it = zkpipe__engine_take(e)) != NULL)
        synth_one(e, it);
    return NULL;
}

static void prove_one(zkpipe_engine *e, zkpipe__item *it, zkpipe_pool *pool)
{
    if (e->config.trace != NULL)
        zkpipe_trace_counters(e->config.trace, e->acct);
    if (canceled(e, it)) {
        zkpipe__item_end(e, it, ZKPIPE_ECANCELED);
        return;
    }
    if (e->prove_hook != NULL)
        e->prove_hook(e->prove_hook_ctx);
    const zkpipe_partition *p = &it->job->parts[it->index];
    zkpipe_partition_result *r = &it->job->results[it->index];
    uint64_t rand_r[4], rand_s[4];
    zkpipe_status st = zkpipe__g16_random_scalar(rand_r, p->pk->ops->curve);
    if (st == ZKPIPE_OK)
        st = zkpipe__g16_random_scalar(rand_s, p->pk->ops->curve);
    if (st == ZKPIPE_OK)
        st = zkpipe__groth16_prove_synth(&r->proof, &r->first_failing, NULL, p->pk, &it->res,
                                         rand_r, rand_s, pool, e->backend);
    if (st == ZKPIPE_OK)
        mark(e, it, ZKPIPE_STAGE_FINALIZE);
    zkpipe__item_end(e, it, st);
}

void *zkpipe__prove_worker(void *arg)
{
    zkpipe_engine *e = arg;
    zkpipe_pool *pool = e->pools[atomic_fetch_add(&e->pools_taken, 1)];
    void *v;
    while (zkpipe_chan_recv(e->ch, &v) == ZKPIPE_OK)
        prove_one(e, v, pool);
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
    zkpipe__synth_free(&it->res);
    if (it->in_waist) {
        atomic_fetch_sub(&e->in_flight, 1);
        it->in_waist = 0;
    }
    zkpipe_ledger_close(&it->ledger);
    if (zkpipe_permit_is_held(&it->permit))
        zkpipe_permit_release(&it->permit);
    if (zkpipe_permit_is_held(&it->bytes))
        zkpipe_permit_release(&it->bytes);
    const uint64_t *at = it->at;
    it->at[ZKPIPE__ENGINE_MARKS - 1] = zkpipe_trace_now();
    r->status = status;
    r->synth_s = seconds(at[ZKPIPE_STAGE_SYNTH], at[ZKPIPE_STAGE_PENDING]);
    r->wait_s = seconds(at[ZKPIPE_STAGE_PENDING], at[ZKPIPE_STAGE_PROVING]);
    r->prove_s = seconds(at[ZKPIPE_STAGE_PROVING], at[ZKPIPE__ENGINE_MARKS - 1]);
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
    (void)ctx;
    ((zkpipe__item *)item)->at[ZKPIPE_STAGE_QUEUED] = zkpipe_trace_now();
}

/* Under the channel's lock, right after the ledger left QUEUED: the engine's count drops at
 * the same instant as the registry's. */
void zkpipe__item_on_recv(void *item, void *ctx)
{
    zkpipe_engine *e = ctx;
    zkpipe__item *it = item;
    it->at[ZKPIPE_STAGE_PROVING] = zkpipe_trace_now();
    if (it->in_waist) {
        atomic_fetch_sub(&e->in_flight, 1);
        it->in_waist = 0;
    }
}

void zkpipe__item_drop(void *item, void *ctx)
{
    zkpipe__item_end(ctx, item, ZKPIPE_ECANCELED);
}
