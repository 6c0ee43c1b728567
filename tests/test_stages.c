/* The engine over stage operations (zkpipe/engine.h): a host's own operations, with counted
 * calls and buffers, through conservation, the waist's bound under a concurrent reader, errors,
 * cancel and destroy with items inside, allocation failures and the table's versioning; then
 * the built-in zkey operations (zkpipe/stages.h) on every interop fixture of both curves,
 * against zkpipe-prove's proof for the same r and s and snarkjs's, a bad witness among good
 * ones, and an .r1cs loaded as a zkpipe circuit proved with the zkey's key. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fail_alloc.h"
#include "groth16/prove.h"
#include "fixture_path.h"
#include "nap.h"
#include "read_file.h"
#include "zkpipe/zkpipe.h"

#define PATIENCE_MS 60000
/* The first published stage operations ended with discard. */
#define OPS_MIN_SIZE (offsetof(zkpipe_stage_ops, discard) + sizeof(void (*)(void)))

/* ---- a host's own operations ---- */

/* What the host's operations share: sizes, failures to inject, a gate that holds provers,
 * counts of every call and buffer, and what the operations found wrong. They run on the
 * engine's threads, where a cmocka assertion cannot fail the test (it jumps back into the
 * test's own thread), so they record the first broken expectation and host_free asserts that
 * there was none. */
typedef struct host {
    size_t abc_bytes, aux_bytes;
    long fail_synth_at, fail_prove_at; /* partition index, or -1 */
    pthread_mutex_t lock;
    pthread_cond_t opened;
    int shut;
    atomic_long synths, proofs, discards, results_freed, live_buffers, broken;
    char first_broken[160]; /* under lock */
} host;

/* In an operation: records `what` when `cond` is false (see host). */
#define HOST_EXPECT(h, cond) host_expect((h), (cond) != 0, #cond, __LINE__)

static void host_expect(host *h, int ok, const char *what, int line)
{
    if (ok)
        return;
    pthread_mutex_lock(&h->lock);
    if (atomic_fetch_add(&h->broken, 1) == 0)
        snprintf(h->first_broken, sizeof h->first_broken, "line %d: %s", line, what);
    pthread_mutex_unlock(&h->lock);
}

typedef struct host_item {
    void *abc, *aux;
    size_t partition;
} host_item;

static void host_init(host *h, size_t abc, size_t aux)
{
    memset(h, 0, sizeof *h);
    h->abc_bytes = abc;
    h->aux_bytes = aux;
    h->fail_synth_at = h->fail_prove_at = -1;
    assert_int_equal(pthread_mutex_init(&h->lock, NULL), 0);
    assert_int_equal(pthread_cond_init(&h->opened, NULL), 0);
}

static void host_free(host *h)
{
    if (atomic_load(&h->broken) != 0)
        fail_msg("%ld broken expectations in the host's operations, first at %s",
                 atomic_load(&h->broken), h->first_broken);
    pthread_mutex_destroy(&h->lock);
    pthread_cond_destroy(&h->opened);
}

static void gate_open(host *h)
{
    pthread_mutex_lock(&h->lock);
    h->shut = 0;
    pthread_cond_broadcast(&h->opened);
    pthread_mutex_unlock(&h->lock);
}

static void gate_pass(host *h)
{
    pthread_mutex_lock(&h->lock);
    while (h->shut)
        pthread_cond_wait(&h->opened, &h->lock);
    pthread_mutex_unlock(&h->lock);
}

/* A buffer of `bytes` from the engine's allocator, charged as `kind`. */
static void *take(const zkpipe_stage_call *call, host *h, uint32_t kind, size_t bytes)
{
    void *p = call->allocator->alloc(call->allocator->ctx, bytes, 64);
    if (p == NULL)
        return NULL;
    if (zkpipe_ledger_charge(call->ledger, kind, bytes) != ZKPIPE_OK) {
        call->allocator->free(call->allocator->ctx, p);
        return NULL;
    }
    memset(p, (int)call->partition, bytes);
    atomic_fetch_add(&h->live_buffers, 1);
    return p;
}

static void give(const zkpipe_stage_call *call, host *h, uint32_t kind, void **p, size_t bytes)
{
    if (*p == NULL)
        return;
    if (call->ledger != NULL)
        zkpipe_ledger_release(call->ledger, kind, bytes);
    call->allocator->free(call->allocator->ctx, *p);
    *p = NULL;
    atomic_fetch_sub(&h->live_buffers, 1);
}

static void item_free(const zkpipe_stage_call *call, host *h, host_item *it)
{
    give(call, h, ZKPIPE_KIND_ABC, &it->abc, h->abc_bytes);
    give(call, h, ZKPIPE_KIND_AUX, &it->aux, h->aux_bytes);
    call->allocator->free(call->allocator->ctx, it);
}

static zkpipe_status h_estimate(const zkpipe_stage_call *call, uint64_t *bytes)
{
    const host *h = call->ctx;
    *bytes = h->abc_bytes + h->aux_bytes;
    return ZKPIPE_OK;
}

static zkpipe_status h_synthesize(const zkpipe_stage_call *call, void **out)
{
    host *h = call->ctx;
    atomic_fetch_add(&h->synths, 1);
    HOST_EXPECT(h, call->ledger != NULL && zkpipe_ledger_stage(call->ledger) == ZKPIPE_STAGE_SYNTH);
    HOST_EXPECT(h, call->pool == NULL);
    if ((long)call->partition == h->fail_synth_at) {
        snprintf(call->detail, call->detail_cap, "partition %zu refused", call->partition);
        return ZKPIPE_EIO;
    }
    host_item *it = call->allocator->alloc(call->allocator->ctx, sizeof *it, 64);
    if (it == NULL)
        return ZKPIPE_ENOMEM;
    memset(it, 0, sizeof *it);
    it->partition = call->partition;
    it->abc = take(call, h, ZKPIPE_KIND_ABC, h->abc_bytes);
    it->aux = it->abc != NULL ? take(call, h, ZKPIPE_KIND_AUX, h->aux_bytes) : NULL;
    if (it->aux == NULL) {
        item_free(call, h, it);
        return ZKPIPE_ENOMEM;
    }
    *out = it;
    return ZKPIPE_OK;
}

