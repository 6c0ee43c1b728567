/* The proving engine: every partition ends in a verified proof or a reported error, the
 * registry drains after each job, invariant 2 holds on every snapshot with release on
 * delivery (and breaks with release early), the byte budget holds and refuses what can never
 * fit, one partition's error stays its own, cancel and destroy lose nothing, the trace is
 * well formed, and every set-up failure is clean. */
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "acct/charged_alloc.h"
#include "engine/engine_internal.h"
#include "fail_alloc.h"
#include "groth16/prove.h"
#include "fail_pthread.h"
#include "nap.h"
#include "read_file.h"
#include "sanitize.h"
#include "zkpipe/testcircuit.h"
#include "zkpipe/zkpipe.h"

#define LOG_ROWS 5
#define SEED 7
/* A generous limit for waits that must end; reaching it is a failure, not a measurement. */
#define PATIENCE_MS 120000

static const zkpipe_curve curves[] = {ZKPIPE_CURVE_BLS12_381, ZKPIPE_CURVE_BN254};

/* Per curve: the test circuit's keys and its public input. */
typedef struct circuit {
    zkpipe_curve curve;
    zkpipe_groth16_pk *pk;
    zkpipe_groth16_vk *vk;
    zkpipe_groth16_pvk *pvk;
    zkpipe_scalar input;
    zkpipe_circuit_partition part; /* the context of the circuit's partitions */
} circuit;

static circuit fixture[2];

static zkpipe_status build_test_circuit(zkpipe_cs *cs, void *ctx, size_t partition)
{
    (void)ctx;
    (void)partition;
    return zkpipe_testcircuit_build(cs, LOG_ROWS, SEED, 1);
}

static int setup_keys(void **state)
{
    (void)state;
    static const uint8_t seed[ZKPIPE_GROTH16_SEED_BYTES] = {4, 2};
    for (int c = 0; c < 2; c++) {
        circuit *k = &fixture[c];
        zkpipe_cs *cs = NULL;
        k->curve = curves[c];
        if (zkpipe_cs_create(&cs, k->curve, ZKPIPE_CS_WITNESS, NULL) != ZKPIPE_OK ||
            build_test_circuit(cs, NULL, 0) != ZKPIPE_OK ||
            zkpipe_cs_value(cs, &k->input, 1) != ZKPIPE_OK ||
            zkpipe_groth16_setup_insecure(&k->pk, &k->vk, cs, seed, NULL, NULL) != ZKPIPE_OK ||
            zkpipe_groth16_pvk_create(&k->pvk, k->vk, NULL) != ZKPIPE_OK) {
            zkpipe_cs_destroy(cs);
            return -1;
        }
        zkpipe_cs_destroy(cs);
        k->part = (zkpipe_circuit_partition){build_test_circuit, NULL, 0, k->pk};
    }
    return 0;
}

static int teardown_keys(void **state)
{
    (void)state;
    for (int c = 0; c < 2; c++) {
        zkpipe_groth16_pvk_destroy(fixture[c].pvk);
        zkpipe_groth16_vk_destroy(fixture[c].vk);
        zkpipe_groth16_pk_destroy(fixture[c].pk);
    }
    return 0;
}

/* A partition of zkpipe circuit `cp` (which must outlive its job). */
static zkpipe_partition part_of(const zkpipe_circuit_partition *cp)
{
    zkpipe_partition p = {zkpipe_circuit_stage_ops(), (void *)cp, {0, 0}};
    return p;
}

static zkpipe_partition test_partition(const circuit *k)
{
    return part_of(&k->part);
}

/* A prover hook: counts receives, naps, and holds provers while the gate is shut. */
typedef struct gate {
    pthread_mutex_t lock;
    pthread_cond_t opened;
    int shut;
    long nap_ms;
    int entered;
} gate;

static void gate_init(gate *g, int shut, long nap)
{
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->opened, NULL);
    g->shut = shut;
    g->nap_ms = nap;
    g->entered = 0;
}

static void gate_open(gate *g)
{
    pthread_mutex_lock(&g->lock);
    g->shut = 0;
    pthread_cond_broadcast(&g->opened);
    pthread_mutex_unlock(&g->lock);
}

static int gate_entered(gate *g)
{
    pthread_mutex_lock(&g->lock);
    int n = g->entered;
    pthread_mutex_unlock(&g->lock);
    return n;
}

static void gate_free(gate *g)
{
    pthread_mutex_destroy(&g->lock);
    pthread_cond_destroy(&g->opened);
}

static void gate_hook(void *ctx)
{
    gate *g = ctx;
    pthread_mutex_lock(&g->lock);
    g->entered++;
    while (g->shut)
        pthread_cond_wait(&g->opened, &g->lock);
    pthread_mutex_unlock(&g->lock);
    if (g->nap_ms > 0)
        nap_ms(g->nap_ms);
}

static zkpipe_engine_config base_config(zkpipe_acct *acct)
{
    zkpipe_engine_config c;
    zkpipe_engine_config_init(&c);
    c.acct = acct;
    c.backend = ZKPIPE_BACKEND_CPU;
    return c;
}

static zkpipe_engine *make_engine(const zkpipe_engine_config *c)
{
    zkpipe_engine *e = NULL;
    assert_int_equal(zkpipe_engine_create(&e, c), ZKPIPE_OK);
    return e;
}

static void assert_drained(zkpipe_acct *acct);

/* A private registry, an engine on it and its prover hook's gate. */
typedef struct rig {
    zkpipe_acct *acct;
    zkpipe_engine *e;
    gate g;
} rig;

/* Creates the registry; returns the default configuration on it. */
static zkpipe_engine_config rig_config(rig *r)
{
    r->acct = NULL;
    assert_int_equal(zkpipe_acct_create(NULL, &r->acct), ZKPIPE_OK);
    return base_config(r->acct);
}

static void rig_start(rig *r, const zkpipe_engine_config *cfg, int shut, long nap)
{
    r->e = make_engine(cfg);
    gate_init(&r->g, shut, nap);
    zkpipe__engine_set_prove_hook(r->e, gate_hook, &r->g);
}

/* Destroys the engine (NULL: already done) and checks the registry drained. */
static void rig_stop(rig *r)
{
    zkpipe_engine_destroy(r->e);
    assert_drained(r->acct);
    zkpipe_acct_destroy(r->acct);
    gate_free(&r->g);
}

