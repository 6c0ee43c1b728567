/* The engine watched from outside: its histograms count each phase of exactly the partitions
 * that went through it (failed and canceled ones as documented), the in-flight list shows
 * every partition holding a ledger with its stage, oldest first, bounded by the caller's room,
 * an attached trace becomes valid JSON on its own while a partition takes long, the library's
 * provider serves all of it over HTTP, and set-up failures with a trace leave nothing. The
 * partitions are a host's: small charged buffers, with a gate that holds provers. */
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

#include <jansson.h>
#include <cmocka.h>

#include "engine_jobs.h"
#include "fail_alloc.h"
#include "fail_pthread.h"
#include "http_client.h"
#include "nap.h"
#include "read_file.h"
#include "zkpipe/zkpipe.h"

/* A generous limit for waits that must end; reaching it is a failure, not a measurement. */
#define PATIENCE_MS 120000
#define BUF_BYTES 4096

/* What every partition of a test shares: which fail, how long each phase takes, the gate. */
typedef struct host {
    long synth_ms, prove_ms;
    size_t fail_synth, fail_prove; /* partition indexes that fail (SIZE_MAX: none) */
    pthread_mutex_t lock;
    pthread_cond_t opened;
    int shut;              /* provers wait in prove while set */
    atomic_int held;       /* provers waiting at the gate */
    atomic_int proves_run; /* prove calls */
    atomic_int discarded;  /* discard calls */
} host;

static void host_init(host *h, int shut)
{
    memset(h, 0, sizeof *h);
    h->fail_synth = h->fail_prove = SIZE_MAX;
    h->shut = shut;
    assert_int_equal(pthread_mutex_init(&h->lock, NULL), 0);
    assert_int_equal(pthread_cond_init(&h->opened, NULL), 0);
}

static void host_open(host *h)
{
    pthread_mutex_lock(&h->lock);
    h->shut = 0;
    pthread_cond_broadcast(&h->opened);
    pthread_mutex_unlock(&h->lock);
}

static void host_free(host *h)
{
    pthread_cond_destroy(&h->opened);
    pthread_mutex_destroy(&h->lock);
}

static zkpipe_status synthesize(const zkpipe_stage_call *call, void **item)
{
    host *h = call->ctx;
    if (h->synth_ms > 0)
        nap_ms(h->synth_ms);
    if (call->partition == h->fail_synth)
        return ZKPIPE_EINVAL;
    void *buf = malloc(BUF_BYTES);
    if (buf == NULL)
        return ZKPIPE_ENOMEM;
    zkpipe_status st = zkpipe_ledger_charge(call->ledger, ZKPIPE_KIND_ABC, BUF_BYTES);
    if (st != ZKPIPE_OK) {
        free(buf);
        return st;
    }
    *item = buf;
    return ZKPIPE_OK;
}

static zkpipe_status prove(const zkpipe_stage_call *call, void *item, zkpipe_partition_result *out)
{
    (void)out;
    host *h = call->ctx;
    atomic_fetch_add(&h->proves_run, 1);
    pthread_mutex_lock(&h->lock);
    atomic_fetch_add(&h->held, 1);
    while (h->shut)
        pthread_cond_wait(&h->opened, &h->lock);
    atomic_fetch_sub(&h->held, 1);
    pthread_mutex_unlock(&h->lock);
    if (h->prove_ms > 0)
        nap_ms(h->prove_ms);
    zkpipe_ledger_release(call->ledger, ZKPIPE_KIND_ABC, BUF_BYTES);
    free(item);
    return call->partition == h->fail_prove ? ZKPIPE_EUNSATISFIED : ZKPIPE_OK;
}

static void discard(const zkpipe_stage_call *call, void *item)
{
    host *h = call->ctx;
    atomic_fetch_add(&h->discarded, 1);
    if (call->ledger != NULL)
        zkpipe_ledger_release(call->ledger, ZKPIPE_KIND_ABC, BUF_BYTES);
    free(item);
}