static zkpipe_status h_prove(const zkpipe_stage_call *call, void *item,
                             zkpipe_partition_result *out)
{
    host *h = call->ctx;
    host_item *it = item;
    atomic_fetch_add(&h->proofs, 1);
    HOST_EXPECT(h, zkpipe_ledger_stage(call->ledger) == ZKPIPE_STAGE_PROVING);
    HOST_EXPECT(h, call->pool != NULL);
    HOST_EXPECT(h, it->partition == call->partition);
    gate_pass(h);
    give(call, h, ZKPIPE_KIND_ABC, &it->abc, h->abc_bytes);
    zkpipe_status st = ZKPIPE_OK;
    if ((long)call->partition == h->fail_prove_at) {
        snprintf(call->detail, call->detail_cap, "partition %zu could not be proved",
                 call->partition);
        st = ZKPIPE_EDEVICE;
    } else {
        size_t *r = malloc(sizeof *r);
        if (r == NULL) {
            st = ZKPIPE_ENOMEM;
        } else {
            *r = call->partition;
            out->host = r;
        }
    }
    item_free(call, h, it);
    return st;
}

static void h_discard(const zkpipe_stage_call *call, void *item)
{
    host *h = call->ctx;
    atomic_fetch_add(&h->discards, 1);
    item_free(call, h, item);
}

static void h_result_free(void *ctx, size_t partition, void *result)
{
    host *h = ctx;
    HOST_EXPECT(h, *(size_t *)result == partition);
    free(result);
    atomic_fetch_add(&h->results_freed, 1);
}

static const zkpipe_stage_ops host_ops = {
    .struct_size = sizeof(zkpipe_stage_ops),
    .name = "test host",
    .estimate = h_estimate,
    .synthesize = h_synthesize,
    .prove = h_prove,
    .discard = h_discard,
    .result_free = h_result_free,
};

static zkpipe_engine_config config(zkpipe_acct *acct)
{
    zkpipe_engine_config cfg;
    zkpipe_engine_config_init(&cfg);
    cfg.acct = acct;
    cfg.backend = ZKPIPE_BACKEND_CPU;
    return cfg;
}

static void fill(zkpipe_partition *parts, size_t n, host *h)
{
    for (size_t i = 0; i < n; i++)
        parts[i] = (zkpipe_partition){&host_ops, h, {0, 0}};
}

static void assert_drained(zkpipe_acct *acct)
{
    zkpipe_snapshot s;
    assert_int_equal(zkpipe_acct_snapshot(acct, &s), ZKPIPE_OK);
    assert_int_equal(s.live_items, 0);
    assert_int_equal(s.live_bytes, 0);
}

/* Every partition synthesized once and proved once; each ledger passes PROVING and FINALIZE
 * exactly once; the results' host pointers come back and are freed with the job. */
