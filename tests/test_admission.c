/* Admission by exact bytes (zkpipe/engine.h, the byte budget): a partition's reservation
 * follows its ledger, so a waiting synthesis starts as soon as an earlier partition frees a, b
 * and c, before that partition's ledger closes; sizes learned from closed ledgers replace a
 * wrong estimate after one partition, and what the budget did not cover is counted; under
 * concurrent traffic the accounted bytes stay within the budget on every snapshot and every
 * budget unit comes back; the same with real proofs (the zkey stage on the interop fixtures).
 *
 * The host operations charge bytes without allocating them: only the ledgers matter here.
 * Worker threads never call cmocka asserts: they count failures, and the main thread checks. */
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

#include "engine_jobs.h"
#include "nap.h"
#include "sanitize.h"
#include "snapshot_watch.h"
#include "zkpipe/zkpipe.h"

#define PATIENCE_MS 20000

/* A host partition's profile: synthesis charges abc and aux; prove charges h, frees abc,
 * then (with a gate) waits, charges `scratch` (a regrowth after freeing), and frees the rest.
 * Its true peak is abc + aux + h, or aux + h + scratch when that is more. */
typedef struct profile {
    uint64_t abc, aux, h, scratch;
    uint64_t announce; /* the estimate it gives */
    const void *key;   /* its source's key */
    /* The prove of partition 0 of job `gate_job` waits after freeing abc until `synths`
     * reaches `wait_synths` or `wait_ms` passes, and records what it saw. */
    uint64_t gate_job; /* 0: none */
    long wait_synths, wait_ms;
    atomic_long synths, proofs, failures;
    atomic_long seen_synths;
    atomic_int seen_open; /* the partition's ledger was still open while it waited */
} profile;

static uint64_t true_peak(const profile *p)
{
    uint64_t a = p->abc + p->aux + p->h, b = p->aux + p->h + p->scratch;
    return a > b ? a : b;
}

static zkpipe_status p_estimate(const zkpipe_stage_call *call, uint64_t *bytes)
{
    *bytes = ((const profile *)call->ctx)->announce;
    return ZKPIPE_OK;
}

static zkpipe_status p_synthesize(const zkpipe_stage_call *call, void **out)
{
    profile *p = call->ctx;
    atomic_fetch_add(&p->synths, 1);
    if (zkpipe_ledger_charge(call->ledger, ZKPIPE_KIND_ABC, p->abc) != ZKPIPE_OK ||
        zkpipe_ledger_charge(call->ledger, ZKPIPE_KIND_AUX, p->aux) != ZKPIPE_OK)
        atomic_fetch_add(&p->failures, 1);
    *out = p;
    return ZKPIPE_OK;
}

static void wait_for_synths(profile *p, zkpipe_ledger *ledger)
{
    for (long t = 0; t < p->wait_ms && atomic_load(&p->synths) < p->wait_synths; t++)
        nap_ms(1);
    atomic_store(&p->seen_synths, atomic_load(&p->synths));
    atomic_store(&p->seen_open, zkpipe_ledger_is_open(ledger));
}

static zkpipe_status p_prove(const zkpipe_stage_call *call, void *item,
                             zkpipe_partition_result *out)
{
    (void)item;
    (void)out;
    profile *p = call->ctx;
    zkpipe_ledger *l = call->ledger;
    int ok = zkpipe_ledger_charge(l, ZKPIPE_KIND_H, p->h) == ZKPIPE_OK &&
             zkpipe_ledger_release(l, ZKPIPE_KIND_ABC, p->abc) == ZKPIPE_OK;
    if (call->job == p->gate_job && call->partition == 0)
        wait_for_synths(p, l);
    if (p->scratch > 0)
        ok = ok && zkpipe_ledger_charge(l, ZKPIPE_KIND_WORKSPACE, p->scratch) == ZKPIPE_OK &&
             zkpipe_ledger_release(l, ZKPIPE_KIND_WORKSPACE, p->scratch) == ZKPIPE_OK;
    ok = ok && zkpipe_ledger_release(l, ZKPIPE_KIND_H, p->h) == ZKPIPE_OK &&
         zkpipe_ledger_release(l, ZKPIPE_KIND_AUX, p->aux) == ZKPIPE_OK;
    if (!ok)
        atomic_fetch_add(&p->failures, 1);
    atomic_fetch_add(&p->proofs, 1);
    return ZKPIPE_OK;
}