static void fill(zkpipe_partition *parts, size_t n, const circuit *k)
{
    for (size_t i = 0; i < n; i++)
        parts[i] = test_partition(k);
}

static void snap_of(zkpipe_acct *acct, zkpipe_snapshot *s)
{
    assert_int_equal(zkpipe_acct_snapshot(acct, s), ZKPIPE_OK);
}

static void assert_drained(zkpipe_acct *acct)
{
    zkpipe_snapshot s;
    snap_of(acct, &s);
    assert_int_equal(s.live_items, 0);
    assert_int_equal(s.live_bytes, 0);
    for (uint32_t st = 0; st < s.stage_count; st++)
        assert_int_equal(s.stage[st].entered, s.stage[st].left);
}

/* Items in synth + pending + queued in a snapshot: what invariant 2 bounds. */
static uint64_t waist_items(const zkpipe_snapshot *s)
{
    return zkpipe_snapshot_in_waist(s);
}

/* Checks every partition of a finished job: a proof that verifies or the expected error.
 * Returns the number of proofs. */
static size_t check_results(zkpipe_job *job, const circuit *k, zkpipe_status other)
{
    size_t proofs = 0;
    for (size_t i = 0; i < zkpipe_job_partitions(job); i++) {
        zkpipe_partition_result r;
        assert_int_equal(zkpipe_job_result(job, i, &r), ZKPIPE_OK);
        if (r.status == ZKPIPE_OK) {
            zkpipe_groth16_proof proof;
            assert_int_equal(zkpipe_stage_proof(&proof, &r), ZKPIPE_OK);
            assert_int_equal(zkpipe_groth16_verify(k->pvk, &k->input, 1, &proof), ZKPIPE_OK);
            proofs++;
        } else {
            assert_int_equal(r.status, other);
        }
    }
    return proofs;
}

static void count_done(zkpipe_job *job, void *ctx)
{
    zkpipe_partition_result r;
    /* Results are final inside the callback. */
    if (zkpipe_job_result(job, 0, &r) == ZKPIPE_OK)
        atomic_fetch_add((atomic_int *)ctx, 1);
}

static void proves_every_partition(void **state)
{
    (void)state;
    for (int c = 0; c < 2; c++) {
        zkpipe_acct *acct = NULL;
        assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
        zkpipe_engine_config cfg = base_config(acct);
        cfg.prover_workers = 2;
        cfg.prover_threads = 2;
        zkpipe_engine *e = make_engine(&cfg);
        zkpipe_partition parts[4];
        for (int i = 0; i < 4; i++)
            parts[i] = test_partition(&fixture[c]);
        atomic_int done = 0;
        for (int round = 0; round < 2; round++) {
            zkpipe_job *job = NULL;
            assert_int_equal(zkpipe_engine_submit(e, &job, parts, 4, count_done, &done), ZKPIPE_OK);
            assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
            assert_int_equal(zkpipe_job_wait_timed(job, 0), ZKPIPE_OK);
            assert_int_equal(check_results(job, &fixture[c], ZKPIPE_OK), 4);
            zkpipe_partition_result r;
            assert_int_equal(zkpipe_job_result(job, 0, &r), ZKPIPE_OK);
            assert_true(r.prove_s > 0.0);
            assert_int_equal(zkpipe_job_result(job, 4, &r), ZKPIPE_EINVAL);
            assert_drained(acct);
            zkpipe_job_destroy(job);
        }
        assert_int_equal(atomic_load(&done), 2);
        zkpipe_engine_counters n;
        assert_int_equal(zkpipe_engine_stats(e, &n), ZKPIPE_OK);
        assert_int_equal(n.submitted, 8);
        assert_int_equal(n.proved, 8);
        assert_int_equal(n.failed + n.canceled + n.in_flight, 0);
        assert_int_equal(n.bound, cfg.permits + cfg.capacity);
        assert_int_equal(n.resident_bound, n.bound + cfg.prover_workers);
        zkpipe_engine_drain(e);
        zkpipe_job *late = NULL;
        assert_int_equal(zkpipe_engine_submit(e, &late, parts, 1, NULL, NULL), ZKPIPE_ECLOSED);
        assert_null(late);
        zkpipe_engine_destroy(e);
        assert_drained(acct);
        zkpipe_acct_destroy(acct);
    }
}

/* Runs 8 partitions with 4 synthesis workers, 1 permit, 1 slot and one prover held at the
 * gate, reading snapshots all along; returns the largest waist seen. The gate opens once
 * the waist is full (delivery: bound; early: above it), so the run cannot pass by luck. */
static uint64_t waist_under_slow_prover(zkpipe_release release, uint64_t *engine_peak)
{
    rig r;
    zkpipe_engine_config cfg = rig_config(&r);
    cfg.synth_workers = 4;
    cfg.permits = 1;
    cfg.capacity = 1;
    cfg.release = release;
    const uint64_t bound = cfg.permits + cfg.capacity;
    rig_start(&r, &cfg, 1, 2);
    zkpipe_partition parts[8];
    fill(parts, 8, &fixture[0]);
    zkpipe_job *job = NULL;
    assert_int_equal(zkpipe_engine_submit(r.e, &job, parts, 8, NULL, NULL), ZKPIPE_OK);
    uint64_t max = 0, full = release == ZKPIPE_RELEASE_EARLY ? bound + 1 : bound;
    zkpipe_snapshot s;
    for (long waited = 0; zkpipe_job_wait_timed(job, 0) == ZKPIPE_ETIMEDOUT;) {
        snap_of(r.acct, &s);
        uint64_t w = waist_items(&s);
        max = w > max ? w : max;
        if (r.g.shut && (max >= full || waited > PATIENCE_MS)) /* only this thread writes it */
            gate_open(&r.g);
        nap_ms(1);
        waited++;
    }
    assert_int_equal(check_results(job, &fixture[0], ZKPIPE_OK), 8);
    zkpipe_engine_counters n;
    assert_int_equal(zkpipe_engine_stats(r.e, &n), ZKPIPE_OK);
    *engine_peak = n.peak_in_flight;
    zkpipe_job_destroy(job);
    rig_stop(&r);
    return max;
}