static void host_partitions_are_conserved(void **state)
{
    (void)state;
    enum { N = 24 };
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    host h;
    host_init(&h, 4096, 1024);
    zkpipe_engine_config cfg = config(acct);
    cfg.synth_workers = 3;
    cfg.prover_workers = 2;
    cfg.budget_bytes = 3 * (4096 + 1024);
    zkpipe_engine *e;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_OK);
    zkpipe_partition parts[N];
    fill(parts, N, &h);
    zkpipe_job *job;
    assert_int_equal(zkpipe_engine_submit(e, &job, parts, N, NULL, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
    for (size_t i = 0; i < N; i++) {
        zkpipe_partition_result r;
        assert_int_equal(zkpipe_job_result(job, i, &r), ZKPIPE_OK);
        assert_int_equal(r.status, ZKPIPE_OK);
        assert_non_null(r.host);
        assert_int_equal(*(size_t *)r.host, i);
        assert_string_equal(r.detail, "");
    }
    zkpipe_snapshot s;
    assert_int_equal(zkpipe_acct_snapshot(acct, &s), ZKPIPE_OK);
    for (uint32_t st = ZKPIPE_STAGE_SYNTH; st <= ZKPIPE_STAGE_FINALIZE; st++)
        assert_int_equal(s.stage[st].entered, N);
    assert_true(s.peak_bytes <= cfg.budget_bytes);
    assert_int_equal(s.stage[ZKPIPE_STAGE_PROVING].kind[ZKPIPE_KIND_ABC].peak_buffers > 0, 1);
    zkpipe_job_destroy(job);
    assert_int_equal(atomic_load(&h.results_freed), N);
    assert_int_equal(atomic_load(&h.synths), N);
    assert_int_equal(atomic_load(&h.proofs), N);
    assert_int_equal(atomic_load(&h.discards), 0);
    assert_int_equal(atomic_load(&h.live_buffers), 0);
    zkpipe_engine_counters n;
    assert_int_equal(zkpipe_engine_stats(e, &n), ZKPIPE_OK);
    assert_int_equal(n.proved, N);
    assert_int_equal(n.in_flight + n.proving + n.failed + n.canceled, 0);
    assert_int_equal(n.budget_bytes, cfg.budget_bytes);
    assert_int_equal(n.channel_capacity, cfg.capacity);
    /* A sender gives its permit back just after the channel took its item: a prover may end
     * the job before that last release. */
    for (long waited = 0; n.permits_available != cfg.permits && waited < PATIENCE_MS; waited++) {
        nap_ms(1);
        assert_int_equal(zkpipe_engine_stats(e, &n), ZKPIPE_OK);
    }
    assert_int_equal(n.permits_available, cfg.permits);
    assert_int_equal(n.budget_available, cfg.budget_bytes);
    zkpipe_engine_destroy(e);
    assert_drained(acct);
    zkpipe_acct_destroy(acct);
    host_free(&h);
}

/* A reader checking invariant 2 on every snapshot while provers are held at the gate. It runs
 * on a thread of its own, so it counts what it finds wrong (see host) and the test asserts on
 * the counts after joining it. */
typedef struct reader {
    zkpipe_acct *acct;
    uint64_t bound, resident_bound;
    atomic_int stop;
    _Atomic uint64_t max_waist; /* read by the test while the reader runs */
    uint64_t max_resident, failed_snapshots, over_bound;
} reader;

static void *read_loop(void *arg)
{
    reader *rd = arg;
    while (!atomic_load(&rd->stop)) {
        zkpipe_snapshot s;
        if (zkpipe_acct_snapshot(rd->acct, &s) != ZKPIPE_OK) {
            rd->failed_snapshots++;
            continue;
        }
        uint64_t waist = zkpipe_snapshot_in_waist(&s);
        uint64_t resident = zkpipe_snapshot_resident(&s);
        if (waist > atomic_load(&rd->max_waist))
            atomic_store(&rd->max_waist, waist);
        rd->max_resident = resident > rd->max_resident ? resident : rd->max_resident;
        rd->over_bound += waist > rd->bound || resident > rd->resident_bound;
    }
    return NULL;
}

static void host_waist_is_bounded_under_a_reader(void **state)
{
    (void)state;
    enum { N = 16 };
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    host h;
    host_init(&h, 1024, 512);
    h.shut = 1;
    zkpipe_engine_config cfg = config(acct);
    cfg.synth_workers = 4;
    cfg.permits = 2;
    cfg.capacity = 1;
    cfg.prover_workers = 2;
    reader rd = {.acct = acct,
                 .bound = cfg.permits + cfg.capacity,
                 .resident_bound = cfg.permits + cfg.capacity + cfg.prover_workers};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, read_loop, &rd), 0);
    zkpipe_engine *e;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_OK);
    zkpipe_partition parts[N];
    fill(parts, N, &h);
    zkpipe_job *job;
    assert_int_equal(zkpipe_engine_submit(e, &job, parts, N, NULL, NULL), ZKPIPE_OK);
    /* The waist fills to its bound while both provers wait at the gate: one item in the
     * channel, and a synthesized item's worker blocked sending with its permit held. */
    zkpipe_engine_counters n;
    for (long waited = 0; waited < PATIENCE_MS; waited++) {
        assert_int_equal(zkpipe_engine_stats(e, &n), ZKPIPE_OK);
        if (n.in_flight == rd.bound && n.proving == cfg.prover_workers &&
            n.channel_items == cfg.capacity && n.waiting_senders >= 1)
            break;
        nap_ms(1);
    }
    assert_int_equal(n.in_flight, rd.bound);
    assert_int_equal(n.channel_items, cfg.capacity);
    assert_true(n.waiting_senders >= 1);
    /* The reader, whenever it got to run, sees the full waist before the provers go on. */
    for (long waited = 0; waited < PATIENCE_MS && atomic_load(&rd.max_waist) < rd.bound; waited++)
        nap_ms(1);
    gate_open(&h);
    assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
    atomic_store(&rd.stop, 1);
    pthread_join(t, NULL);
    assert_int_equal(rd.failed_snapshots, 0);
    assert_int_equal(rd.over_bound, 0);
    assert_int_equal(atomic_load(&rd.max_waist), rd.bound);
    assert_true(rd.max_resident <= rd.resident_bound);
    assert_int_equal(zkpipe_engine_stats(e, &n), ZKPIPE_OK);
    assert_true(n.peak_in_flight <= n.bound);
    assert_int_equal(n.proved, N);
    zkpipe_job_destroy(job);
    zkpipe_engine_destroy(e);
    assert_int_equal(atomic_load(&h.live_buffers), 0);
    assert_drained(acct);
    zkpipe_acct_destroy(acct);
    host_free(&h);
}

