/* Histograms: buckets and bounds, the exporters' exact text, refused arguments, and
 * snapshots taken while observers run: every snapshot's count is the sum of its buckets and
 * its sum the sum of exactly those observations. Also the Prometheus options of the
 * snapshot exporter (prefix, constant labels, leaving out all-zero series). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>

#include "fail_alloc.h"
#include "sanitize.h"
#include "zkpipe/zkpipe.h"

static zkpipe_histogram *make(const uint64_t *bounds, uint32_t n, double unit)
{
    zkpipe_histogram *h = NULL;
    assert_int_equal(zkpipe_histogram_create(&h, bounds, n, unit, NULL), ZKPIPE_OK);
    assert_non_null(h);
    return h;
}

static zkpipe_histogram_snapshot snap_of(zkpipe_histogram *h)
{
    zkpipe_histogram_snapshot s;
    assert_int_equal(zkpipe_histogram_read(h, &s), ZKPIPE_OK);
    return s;
}

static int create_attempt(void *arg, const zkpipe_allocator *a)
{
    return zkpipe_histogram_create((zkpipe_histogram **)arg, NULL, 0, 1e-9, a);
}

static void create_cleanup(void *arg)
{
    zkpipe_histogram_destroy(*(zkpipe_histogram **)arg);
}

static void create_refuses_bad_arguments(void **state)
{
    (void)state;
    zkpipe_histogram *h = (zkpipe_histogram *)&h;
    const uint64_t flat[] = {1, 1}, falling[] = {2, 1};
    uint64_t many[ZKPIPE_HISTOGRAM_BUCKETS_MAX + 1];
    for (size_t i = 0; i < sizeof many / sizeof many[0]; i++)
        many[i] = i + 1;
    assert_int_equal(zkpipe_histogram_create(NULL, NULL, 0, 1, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_histogram_create(&h, flat, 2, 1, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_histogram_create(&h, falling, 2, 1, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_histogram_create(&h, many, 0, 1, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_histogram_create(&h, many, ZKPIPE_HISTOGRAM_BUCKETS_MAX + 1, 1, NULL),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_histogram_create(&h, NULL, 0, 0, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_histogram_create(&h, NULL, 0, -1, NULL), ZKPIPE_EINVAL);
    zkpipe_allocator half = {NULL, NULL, NULL};
    assert_int_equal(zkpipe_histogram_create(&h, NULL, 0, 1, &half), ZKPIPE_EINVAL);
    assert_ptr_equal(h, (zkpipe_histogram *)&h);
    assert_int_equal(fail_alloc_walk(create_attempt, create_cleanup, &h), 1);
    zkpipe_histogram_destroy(NULL);
    zkpipe_histogram_observe(NULL, 1);
    assert_int_equal(zkpipe_histogram_read(NULL, NULL), ZKPIPE_EINVAL);
    h = make(many, ZKPIPE_HISTOGRAM_BUCKETS_MAX, 1);
    assert_int_equal(zkpipe_histogram_read(h, NULL), ZKPIPE_EINVAL);
    zkpipe_histogram_destroy(h);
}

static void buckets_count_at_their_bounds(void **state)
{
    (void)state;
    const uint64_t bounds[] = {10, 20, 30};
    zkpipe_histogram *h = make(bounds, 3, 0.5);
    const uint64_t values[] = {0, 10, 11, 20, 30, 31, UINT64_C(1) << 40};
    uint64_t sum = 0;
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        zkpipe_histogram_observe(h, values[i]);
        sum += values[i];
    }
    for (int round = 0; round < 3; round++) { /* snapshots carry the totals over */
        zkpipe_histogram_snapshot s = snap_of(h);
        assert_int_equal(s.bucket_count, 3);
        assert_true(s.unit == 0.5);
        assert_int_equal(s.count, 7);
        assert_int_equal(s.sum, sum);
        assert_int_equal(s.cumulative[0], 2); /* 0, 10 */
        assert_int_equal(s.cumulative[1], 4); /* 11, 20 */
        assert_int_equal(s.cumulative[2], 5); /* 30 */
        assert_int_equal(s.cumulative[3], 7);
        assert_int_equal(s.bounds[2], 30);
    }
    zkpipe_histogram_observe(h, 15);
    assert_int_equal(snap_of(h).cumulative[1], 5);
    zkpipe_histogram_destroy(h);
}

static void default_ladder_spans_ms_to_minutes(void **state)
{
    (void)state;
    zkpipe_histogram *h = make(NULL, 0, 1e-9);
    zkpipe_histogram_snapshot s = snap_of(h);
    assert_int_equal(s.bucket_count, 19);
    assert_int_equal(s.bounds[0], 1000000);                  /* 1 ms */
    assert_int_equal(s.bounds[18], UINT64_C(1000000000000)); /* 1000 s */
    zkpipe_histogram_observe(h, 2000000);                    /* 2 ms */
    zkpipe_histogram_observe(h, UINT64_C(90000000000));      /* 90 s */
    s = snap_of(h);
    assert_int_equal(s.cumulative[0], 0);
    assert_int_equal(s.cumulative[1], 1);
    assert_int_equal(s.cumulative[14], 1); /* 50 s */
    assert_int_equal(s.cumulative[15], 2); /* 100 s */
    zkpipe_histogram_destroy(h);
}