/* The engine releases what is still charged when it closes the ledger. */
static void p_discard(const zkpipe_stage_call *call, void *item)
{
    (void)call;
    (void)item;
}

static const void *p_source(void *ctx, size_t partition)
{
    (void)partition;
    return ((const profile *)ctx)->key;
}

static const zkpipe_stage_ops profile_ops = {
    .struct_size = sizeof(zkpipe_stage_ops),
    .name = "profile",
    .estimate = p_estimate,
    .synthesize = p_synthesize,
    .prove = p_prove,
    .discard = p_discard,
    .source = p_source,
};

static void profile_init(profile *p, uint64_t abc, uint64_t aux, uint64_t h, uint64_t scratch)
{
    memset(p, 0, sizeof *p);
    p->abc = abc;
    p->aux = aux;
    p->h = h;
    p->scratch = scratch;
    p->announce = true_peak(p);
    p->key = p;
}

static zkpipe_engine_config config(zkpipe_acct *acct, uint64_t budget)
{
    zkpipe_engine_config cfg = engine_jobs_config(acct);
    cfg.budget_bytes = budget;
    return cfg;
}

/* One job of `n` partitions of `p`, every one proved. */
static void run_job(zkpipe_engine *e, profile *p, size_t n)
{
    assert_int_equal(engine_jobs_run(e, &profile_ops, p, n, 3 * PATIENCE_MS), ZKPIPE_OK);
}

/* Runs a job of `first` partitions of `p` (none when 0), then one of `n` more, through an
 * engine of `cfg`, and checks that everything came back: no ledger open, the whole budget
 * available. */
static void run(const zkpipe_engine_config *cfg, profile *p, size_t first, size_t n,
                zkpipe_engine_counters *c, zkpipe_engine_source *src)
{
    zkpipe_engine *e;
    assert_int_equal(zkpipe_engine_create(&e, cfg), ZKPIPE_OK);
    if (first > 0)
        run_job(e, p, first);
    run_job(e, p, n);
    zkpipe_engine_drain(e);
    assert_int_equal(zkpipe_engine_stats(e, c), ZKPIPE_OK);
    assert_int_equal(c->budget_available, cfg->budget_bytes);
    size_t count;
    assert_int_equal(zkpipe_engine_sources(e, src, 1, &count), ZKPIPE_OK);
    assert_int_equal(count, 1);
    zkpipe_engine_destroy(e);
    zkpipe_snapshot s;
    assert_int_equal(zkpipe_acct_snapshot(cfg->acct, &s), ZKPIPE_OK);
    assert_int_equal(s.live_items, 0);
    assert_int_equal(s.live_bytes, 0);
    assert_int_equal(atomic_load(&p->failures), 0);
}

/* A budget of one partition and a half: the second partition of a job fits only once the
 * first has freed a, b and c. Its synthesis starts while the first partition is still being
 * proved (its ledger open, holding aux and h); with whole reservations it cannot. A job of one
 * partition goes first: until a partition of a source has been proved, its reservations are
 * held whole (nothing says yet what it allocates after freeing). */
static void freed_abc_admit_the_next_synthesis(void **state)
{
    (void)state;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    profile p;
    profile_init(&p, 3000, 1000, 500, 0);
    p.gate_job = 2;
    p.wait_synths = 3;
    p.wait_ms = PATIENCE_MS;
    zkpipe_engine_config cfg = config(acct, 6000);
    cfg.synth_workers = 1; /* partitions admitted in order: partition 0 first */
    cfg.permits = 2;
    zkpipe_engine_counters c;
    zkpipe_engine_source src;
    run(&cfg, &p, 1, 2, &c, &src);
    assert_int_equal(atomic_load(&p.seen_synths), 3);
    assert_int_equal(atomic_load(&p.seen_open), 1);
    assert_int_equal(c.over_reservation_events, 0);
    assert_true(c.budget_returned_early >= 3000);

    /* Whole reservations: the second waits for the first ledger to close. */
    profile_init(&p, 3000, 1000, 500, 0);
    p.gate_job = 2;
    p.wait_synths = 3;
    p.wait_ms = 300;
    cfg.reservation = ZKPIPE_RESERVATION_WHOLE;
    run(&cfg, &p, 1, 2, &c, &src);
    assert_int_equal(atomic_load(&p.seen_synths), 2);
    assert_int_equal(c.budget_returned_early, 0);
    zkpipe_acct_destroy(acct);
}