static const zkpipe_stage_ops host_ops = {sizeof(zkpipe_stage_ops),
                                          "test_host",
                                          NULL,
                                          synthesize,
                                          prove,
                                          discard,
                                          NULL,
                                          NULL,
                                          NULL,
                                          NULL,
                                          NULL};

static zkpipe_engine_config config(zkpipe_acct *acct, unsigned synth_workers, uint64_t permits,
                                   size_t capacity)
{
    zkpipe_engine_config c = engine_jobs_config(acct);
    c.synth_workers = synth_workers;
    c.permits = permits;
    c.capacity = capacity;
    return c;
}

static zkpipe_job *submit(zkpipe_engine *e, host *h, size_t n)
{
    zkpipe_job *job = NULL;
    assert_int_equal(engine_jobs_submit(e, &job, &host_ops, h, n), ZKPIPE_OK);
    return job;
}

/* What each test runs on: a registry of its own, a host, and an engine over them. */
typedef struct rig {
    zkpipe_acct *acct;
    host h;
    zkpipe_engine_config c; /* set by rig_init; a test may change it before rig_engine */
    zkpipe_engine *e;
} rig;

/* The registry, the host (provers held at the gate when `shut`) and the engine's config. */
static void rig_init(rig *r, int shut, unsigned synth_workers, uint64_t permits, size_t capacity)
{
    r->acct = NULL;
    r->e = NULL;
    assert_int_equal(zkpipe_acct_create(NULL, &r->acct), ZKPIPE_OK);
    host_init(&r->h, shut);
    r->c = config(r->acct, synth_workers, permits, capacity);
}

/* Creates the engine with r->c. */
static zkpipe_engine *rig_engine(rig *r)
{
    assert_int_equal(zkpipe_engine_create(&r->e, &r->c), ZKPIPE_OK);
    return r->e;
}

/* Destroys the engine (busy or not), the host and the registry. */
static void rig_free(rig *r)
{
    zkpipe_engine_destroy(r->e);
    host_free(&r->h);
    zkpipe_acct_destroy(r->acct);
}

static zkpipe_histogram_snapshot hist(zkpipe_engine *e, zkpipe_engine_phase phase)
{
    zkpipe_histogram_snapshot s;
    assert_int_equal(zkpipe_engine_histogram(e, phase, &s), ZKPIPE_OK);
    assert_int_equal(s.count, s.cumulative[s.bucket_count]);
    for (uint32_t i = 0; i < s.bucket_count; i++)
        assert_true(s.cumulative[i] <= s.cumulative[i + 1]);
    assert_true(s.unit == 1e-9);
    /* Buckets for both millisecond and minute-long partitions. */
    assert_true(s.bounds[0] <= UINT64_C(1000000));
    assert_true(s.bounds[s.bucket_count - 1] >= UINT64_C(600) * 1000000000u);
    return s;
}

/* Polls `count` in flight until it is `want`; fails after PATIENCE_MS. */
static void wait_in_flight(zkpipe_engine *e, size_t want)
{
    for (long waited = 0;; waited += 2) {
        size_t n = 0;
        assert_int_equal(zkpipe_engine_in_flight(e, NULL, 0, &n), ZKPIPE_OK);
        zkpipe_engine_counters c;
        zkpipe_engine_stats(e, &c);
        /* Settled: every partition listed, and the blocked ones blocked. */
        if (n == want && c.permits_available == 0 && c.waiting_senders > 0)
            return;
        assert_true(waited < PATIENCE_MS);
        nap_ms(2);
    }
}