static void exporters_write_the_family(void **state)
{
    (void)state;
    const uint64_t bounds[] = {1000, 2500};
    zkpipe_histogram *h = make(bounds, 2, 1e-3);
    zkpipe_histogram_observe(h, 500);
    zkpipe_histogram_observe(h, 2000);
    zkpipe_histogram_observe(h, 9000);
    zkpipe_histogram_snapshot s = snap_of(h);
    char buf[2048];
    size_t len;
    assert_int_equal(zkpipe_histogram_prometheus(buf, sizeof buf, &len, "job_seconds",
                                                 "Seconds per job.", &s, NULL),
                     ZKPIPE_OK);
    const char *want = "# HELP zkpipe_job_seconds Seconds per job.\n"
                       "# TYPE zkpipe_job_seconds histogram\n"
                       "zkpipe_job_seconds_bucket{le=\"1\"} 1\n"
                       "zkpipe_job_seconds_bucket{le=\"2.5\"} 2\n"
                       "zkpipe_job_seconds_bucket{le=\"+Inf\"} 3\n"
                       "zkpipe_job_seconds_sum 11.5\n"
                       "zkpipe_job_seconds_count 3\n";
    assert_string_equal(buf, want);
    assert_int_equal(len, strlen(want));
    size_t need;
    assert_int_equal(
        zkpipe_histogram_prometheus(NULL, 0, &need, "job_seconds", "Seconds per job.", &s, NULL),
        ZKPIPE_OK);
    assert_int_equal(need, len);

    zkpipe_prom_label l[] = {{"gpu", "1"}};
    zkpipe_prom_options o = {.prefix = "", .labels = l, .label_count = 1};
    assert_int_equal(zkpipe_histogram_prometheus(buf, sizeof buf, &len, "job_seconds", "x", &s, &o),
                     ZKPIPE_OK);
    assert_non_null(strstr(buf, "\njob_seconds_bucket{gpu=\"1\",le=\"2.5\"} 2\n"));
    assert_non_null(strstr(buf, "\njob_seconds_count{gpu=\"1\"} 3\n"));

    assert_int_equal(zkpipe_histogram_json(buf, sizeof buf, &len, &s), ZKPIPE_OK);
    assert_string_equal(buf, "{\"count\":3,\"sum\":11.5,\"buckets\":[{\"le\":1,\"count\":1},"
                             "{\"le\":2.5,\"count\":2},{\"le\":\"+Inf\",\"count\":3}]}");

    /* Refused: bad names, NULLs, a torn snapshot. */
    assert_int_equal(zkpipe_histogram_prometheus(buf, sizeof buf, &len, "9x", "x", &s, NULL),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_histogram_prometheus(buf, sizeof buf, &len, "a-b", "x", &s, NULL),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_histogram_prometheus(buf, sizeof buf, &len, "x", NULL, &s, NULL),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_histogram_prometheus(NULL, 8, &len, "x", "x", &s, NULL), ZKPIPE_EINVAL);
    zkpipe_histogram_snapshot torn = s;
    torn.count++;
    assert_int_equal(zkpipe_histogram_json(buf, sizeof buf, &len, &torn), ZKPIPE_EINVAL);
    torn = s;
    torn.bucket_count = 0;
    assert_int_equal(zkpipe_histogram_json(buf, sizeof buf, &len, &torn), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_histogram_json(buf, sizeof buf, NULL, &s), ZKPIPE_EINVAL);
    zkpipe_histogram_destroy(h);
}

/* Observers add known values while a reader snapshots: every snapshot is consistent. */
typedef struct racer {
    zkpipe_histogram *h;
    atomic_int *go;
    long n;
} racer;

static void *observe_many(void *arg)
{
    racer *r = arg;
    while (!atomic_load(r->go))
        ;
    for (long i = 0; i < r->n; i++)
        zkpipe_histogram_observe(r->h, 7); /* every value 7: sum = 7 count */
    return NULL;
}

static void snapshots_are_never_torn(void **state)
{
    (void)state;
    const uint64_t bounds[] = {5, 10};
    zkpipe_histogram *h = make(bounds, 2, 1);
    enum { THREADS = 3 };
    const long per = ZKPIPE_TEST_SANITIZED ? 20000 : 300000;
    atomic_int go = 0;
    pthread_t t[THREADS];
    racer r = {h, &go, per};
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, observe_many, &r), 0);
    atomic_store(&go, 1);
    uint64_t last = 0;
    for (int i = 0; i < 2000; i++) {
        zkpipe_histogram_snapshot s = snap_of(h);
        assert_int_equal(s.sum, 7 * s.count);
        assert_int_equal(s.cumulative[0], 0);
        assert_int_equal(s.cumulative[1], s.count);
        assert_true(s.count >= last);
        last = s.count;
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    zkpipe_histogram_snapshot s = snap_of(h);
    assert_int_equal(s.count, (uint64_t)(THREADS * per));
    assert_int_equal(s.sum, 7 * s.count);
    zkpipe_histogram_destroy(h);
}