/* A failure in synthesis and one in proving end only their partitions, with their lines. */
static void host_errors_fail_only_their_partition(void **state)
{
    (void)state;
    enum { N = 8 };
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    host h;
    host_init(&h, 256, 256);
    h.fail_synth_at = 2;
    h.fail_prove_at = 5;
    zkpipe_engine_config cfg = config(acct);
    zkpipe_engine *e;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_OK);
    zkpipe_partition parts[N];
    fill(parts, N, &h);
    zkpipe_job *job;
    assert_int_equal(zkpipe_engine_submit(e, &job, parts, N, NULL, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
    for (size_t i = 0; i < N; i++) {
        zkpipe_partition_result r;
        assert_int_equal(zkpipe_job_result(job, i, &r), ZKPIPE_OK);
        if (i == 2) {
            assert_int_equal(r.status, ZKPIPE_EIO);
            assert_string_equal(r.detail, "partition 2 refused");
        } else if (i == 5) {
            assert_int_equal(r.status, ZKPIPE_EDEVICE);
            assert_string_equal(r.detail, "partition 5 could not be proved");
            assert_null(r.host);
        } else {
            assert_int_equal(r.status, ZKPIPE_OK);
        }
    }
    zkpipe_engine_counters n;
    assert_int_equal(zkpipe_engine_stats(e, &n), ZKPIPE_OK);
    assert_int_equal(n.proved, N - 2);
    assert_int_equal(n.failed, 2);
    zkpipe_job_destroy(job);
    assert_int_equal(atomic_load(&h.results_freed), N - 2);
    assert_int_equal(atomic_load(&h.live_buffers), 0);
    zkpipe_engine_destroy(e);
    assert_drained(acct);
    zkpipe_acct_destroy(acct);
    host_free(&h);
}

/* Opens the gate once destroy has had time to start cancelling. */
static void *open_later(void *arg)
{
    nap_ms(50);
    gate_open(arg);
    return NULL;
}

/* With provers held, cancelling the job (once) and destroying the engine (once) with items in
 * synthesis, pending and queued: every item synthesized and never proved is discarded exactly
 * once, and every counter returns to zero. */
static void host_cancel_and_destroy_discard_every_item(void **state)
{
    (void)state;
    enum { N = 12 };
    for (int how = 0; how < 2; how++) {
        zkpipe_acct *acct;
        assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
        host h;
        host_init(&h, 2048, 128);
        h.shut = 1;
        zkpipe_engine_config cfg = config(acct);
        cfg.synth_workers = 3;
        cfg.permits = 3;
        cfg.capacity = 2;
        zkpipe_engine *e;
        assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_OK);
        zkpipe_partition parts[N];
        fill(parts, N, &h);
        zkpipe_job *job;
        assert_int_equal(zkpipe_engine_submit(e, &job, parts, N, NULL, NULL), ZKPIPE_OK);
        zkpipe_engine_counters n;
        for (long waited = 0; waited < PATIENCE_MS; waited++) {
            assert_int_equal(zkpipe_engine_stats(e, &n), ZKPIPE_OK);
            if (n.in_flight == cfg.permits + cfg.capacity && n.proving == 1)
                break;
            nap_ms(1);
        }
        assert_int_equal(n.in_flight, cfg.permits + cfg.capacity);
        if (how == 0) {
            zkpipe_job_cancel(job);
            gate_open(&h);
            assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
        } else {
            /* Destroy with the prover still held: open the gate from another thread once
             * destroy has started, so the one partition being proved completes. */
            pthread_t opener;
            assert_int_equal(pthread_create(&opener, NULL, open_later, &h), 0);
            zkpipe_engine_destroy(e);
            e = NULL;
            pthread_join(opener, NULL);
        }
        long synths = atomic_load(&h.synths), proofs = atomic_load(&h.proofs);
        long discards = atomic_load(&h.discards);
        assert_int_equal(synths, proofs + discards);
        assert_true(discards >= (long)(cfg.permits + cfg.capacity) - 1);
        size_t proved = 0, canceled = 0;
        for (size_t i = 0; i < N; i++) {
            zkpipe_partition_result r;
            assert_int_equal(zkpipe_job_result(job, i, &r), ZKPIPE_OK);
            proved += r.status == ZKPIPE_OK;
            canceled += r.status == ZKPIPE_ECANCELED;
        }
        assert_int_equal(proved + canceled, N);
        assert_int_equal((long)proved, proofs);
        zkpipe_job_destroy(job);
        zkpipe_engine_destroy(e);
        assert_int_equal(atomic_load(&h.live_buffers), 0);
        assert_drained(acct);
        zkpipe_acct_destroy(acct);
        host_free(&h);
    }
}

/* Every allocation the engine and the host make for one partition, failed in turn: the
 * partition ends with ZKPIPE_ENOMEM (or the submission does), nothing leaks, every counter is
 * back at zero. */