static void histograms_count_each_phase(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, 0, 2, 2, 2);
    host *h = &r.h;
    h->synth_ms = 3;
    h->prove_ms = 2;
    h->fail_synth = 3;
    h->fail_prove = 5;
    zkpipe_engine *e = rig_engine(&r);
    for (int p = 0; p < ZKPIPE_PHASE_COUNT; p++)
        assert_int_equal(hist(e, (zkpipe_engine_phase)p).count, 0);
    zkpipe_job *job = submit(e, h, 8);
    assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
    zkpipe_engine_counters n;
    zkpipe_engine_stats(e, &n);
    assert_int_equal(n.proved, 6);
    assert_int_equal(n.failed, 2);
    /* The failed synthesis is in none; the failed proof in all three. */
    zkpipe_histogram_snapshot s = hist(e, ZKPIPE_PHASE_SYNTH);
    zkpipe_histogram_snapshot w = hist(e, ZKPIPE_PHASE_WAIT);
    zkpipe_histogram_snapshot p = hist(e, ZKPIPE_PHASE_PROVE);
    assert_int_equal(s.count, 7);
    assert_int_equal(w.count, 7);
    assert_int_equal(p.count, 7);
    /* Each synthesis napped 3 ms and each proof 2 ms: none is in the 1 ms bucket. */
    assert_true(s.sum >= 7 * UINT64_C(3000000));
    assert_true(p.sum >= 7 * UINT64_C(2000000));
    assert_int_equal(s.cumulative[0], 0);
    assert_int_equal(p.cumulative[0], 0);
    /* The histograms agree with the results' own timings. */
    double synth_sum = 0;
    for (size_t i = 0; i < 8; i++) {
        zkpipe_partition_result r;
        assert_int_equal(zkpipe_job_result(job, i, &r), ZKPIPE_OK);
        synth_sum += r.synth_s;
    }
    assert_true(synth_sum > 0.9 * 1e-9 * (double)s.sum && synth_sum < 1.1 * 1e-9 * (double)s.sum);
    zkpipe_job_destroy(job);

    /* Canceled partitions are in no prove histogram; the proof held at the gate is. */
    h->fail_synth = h->fail_prove = SIZE_MAX;
    h->synth_ms = h->prove_ms = 0;
    h->shut = 1;
    job = submit(e, h, 6);
    wait_in_flight(e, 5); /* 1 proving, 2 queued, 2 pending in front of the full channel */
    zkpipe_job_cancel(job);
    host_open(h);
    assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
    zkpipe_engine_stats(e, &n);
    assert_int_equal(n.proved, 6 + 1);
    assert_int_equal(n.canceled, 5);
    assert_int_equal(atomic_load(&h->proves_run), 7 + 1);
    assert_int_equal(hist(e, ZKPIPE_PHASE_PROVE).count, 7 + 1);
    /* Every partition a prover took waited, canceled or not: the one held, and those of the
     * four synthesized before the cancel that reached a prover before the job ended. Every
     * one that reached pending synthesized: those five, and the sixth when it had taken its
     * permit before the cancel was seen. */
    uint64_t waited = hist(e, ZKPIPE_PHASE_WAIT).count;
    assert_true(waited >= 7 + 1 && waited <= 7 + 5);
    uint64_t synthesized = hist(e, ZKPIPE_PHASE_SYNTH).count;
    assert_true(synthesized >= 7 + 5 && synthesized <= 7 + 6);
    zkpipe_job_destroy(job);

    zkpipe_histogram_snapshot x;
    assert_int_equal(zkpipe_engine_histogram(NULL, ZKPIPE_PHASE_SYNTH, &x), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_engine_histogram(e, ZKPIPE_PHASE_COUNT, &x), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_engine_histogram(e, (zkpipe_engine_phase)-1, &x), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_engine_histogram(e, ZKPIPE_PHASE_WAIT, NULL), ZKPIPE_EINVAL);
    rig_free(&r);
}