static void bound_holds_on_delivery(void **state)
{
    (void)state;
    uint64_t engine_peak;
    uint64_t max = waist_under_slow_prover(ZKPIPE_RELEASE_DELIVERY, &engine_peak);
    assert_int_equal(max, 2);
    assert_true(engine_peak <= 2);
}

static void early_release_exceeds_bound(void **state)
{
    (void)state;
    uint64_t engine_peak;
    uint64_t max = waist_under_slow_prover(ZKPIPE_RELEASE_EARLY, &engine_peak);
    assert_true(max > 2);
    assert_true(engine_peak > 2);
}

/* The most the test circuit's ledger holds, its circuit aside, as the engine reserves it
 * from the budget with one-thread prover pools: synthesis's buffers with the prover's working
 * memory beside them (h takes a's buffer). */
static uint64_t partition_peak_bytes(const circuit *k)
{
    uint64_t synth;
    size_t n = (size_t)1 << LOG_ROWS, inputs = zkpipe_groth16_pk_num_inputs(k->pk);
    assert_int_equal(zkpipe_synth_estimate(&synth, NULL, k->curve, n - inputs, inputs,
                                           zkpipe_groth16_pk_num_aux(k->pk)),
                     ZKPIPE_OK);
    return zkpipe__g16_prove_peak_bytes(k->pk, 1, synth);
}

/* The most the test circuit itself is charged while it is built: what the byte budget does
 * not cover, once per synthesis worker. */