static void host_allocation_failures_are_clean(void **state)
{
    (void)state;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    host h;
    host_init(&h, 512, 512);
    fail_alloc fa;
    fail_alloc_init(&fa, -1);
    zkpipe_engine_config cfg = config(acct);
    cfg.allocator = &fa.allocator;
    zkpipe_engine *e;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_OK);
    zkpipe_partition p = {&host_ops, &h, {0, 0}};
    zkpipe_job *job;
    long before = atomic_load(&fa.calls), live = atomic_load(&fa.live);
    assert_int_equal(zkpipe_engine_submit(e, &job, &p, 1, NULL, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
    zkpipe_job_destroy(job);
    long per_job = atomic_load(&fa.calls) - before;
    assert_true(per_job >= 4); /* the job, the item, a/b/c, aux */
    long enomem = 0;
    for (long k = 0; k < per_job; k++) {
        fa.fail_at = atomic_load(&fa.calls) + k;
        zkpipe_status st = zkpipe_engine_submit(e, &job, &p, 1, NULL, NULL);
        if (st == ZKPIPE_ENOMEM) {
            enomem++;
        } else {
            assert_int_equal(st, ZKPIPE_OK);
            assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
            zkpipe_partition_result r;
            assert_int_equal(zkpipe_job_result(job, 0, &r), ZKPIPE_OK);
            assert_true(r.status == ZKPIPE_OK || r.status == ZKPIPE_ENOMEM);
            enomem += r.status == ZKPIPE_ENOMEM;
            zkpipe_job_destroy(job);
        }
        fa.fail_at = -1;
        assert_int_equal(atomic_load(&fa.live), live);
        assert_int_equal(atomic_load(&h.live_buffers), 0);
        assert_drained(acct);
    }
    assert_int_equal(enomem, per_job);
    zkpipe_engine_destroy(e);
    assert_int_equal(atomic_load(&fa.live), 0);
    zkpipe_acct_destroy(acct);
    host_free(&h);
}

static zkpipe_status refuse(void *ctx, size_t partition)
{
    (void)ctx;
    return partition == 1 ? ZKPIPE_ESTATE : ZKPIPE_OK;
}

/* The operations table and the config struct carry their sizes: a shorter table (an older
 * host's, up to discard) works, with the fields past it unused; a table too short, without a
 * required operation, or whose validate refuses a partition is refused at submission; an
 * engine config of an unknown size is refused. */
static void tables_and_configs_carry_their_size(void **state)
{
    (void)state;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    host h;
    host_init(&h, 64, 64);
    zkpipe_engine_config cfg = config(acct);
    zkpipe_engine *e;
    /* The first layout ended with the allocator: shorter is refused, that much is read with
     * defaults for the rest. */
    cfg.struct_size = offsetof(zkpipe_engine_config, allocator) + sizeof cfg.allocator - 1;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_EINVAL);
    cfg.struct_size = offsetof(zkpipe_engine_config, allocator) + sizeof cfg.allocator;
    cfg.reservation = (zkpipe_reservation)99; /* beyond the caller's size: never read */
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_OK);
    zkpipe_engine_destroy(e);
    cfg.struct_size = sizeof cfg;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_EINVAL);
    cfg.reservation = ZKPIPE_RESERVATION_FOLLOW;
    cfg.struct_size = sizeof cfg + 8;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_EINVAL);
    cfg.struct_size = 0;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_EINVAL);
    cfg = config(acct);
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_OK);

    zkpipe_stage_ops old = host_ops;
    old.struct_size = OPS_MIN_SIZE; /* result_free and validate lie beyond */
    old.validate = refuse;
    zkpipe_partition parts[2] = {{&old, &h, {0, 0}}, {&old, &h, {0, 0}}};
    zkpipe_job *job = NULL;
    assert_int_equal(zkpipe_engine_submit(e, &job, parts, 2, NULL, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
    zkpipe_partition_result r;
    assert_int_equal(zkpipe_job_result(job, 1, &r), ZKPIPE_OK);
    assert_int_equal(r.status, ZKPIPE_OK);
    void *hosts[2];
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(zkpipe_job_result(job, i, &r), ZKPIPE_OK);
        hosts[i] = r.host;
    }
    zkpipe_job_destroy(job);
    assert_int_equal(atomic_load(&h.results_freed), 0); /* the old table has no result_free */
    free(hosts[0]);
    free(hosts[1]);

    zkpipe_stage_ops bad = host_ops;
    bad.validate = refuse;
    parts[0].ops = parts[1].ops = &bad;
    job = NULL;
    assert_int_equal(zkpipe_engine_submit(e, &job, parts, 2, NULL, NULL), ZKPIPE_ESTATE);
    assert_null(job);
    bad = host_ops;
    bad.struct_size = OPS_MIN_SIZE - 1;
    assert_int_equal(zkpipe_engine_submit(e, &job, parts, 1, NULL, NULL), ZKPIPE_EINVAL);
    bad = host_ops;
    bad.prove = NULL;
    assert_int_equal(zkpipe_engine_submit(e, &job, parts, 1, NULL, NULL), ZKPIPE_EINVAL);
    bad = host_ops;
    bad.discard = NULL;
    assert_int_equal(zkpipe_engine_submit(e, &job, parts, 1, NULL, NULL), ZKPIPE_EINVAL);
    zkpipe_partition no_ops = {NULL, &h, {0, 0}}, reserved = {&host_ops, &h, {1, 0}};
    assert_int_equal(zkpipe_engine_submit(e, &job, &no_ops, 1, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_engine_submit(e, &job, &reserved, 1, NULL, NULL), ZKPIPE_EINVAL);
    assert_null(job);
    zkpipe_engine_destroy(e);
    assert_drained(acct);
    zkpipe_acct_destroy(acct);
    host_free(&h);
}

/* ---- the built-in zkey operations on the interop fixtures ---- */

static const char *const fixture_curves[2] = {"bn128", "bls12381"};
static const char *const fixture_circuits[4] = {"multiplier", "factors", "rangesum", "hashchain"};

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* A copy of `from` with one witness value changed, at `to`. */
static void corrupt_witness(const char *from, const char *to, size_t value)
{
    size_t len;
    char *w = slurp(from, &len);
    assert_non_null(w);
    /* circom's layout: the values start at byte 76 (wtns.c's reader validates that it is). */
    assert_true(76 + 32 * (value + 1) <= len);
    w[76 + 32 * value] ^= 1;
    FILE *f = fopen(to, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(w, 1, len, f), len);
    fclose(f);
    free(w);
}

/* One fixture through the engine: its witness twice (random r, s and r = 11, s = 22), a
 * corrupted copy and the other curve's witness, in one job. */
static int zkey_fixture_through_engine(const char *curve, const char *circuit, zkpipe_engine *e,
                                       zkpipe_acct *acct)
{
    char zkey_path[1024], wtns_path[1024], other_path[1024], bad_path[256], det_path[1024];
    char d[ZKPIPE_DETAIL_MAX];
    fixture_path(zkey_path, sizeof zkey_path, curve, circuit, "circuit.zkey");
    fixture_path(wtns_path, sizeof wtns_path, curve, circuit, "witness.wtns");
    fixture_path(other_path, sizeof other_path, curve == fixture_curves[0] ? "bls12381" : "bn128",
                 circuit, "witness.wtns");
    fixture_path(det_path, sizeof det_path, curve, circuit, "proof_det.json");
    if (access(zkey_path, R_OK) != 0)
        return 0;
    snprintf(bad_path, sizeof bad_path, "/tmp/zkpipe-test-stages-%d-%s-%s.wtns", (int)getpid(),
             curve, circuit);
    zkpipe_zkey *zkey;
    zkpipe_wtns *wtns;
    zkpipe_io_options io;
    zkpipe_io_options_init(&io);
    io.flags = ZKPIPE_IO_DEFER_SUBGROUP;
    assert_int_equal(zkpipe_zkey_open(&zkey, d, sizeof d, zkey_path, &io), ZKPIPE_OK);
    assert_int_equal(zkpipe_wtns_open(&wtns, d, sizeof d, wtns_path, NULL), ZKPIPE_OK);
    zkpipe_zkey_info info;
    assert_int_equal(zkpipe_zkey_info_get(&info, zkey), ZKPIPE_OK);
    /* The value of the first private wire: every fixture's constraints use it. */
    corrupt_witness(wtns_path, bad_path, info.num_public + 1);
    zkpipe_zkey_source *src;
    assert_int_equal(zkpipe_zkey_source_create(&src, zkey, NULL), ZKPIPE_OK);

    zkpipe_scalar blinding[2] = {{{11}}, {{22}}};
    zkpipe_scalar too_big[2]; /* not below the field order: refused, not reduced */
    memset(too_big, 0xff, sizeof too_big);
    zkpipe_scalar *pub = calloc(5 * (info.num_public + 1), sizeof *pub);
    assert_non_null(pub);
    size_t np = info.num_public;
    zkpipe_zkey_partition zp[5] = {
        {src, wtns_path, pub, NULL},
        {src, wtns_path, pub + np, blinding},
        {src, bad_path, pub + 2 * np, NULL},
        {src, other_path, pub + 3 * np, NULL},
        {src, wtns_path, pub + 4 * np, too_big},
    };
    zkpipe_partition parts[5];
    for (int i = 0; i < 5; i++)
        parts[i] = (zkpipe_partition){zkpipe_zkey_stage_ops(), &zp[i], {0, 0}};
    zkpipe_job *job;
    assert_int_equal(zkpipe_engine_submit(e, &job, parts, 5, NULL, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
    zkpipe_partition_result r[5];
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(zkpipe_job_result(job, i, &r[i]), ZKPIPE_OK);

    /* The good ones prove, and verify with our verifier; the public signals are the
     * witness's. */
    zkpipe_groth16_vk *vk;
    zkpipe_groth16_pvk *pvk;
    assert_int_equal(zkpipe_zkey_vk(&vk, zkey, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_groth16_pvk_create(&pvk, vk, NULL), ZKPIPE_OK);
    zkpipe_groth16_proof proof[2];
    for (size_t i = 0; i < 2; i++) {
        if (r[i].status != ZKPIPE_OK)
            fail_msg("%s/%s partition %zu: %s (%s)", curve, circuit, i,
                     zkpipe_status_name(r[i].status), r[i].detail);
        assert_memory_equal(pub + i * np, zkpipe_wtns_values(wtns) + 1, np * sizeof *pub);
        assert_int_equal(zkpipe_stage_proof(&proof[i], &r[i]), ZKPIPE_OK);
        assert_int_equal(zkpipe_groth16_verify(pvk, pub + i * np, np, &proof[i]), ZKPIPE_OK);
    }
    assert_memory_not_equal(proof[0].bytes, proof[1].bytes, proof[0].size);
    /* The corrupted witness and the other curve's fail alone, each with its file named. */
    assert_int_equal(r[2].status, ZKPIPE_EUNSATISFIED);
    assert_non_null(strstr(r[2].detail, bad_path));
    assert_int_equal(r[3].status, ZKPIPE_EMISMATCH);
    assert_non_null(strstr(r[3].detail, other_path));
    assert_int_equal(r[4].status, ZKPIPE_EINVAL);
    assert_non_null(strstr(r[4].detail, "not below the field order"));

    /* With r = 11 and s = 22, byte for byte what zkpipe-prove computes, and snarkjs's. */
    zkpipe_groth16_proof prove_rs, det;
    assert_int_equal(zkpipe__g16_prove_witness_rs(&prove_rs, d, sizeof d, zkpipe_zkey_pk(zkey),
                                                  zkpipe_wtns_values(wtns), zkpipe_wtns_count(wtns),
                                                  pvk, &blinding[0], &blinding[1], NULL,
                                                  &zkpipe__g16_backend_cpu, NULL),
                     ZKPIPE_OK);
    assert_memory_equal(proof[1].bytes, prove_rs.bytes, prove_rs.size);
    size_t len;
    char *json = slurp(det_path, &len);
    if (json != NULL) {
        assert_int_equal(
            zkpipe_snarkjs_proof_parse(&det, d, sizeof d, ZKPIPE_CURVE_COUNT, json, len),
            ZKPIPE_OK);
        assert_memory_equal(proof[1].bytes, det.bytes, det.size);
        free(json);
    }
    zkpipe_job_destroy(job);
    assert_drained(acct);
    free(pub);
    remove(bad_path);
    zkpipe_groth16_pvk_destroy(pvk);
    zkpipe_groth16_vk_destroy(vk);
    zkpipe_zkey_source_destroy(src);
    zkpipe_wtns_destroy(wtns);
    zkpipe_zkey_destroy(zkey);
    return 1;
}

static void zkey_partitions_match_zkpipe_prove_and_snarkjs(void **state)
{
    (void)state;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    zkpipe_engine_config cfg = config(acct);
    cfg.synth_workers = 2;
    cfg.prover_workers = 2;
    cfg.prover_threads = 2;
    zkpipe_engine *e;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_OK);
    int done = 0;
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 4; k++)
            done += zkey_fixture_through_engine(fixture_curves[c], fixture_circuits[k], e, acct);
    assert_int_equal(done, 8);
    zkpipe_engine_destroy(e);
    assert_drained(acct);
    zkpipe_acct_destroy(acct);
}

/* A zkey partition alone peaks exactly at its estimate: the witness's mapping and copy, a, b,
 * c, then the NTT domain or the largest MSM scratch. The budget reserves what is really used.
 * a, b and c are made by the prover: synthesis (what waits in the channel) holds the witness
 * alone. */
static void zkey_estimate_is_the_exact_peak(void **state)
{
    (void)state;
    char zp[1024], wp[1024], d[ZKPIPE_DETAIL_MAX];
    fixture_path(zp, sizeof zp, "bn128", "rangesum", "circuit.zkey");
    fixture_path(wp, sizeof wp, "bn128", "rangesum", "witness.wtns");
    if (access(zp, R_OK) != 0)
        fail_msg("no fixture %s", zp);
    for (unsigned threads = 1; threads <= 2; threads++) {
        zkpipe_acct *acct;
        assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
        zkpipe_zkey *zkey;
        zkpipe_io_options io;
        zkpipe_io_options_init(&io);
        io.flags = ZKPIPE_IO_DEFER_SUBGROUP;
        assert_int_equal(zkpipe_zkey_open(&zkey, d, sizeof d, zp, &io), ZKPIPE_OK);
        zkpipe_zkey_source *src;
        assert_int_equal(zkpipe_zkey_source_create(&src, zkey, NULL), ZKPIPE_OK);
        zkpipe_zkey_partition zpart = {src, wp, NULL, NULL};
        zkpipe_stage_call call;
        memset(&call, 0, sizeof call);
        call.ctx = &zpart;
        call.prover_threads = threads;
        uint64_t estimate;
        assert_int_equal(zkpipe_zkey_stage_ops()->estimate(&call, &estimate), ZKPIPE_OK);
        zkpipe_engine_config cfg = config(acct);
        cfg.prover_threads = threads;
        cfg.budget_bytes = estimate; /* exactly one partition's */
        zkpipe_engine *e;
        assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_OK);
        zkpipe_partition part = {zkpipe_zkey_stage_ops(), &zpart, {0, 0}};
        zkpipe_job *job;
        assert_int_equal(zkpipe_engine_submit(e, &job, &part, 1, NULL, NULL), ZKPIPE_OK);
        assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
        zkpipe_partition_result r;
        assert_int_equal(zkpipe_job_result(job, 0, &r), ZKPIPE_OK);
        assert_int_equal(r.status, ZKPIPE_OK);
        zkpipe_snapshot s;
        assert_int_equal(zkpipe_acct_snapshot(acct, &s), ZKPIPE_OK);
        assert_int_equal(s.peak_bytes, estimate);
        uint32_t wtns_kind;
        assert_int_equal(zkpipe_acct_register_kind(acct, "wtns", &wtns_kind), ZKPIPE_OK);
        assert_true(s.stage[ZKPIPE_STAGE_SYNTH].kind[wtns_kind].peak_bytes > 0);
        assert_int_equal(s.stage[ZKPIPE_STAGE_SYNTH].kind[ZKPIPE_KIND_ABC].peak_buffers, 0);
        assert_int_equal(s.stage[ZKPIPE_STAGE_PROVING].kind[ZKPIPE_KIND_ABC].peak_buffers, 3);
        zkpipe_job_destroy(job);
        zkpipe_engine_destroy(e);
        zkpipe_zkey_source_destroy(src);
        zkpipe_zkey_destroy(zkey);
        assert_drained(acct);
        zkpipe_acct_destroy(acct);
    }
}

/* An .r1cs loaded as a zkpipe circuit with its witness, synthesized and proved with the zkey's
 * key: the same proof as from the witness alone (the loader keeps snarkjs's variable and row
 * order, so synthesis computes the zkey's a, b and c), for the same r and s. */
static void r1cs_circuits_prove_with_the_zkey_key(void **state)
{
    (void)state;
    int done = 0;
    for (int c = 0; c < 2; c++) {
        for (int k = 0; k < 4; k++) {
            char zp[1024], wp[1024], rp[1024], d[ZKPIPE_DETAIL_MAX];
            fixture_path(zp, sizeof zp, fixture_curves[c], fixture_circuits[k], "circuit.zkey");
            fixture_path(wp, sizeof wp, fixture_curves[c], fixture_circuits[k], "witness.wtns");
            fixture_path(rp, sizeof rp, fixture_curves[c], fixture_circuits[k], "circuit.r1cs");
            if (access(rp, R_OK) != 0)
                continue;
            zkpipe_zkey *zkey;
            zkpipe_wtns *wtns;
            zkpipe_r1cs *r1cs;
            zkpipe_cs *cs;
            zkpipe_io_options io;
            zkpipe_io_options_init(&io);
            io.flags = ZKPIPE_IO_DEFER_SUBGROUP;
            assert_int_equal(zkpipe_zkey_open(&zkey, d, sizeof d, zp, &io), ZKPIPE_OK);
            assert_int_equal(zkpipe_wtns_open(&wtns, d, sizeof d, wp, NULL), ZKPIPE_OK);
            assert_int_equal(zkpipe_r1cs_open(&r1cs, d, sizeof d, rp, NULL), ZKPIPE_OK);
            assert_int_equal(zkpipe_r1cs_load(&cs, d, sizeof d, r1cs, wtns, NULL), ZKPIPE_OK);
            assert_int_equal(zkpipe_cs_check(cs, NULL), ZKPIPE_OK);
            const zkpipe_groth16_pk *pk = zkpipe_zkey_pk(zkey);
            const zkpipe__curve_ops *ops = zkpipe__curve_ops_for(zkpipe_cs_curve(cs));
            uint64_t r[4], s[4];
            const zkpipe_scalar rc = {{11}}, sc = {{22}};
            assert_true(ops->fr_from_canonical(r, rc.l));
            assert_true(ops->fr_from_canonical(s, sc.l));
            zkpipe__synth_result res;
            assert_int_equal(zkpipe__synth(&res, cs, NULL, NULL), ZKPIPE_OK);
            zkpipe_groth16_proof from_cs, from_wtns;
            zkpipe__g16_prove_args args = {r,    s, NULL,    &zkpipe__g16_backend_cpu, NULL, NULL,
                                           NULL, d, sizeof d};
            assert_int_equal(zkpipe__g16_prove(&from_cs, pk, &res, &args), ZKPIPE_OK);
            assert_int_equal(zkpipe__g16_prove_witness_rs(&from_wtns, d, sizeof d, pk,
                                                          zkpipe_wtns_values(wtns),
                                                          zkpipe_wtns_count(wtns), NULL, &rc, &sc,
                                                          NULL, &zkpipe__g16_backend_cpu, NULL),
                             ZKPIPE_OK);
            assert_memory_equal(from_cs.bytes, from_wtns.bytes, from_cs.size);
            zkpipe_cs_destroy(cs);
            zkpipe_r1cs_destroy(r1cs);
            zkpipe_wtns_destroy(wtns);
            zkpipe_zkey_destroy(zkey);
            done++;
        }
    }
    assert_int_equal(done, 8);
}

/* Copies `from`, a zkey, to `to` with a valid point where another belongs: the A query's point
 * of wire 1 over wire 0's (wire 0 is the constant 1, so every proof's A moves). The file stays
 * well-formed (every point on the curve and in the subgroup) and opens; only its proofs fail
 * its own verifying key. */
static void write_zkey_with_a_wrong_point(const char *from, const char *to)
{
    size_t len;
    char *z = read_file(from, &len);
    assert_non_null(z);
    assert_true(len >= 12 && memcmp(z, "zkey", 4) == 0);
    uint32_t sections, n8q = 0;
    memcpy(&sections, z + 8, 4);
    size_t at = 12, a_at = 0, a_len = 0;
    for (uint32_t i = 0; i < sections; i++) {
        uint32_t id;
        uint64_t size;
        assert_true(len - at >= 12);
        memcpy(&id, z + at, 4);
        memcpy(&size, z + at + 4, 8);
        at += 12;
        assert_true(size <= len - at);
        if (id == 2 && size >= 4)
            memcpy(&n8q, z + at, 4);
        if (id == 5) {
            a_at = at;
            a_len = size;
        }
        at += size;
    }
    assert_true(n8q > 0 && a_len >= 4 * (size_t)n8q);
    assert_memory_not_equal(z + a_at, z + a_at + 2 * n8q, 2 * n8q);
    memcpy(z + a_at, z + a_at + 2 * n8q, 2 * n8q);
    FILE *f = fopen(to, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(z, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    free(z);
}

/* A well-formed but wrong zkey makes the prover's own check fire, and nothing comes out: `out`
 * is left as it was. From the witness alone (a zkey's c is a b, so a witness breaking a C side
 * fails only that check too) the status is ZKPIPE_EUNSATISFIED and the line names both causes;
 * with the .r1cs's rows synthesized and found to hold, the key is the only cause:
 * ZKPIPE_EVERIFY. The same rows and witness prove with the untouched zkey, on both curves. */
static void prover_check_catches_a_wrong_key_point(void **state)
{
    (void)state;
    for (int c = 0; c < 2; c++) {
        char zp[1024], wp[1024], rp[1024], bad[256], d[ZKPIPE_DETAIL_MAX];
        fixture_path(zp, sizeof zp, fixture_curves[c], "multiplier", "circuit.zkey");
        fixture_path(wp, sizeof wp, fixture_curves[c], "multiplier", "witness.wtns");
        fixture_path(rp, sizeof rp, fixture_curves[c], "multiplier", "circuit.r1cs");
        snprintf(bad, sizeof bad, "/tmp/zkpipe-test-stages-%d-wrong-point.zkey", (int)getpid());
        write_zkey_with_a_wrong_point(zp, bad);
        for (int wrong = 0; wrong < 2; wrong++) {
            zkpipe_zkey *zkey;
            zkpipe_wtns *wtns;
            zkpipe_r1cs *r1cs;
            zkpipe_cs *cs;
            zkpipe_groth16_vk *vk;
            zkpipe_groth16_pvk *pvk;
            assert_int_equal(zkpipe_zkey_open(&zkey, d, sizeof d, wrong ? bad : zp, NULL),
                             ZKPIPE_OK);
            assert_int_equal(zkpipe_wtns_open(&wtns, d, sizeof d, wp, NULL), ZKPIPE_OK);
            assert_int_equal(zkpipe_r1cs_open(&r1cs, d, sizeof d, rp, NULL), ZKPIPE_OK);
            assert_int_equal(zkpipe_zkey_vk(&vk, zkey, NULL), ZKPIPE_OK);
            assert_int_equal(zkpipe_groth16_pvk_create(&pvk, vk, NULL), ZKPIPE_OK);
            const zkpipe_groth16_pk *pk = zkpipe_zkey_pk(zkey);
            zkpipe_groth16_proof out, before;
            memset(&out, 0xa5, sizeof out);
            before = out;

            zkpipe_status st = zkpipe_groth16_prove_witness(
                &out, NULL, d, sizeof d, pk, zkpipe_wtns_values(wtns), zkpipe_wtns_count(wtns), pvk,
                NULL, ZKPIPE_BACKEND_CPU, NULL);
            if (!wrong) {
                assert_int_equal(st, ZKPIPE_OK);
                out = before;
            } else {
                assert_int_equal(st, ZKPIPE_EUNSATISFIED);
                assert_non_null(strstr(d, "the proving key does not match the verifying key"));
                assert_memory_equal(&out, &before, sizeof out);
            }

            assert_int_equal(zkpipe_r1cs_load(&cs, d, sizeof d, r1cs, wtns, NULL), ZKPIPE_OK);
            assert_int_equal(zkpipe_cs_check(cs, NULL), ZKPIPE_OK);
            const zkpipe__curve_ops *ops = zkpipe__curve_ops_for(zkpipe_cs_curve(cs));
            uint64_t r[4], s[4];
            const zkpipe_scalar rc = {{11}}, sc = {{22}};
            assert_true(ops->fr_from_canonical(r, rc.l));
            assert_true(ops->fr_from_canonical(s, sc.l));
            zkpipe__synth_result res;
            assert_int_equal(zkpipe__synth(&res, cs, NULL, NULL), ZKPIPE_OK);
            zkpipe__g16_prove_args args = {r,    s, NULL,    &zkpipe__g16_backend_cpu, pvk, NULL,
                                           NULL, d, sizeof d};
            st = zkpipe__g16_prove(&out, pk, &res, &args);
            if (!wrong) {
                assert_int_equal(st, ZKPIPE_OK);
            } else {
                assert_int_equal(st, ZKPIPE_EVERIFY);
                assert_non_null(strstr(d, "the witness satisfies every constraint"));
                assert_memory_equal(&out, &before, sizeof out);
            }
            zkpipe_cs_destroy(cs);
            zkpipe_r1cs_destroy(r1cs);
            zkpipe_groth16_pvk_destroy(pvk);
            zkpipe_groth16_vk_destroy(vk);
            zkpipe_wtns_destroy(wtns);
            zkpipe_zkey_destroy(zkey);
        }
        unlink(bad);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(host_partitions_are_conserved),
        cmocka_unit_test(host_waist_is_bounded_under_a_reader),
        cmocka_unit_test(host_errors_fail_only_their_partition),
        cmocka_unit_test(host_cancel_and_destroy_discard_every_item),
        cmocka_unit_test(host_allocation_failures_are_clean),
        cmocka_unit_test(tables_and_configs_carry_their_size),
        cmocka_unit_test(zkey_partitions_match_zkpipe_prove_and_snarkjs),
        cmocka_unit_test(zkey_estimate_is_the_exact_peak),
        cmocka_unit_test(r1cs_circuits_prove_with_the_zkey_key),
        cmocka_unit_test(prover_check_catches_a_wrong_key_point),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