static void in_flight_lists_oldest_first(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, 1, 2, 2, 2);
    zkpipe_engine *e = rig_engine(&r);
    zkpipe_job *first = submit(e, &r.h, 2);
    zkpipe_job *second = submit(e, &r.h, 6);
    wait_in_flight(e, 5);

    zkpipe_partition_info list[8];
    memset(list, 0xa5, sizeof list);
    size_t n = 0;
    assert_int_equal(zkpipe_engine_in_flight(e, list, 8, &n), ZKPIPE_OK);
    assert_int_equal(n, 5);
    /* One held in prove, the channel full, two synthesized in front of it; which of two
     * partitions synthesized at once went first is the workers' race. */
    int seen[2][6] = {{0}}, in_stage[ZKPIPE_STAGE_BUILTIN_COUNT] = {0};
    for (size_t i = 0; i < 5; i++) {
        assert_true(list[i].stage < ZKPIPE_STAGE_BUILTIN_COUNT);
        in_stage[list[i].stage]++;
        assert_true(list[i].job == 1 || list[i].job == 2);
        assert_true(list[i].index < (list[i].job == 1 ? 2u : 6u));
        assert_false(seen[list[i].job - 1][list[i].index]++);
        assert_true(list[i].stage_ns <= list[i].age_ns);
        assert_true(list[i].age_ns < (uint64_t)PATIENCE_MS * 1000000u);
        if (i > 0)
            assert_true(list[i].age_ns <= list[i - 1].age_ns);
        assert_int_equal(list[i].reserved[0], 0);
        assert_int_equal(list[i].reserved[1], 0);
    }
    assert_int_equal(in_stage[ZKPIPE_STAGE_PROVING], 1);
    assert_int_equal(in_stage[ZKPIPE_STAGE_QUEUED], 2);
    assert_int_equal(in_stage[ZKPIPE_STAGE_PENDING], 2);
    /* Both of the first job's partitions are in flight, one of them began first and one is
     * being proved: a worker takes a second job's partition only after it has delivered one
     * of the first job's. Which one comes second in the list is the workers' race: a worker
     * can list a second job's partition before the other worker lists its first-job one. */
    assert_true(seen[0][0] && seen[0][1]);
    assert_int_equal(list[0].job, 1);
    for (size_t i = 0; i < 5; i++)
        if (list[i].stage == ZKPIPE_STAGE_PROVING)
            assert_int_equal(list[i].job, 1);
    assert_true(list[5].job == 0xa5a5a5a5a5a5a5a5u); /* nothing past what was listed */

    /* Bounded by the caller's room; counting only. */
    memset(list, 0, sizeof list);
    assert_int_equal(zkpipe_engine_in_flight(e, list, 2, &n), ZKPIPE_OK);
    assert_int_equal(n, 5);
    assert_int_equal(list[0].job, 1);
    assert_int_equal(list[2].job, 0);
    assert_int_equal(zkpipe_engine_in_flight(e, NULL, 0, &n), ZKPIPE_OK);
    assert_int_equal(n, 5);
    assert_int_equal(zkpipe_engine_in_flight(e, NULL, 1, &n), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_engine_in_flight(e, list, 1, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_engine_in_flight(NULL, list, 1, &n), ZKPIPE_EINVAL);

    host_open(&r.h);
    zkpipe_engine_drain(e);
    assert_int_equal(zkpipe_engine_in_flight(e, list, 8, &n), ZKPIPE_OK);
    assert_int_equal(n, 0);
    zkpipe_job_destroy(first);
    zkpipe_job_destroy(second);

    /* Destroyed busy: whatever was listed is ended and unlisted, nothing leaks. */
    zkpipe_engine_destroy(e);
    e = rig_engine(&r);
    r.h.shut = 1;
    zkpipe_job *busy = submit(e, &r.h, 6);
    wait_in_flight(e, 5);
    host_open(&r.h);
    rig_free(&r);
    zkpipe_job_destroy(busy);
}

/* The trace parses and names the first partition's track. */
static int trace_shows_partition(const char *path)
{
    char *text = read_file(path, NULL);
    json_t *doc = text != NULL ? json_loads(text, 0, NULL) : NULL;
    int found = 0;
    size_t i;
    json_t *ev;
    json_array_foreach(json_object_get(doc, "traceEvents"), i, ev)
    {
        const char *name = json_string_value(json_object_get(json_object_get(ev, "args"), "name"));
        found |= name != NULL && strcmp(name, "job 1 partition 0") == 0;
    }
    json_decref(doc);
    free(text);
    return found;
}