static uint64_t circuit_peak_bytes(const circuit *k)
{
    zkpipe_acct *acct = NULL;
    zkpipe_ledger ledger;
    zkpipe_cs *cs = NULL;
    zkpipe_snapshot s;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_open(&ledger, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
    zkpipe__charged charged = {*zkpipe_allocator_default(), &ledger, ZKPIPE_KIND_CIRCUIT};
    zkpipe_allocator a = zkpipe__charged_allocator(&charged);
    assert_int_equal(zkpipe_cs_create(&cs, k->curve, ZKPIPE_CS_WITNESS, &a), ZKPIPE_OK);
    assert_int_equal(build_test_circuit(cs, NULL, 0), ZKPIPE_OK);
    zkpipe_cs_destroy(cs);
    snap_of(acct, &s);
    assert_int_equal(s.live_bytes, 0);
    zkpipe_ledger_close(&ledger);
    zkpipe_acct_destroy(acct);
    return s.peak_bytes;
}

static void budget_bounds_accounted_bytes(void **state)
{
    (void)state;
    rig r;
    const uint64_t one = partition_peak_bytes(&fixture[0]);
    zkpipe_engine_config cfg = rig_config(&r);
    cfg.synth_workers = 4;
    cfg.permits = 4;
    cfg.capacity = 4;
    cfg.prover_workers = 2;
    cfg.budget_bytes = 2 * one + one / 2;
    rig_start(&r, &cfg, 0, 5);
    zkpipe_partition parts[8];
    fill(parts, 8, &fixture[0]);
    zkpipe_job *job = NULL;
    assert_int_equal(zkpipe_engine_submit(r.e, &job, parts, 8, NULL, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
    assert_int_equal(check_results(job, &fixture[0], ZKPIPE_OK), 8);
    zkpipe_snapshot s;
    snap_of(r.acct, &s);
    /* Peaks are exact (a compare-and-swap max at every charge), not sampled. */
    assert_true(s.peak_bytes >= one);
    assert_true(s.peak_bytes <=
                cfg.budget_bytes + cfg.synth_workers * circuit_peak_bytes(&fixture[0]));
    zkpipe_job_destroy(job);
    rig_stop(&r);
}

/* What a build callback saw of kind CIRCUIT in SYNTH once the circuit was built. */
typedef struct circuit_probe {
    zkpipe_acct *acct;
    uint64_t live_buffers, live_bytes;
} circuit_probe;

static zkpipe_status build_and_probe(zkpipe_cs *cs, void *ctx, size_t partition)
{
    circuit_probe *p = ctx;
    zkpipe_snapshot s;
    zkpipe_status st = build_test_circuit(cs, NULL, partition);
    if (st == ZKPIPE_OK)
        st = zkpipe_acct_snapshot(p->acct, &s);
    if (st == ZKPIPE_OK) {
        p->live_buffers = s.stage[ZKPIPE_STAGE_SYNTH].kind[ZKPIPE_KIND_CIRCUIT].live_buffers;
        p->live_bytes = s.stage[ZKPIPE_STAGE_SYNTH].kind[ZKPIPE_KIND_CIRCUIT].live_bytes;
    }
    return st;
}

/* The circuit is charged to its partition's ledger while synthesis runs, and only then. */
static void circuit_is_charged_while_it_exists(void **state)
{
    (void)state;
    rig r;
    zkpipe_engine_config cfg = rig_config(&r);
    rig_start(&r, &cfg, 0, 0);
    circuit_probe probe = {r.acct, 0, 0};
    zkpipe_circuit_partition cp = {build_and_probe, &probe, 0, fixture[0].pk};
    zkpipe_partition part = part_of(&cp);
    zkpipe_job *job = NULL;
    assert_int_equal(zkpipe_engine_submit(r.e, &job, &part, 1, NULL, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
    assert_int_equal(check_results(job, &fixture[0], ZKPIPE_OK), 1);
    assert_true(probe.live_buffers > 0);
    assert_true(probe.live_bytes > 0);
    zkpipe_snapshot s;
    snap_of(r.acct, &s);
    const uint64_t peak = circuit_peak_bytes(&fixture[0]);
    assert_true(probe.live_bytes <= peak);
    assert_int_equal(s.stage[ZKPIPE_STAGE_SYNTH].kind[ZKPIPE_KIND_CIRCUIT].peak_bytes, peak);
    for (uint32_t st = ZKPIPE_STAGE_PENDING; st < ZKPIPE_STAGE_BUILTIN_COUNT; st++)
        assert_int_equal(s.stage[st].kind[ZKPIPE_KIND_CIRCUIT].peak_bytes, 0);
    /* The prover's workspace was charged too, while it proved. */
    assert_true(s.stage[ZKPIPE_STAGE_PROVING].kind[ZKPIPE_KIND_WORKSPACE].peak_bytes > 0);
    assert_true(s.stage[ZKPIPE_STAGE_PROVING].kind[ZKPIPE_KIND_WORKSPACE].peak_bytes <=
                zkpipe__g16_workspace_bytes(fixture[0].pk, cfg.prover_threads));
    zkpipe_job_destroy(job);
    rig_stop(&r); /* everything released: nothing live */
}

static void partition_larger_than_budget_is_refused(void **state)
{
    (void)state;
    zkpipe_acct *acct = NULL;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    zkpipe_engine_config cfg = base_config(acct);
    cfg.budget_bytes = partition_peak_bytes(&fixture[1]) - 1;
    zkpipe_engine *e = make_engine(&cfg);
    zkpipe_partition parts[3] = {test_partition(&fixture[1]), test_partition(&fixture[1]),
                                 test_partition(&fixture[1])};
    /* Announcing fewer synthesis bytes than the circuit needs is refused before synthesis. */
    zkpipe_circuit_partition short_cp = fixture[1].part;
    short_cp.synth_bytes = 64;
    parts[2] = part_of(&short_cp);
    zkpipe_job *job = NULL;
    assert_int_equal(zkpipe_engine_submit(e, &job, parts, 2, NULL, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait_timed(job, (uint64_t)PATIENCE_MS * 1000000), ZKPIPE_OK);
    assert_int_equal(check_results(job, &fixture[1], ZKPIPE_ETOOBIG), 0);
    zkpipe_job_destroy(job);
    zkpipe_engine_destroy(e);

    cfg.budget_bytes = 0;
    e = make_engine(&cfg);
    assert_int_equal(zkpipe_engine_submit(e, &job, parts + 2, 1, NULL, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
    assert_int_equal(check_results(job, &fixture[1], ZKPIPE_EMISMATCH), 0);
    zkpipe_job_destroy(job);
    zkpipe_engine_destroy(e);
    assert_drained(acct);
    zkpipe_acct_destroy(acct);
}

/* A chain of copies x_{i+1} = x_i * 1 filling 2^4 rows, x_last public; with `bad` set, x_4 is
 * off by one, so constraint 3 fails (same shape, so the same key). */
typedef struct chain {
    int bad;
} chain;

static zkpipe_status build_chain(zkpipe_cs *cs, void *ctx, size_t partition)
{
    (void)partition;
    const chain *ch = ctx;
    const zkpipe_curve curve = zkpipe_cs_curve(cs);
    const int rounds = (1 << 4) - 2; /* the one and the output fill the other two rows */
    zkpipe_scalar v, one;
    zkpipe_var prev, next;
    zkpipe_status st = zkpipe_scalar_from_i64(&v, curve, 3);
    if (st == ZKPIPE_OK)
        st = zkpipe_scalar_from_i64(&one, curve, 1);
    if (st == ZKPIPE_OK)
        st = zkpipe_cs_alloc_aux(cs, &prev, &v);
    for (int i = 0; i < rounds && st == ZKPIPE_OK; i++) {
        if (ch->bad && i == 3)
            v.l[0] ^= 1;
        st = i == rounds - 1 ? zkpipe_cs_alloc_input(cs, &next, &v)
                             : zkpipe_cs_alloc_aux(cs, &next, &v);
        zkpipe_term a = {prev, one}, b = {ZKPIPE_VAR_ONE, one}, c = {next, one};
        if (st == ZKPIPE_OK)
            st = zkpipe_cs_enforce(cs, &a, 1, &b, 1, &c, 1);
        prev = next;
    }
    return st;
}

static zkpipe_status build_fails(zkpipe_cs *cs, void *ctx, size_t partition)
{
    (void)cs;
    (void)ctx;
    (void)partition;
    return ZKPIPE_EIO;
}

static void an_error_fails_only_its_partition(void **state)
{
    (void)state;
    zkpipe_acct *acct = NULL;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    static const uint8_t seed[ZKPIPE_GROTH16_SEED_BYTES] = {5};
    chain good = {0}, bad = {1};
    zkpipe_cs *cs = NULL;
    zkpipe_groth16_pk *pk = NULL;
    zkpipe_groth16_vk *vk = NULL;
    zkpipe_groth16_pvk *pvk = NULL;
    assert_int_equal(zkpipe_cs_create(&cs, ZKPIPE_CURVE_BN254, ZKPIPE_CS_WITNESS, NULL), ZKPIPE_OK);
    assert_int_equal(build_chain(cs, &good, 0), ZKPIPE_OK);
    assert_int_equal(zkpipe_cs_check(cs, NULL), ZKPIPE_OK);
    circuit k = {ZKPIPE_CURVE_BN254, NULL, NULL, NULL, {{0}}, {NULL, NULL, 0, NULL}};
    assert_int_equal(zkpipe_cs_value(cs, &k.input, 1), ZKPIPE_OK);
    assert_int_equal(zkpipe_groth16_setup_insecure(&pk, &vk, cs, seed, NULL, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_groth16_pvk_create(&pvk, vk, NULL), ZKPIPE_OK);
    zkpipe_cs_destroy(cs);
    k.pk = pk;
    k.pvk = pvk;

    zkpipe_engine_config cfg = base_config(acct);
    zkpipe_engine *e = make_engine(&cfg);
    const zkpipe_circuit_partition cps[5] = {
        {build_chain, &good, 0, pk},       {build_chain, &bad, 0, pk}, {build_fails, NULL, 0, pk},
        {build_test_circuit, NULL, 0, pk}, /* another circuit than the key's */
        {build_chain, &good, 0, pk},
    };
    zkpipe_partition parts[5];
    for (int i = 0; i < 5; i++)
        parts[i] = part_of(&cps[i]);
    zkpipe_job *job = NULL;
    assert_int_equal(zkpipe_engine_submit(e, &job, parts, 5, NULL, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
    static const zkpipe_status want[5] = {ZKPIPE_OK, ZKPIPE_EUNSATISFIED, ZKPIPE_EIO,
                                          ZKPIPE_EMISMATCH, ZKPIPE_OK};
    for (size_t i = 0; i < 5; i++) {
        zkpipe_partition_result r;
        assert_int_equal(zkpipe_job_result(job, i, &r), ZKPIPE_OK);
        assert_int_equal(r.status, want[i]);
        zkpipe_groth16_proof proof;
        assert_int_equal(zkpipe_stage_proof(&proof, &r), r.status);
        if (r.status == ZKPIPE_OK)
            assert_int_equal(zkpipe_groth16_verify(pvk, &k.input, 1, &proof), ZKPIPE_OK);
        if (r.status == ZKPIPE_EUNSATISFIED)
            assert_int_equal(r.first_failing, 3);
    }
    zkpipe_engine_counters n;
    assert_int_equal(zkpipe_engine_stats(e, &n), ZKPIPE_OK);
    assert_int_equal(n.proved, 2);
    assert_int_equal(n.failed, 3);
    zkpipe_job_destroy(job);
    zkpipe_engine_destroy(e);
    assert_drained(acct);
    zkpipe_acct_destroy(acct);
    zkpipe_groth16_pvk_destroy(pvk);
    zkpipe_groth16_vk_destroy(vk);
    zkpipe_groth16_pk_destroy(pk);
}

/* Polls until the registry shows `n` items proving. */
static void wait_for_proving(zkpipe_acct *acct, uint64_t n)
{
    zkpipe_snapshot s;
    for (long waited = 0;; waited++) {
        snap_of(acct, &s);
        if (s.stage[ZKPIPE_STAGE_PROVING].live_items == n)
            return;
        assert_true(waited < PATIENCE_MS);
        nap_ms(1);
    }
}

static void cancel_ends_what_has_not_started_proving(void **state)
{
    (void)state;
    rig r;
    zkpipe_engine_config cfg = rig_config(&r);
    rig_start(&r, &cfg, 1, 0);
    zkpipe_partition parts[8];
    fill(parts, 8, &fixture[1]);
    zkpipe_job *job = NULL;
    atomic_int done = 0;
    assert_int_equal(zkpipe_engine_submit(r.e, &job, parts, 8, count_done, &done), ZKPIPE_OK);
    wait_for_proving(r.acct, 1);
    zkpipe_partition_result res;
    assert_int_equal(zkpipe_job_result(job, 0, &res), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_job_wait_timed(job, 1000000), ZKPIPE_ETIMEDOUT);
    zkpipe_job_cancel(job);
    gate_open(&r.g);
    assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
    /* The one held at the gate had passed the cancel check: it completes; the rest end. */
    assert_int_equal(check_results(job, &fixture[1], ZKPIPE_ECANCELED), 1);
    assert_int_equal(gate_entered(&r.g), 1);
    assert_int_equal(atomic_load(&done), 1);
    zkpipe_engine_counters n;
    assert_int_equal(zkpipe_engine_stats(r.e, &n), ZKPIPE_OK);
    assert_int_equal(n.proved, 1);
    assert_int_equal(n.canceled, 7);
    zkpipe_job_cancel(job); /* finished: harmless */
    zkpipe_job_destroy(job);
    assert_drained(r.acct);
    rig_stop(&r);
}

static void destroy_while_busy_loses_nothing(void **state)
{
    (void)state;
    const int rounds = ZKPIPE_TEST_SANITIZED ? 2 : 6;
    for (int round = 0; round < rounds; round++) {
        rig r;
        zkpipe_engine_config cfg = rig_config(&r);
        cfg.synth_workers = 3;
        cfg.prover_workers = 2;
        cfg.budget_bytes = 3 * partition_peak_bytes(&fixture[1]);
        rig_start(&r, &cfg, 0, 3);
        zkpipe_partition parts[6];
        fill(parts, 6, &fixture[1]);
        zkpipe_job *jobs[3] = {NULL, NULL, NULL};
        atomic_int done = 0;
        for (int j = 0; j < 3; j++)
            assert_int_equal(zkpipe_engine_submit(r.e, &jobs[j], parts, 6, count_done, &done),
                             ZKPIPE_OK);
        /* Destroy at a different moment each round, from at once to mid-run. */
        nap_ms(round * 7);
        zkpipe_engine_destroy(r.e);
        r.e = NULL;
        assert_int_equal(atomic_load(&done), 3);
        for (int j = 0; j < 3; j++) {
            assert_int_equal(zkpipe_job_wait_timed(jobs[j], 0), ZKPIPE_OK);
            check_results(jobs[j], &fixture[1], ZKPIPE_ECANCELED);
            zkpipe_job_destroy(jobs[j]);
        }
        rig_stop(&r);
    }
}

static void job_destroy_while_running_cancels_and_waits(void **state)
{
    (void)state;
    rig r;
    zkpipe_engine_config cfg = rig_config(&r);
    rig_start(&r, &cfg, 0, 3);
    zkpipe_partition parts[6];
    fill(parts, 6, &fixture[0]);
    zkpipe_job *job = NULL;
    assert_int_equal(zkpipe_engine_submit(r.e, &job, parts, 6, NULL, NULL), ZKPIPE_OK);
    zkpipe_job_destroy(job);
    zkpipe_engine_counters n;
    assert_int_equal(zkpipe_engine_stats(r.e, &n), ZKPIPE_OK);
    assert_int_equal(n.proved + n.canceled, 6);
    assert_drained(r.acct);
    rig_stop(&r);
}

/* Reporter lines, and those that are not summaries (the reporter's thread may not assert). */
typedef struct lines {
    pthread_mutex_t lock;
    int count;
    int odd;
} lines;

static void count_line(const char *line, void *ctx)
{
    lines *l = ctx;
    pthread_mutex_lock(&l->lock);
    l->count++;
    l->odd += strstr(line, "synth=") == NULL;
    pthread_mutex_unlock(&l->lock);
}

static int lines_seen(lines *l)
{
    pthread_mutex_lock(&l->lock);
    int n = l->count;
    pthread_mutex_unlock(&l->lock);
    return n;
}

/* Brackets balance outside strings, and strings close: enough to catch a torn event. */
static void assert_balanced_json(const char *s)
{
    int depth = 0, in_string = 0;
    for (; *s != '\0'; s++) {
        if (in_string) {
            if (*s == '\\')
                s++;
            else if (*s == '"')
                in_string = 0;
        } else if (*s == '"') {
            in_string = 1;
        } else if (*s == '{' || *s == '[') {
            depth++;
        } else if (*s == '}' || *s == ']') {
            assert_true(--depth >= 0);
        }
    }
    assert_false(in_string);
    assert_int_equal(depth, 0);
}

/* A fresh empty file's name in `path` (a "/tmp/...XXXXXX" template). */
static void temp_file(char *path)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
}

static void reporter_and_trace(void **state)
{
    (void)state;
    char path[] = "/tmp/zkpipe-test-trace-XXXXXX";
    temp_file(path);
    zkpipe_trace *trace = NULL;
    assert_int_equal(zkpipe_trace_open(&trace, path, NULL), ZKPIPE_OK);
    lines l = {PTHREAD_MUTEX_INITIALIZER, 0, 0};
    rig r;
    zkpipe_engine_config cfg = rig_config(&r);
    cfg.trace = trace;
    cfg.report_ms = 2;
    cfg.report_fn = count_line;
    cfg.report_ctx = &l;
    rig_start(&r, &cfg, 1, 0);
    zkpipe_partition parts[3];
    fill(parts, 3, &fixture[0]);
    zkpipe_job *job = NULL;
    assert_int_equal(zkpipe_engine_submit(r.e, &job, parts, 3, NULL, NULL), ZKPIPE_OK);
    for (long waited = 0; lines_seen(&l) == 0; waited++) {
        assert_true(waited < PATIENCE_MS);
        nap_ms(1);
    }
    gate_open(&r.g);
    assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
    assert_int_equal(check_results(job, &fixture[0], ZKPIPE_OK), 3);
    zkpipe_job_destroy(job);
    rig_stop(&r);
    assert_int_equal(zkpipe_trace_close(trace), ZKPIPE_OK);
    assert_int_equal(l.odd, 0);

    char *text = read_file(path, NULL);
    assert_non_null(text);
    assert_int_equal(strncmp(text, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", 39), 0);
    assert_balanced_json(text);
    static const char *const want[] = {
        "\"name\":\"synth\",\"cat\":\"stage\",\"ph\":\"X\"",
        "\"name\":\"pending\",\"cat\":\"stage\",\"ph\":\"X\"",
        "\"name\":\"queued\",\"cat\":\"stage\",\"ph\":\"X\"",
        "\"name\":\"proving\",\"cat\":\"stage\",\"ph\":\"X\"",
        "\"name\":\"finalize\",\"cat\":\"stage\",\"ph\":\"X\"",
        "\"name\":\"thread_name\",\"ph\":\"M\"",
        "\"args\":{\"name\":\"job 1 partition 2\"}",
        "\"name\":\"live bytes\",\"ph\":\"C\"",
        "\"synth\":",
        "\"finalize\":0}",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_non_null(strstr(text, want[i]));
    free(text);
    remove(path);
    pthread_mutex_destroy(&l.lock);
}

static void trace_refuses_bad_arguments(void **state)
{
    (void)state;
    zkpipe_trace *t = NULL;
    zkpipe_allocator incomplete = {NULL, NULL, NULL};
    assert_int_equal(zkpipe_trace_open(NULL, "/tmp/x", NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_trace_open(&t, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_trace_open(&t, "/tmp/x", &incomplete), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_trace_open(&t, "/nonexistent-dir/zkpipe/trace.json", NULL), ZKPIPE_EIO);
    assert_null(t);
    assert_int_equal(zkpipe_trace_close(NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_trace_track_name(NULL, 1, "x"), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_trace_span(NULL, 1, "x", 0, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_trace_counters(NULL, zkpipe_acct_default()), ZKPIPE_EINVAL);
    char path[] = "/tmp/zkpipe-test-trace-XXXXXX";
    temp_file(path);
    assert_int_equal(zkpipe_trace_open(&t, path, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_trace_track_name(t, 1, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_trace_span(t, 1, NULL, 0, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_trace_counters(t, NULL), ZKPIPE_EINVAL);
    /* Names are escaped; an end before the begin is clamped. */
    assert_int_equal(zkpipe_trace_track_name(t, 1, "a \"quoted\"\\\n name"), ZKPIPE_OK);
    uint64_t now = zkpipe_trace_now();
    assert_int_equal(zkpipe_trace_span(t, 1, "x", now, now - 5), ZKPIPE_OK);
    assert_int_equal(zkpipe_trace_close(t), ZKPIPE_OK);
    char *text = read_file(path, NULL);
    assert_non_null(text);
    assert_non_null(strstr(text, "\"a \\\"quoted\\\"\\\\\\u000a name\""));
    assert_non_null(strstr(text, "\"dur\":0.000"));
    assert_balanced_json(text);
    free(text);
    remove(path);
}

static void refuses_bad_arguments(void **state)
{
    (void)state;
    zkpipe_engine_config_init(NULL);
    zkpipe_engine_config cfg = base_config(NULL);
    zkpipe_engine *e = NULL;
    assert_int_equal(zkpipe_engine_create(NULL, &cfg), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_engine_create(&e, NULL), ZKPIPE_EINVAL);
    zkpipe_engine_config bad;
    unsigned *const counts[] = {&bad.synth_workers, &bad.prover_workers, &bad.prover_threads};
    for (size_t i = 0; i < 3; i++) {
        bad = cfg;
        *counts[i] = 0;
        assert_int_equal(zkpipe_engine_create(&e, &bad), ZKPIPE_EINVAL);
    }
    bad = cfg;
    bad.permits = 0;
    assert_int_equal(zkpipe_engine_create(&e, &bad), ZKPIPE_EINVAL);
    bad = cfg;
    bad.capacity = 0;
    assert_int_equal(zkpipe_engine_create(&e, &bad), ZKPIPE_EINVAL);
    bad = cfg;
    bad.release = (zkpipe_release)2;
    assert_int_equal(zkpipe_engine_create(&e, &bad), ZKPIPE_EINVAL);
    bad = cfg;
    bad.report_ms = 10;
    assert_int_equal(zkpipe_engine_create(&e, &bad), ZKPIPE_EINVAL);
    bad = cfg;
    bad.backend = (zkpipe_backend)7;
    assert_int_equal(zkpipe_engine_create(&e, &bad), ZKPIPE_EINVAL);
    zkpipe_allocator incomplete = {NULL, NULL, NULL};
    bad = cfg;
    bad.allocator = &incomplete;
    assert_int_equal(zkpipe_engine_create(&e, &bad), ZKPIPE_EINVAL);
    assert_null(e);

    /* The backend is the built-in operations' to resolve: cuda with no usable device fails
     * each of their partitions, saying why, and not the engine. */
    zkpipe_partition p = test_partition(&fixture[0]);
    zkpipe_backend cuda;
    if (zkpipe_backend_resolve(&cuda, ZKPIPE_BACKEND_CUDA, NULL) != ZKPIPE_OK) {
        bad = cfg;
        bad.backend = ZKPIPE_BACKEND_CUDA;
        e = make_engine(&bad);
        zkpipe_job *cuda_job = NULL;
        assert_int_equal(zkpipe_engine_submit(e, &cuda_job, &p, 1, NULL, NULL), ZKPIPE_OK);
        assert_int_equal(zkpipe_job_wait(cuda_job), ZKPIPE_OK);
        zkpipe_partition_result cr;
        assert_int_equal(zkpipe_job_result(cuda_job, 0, &cr), ZKPIPE_OK);
        assert_int_equal(cr.status, ZKPIPE_ENODEVICE);
        assert_non_null(strstr(cr.detail, "the cuda backend: "));
        assert_null(cr.host);
        zkpipe_job_destroy(cuda_job);
        zkpipe_engine_destroy(e);
    }

    e = make_engine(&cfg);
    zkpipe_circuit_partition cp_no_build = fixture[0].part, cp_no_pk = fixture[0].part;
    cp_no_build.build = NULL;
    cp_no_pk.pk = NULL;
    zkpipe_partition no_build = part_of(&cp_no_build), no_pk = part_of(&cp_no_pk);
    zkpipe_job *job = NULL;
    assert_int_equal(zkpipe_engine_submit(NULL, &job, &p, 1, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_engine_submit(e, NULL, &p, 1, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_engine_submit(e, &job, NULL, 1, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_engine_submit(e, &job, &p, 0, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_engine_submit(e, &job, &no_build, 1, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_engine_submit(e, &job, &no_pk, 1, NULL, NULL), ZKPIPE_EINVAL);
    assert_null(job);
    zkpipe_engine_close(e);
    zkpipe_engine_close(e);
    assert_int_equal(zkpipe_engine_submit(e, &job, &p, 1, NULL, NULL), ZKPIPE_ECLOSED);
    zkpipe_engine_counters n;
    assert_int_equal(zkpipe_engine_stats(NULL, &n), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_engine_stats(e, NULL), ZKPIPE_EINVAL);
    zkpipe_engine_destroy(e);

    zkpipe_partition_result r;
    assert_int_equal(zkpipe_job_wait(NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_job_wait_timed(NULL, 0), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_job_result(NULL, 0, &r), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_job_partitions(NULL), 0);
    zkpipe_job_cancel(NULL);
    zkpipe_job_destroy(NULL);
    zkpipe_engine_close(NULL);
    zkpipe_engine_drain(NULL);
    zkpipe_engine_destroy(NULL);
}

/* fail_alloc_walk's attempt: an engine with a reporter, created and destroyed. */
static int create_engine(void *arg, const zkpipe_allocator *a)
{
    zkpipe_engine_config cfg = base_config(arg);
    cfg.allocator = a;
    cfg.prover_workers = 2;
    cfg.prover_threads = 2;
    cfg.budget_bytes = 1 << 20;
    cfg.report_ms = 1000;
    cfg.report_file = stderr;
    zkpipe_engine *e = NULL;
    zkpipe_status st = zkpipe_engine_create(&e, &cfg);
    assert_true(st == ZKPIPE_OK || e == NULL);
    zkpipe_engine_destroy(e);
    return st;
}

static void create_fails_cleanly(void **state)
{
    (void)state;
    zkpipe_acct *acct = NULL;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    assert_true(fail_alloc_walk(create_engine, NULL, acct) >= 8);

    /* Every pthread set-up call, threads included: a clean error and every thread joined. */
    fail_alloc fa;
    fail_alloc_init(&fa, -1);
    fail_pthread_arm(-1);
    assert_int_equal(create_engine(acct, &fa.allocator), ZKPIPE_OK);
    long calls = fail_pthread_calls();
    assert_true(calls >= 8);
    for (long i = 0; i < calls; i++) {
        fail_pthread_arm(i);
        zkpipe_status st = create_engine(acct, &fa.allocator);
        assert_non_null(fail_pthread_failed());
        assert_true(st == ZKPIPE_ENOMEM || st == ZKPIPE_ETHREAD || st == ZKPIPE_EUNSUPPORTED);
        assert_int_equal(fail_pthread_started(), fail_pthread_finished());
        assert_int_equal(atomic_load(&fa.live), 0);
    }
    fail_pthread_arm(-1);
    assert_drained(acct);
    zkpipe_acct_destroy(acct);
}

/* Allocation failures inside a job (the job block, the circuit, synthesis, proving) fail
 * their partition with ZKPIPE_ENOMEM and leak nothing. */
static void allocation_failures_in_a_job_are_reported(void **state)
{
    (void)state;
    zkpipe_acct *acct = NULL;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    fail_alloc fa;
    fail_alloc_init(&fa, -1);
    zkpipe_engine_config cfg = base_config(acct);
    cfg.allocator = &fa.allocator;
    zkpipe_engine *e = make_engine(&cfg);
    zkpipe_partition p = test_partition(&fixture[1]);
    zkpipe_job *job = NULL;
    /* A clean run counts the allocations one partition makes. */
    long before = atomic_load(&fa.calls), live = atomic_load(&fa.live);
    assert_int_equal(zkpipe_engine_submit(e, &job, &p, 1, NULL, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
    zkpipe_job_destroy(job);
    long per_job = atomic_load(&fa.calls) - before;
    assert_true(per_job > 5);
    int enomem = 0;
    const long step = ZKPIPE_TEST_SANITIZED ? 5 : 1;
    for (long k = 0; k < per_job; k += step) {
        /* Workers are idle between jobs: nothing allocates while fail_at changes. */
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
        assert_drained(acct);
    }
    assert_true(enomem > 0);
    zkpipe_engine_destroy(e);
    assert_int_equal(atomic_load(&fa.live), 0);
    zkpipe_acct_destroy(acct);
}

/* The stress run: threads submitting jobs on both curves, cancelling or dropping some at
 * random, while the main thread checks invariant 2 and the budget on every snapshot. */
#define SUBMITTERS 3

typedef struct submitter {
    zkpipe_engine *e;
    unsigned seed;
    int jobs;
    atomic_int *failures; /* results other than a verified proof or a cancellation */
    atomic_int *proofs;
    atomic_int *finished; /* submitters done: all their jobs ended and destroyed */
} submitter;

/* A small LCG: each submitter's own sequence, no shared state. */
static unsigned next_rand(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 16;
}

static void *submit_loop(void *arg)
{
    submitter *sb = arg;
    for (int j = 0; j < sb->jobs; j++) {
        const circuit *k = &fixture[next_rand(&sb->seed) % 2];
        zkpipe_partition parts[3];
        fill(parts, 3, k);
        zkpipe_job *job = NULL;
        if (zkpipe_engine_submit(sb->e, &job, parts, 3, NULL, NULL) != ZKPIPE_OK) {
            atomic_fetch_add(sb->failures, 1);
            continue;
        }
        unsigned choice = next_rand(&sb->seed) % 8;
        if (choice == 0) {
            zkpipe_job_destroy(job); /* cancels and waits */
            continue;
        }
        if (choice < 3)
            zkpipe_job_cancel(job);
        zkpipe_job_wait(job);
        for (size_t i = 0; i < 3; i++) {
            zkpipe_partition_result r;
            zkpipe_status st = zkpipe_job_result(job, i, &r);
            if (st == ZKPIPE_OK && r.status == ZKPIPE_ECANCELED)
                continue;
            zkpipe_groth16_proof proof;
            if (st == ZKPIPE_OK)
                st = zkpipe_stage_proof(&proof, &r);
            if (st == ZKPIPE_OK)
                st = zkpipe_groth16_verify(k->pvk, &k->input, 1, &proof);
            atomic_fetch_add(st == ZKPIPE_OK ? sb->proofs : sb->failures, 1);
        }
        zkpipe_job_destroy(job);
    }
    atomic_fetch_add(sb->finished, 1);
    return NULL;
}

static void stress_submitters_cancel_and_check(void **state)
{
    (void)state;
    rig r;
    zkpipe_engine_config cfg = rig_config(&r);
    cfg.synth_workers = 3;
    cfg.prover_workers = 2;
    cfg.budget_bytes = 3 * partition_peak_bytes(&fixture[0]);
    rig_start(&r, &cfg, 0, 0);
    atomic_int failures = 0, proofs = 0, finished = 0;
    submitter sb[SUBMITTERS];
    pthread_t threads[SUBMITTERS];
    for (int t = 0; t < SUBMITTERS; t++) {
        sb[t] = (submitter){r.e,       17u + (unsigned)t, ZKPIPE_TEST_SANITIZED ? 5 : 60,
                            &failures, &proofs,           &finished};
        assert_int_equal(pthread_create(&threads[t], NULL, submit_loop, &sb[t]), 0);
    }
    zkpipe_engine_counters n;
    zkpipe_snapshot s;
    uint64_t max_waist = 0, max_bytes = 0;
    while (atomic_load(&finished) < SUBMITTERS) {
        snap_of(r.acct, &s);
        uint64_t w = waist_items(&s);
        max_waist = w > max_waist ? w : max_waist;
        uint64_t budgeted =
            s.live_bytes - s.stage[ZKPIPE_STAGE_SYNTH].kind[ZKPIPE_KIND_CIRCUIT].live_bytes;
        max_bytes = budgeted > max_bytes ? budgeted : max_bytes;
        nap_ms(1);
    }
    for (int t = 0; t < SUBMITTERS; t++)
        pthread_join(threads[t], NULL);
    assert_int_equal(zkpipe_engine_stats(r.e, &n), ZKPIPE_OK);
    assert_int_equal(n.submitted, (uint64_t)SUBMITTERS * 3 * sb[0].jobs);
    assert_int_equal(n.proved + n.failed + n.canceled, n.submitted);
    assert_int_equal(atomic_load(&failures), 0);
    assert_true(atomic_load(&proofs) > 0);
    assert_true(max_waist <= n.bound);
    assert_true(n.peak_in_flight <= n.bound);
    assert_true(max_bytes <= cfg.budget_bytes);
    snap_of(r.acct, &s);
    uint64_t circuits =
        cfg.synth_workers * (circuit_peak_bytes(&fixture[0]) > circuit_peak_bytes(&fixture[1])
                                 ? circuit_peak_bytes(&fixture[0])
                                 : circuit_peak_bytes(&fixture[1]));
    assert_true(s.peak_bytes <= cfg.budget_bytes + circuits);
    zkpipe_engine_drain(r.e);
    rig_stop(&r);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest stress[] = {
        cmocka_unit_test(stress_submitters_cancel_and_check),
    };
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(proves_every_partition),
        cmocka_unit_test(bound_holds_on_delivery),
        cmocka_unit_test(early_release_exceeds_bound),
        cmocka_unit_test(budget_bounds_accounted_bytes),
        cmocka_unit_test(circuit_is_charged_while_it_exists),
        cmocka_unit_test(partition_larger_than_budget_is_refused),
        cmocka_unit_test(an_error_fails_only_its_partition),
        cmocka_unit_test(cancel_ends_what_has_not_started_proving),
        cmocka_unit_test(destroy_while_busy_loses_nothing),
        cmocka_unit_test(job_destroy_while_running_cancels_and_waits),
        cmocka_unit_test(reporter_and_trace),
        cmocka_unit_test(trace_refuses_bad_arguments),
        cmocka_unit_test(refuses_bad_arguments),
        cmocka_unit_test(create_fails_cleanly),
        cmocka_unit_test(allocation_failures_in_a_job_are_reported),
    };
    if (argc > 1 && strcmp(argv[1], "--stress") == 0)
        return cmocka_run_group_tests(stress, setup_keys, teardown_keys);
    return cmocka_run_group_tests(tests, setup_keys, teardown_keys);
}
