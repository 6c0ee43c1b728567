/* Concurrency that tunes itself (ZKPIPE_CONCURRENCY_AUTO) and the unaccounted-bytes estimate.
 *
 * The controller's rule on scripted observations (exact); an engine whose provers are the
 * bottleneck (gated so that every receive finds the waist full) comes down to one permit; one
 * whose synthesis is the bottleneck goes up to every synthesis worker; under traffic the limit
 * stays within [1, synth_workers], the waist within its bound and the bytes within the budget
 * on every snapshot, and everything comes back. Then memory mapped and touched without a
 * ledger shows in the estimate, and the same memory charged does not.
 *
 * Worker threads never call cmocka asserts: they count failures, and the main thread checks. */
/* For MAP_ANONYMOUS. */
#define _DEFAULT_SOURCE
#include <sys/mman.h>

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/memory.h"
#include "engine/autotune.h"
#include "engine_jobs.h"
#include "nap.h"
#include "sanitize.h"
#include "skips.h"
#include "snapshot_watch.h"
#include "zkpipe/zkpipe.h"

#define PATIENCE_MS 60000
#define MIB (1024ull * 1024ull)

/* The rule, observation by observation: a starved receive raises the limit at once; a surplus
 * lowers it once per window of limit + capacity + provers receives. */
static void the_rule_on_scripted_observations(void **state)
{
    (void)state;
    zkpipe__autotune t;
    /* max 6, capacity 1, 1 prover; starting at 6: a window of 8 receives. */
    assert_int_equal(zkpipe__autotune_init(&t, 6, 6, 1, 1), ZKPIPE_OK);
    for (int i = 0; i < 7; i++)
        assert_int_equal(zkpipe__autotune_observe(&t, i == 3 ? 3 : 5, 0), 0);
    /* Every receive found 3 or more ready: 3 - 1 = 2 permits fewer. */
    assert_int_equal(zkpipe__autotune_observe(&t, 4, 0), 4);
    uint64_t changes = 0;
    assert_int_equal(zkpipe__autotune_limit(&t, &changes), 4);
    assert_int_equal(changes, 1);
    /* A receive starved by the limit: one more at once, whatever the window has seen. */
    for (int i = 0; i < 2; i++)
        assert_int_equal(zkpipe__autotune_observe(&t, 4, 0), 0);
    assert_int_equal(zkpipe__autotune_observe(&t, 0, 1), 5);
    /* Two more in a row: 6, then at the top a starved receive is an empty one (nothing ready:
     * its window cannot lower the limit). */
    assert_int_equal(zkpipe__autotune_observe(&t, 0, 1), 6);
    assert_int_equal(zkpipe__autotune_observe(&t, 0, 1), 0);
    for (int i = 0; i < 7; i++)
        assert_int_equal(zkpipe__autotune_observe(&t, 3, 0), 0);
    /* A window of 8 (6 + 1 + 1), every receive with 2 ready: one fewer. */
    for (int i = 0; i < 7; i++)
        assert_int_equal(zkpipe__autotune_observe(&t, 2, 0), 0);
    assert_int_equal(zkpipe__autotune_observe(&t, 2, 0), 5);
    /* Nothing ready but nothing held back (the budget, or no work): no change; one ready at
     * some receive: no decrease either. */
    for (int i = 0; i < 6; i++)
        assert_int_equal(zkpipe__autotune_observe(&t, i == 0 ? 0 : 7, 0), 0);
    assert_int_equal(zkpipe__autotune_observe(&t, 7, 0), 0);
    for (int i = 0; i < 6; i++)
        assert_int_equal(zkpipe__autotune_observe(&t, i == 4 ? 1 : 9, 0), 0);
    assert_int_equal(zkpipe__autotune_observe(&t, 9, 0), 0);
    /* "Starved" with items ready is no starvation. */
    for (int i = 0; i < 6; i++)
        assert_int_equal(zkpipe__autotune_observe(&t, 1, 1), 0);
    assert_int_equal(zkpipe__autotune_observe(&t, 1, 1), 0);
    assert_int_equal(zkpipe__autotune_limit(&t, &changes), 5);
    assert_int_equal(changes, 4);
    /* A big surplus clamps at 1; at 1 a surplus changes nothing. */
    for (int i = 0; i < 6; i++)
        assert_int_equal(zkpipe__autotune_observe(&t, 50, 0), 0);
    assert_int_equal(zkpipe__autotune_observe(&t, 50, 0), 1);
    for (int i = 0; i < 2; i++)
        assert_int_equal(zkpipe__autotune_observe(&t, 50, 0), 0);
    assert_int_equal(zkpipe__autotune_observe(&t, 50, 0), 0);
    assert_int_equal(zkpipe__autotune_limit(&t, NULL), 1);
    zkpipe__autotune_destroy(&t);

    /* Starvation at the top changes nothing; the start is clamped into [1, max]. */
    assert_int_equal(zkpipe__autotune_init(&t, 9, 2, 0, 1), ZKPIPE_OK);
    assert_int_equal(zkpipe__autotune_limit(&t, NULL), 2);
    for (int i = 0; i < 3; i++)
        assert_int_equal(zkpipe__autotune_observe(&t, 0, 1), 0);
    assert_int_equal(zkpipe__autotune_limit(&t, &changes), 2);
    assert_int_equal(changes, 0);
    zkpipe__autotune_destroy(&t);
    assert_int_equal(zkpipe__autotune_init(&t, 0, 3, 1, 1), ZKPIPE_OK);
    assert_int_equal(zkpipe__autotune_limit(&t, NULL), 1);
    zkpipe__autotune_destroy(&t);
}