static void trace_is_flushed_while_a_partition_takes_long(void **state)
{
    (void)state;
    char path[] = "/tmp/zkpipe-observe-trace-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    zkpipe_trace *trace = NULL;
    assert_int_equal(zkpipe_trace_open(&trace, path, NULL), ZKPIPE_OK);
    rig r;
    rig_init(&r, 1, 1, 1, 1);
    r.c.trace = trace;
    zkpipe_job *job = submit(rig_engine(&r), &r.h, 1);
    /* The partition is held in prove: no event comes after its first ones, nothing calls
     * zkpipe_trace_flush, and the buffer is far from full; only the engine's flusher can
     * bring them to the file. */
    long waited = 0;
    while (!trace_shows_partition(path)) {
        assert_true(waited < PATIENCE_MS);
        nap_ms(20);
        waited += 20;
    }
    assert_int_equal(atomic_load(&r.h.held), 1);
    host_open(&r.h);
    assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
    zkpipe_job_destroy(job);
    rig_free(&r); /* the engine before the trace it writes */
    assert_int_equal(zkpipe_trace_close(trace), ZKPIPE_OK);
    assert_true(trace_shows_partition(path));
    unlink(path);
}

#ifndef ZKPIPE_TEST_NO_HTTP
/* GET `path`, answered 200; free it with http_reply_free. */
static http_reply get_ok(uint16_t port, const char *path)
{
    http_reply r;
    assert_int_equal(http_simple("127.0.0.1", port, "GET", path, &r), 0);
    assert_int_equal(r.status, 200);
    return r;
}

/* /status parsed (*doc, for json_decref; every number read as a double) and its "engine"
 * object. */
static const json_t *engine_status(uint16_t port, json_t **doc)
{
    http_reply r = get_ok(port, "/status");
    *doc = json_loadb(r.body, r.body_len, JSON_DECODE_INT_AS_REAL, NULL);
    http_reply_free(&r);
    assert_non_null(*doc);
    const json_t *eng = json_object_get(*doc, "engine");
    assert_non_null(eng);
    return eng;
}

static double number(const json_t *obj, const char *path)
{
    char key[64];
    const char *p = path;
    while (obj != NULL && *p != '\0') {
        size_t n = strcspn(p, ".");
        assert_true(n < sizeof key);
        memcpy(key, p, n);
        key[n] = '\0';
        obj = json_object_get(obj, key);
        p += n + (p[n] == '.');
    }
    assert_true(json_is_number(obj));
    return json_number_value(obj);
}

/* A number a JSON object must hold at `path`. */
typedef struct expect_number {
    const char *path;
    double value;
} expect_number;

#define EXPECT_NUMBERS(obj, ...)                                                                   \
    expect_numbers((obj), (const expect_number[]){__VA_ARGS__},                                    \
                   sizeof((const expect_number[]){__VA_ARGS__}) / sizeof(expect_number))

static void expect_numbers(const json_t *obj, const expect_number *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (number(obj, want[i].path) != want[i].value)
            fail_msg("%s is %g, not %g", want[i].path, number(obj, want[i].path), want[i].value);
}

/* Fails unless each of the NULL-ended `lines` is a whole line of `text`. */
#define EXPECT_LINES(text, ...) expect_lines((text), (const char *const[]){__VA_ARGS__, NULL})

static void expect_lines(const char *text, const char *const *lines)
{
    for (; *lines != NULL; lines++) {
        size_t n = strlen(*lines);
        const char *p = strstr(text, *lines);
        while (p != NULL && !((p == text || p[-1] == '\n') && p[n] == '\n'))
            p = strstr(p + 1, *lines);
        if (p == NULL)
            fail_msg("no line \"%s\" in:\n%s", *lines, text);
    }
}