/* A source announcing too little is over its reservation in its first partition, by its
 * shortfall; once that ledger has closed it reserves its learned peak and is never over again.
 * One announcing too much keeps its estimate and is never over. One that allocates again after
 * freeing (scratch after abc) is never over: its first partition holds its reservation whole,
 * and the slack learned from it keeps the scratch's units in the later ones, which give the
 * rest back early. */
static void learned_sizes_converge_after_one_partition(void **state)
{
    (void)state;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    zkpipe_engine_config cfg = config(acct, 20000);
    cfg.synth_workers = 1;
    cfg.permits = 1;
    zkpipe_engine_counters c;
    zkpipe_engine_source src;

    profile p;
    profile_init(&p, 3000, 1000, 500, 0);
    p.announce = 2000;
    run(&cfg, &p, 1, 5, &c, &src);
    assert_int_equal(c.over_reservation_events, 1);
    assert_int_equal(c.over_reservation_bytes, true_peak(&p) - 2000);
    assert_int_equal(src.estimate_bytes, 2000);
    assert_int_equal(src.learned_bytes, true_peak(&p));
    assert_int_equal(src.reserved_bytes, true_peak(&p));
    assert_int_equal(src.partitions, 6);
    assert_int_equal(src.over_reservation_events, 1);
    assert_string_equal(src.name, "profile");
    assert_ptr_equal(src.key, &p);

    profile_init(&p, 3000, 1000, 500, 0);
    p.announce = 9000;
    run(&cfg, &p, 0, 4, &c, &src);
    assert_int_equal(c.over_reservation_events, 0);
    assert_int_equal(src.learned_bytes, true_peak(&p));
    assert_int_equal(src.reserved_bytes, 9000);

    profile_init(&p, 3000, 1000, 500, 800);
    run(&cfg, &p, 1, 5, &c, &src);
    assert_int_equal(c.over_reservation_events, 0);
    assert_int_equal(src.learned_bytes, true_peak(&p));
    /* The later partitions gave a, b, c back early, less the scratch they keep. */
    assert_true(c.budget_returned_early >= 5 * (3000 - 800));
    zkpipe_acct_destroy(acct);
}

/* ---- conservation under concurrent traffic ---- */

enum { STRESS_SOURCES = 3 };

/* Three sources (one exact, one announcing too little, one allocating scratch after freeing)
 * through 4 synthesis workers, 2 provers, cancels of every fifth job: on every snapshot the
 * accounted bytes stay within the budget plus the shortfalls the resident partitions could
 * have; at the end every budget unit is back, no ledger is open, each source has learned its
 * true peak, and the exact source was never over its reservation. */