/* Host operations that charge bytes without allocating them. `gate_full`: each prove waits
 * until the waist holds every item it can (limit + capacity, or all that remain), so each
 * receive finds the waist full. `synth_ms`: a nap in synthesis. */
typedef struct rig {
    uint64_t bytes;
    long synth_ms, prove_max_ms;
    int gate_full;
    size_t n;
    zkpipe_engine *e;
    atomic_long synths, proofs, failures;
    atomic_uint seed;
} rig;

static zkpipe_status r_estimate(const zkpipe_stage_call *call, uint64_t *bytes)
{
    *bytes = ((const rig *)call->ctx)->bytes;
    return ZKPIPE_OK;
}

/* A pseudo-random nap of 0 .. max_ms milliseconds. */
static void nap_some(rig *r, long max_ms)
{
    if (max_ms <= 0)
        return;
    unsigned x = atomic_fetch_add(&r->seed, 2654435761u);
    nap_ms((long)((x >> 7) % (unsigned)(max_ms + 1)));
}

static zkpipe_status r_synthesize(const zkpipe_stage_call *call, void **out)
{
    rig *r = call->ctx;
    if (zkpipe_ledger_charge(call->ledger, ZKPIPE_KIND_ABC, r->bytes) != ZKPIPE_OK)
        atomic_fetch_add(&r->failures, 1);
    if (r->synth_ms < 0)
        nap_some(r, -r->synth_ms);
    else if (r->synth_ms > 0)
        nap_ms(r->synth_ms);
    atomic_fetch_add(&r->synths, 1);
    *out = r;
    return ZKPIPE_OK;
}

static void wait_until_full(rig *r)
{
    long started = atomic_load(&r->proofs); /* including this one */
    for (long t = 0; t < PATIENCE_MS; t++) {
        zkpipe_engine_counters c;
        if (zkpipe_engine_stats(r->e, &c) != ZKPIPE_OK)
            break;
        uint64_t want = c.permits_admitted + c.channel_capacity;
        uint64_t left = r->n - (uint64_t)started;
        if (c.channel_items + c.waiting_senders >= (want < left ? want : left))
            return;
        nap_ms(1);
    }
    atomic_fetch_add(&r->failures, 1);
}

static zkpipe_status r_prove(const zkpipe_stage_call *call, void *item,
                             zkpipe_partition_result *out)
{
    (void)item;
    (void)out;
    rig *r = call->ctx;
    atomic_fetch_add(&r->proofs, 1);
    if (r->gate_full)
        wait_until_full(r);
    nap_some(r, r->prove_max_ms);
    if (zkpipe_ledger_release(call->ledger, ZKPIPE_KIND_ABC, r->bytes) != ZKPIPE_OK)
        atomic_fetch_add(&r->failures, 1);
    return ZKPIPE_OK;
}

static void r_discard(const zkpipe_stage_call *call, void *item)
{
    (void)call;
    (void)item;
}

static const zkpipe_stage_ops rig_ops = {
    .struct_size = sizeof(zkpipe_stage_ops),
    .name = "rig",
    .estimate = r_estimate,
    .synthesize = r_synthesize,
    .prove = r_prove,
    .discard = r_discard,
};