static void provider_serves_the_engine(void **state)
{
    (void)state;
    rig g;
    rig_init(&g, 1, 2, 2, 2);
    g.c.budget_bytes = 1 << 20;
    zkpipe_engine *e = rig_engine(&g);
    zkpipe_http_config hc;
    zkpipe_http_config_init(&hc);
    hc.acct = g.acct;
    zkpipe_http *srv = NULL;
    assert_int_equal(zkpipe_http_start(&srv, &hc), ZKPIPE_OK);
    uint16_t port = zkpipe_http_port(srv);
    assert_int_equal(zkpipe_http_attach(srv, "engine", zkpipe_engine_http_provider, e), ZKPIPE_OK);
    assert_int_equal(zkpipe_engine_http_provider(NULL, ZKPIPE_HTTP_JSON, e), ZKPIPE_EINVAL);
    zkpipe_job *job = submit(e, &g.h, 7);
    wait_in_flight(e, 5);

    json_t *doc;
    const json_t *eng = engine_status(port, &doc);
    assert_string_equal(json_string_value(json_object_get(eng, "backend")), "cpu");
    /* which CPU paths the arithmetic takes (zkpipe/cpu.h), as the library reports them */
    zkpipe_cpu_info cpu;
    zkpipe_cpu_info_get(&cpu);
    const json_t *paths = json_object_get(eng, "cpu");
    assert_string_equal(json_string_value(json_object_get(paths, "in_use")),
                        zkpipe_cpu_features_name(cpu.in_use));
    assert_string_equal(json_string_value(json_object_get(paths, "detected")),
                        zkpipe_cpu_features_name(cpu.detected));
    EXPECT_NUMBERS(eng, {"submitted", 7}, {"proving", 1}, {"in_flight", 4}, {"permits.total", 2},
                   {"permits.available", 0}, {"budget.total_bytes", 1 << 20}, {"channel.items", 2},
                   {"channel.capacity", 2}, {"wait_seconds.count", 1}, {"prove_seconds.count", 0},
                   {"partitions.count", 5});
    assert_true(number(eng, "budget.used_bytes") + number(eng, "budget.available_bytes") ==
                1 << 20);
    assert_true(number(eng, "channel.waiting_senders") >= 1);
    assert_true(number(eng, "synth_seconds.count") >= 5);
    const json_t *listed = json_object_get(json_object_get(eng, "partitions"), "listed");
    assert_int_equal(json_array_size(listed), 5);
    int proving = 0, queued = 0, pending = 0;
    for (int i = 0; i < 5; i++) {
        const json_t *p = json_array_get(listed, (size_t)i);
        const char *stage = json_string_value(json_object_get(p, "stage"));
        assert_non_null(stage);
        proving += strcmp(stage, "proving") == 0;
        queued += strcmp(stage, "queued") == 0;
        pending += strcmp(stage, "pending") == 0;
        assert_true(number(p, "job") == 1);
        assert_true(number(p, "index") < 7);
        assert_true(number(p, "age_s") >= number(p, "stage_age_s"));
    }
    assert_int_equal(proving, 1);
    assert_int_equal(queued, 2);
    assert_int_equal(pending, 2);
    json_decref(doc);

    http_reply r = get_ok(port, "/metrics");
    EXPECT_LINES(r.body, "zkpipe_partitions_in_flight 4", "zkpipe_partitions_proving 1",
                 "zkpipe_channel_items 2", "zkpipe_budget_bytes 1048576",
                 "# TYPE zkpipe_partition_prove_seconds histogram",
                 "zkpipe_partition_prove_seconds_count 0", "zkpipe_partition_wait_seconds_count 1");
    http_reply_free(&r);

    host_open(&g.h);
    assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
    r = get_ok(port, "/metrics");
    /* Admission: the host announces no estimate, so its first partitions reserved nothing and
     * were over; the engine learned its true size from the closed ledgers. */
    EXPECT_LINES(r.body, "zkpipe_partitions_total{result=\"proved\"} 7",
                 "zkpipe_partitions_total{result=\"failed\"} 0",
                 "zkpipe_partition_prove_seconds_count 7",
                 "zkpipe_partition_prove_seconds_bucket{le=\"+Inf\"} 7",
                 "zkpipe_partitions_oldest_age_seconds 0",
                 "# TYPE zkpipe_over_reservation_events_total counter",
                 "# TYPE zkpipe_budget_admission_waits_total counter",
                 "# TYPE zkpipe_budget_admission_wait_seconds_total counter",
                 "# TYPE zkpipe_budget_growth_waits_total counter",
                 "# TYPE zkpipe_budget_growth_wait_seconds_total counter",
                 "# TYPE zkpipe_budget_overdrafts_total counter",
                 "# TYPE zkpipe_budget_overdraft_peak_bytes gauge",
                 "# TYPE zkpipe_source_learned_bytes gauge");
    http_reply_free(&r);
    eng = engine_status(port, &doc);
    assert_true(number(eng, "admission.over_reservation_events") >= 1);
    /* The budget's waits and overdrafts are served; an overdraft is one partition's at most. */
    assert_true(number(eng, "admission.growth_waits") >= 0);
    assert_true(number(eng, "admission.growth_wait_s") >= 0);
    assert_true(number(eng, "admission.admission_waits") >= 0);
    assert_true(number(eng, "admission.admission_wait_s") >= 0);
    assert_true(number(eng, "admission.overdrafts") >= 0);
    assert_true(number(eng, "admission.overdraft_peak_bytes") <= BUF_BYTES);
    const json_t *sources = json_object_get(json_object_get(eng, "admission"), "sources");
    assert_int_equal(json_array_size(sources), 1);
    const json_t *src = json_array_get(sources, 0);
    assert_string_equal(json_string_value(json_object_get(src, "name")), "test_host");
    EXPECT_NUMBERS(src, {"learned_bytes", BUF_BYTES}, {"partitions", 7});
    json_decref(doc);
    eng = engine_status(port, &doc);
    EXPECT_NUMBERS(eng, {"partitions.count", 0}, {"budget.used_bytes", 0});
    json_decref(doc);

    assert_int_equal(zkpipe_http_detach(srv, "engine"), ZKPIPE_OK);
    zkpipe_job_destroy(job);
    zkpipe_http_stop(srv);
    rig_free(&g);
}
#endif