static void snapshot_prometheus_options(void **state)
{
    (void)state;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    zkpipe_ledger l;
    assert_int_equal(zkpipe_ledger_open(&l, acct, ZKPIPE_STAGE_PENDING), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_H, 64), ZKPIPE_OK);
    zkpipe_snapshot snap;
    zkpipe_acct_snapshot(acct, &snap);
    static char buf[65536];
    size_t plain, len;
    assert_int_equal(zkpipe_snapshot_prometheus(buf, sizeof buf, &plain, &snap), ZKPIPE_OK);
    assert_int_equal(zkpipe_snapshot_prometheus_ex(buf, sizeof buf, &len, &snap, NULL), ZKPIPE_OK);
    assert_int_equal(len, plain);
    /* 5 stages x 8 kinds x 4 families without the option; one pair with it. */
    zkpipe_prom_options o = {.flags = ZKPIPE_PROM_OMIT_ZERO};
    assert_int_equal(zkpipe_snapshot_prometheus_ex(buf, sizeof buf, &len, &snap, &o), ZKPIPE_OK);
    assert_true(len < plain);
    int kind_series = 0;
    for (const char *p = buf; (p = strstr(p, ",kind=\"")) != NULL; p++)
        kind_series++;
    assert_int_equal(kind_series, 4);
    assert_non_null(strstr(buf, "zkpipe_buffer_bytes{stage=\"pending\",kind=\"h\"} 64\n"));
    assert_non_null(strstr(buf, "zkpipe_stage_items{stage=\"synth\"} 0\n"));
    /* Released: the peak keeps the series. */
    assert_int_equal(zkpipe_ledger_release(&l, ZKPIPE_KIND_H, 64), ZKPIPE_OK);
    zkpipe_acct_snapshot(acct, &snap);
    assert_int_equal(zkpipe_snapshot_prometheus_ex(buf, sizeof buf, &len, &snap, &o), ZKPIPE_OK);
    assert_non_null(strstr(buf, "zkpipe_peak_buffer_bytes{stage=\"pending\",kind=\"h\"} 64\n"));

    zkpipe_prom_label labels[] = {{"instance", "host:9100"}, {"gpu", "0"}};
    zkpipe_prom_options named = {.prefix = "fleet:prover", .labels = labels, .label_count = 2};
    assert_int_equal(zkpipe_snapshot_prometheus_ex(buf, sizeof buf, &len, &snap, &named),
                     ZKPIPE_OK);
    assert_non_null(strstr(buf,
                           "# TYPE fleet:prover_inflight_items gauge\n"
                           "fleet:prover_inflight_items{instance=\"host:9100\",gpu=\"0\"} 1\n"));
    assert_non_null(strstr(buf, "fleet:prover_stage_items{instance=\"host:9100\",gpu=\"0\","
                                "stage=\"pending\"} 1\n"));
    zkpipe_prom_options bad = {.prefix = "1x"};
    assert_int_equal(zkpipe_snapshot_prometheus_ex(buf, sizeof buf, &len, &snap, &bad),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_prom_options_check(&bad), ZKPIPE_EINVAL);
    bad = (zkpipe_prom_options){.label_count = 1};
    assert_int_equal(zkpipe_prom_options_check(&bad), ZKPIPE_EINVAL);
    bad = (zkpipe_prom_options){.flags = 2};
    assert_int_equal(zkpipe_prom_options_check(&bad), ZKPIPE_EINVAL);
    zkpipe_prom_label nul[] = {{"a", NULL}};
    bad = (zkpipe_prom_options){.labels = nul, .label_count = 1};
    assert_int_equal(zkpipe_prom_options_check(&bad), ZKPIPE_EINVAL);
    char longp[ZKPIPE_PROM_PREFIX_MAX + 2];
    memset(longp, 'a', sizeof longp - 1);
    longp[sizeof longp - 1] = '\0';
    bad = (zkpipe_prom_options){.prefix = longp};
    assert_int_equal(zkpipe_prom_options_check(&bad), ZKPIPE_EINVAL);
    longp[ZKPIPE_PROM_PREFIX_MAX] = '\0';
    assert_int_equal(zkpipe_prom_options_check(&bad), ZKPIPE_OK);
    assert_int_equal(zkpipe_prom_options_check(NULL), ZKPIPE_OK);
    zkpipe_ledger_close(&l);
    zkpipe_acct_destroy(acct);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_refuses_bad_arguments),
        cmocka_unit_test(buckets_count_at_their_bounds),
        cmocka_unit_test(default_ladder_spans_ms_to_minutes),
        cmocka_unit_test(exporters_write_the_family),
        cmocka_unit_test(snapshots_are_never_torn),
        cmocka_unit_test(snapshot_prometheus_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