static zkpipe_engine_config auto_config(zkpipe_acct *acct, unsigned synth_workers, uint64_t start,
                                        uint64_t budget)
{
    zkpipe_engine_config cfg = engine_jobs_config(acct);
    cfg.concurrency = ZKPIPE_CONCURRENCY_AUTO;
    cfg.synth_workers = synth_workers;
    cfg.permits = start;
    cfg.capacity = 1;
    cfg.prover_workers = 1;
    cfg.budget_bytes = budget;
    return cfg;
}

/* One job of r->n partitions through r->e, every one proved. */
static void run_job(rig *r)
{
    assert_int_equal(engine_jobs_run(r->e, &rig_ops, r, r->n, 6 * PATIENCE_MS), ZKPIPE_OK);
}

/* One job of r->n partitions through a fresh auto engine of `workers` synthesis workers
 * starting at `start` permits (1 prover, capacity 1, a budget that never binds): the
 * counters at the start and at the end. */
static void auto_run(rig *r, unsigned workers, uint64_t start, zkpipe_engine_counters *first,
                     zkpipe_engine_counters *last)
{
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    r->bytes = 1000;
    zkpipe_engine_config cfg = auto_config(acct, workers, start, 100 * r->bytes);
    assert_int_equal(zkpipe_engine_create(&r->e, &cfg), ZKPIPE_OK);
    assert_int_equal(zkpipe_engine_stats(r->e, first), ZKPIPE_OK);
    run_job(r);
    /* The job ends when its last proof does; a synthesis worker may give back the permit it
     * took to look for more work a moment later. Wait (bounded) until every lent one is back. */
    for (int i = 0; i < 10000; i++) {
        assert_int_equal(zkpipe_engine_stats(r->e, last), ZKPIPE_OK);
        if (last->permits_available == last->permits_admitted)
            break;
        nap_ms(1);
    }
    assert_int_equal(last->proved, r->n);
    assert_true(last->peak_in_flight <= last->bound);
    assert_int_equal(atomic_load(&r->failures), 0);
    zkpipe_engine_destroy(r->e);
    zkpipe_acct_destroy(acct);
}

/* Proving the bottleneck: each receive finds 4 permits' and the slot's items ready (5), so
 * after the first window the limit drops by 4 to 1, and stays there (2 ready: 1 fewer would
 * be 0, clamped). */
static void a_surplus_brings_the_permits_down(void **state)
{
    (void)state;
    rig r;
    memset(&r, 0, sizeof r);
    r.gate_full = 1;
    r.n = 24;
    zkpipe_engine_counters first, last;
    auto_run(&r, 4, 4, &first, &last);
    assert_int_equal(first.permits_admitted, 4);
    assert_int_equal(first.bound, 4 + 1);
    assert_int_equal(last.permits_admitted, 1);
    assert_int_equal(last.permits_available, 1);
}

/* Synthesis the bottleneck: starting at one permit, the prover finds nothing ready while two
 * more synthesis workers wait for a permit: the limit climbs to 3. */
static void a_starved_prover_brings_the_permits_up(void **state)
{
    (void)state;
    rig r;
    memset(&r, 0, sizeof r);
    r.synth_ms = 20;
    r.n = 30;
    zkpipe_engine_counters first, last;
    auto_run(&r, 3, 1, &first, &last);
    assert_int_equal(first.permits_admitted, 1);
    assert_int_equal(last.permits_admitted, 3);
    assert_true(last.prover_idle_ns > 0);
}

/* Random phase lengths through 4 synthesis workers and 2 provers, jobs canceled now and then:
 * the limit moves and stays in [1, 4]; on every snapshot the waist is within its bound and the
 * bytes within the budget (every estimate is exact); at the end every permit and budget unit
 * is back and no ledger is open. */