static void budget_is_conserved_under_traffic(void **state)
{
    (void)state;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    profile p[STRESS_SOURCES];
    profile_init(&p[0], 3000, 1000, 500, 0);
    profile_init(&p[1], 2000, 1500, 400, 0);
    p[1].announce = 3000;
    profile_init(&p[2], 2500, 700, 300, 900);
    uint64_t budget = 3 * 4500;
    zkpipe_engine_config cfg = config(acct, budget);
    cfg.synth_workers = 4;
    cfg.permits = 4;
    cfg.capacity = 2;
    cfg.prover_workers = 2;
    /* Until a source has learned its peak, each partition of it holding buffers (at most
     * permits + capacity + provers at once) can overshoot by its shortfall. */
    uint64_t resident = cfg.permits + cfg.capacity + cfg.prover_workers;
    uint64_t shortfall = true_peak(&p[1]) - p[1].announce;
    if (p[2].scratch > shortfall)
        shortfall = p[2].scratch;
    snapshot_watch w = {.acct = acct, .byte_limit = budget + resident * shortfall};
    zkpipe_engine *e;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_OK);
    assert_int_equal(snapshot_watch_start(&w), 0);
    enum { JOBS = ZKPIPE_TEST_SANITIZED ? 60 : 400, PER_JOB = 6 };
    zkpipe_job *job[JOBS];
    for (size_t j = 0; j < JOBS; j++) {
        zkpipe_partition parts[PER_JOB];
        for (size_t i = 0; i < PER_JOB; i++)
            parts[i] = (zkpipe_partition){&profile_ops, &p[(j + i) % STRESS_SOURCES], {0, 0}};
        assert_int_equal(zkpipe_engine_submit(e, &job[j], parts, PER_JOB, NULL, NULL), ZKPIPE_OK);
        if (j % 5 == 4)
            zkpipe_job_cancel(job[j]);
    }
    zkpipe_engine_drain(e);
    for (size_t j = 0; j < JOBS; j++)
        zkpipe_job_destroy(job[j]);
    snapshot_watch_stop(&w);
    zkpipe_engine_counters c;
    assert_int_equal(zkpipe_engine_stats(e, &c), ZKPIPE_OK);
    assert_int_equal(c.budget_available, budget);
    assert_true(c.budget_returned_early > 0);
    zkpipe_engine_source src[STRESS_SOURCES + 1];
    size_t count;
    assert_int_equal(zkpipe_engine_sources(e, src, STRESS_SOURCES + 1, &count), ZKPIPE_OK);
    assert_int_equal(count, STRESS_SOURCES);
    for (size_t i = 0; i < count; i++) {
        const profile *q = src[i].key;
        assert_int_equal(src[i].learned_bytes, true_peak(q));
        if (q == &p[0])
            assert_int_equal(src[i].over_reservation_events, 0);
    }
    zkpipe_engine_destroy(e);
    zkpipe_snapshot s;
    assert_int_equal(zkpipe_acct_snapshot(acct, &s), ZKPIPE_OK);
    assert_int_equal(s.live_items, 0);
    assert_int_equal(s.live_bytes, 0);
    for (size_t i = 0; i < STRESS_SOURCES; i++)
        assert_int_equal(atomic_load(&p[i].failures), 0);
    assert_int_equal(w.failed_reads, 0);
    assert_int_equal(w.breaches, 0);
    assert_true(w.max_live <= w.byte_limit);
    zkpipe_acct_destroy(acct);
}

/* ---- with real proofs ---- */

/* The zkey stage (zkpipe/stages.h) on an interop fixture: `n` partitions of its witness through
 * 3 synthesis workers and 2 provers of 2 threads under a budget of two partitions and a half,
 * reservations following the ledgers, with fixed concurrency and with auto: every proof
 * verifies, and on every snapshot of a concurrent reader (registry and engine counters) the
 * accounted bytes stay within the budget (the stage's estimate is its exact peak: no partition
 * is ever over its reservation), the waist within its bound and the limit within [1, 3].
 * Returns 0 when the fixture is not there. */