typedef struct traced {
    zkpipe_acct *acct;
    zkpipe_trace *trace;
} traced;

/* fail_alloc_walk's attempt: an engine with a trace (so with its flusher), created and
 * destroyed. */
static int create_traced(void *arg, const zkpipe_allocator *a)
{
    const traced *t = arg;
    zkpipe_engine_config c = config(t->acct, 2, 2, 2);
    c.allocator = a;
    c.trace = t->trace;
    zkpipe_engine *e = NULL;
    zkpipe_status st = zkpipe_engine_create(&e, &c);
    assert_true(st == ZKPIPE_OK || e == NULL);
    zkpipe_engine_destroy(e);
    return st;
}

static void create_with_a_trace_fails_cleanly(void **state)
{
    (void)state;
    traced t = {NULL, NULL};
    assert_int_equal(zkpipe_acct_create(NULL, &t.acct), ZKPIPE_OK);
    assert_int_equal(zkpipe_trace_open_sampler(&t.trace, NULL), ZKPIPE_OK);
    assert_true(fail_alloc_walk(create_traced, NULL, &t) >= 8);
    fail_alloc fa;
    fail_alloc_init(&fa, -1);
    fail_pthread_arm(-1);
    assert_int_equal(create_traced(&t, &fa.allocator), ZKPIPE_OK);
    long calls = fail_pthread_calls();
    assert_true(calls >= 8);
    for (long i = 0; i < calls; i++) {
        fail_pthread_arm(i);
        zkpipe_status st = create_traced(&t, &fa.allocator);
        assert_non_null(fail_pthread_failed());
        assert_true(st == ZKPIPE_ENOMEM || st == ZKPIPE_ETHREAD || st == ZKPIPE_EUNSUPPORTED);
        assert_int_equal(fail_pthread_started(), fail_pthread_finished());
        assert_int_equal(atomic_load(&fa.live), 0);
    }
    fail_pthread_arm(-1);
    assert_int_equal(zkpipe_trace_close(t.trace), ZKPIPE_OK);
    zkpipe_acct_destroy(t.acct);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(histograms_count_each_phase),
        cmocka_unit_test(in_flight_lists_oldest_first),
        cmocka_unit_test(trace_is_flushed_while_a_partition_takes_long),
#ifndef ZKPIPE_TEST_NO_HTTP
        cmocka_unit_test(provider_serves_the_engine),
#endif
        cmocka_unit_test(create_with_a_trace_fails_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