static void auto_mode_under_traffic(void **state)
{
    (void)state;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    rig r;
    memset(&r, 0, sizeof r);
    r.bytes = 1000;
    r.synth_ms = -2; /* 0-2 ms */
    r.prove_max_ms = 2;
    uint64_t budget = 5 * r.bytes;
    zkpipe_engine_config cfg = auto_config(acct, 4, 2, budget);
    cfg.capacity = 2;
    cfg.prover_workers = 2;
    assert_int_equal(zkpipe_engine_create(&r.e, &cfg), ZKPIPE_OK);
    snapshot_watch w = {
        .acct = acct, .byte_limit = budget, .e = r.e, .max_permits = cfg.synth_workers};
    assert_int_equal(snapshot_watch_start(&w), 0);
    enum { MAX_JOBS = 80, PER_JOB = 6 };
    const size_t jobs = ZKPIPE_TEST_SANITIZED ? 30 : MAX_JOBS;
    zkpipe_job *job[MAX_JOBS];
    for (size_t j = 0; j < jobs; j++) {
        zkpipe_partition parts[PER_JOB];
        for (size_t i = 0; i < PER_JOB; i++)
            parts[i] = (zkpipe_partition){&rig_ops, &r, {0, 0}};
        assert_int_equal(zkpipe_engine_submit(r.e, &job[j], parts, PER_JOB, NULL, NULL), ZKPIPE_OK);
        if (j % 7 == 6)
            zkpipe_job_cancel(job[j]);
    }
    zkpipe_engine_drain(r.e);
    for (size_t j = 0; j < jobs; j++)
        zkpipe_job_destroy(job[j]);
    snapshot_watch_stop(&w);
    zkpipe_engine_counters c;
    assert_int_equal(zkpipe_engine_stats(r.e, &c), ZKPIPE_OK);
    assert_int_equal(c.budget_available, budget);
    assert_int_equal(c.permits_available, c.permits_admitted);
    assert_int_equal(c.proved + c.canceled, (uint64_t)jobs * PER_JOB);
    assert_int_equal(c.failed, 0);
    assert_int_equal(c.over_reservation_events, 0);
    zkpipe_engine_destroy(r.e);
    zkpipe_snapshot s;
    assert_int_equal(zkpipe_acct_snapshot(acct, &s), ZKPIPE_OK);
    assert_int_equal(s.live_items, 0);
    assert_int_equal(s.live_bytes, 0);
    assert_int_equal(atomic_load(&r.failures), 0);
    assert_int_equal(w.failed_reads, 0);
    assert_int_equal(w.breaches, 0);
    assert_true(w.min_permits >= 1 && w.max_permits_seen <= 4);
    zkpipe_acct_destroy(acct);
}

/* Settings the engine refuses, and auto without a budget: half of MemAvailable. */
static void auto_settings(void **state)
{
    (void)state;
    zkpipe_engine_config cfg = auto_config(NULL, 2, 2, 0);
    cfg.concurrency = (zkpipe_concurrency)2;
    zkpipe_engine *e = NULL;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_EINVAL);
    assert_null(e);
    cfg.concurrency = ZKPIPE_CONCURRENCY_AUTO;
    uint64_t avail;
    if (zkpipe__mem_available_bytes(&avail) != ZKPIPE_OK) {
        assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_EUNSUPPORTED);
        return;
    }
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_OK);
    zkpipe_engine_counters c;
    assert_int_equal(zkpipe_engine_stats(e, &c), ZKPIPE_OK);
    /* MemAvailable moves meanwhile: within a quarter of it either way. */
    assert_true(c.budget_bytes > avail / 4 && c.budget_bytes < avail);
    assert_int_equal(c.budget_available, c.budget_bytes);
    /* A start above the workers is clamped. */
    zkpipe_engine_destroy(e);
    cfg.permits = 9;
    cfg.budget_bytes = 1000;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_OK);
    assert_int_equal(zkpipe_engine_stats(e, &c), ZKPIPE_OK);
    assert_int_equal(c.permits_admitted, 2);
    assert_int_equal(c.budget_bytes, 1000);
    zkpipe_engine_destroy(e);
}

/* Synthesis maps and touches `bytes` of memory, charged to the ledger or not; prove unmaps. */
typedef struct toucher {
    size_t bytes;
    int charge;
    atomic_long failures;
} toucher;