static int zkey_partitions_keep_the_budget(const char *curve, zkpipe_concurrency concurrency,
                                           size_t n)
{
    char zp[1024], wp[1024], d[ZKPIPE_DETAIL_MAX];
    const char *root = getenv("ZKPIPE_SOURCE_DIR");
    snprintf(zp, sizeof zp, "%s/tests/interop/fixtures/%s/hashchain/circuit.zkey",
             root != NULL ? root : ".", curve);
    snprintf(wp, sizeof wp, "%s/tests/interop/fixtures/%s/hashchain/witness.wtns",
             root != NULL ? root : ".", curve);
    if (access(zp, R_OK) != 0 || access(wp, R_OK) != 0)
        return 0;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    zkpipe_io_options io;
    zkpipe_io_options_init(&io);
    io.flags = ZKPIPE_IO_DEFER_SUBGROUP;
    zkpipe_zkey *zkey;
    zkpipe_wtns *wtns;
    assert_int_equal(zkpipe_zkey_open(&zkey, d, sizeof d, zp, &io), ZKPIPE_OK);
    assert_int_equal(zkpipe_wtns_open(&wtns, d, sizeof d, wp, NULL), ZKPIPE_OK);
    zkpipe_zkey_source *src;
    assert_int_equal(zkpipe_zkey_source_create(&src, zkey, NULL), ZKPIPE_OK);
    zkpipe_zkey_partition zpart = {src, wp, NULL, NULL};
    zkpipe_engine_config cfg = engine_jobs_config(acct);
    cfg.synth_workers = 3;
    cfg.permits = 3;
    cfg.capacity = 1;
    cfg.prover_workers = 2;
    cfg.prover_threads = 2;
    cfg.concurrency = concurrency;
    zkpipe_stage_call call;
    memset(&call, 0, sizeof call);
    call.ctx = &zpart;
    call.prover_threads = cfg.prover_threads;
    uint64_t estimate;
    assert_int_equal(zkpipe_zkey_stage_ops()->estimate(&call, &estimate), ZKPIPE_OK);
    cfg.budget_bytes = 5 * estimate / 2;
    zkpipe_engine *e;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_OK);
    snapshot_watch w = {
        .acct = acct, .byte_limit = cfg.budget_bytes, .e = e, .max_permits = cfg.synth_workers};
    assert_int_equal(snapshot_watch_start(&w), 0);
    zkpipe_job *job;
    assert_int_equal(engine_jobs_submit(e, &job, zkpipe_zkey_stage_ops(), &zpart, n), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait_timed(job, (uint64_t)6 * PATIENCE_MS * 1000000), ZKPIPE_OK);
    snapshot_watch_stop(&w);

    zkpipe_groth16_vk *vk;
    zkpipe_groth16_pvk *pvk;
    assert_int_equal(zkpipe_zkey_vk(&vk, zkey, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_groth16_pvk_create(&pvk, vk, NULL), ZKPIPE_OK);
    zkpipe_zkey_info info;
    assert_int_equal(zkpipe_zkey_info_get(&info, zkey), ZKPIPE_OK);
    for (size_t i = 0; i < n; i++) {
        zkpipe_partition_result r;
        assert_int_equal(zkpipe_job_result(job, i, &r), ZKPIPE_OK);
        if (r.status != ZKPIPE_OK)
            fail_msg("%s partition %zu: %s (%s)", curve, i, zkpipe_status_name(r.status), r.detail);
        assert_int_equal(
            zkpipe_groth16_verify(pvk, zkpipe_wtns_values(wtns) + 1, info.num_public, &r.proof),
            ZKPIPE_OK);
    }
    zkpipe_job_destroy(job);
    zkpipe_engine_counters c;
    assert_int_equal(zkpipe_engine_stats(e, &c), ZKPIPE_OK);
    assert_int_equal(c.over_reservation_events, 0);
    assert_int_equal(c.budget_available, cfg.budget_bytes);
    assert_true(c.budget_returned_early > 0);
    zkpipe_engine_destroy(e);
    zkpipe_snapshot s;
    assert_int_equal(zkpipe_acct_snapshot(acct, &s), ZKPIPE_OK);
    assert_int_equal(s.live_items, 0);
    assert_int_equal(s.live_bytes, 0);
    assert_true(s.peak_bytes <= cfg.budget_bytes);
    assert_int_equal(w.failed_reads, 0);
    assert_int_equal(w.breaches, 0);
    assert_true(w.max_live <= cfg.budget_bytes);
    zkpipe_groth16_pvk_destroy(pvk);
    zkpipe_groth16_vk_destroy(vk);
    zkpipe_zkey_source_destroy(src);
    zkpipe_wtns_destroy(wtns);
    zkpipe_zkey_destroy(zkey);
    zkpipe_acct_destroy(acct);
    return 1;
}

static void real_proofs_keep_the_budget(void **state)
{
    (void)state;
    static const char *const curves[2] = {"bn128", "bls12381"};
    const size_t n = ZKPIPE_TEST_SANITIZED ? 8 : 24;
    int done = 0;
    for (int c = 0; c < 2; c++) {
        done += zkey_partitions_keep_the_budget(curves[c], ZKPIPE_CONCURRENCY_FIXED, n);
        done += zkey_partitions_keep_the_budget(curves[c], ZKPIPE_CONCURRENCY_AUTO, n);
    }
    if (done == 0)
        skip();
    assert_int_equal(done, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(freed_abc_admit_the_next_synthesis),
        cmocka_unit_test(learned_sizes_converge_after_one_partition),
        cmocka_unit_test(budget_is_conserved_under_traffic),
        cmocka_unit_test(real_proofs_keep_the_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