static zkpipe_status t_synthesize(const zkpipe_stage_call *call, void **out)
{
    toucher *t = call->ctx;
    unsigned char *p =
        mmap(NULL, t->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return ZKPIPE_ENOMEM;
    if (t->charge && zkpipe_ledger_charge(call->ledger, ZKPIPE_KIND_AUX, t->bytes) != ZKPIPE_OK)
        atomic_fetch_add(&t->failures, 1);
    for (size_t i = 0; i < t->bytes; i += 4096)
        p[i] = (unsigned char)(i >> 12);
    *out = p;
    return ZKPIPE_OK;
}

static void unmap(const zkpipe_stage_call *call, void *item)
{
    toucher *t = call->ctx;
    munmap(item, t->bytes);
    if (t->charge && call->ledger != NULL &&
        zkpipe_ledger_release(call->ledger, ZKPIPE_KIND_AUX, t->bytes) != ZKPIPE_OK)
        atomic_fetch_add(&t->failures, 1);
}

static zkpipe_status t_prove(const zkpipe_stage_call *call, void *item,
                             zkpipe_partition_result *out)
{
    (void)out;
    unmap(call, item);
    return ZKPIPE_OK;
}

static const zkpipe_stage_ops touch_ops = {
    .struct_size = sizeof(zkpipe_stage_ops),
    .name = "touch",
    .synthesize = t_synthesize,
    .prove = t_prove,
    .discard = unmap,
};

typedef struct lines {
    pthread_mutex_t lock;
    int count, with_estimate;
} lines;

static void count_line(const char *line, void *ctx)
{
    lines *l = ctx;
    pthread_mutex_lock(&l->lock);
    l->count++;
    l->with_estimate += strstr(line, "synth=") != NULL && strstr(line, " unaccounted~=") != NULL;
    pthread_mutex_unlock(&l->lock);
}

/* The peak estimate over one partition that touches `bytes`, charged or not. */
static uint64_t unaccounted_peak(size_t bytes, int charge, lines *l)
{
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    toucher t = {bytes, charge, 0};
    zkpipe_engine_config cfg = engine_jobs_config(acct);
    cfg.synth_workers = 1;
    cfg.report_ms = 1;
    cfg.report_fn = count_line;
    cfg.report_ctx = l;
    zkpipe_engine *e;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_OK);
    zkpipe_partition part = {&touch_ops, &t, {0, 0}};
    zkpipe_job *job;
    assert_int_equal(zkpipe_engine_submit(e, &job, &part, 1, NULL, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait_timed(job, (uint64_t)PATIENCE_MS * 1000000), ZKPIPE_OK);
    zkpipe_partition_result res;
    assert_int_equal(zkpipe_job_result(job, 0, &res), ZKPIPE_OK);
    assert_int_equal(res.status, ZKPIPE_OK);
    zkpipe_job_destroy(job);
    zkpipe_engine_counters c;
    assert_int_equal(zkpipe_engine_stats(e, &c), ZKPIPE_OK);
    assert_true(c.unaccounted_peak_bytes >= c.unaccounted_bytes);
    zkpipe_engine_destroy(e);
    zkpipe_acct_destroy(acct);
    assert_int_equal(atomic_load(&t.failures), 0);
    return c.unaccounted_peak_bytes;
}

/* 48 MiB touched outside any ledger shows (sampled when synthesis ends); charged, it does
 * not. The margins are wide: the process's own growth meanwhile (threads' stacks, allocator
 * caches) is a few MiB. */
static void memory_outside_the_ledgers_shows(void **state)
{
    (void)state;
    uint64_t rss;
    if (zkpipe__rss_bytes(&rss) != ZKPIPE_OK) {
        test_skip("no resident set size from /proc on this system");
        return;
    }
    /* Under valgrind the resident set is its allocator's, which keeps what the program frees
     * (the first run's 48 MiB, the charged run's after its release): the charged run then
     * showed 48 MiB outside the ledgers in some runs. Natively and under the sanitizers the
     * case runs. */
    if (test_wrapped()) {
        test_skip("under a wrapper (valgrind) the resident set is the wrapper's allocator's");
        return;
    }
    assert_true(rss > 0);
    lines l = {PTHREAD_MUTEX_INITIALIZER, 0, 0};
    uint64_t hidden = unaccounted_peak(48 * MIB, 0, &l);
    uint64_t charged = unaccounted_peak(48 * MIB, 1, &l);
    /* Compared with each other: a sanitizer's shadow of the touched pages (4x under TSan)
     * shows in both, the uncharged 48 MiB only in the first. */
    assert_true(hidden >= 40 * MIB);
    assert_true(charged < hidden && hidden - charged >= 40 * MIB);
    pthread_mutex_lock(&l.lock);
    assert_int_equal(l.with_estimate, l.count);
    pthread_mutex_unlock(&l.lock);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_rule_on_scripted_observations),
        cmocka_unit_test(a_surplus_brings_the_permits_down),
        cmocka_unit_test(a_starved_prover_brings_the_permits_up),
        cmocka_unit_test(auto_mode_under_traffic),
        cmocka_unit_test(auto_settings),
        cmocka_unit_test(memory_outside_the_ledgers_shows),
    };
    return run_tests_or_skip(tests);
}
