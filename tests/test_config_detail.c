/* Config and operations structs refused with ZKPIPE_EINVAL name the field in the thread's
 * last detail (zkpipe_last_detail), each thread keeping its own; zkpipe_stage_ops_init; the
 * snapshot's in-waist and resident counts that the engine's bounds are about. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "engine_jobs.h"
#include "zkpipe/zkpipe.h"

/* `st` is ZKPIPE_EINVAL and the thread's last detail holds `field`. */
static void refused_naming(zkpipe_status st, const char *field)
{
    assert_int_equal(st, ZKPIPE_EINVAL);
    if (strstr(zkpipe_last_detail(), field) == NULL)
        fail_msg("\"%s\" does not name %s", zkpipe_last_detail(), field);
}

static zkpipe_status synthesize(const zkpipe_stage_call *call, void **item)
{
    (void)call;
    *item = (void *)1;
    return ZKPIPE_OK;
}

static zkpipe_status prove(const zkpipe_stage_call *call, void *item, zkpipe_partition_result *out)
{
    (void)call;
    (void)item;
    (void)out;
    return ZKPIPE_OK;
}

static void discard(const zkpipe_stage_call *call, void *item)
{
    (void)call;
    (void)item;
}

static void stage_ops_fields_are_named(void **state)
{
    (void)state;
    zkpipe_stage_ops_init(NULL);
    zkpipe_stage_ops ops;
    memset(&ops, 0xff, sizeof ops);
    zkpipe_stage_ops_init(&ops);
    assert_int_equal(ops.struct_size, sizeof ops);
    assert_null(ops.name);
    assert_null(ops.synthesize);
    assert_null(ops.key);
    ops.synthesize = synthesize;
    ops.prove = prove;
    ops.discard = discard;

    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    zkpipe_engine_config cfg = engine_jobs_config(acct);
    zkpipe_engine *e;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_OK);
    zkpipe_job *job = NULL;

    /* The case: a table without struct_size. */
    zkpipe_stage_ops unsized = ops;
    unsized.struct_size = 0;
    refused_naming(engine_jobs_submit(e, &job, &unsized, NULL, 2), "zkpipe_stage_ops.struct_size");
    assert_non_null(strstr(zkpipe_last_detail(), "zkpipe_stage_ops_init"));
    zkpipe_stage_ops partial = ops;
    partial.prove = NULL;
    refused_naming(engine_jobs_submit(e, &job, &partial, NULL, 1), "zkpipe_stage_ops.prove");
    partial = ops;
    partial.discard = NULL;
    refused_naming(engine_jobs_submit(e, &job, &partial, NULL, 1), "zkpipe_stage_ops.discard");
    partial = ops;
    partial.synthesize = NULL;
    refused_naming(engine_jobs_submit(e, &job, &partial, NULL, 1), "zkpipe_stage_ops.synthesize");
    zkpipe_partition parts[2] = {{.ops = &ops}, {.ops = NULL}};
    refused_naming(zkpipe_engine_submit(e, &job, parts, 2, NULL, NULL), "zkpipe_partition.ops");
    assert_non_null(strstr(zkpipe_last_detail(), "partition 1"));
    parts[1] = (zkpipe_partition){.ops = &ops, .reserved = {0, 1}};
    refused_naming(zkpipe_engine_submit(e, &job, parts, 2, NULL, NULL),
                   "zkpipe_partition.reserved");
    assert_null(job);
    /* A successful call leaves the line as it was. */
    assert_int_equal(engine_jobs_run(e, &ops, NULL, 2, 60000), ZKPIPE_OK);
    assert_non_null(strstr(zkpipe_last_detail(), "zkpipe_partition.reserved"));
    zkpipe_engine_destroy(e);
    zkpipe_acct_destroy(acct);
}

static void engine_config_fields_are_named(void **state)
{
    (void)state;
    zkpipe_engine_config good = engine_jobs_config(NULL), bad;
    zkpipe_engine *e = NULL;
    bad = good;
    bad.struct_size = 0;
    refused_naming(zkpipe_engine_create(&e, &bad), "zkpipe_engine_config.struct_size");
    bad.struct_size = sizeof bad + 8;
    refused_naming(zkpipe_engine_create(&e, &bad), "zkpipe_engine_config.struct_size");
    struct {
        size_t offset;
        const char *field;
    } counts[] = {
        {offsetof(zkpipe_engine_config, synth_workers), "synth_workers"},
        {offsetof(zkpipe_engine_config, prover_workers), "prover_workers"},
        {offsetof(zkpipe_engine_config, prover_threads), "prover_threads"},
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        bad = good;
        memset((char *)&bad + counts[i].offset, 0, sizeof(unsigned));
        refused_naming(zkpipe_engine_create(&e, &bad), counts[i].field);
    }
    bad = good;
    bad.permits = 0;
    refused_naming(zkpipe_engine_create(&e, &bad), "zkpipe_engine_config.permits");
    bad = good;
    bad.capacity = 0;
    refused_naming(zkpipe_engine_create(&e, &bad), "zkpipe_engine_config.capacity");
    bad = good;
    bad.release = (zkpipe_release)9;
    refused_naming(zkpipe_engine_create(&e, &bad), "zkpipe_engine_config.release");
    bad = good;
    bad.reservation = (zkpipe_reservation)9;
    refused_naming(zkpipe_engine_create(&e, &bad), "zkpipe_engine_config.reservation");
    bad = good;
    bad.concurrency = (zkpipe_concurrency)9;
    refused_naming(zkpipe_engine_create(&e, &bad), "zkpipe_engine_config.concurrency");
    bad = good;
    bad.report_ms = 10;
    refused_naming(zkpipe_engine_create(&e, &bad), "zkpipe_engine_config.report_ms");
    bad = good;
    bad.backend = (zkpipe_backend)7;
    refused_naming(zkpipe_engine_create(&e, &bad), "zkpipe_engine_config.backend");
    zkpipe_allocator incomplete = {NULL, NULL, NULL};
    bad = good;
    bad.allocator = &incomplete;
    refused_naming(zkpipe_engine_create(&e, &bad), "zkpipe_engine_config.allocator");
    assert_null(e);
}

static void chan_and_cache_fields_are_named(void **state)
{
    (void)state;
    zkpipe_chan_config cc;
    zkpipe_chan *ch = NULL;
    zkpipe_chan_config_init(&cc, 0);
    refused_naming(zkpipe_chan_create(&ch, &cc), "zkpipe_chan_config.capacity");
    zkpipe_chan_config_init(&cc, 1);
    cc.struct_size = 0;
    refused_naming(zkpipe_chan_create(&ch, &cc), "zkpipe_chan_config.struct_size");
    zkpipe_chan_config_init(&cc, 1);
    cc.recv_stage = ZKPIPE_STAGE_MAX;
    refused_naming(zkpipe_chan_create(&ch, &cc), "zkpipe_chan_config.recv_stage");
    assert_null(ch);

    zkpipe_key_cache_config kc;
    zkpipe_key_cache *cache = NULL;
    zkpipe_key_cache_config_init(&kc);
    kc.struct_size = 1;
    refused_naming(zkpipe_key_cache_create(&cache, &kc), "zkpipe_key_cache_config.struct_size");
    assert_int_equal(zkpipe_key_cache_create(&cache, NULL), ZKPIPE_OK);
    zkpipe_key_ops kops = {.struct_size = sizeof kops, .kind = "k"};
    zkpipe_key *key = NULL;
    refused_naming(zkpipe_key_add(cache, &key, &kops, NULL, 64, NULL, 0), "zkpipe_key_ops.load");
    kops.struct_size = 0;
    refused_naming(zkpipe_key_add(cache, &key, &kops, NULL, 64, NULL, 0),
                   "zkpipe_key_ops.struct_size");
    assert_null(key);
    zkpipe_key_cache_destroy(cache);

    zkpipe_http_config hc;
    zkpipe_http_config_init(&hc);
    hc.struct_size = 0;
    zkpipe_http *server = NULL;
    zkpipe_status st = zkpipe_http_start(&server, &hc);
    refused_naming(st, "zkpipe_http_config.struct_size");
}

static void *fail_on_other_thread(void *arg)
{
    (void)arg;
    zkpipe_chan_config cc;
    zkpipe_chan *ch;
    zkpipe_chan_config_init(&cc, 0);
    return zkpipe_chan_create(&ch, &cc) == ZKPIPE_EINVAL &&
                   strstr(zkpipe_last_detail(), "capacity") != NULL
               ? arg
               : NULL;
}

static void each_thread_has_its_line(void **state)
{
    (void)state;
    zkpipe_engine_config bad = engine_jobs_config(NULL);
    bad.permits = 0;
    zkpipe_engine *e;
    refused_naming(zkpipe_engine_create(&e, &bad), "permits");
    pthread_t t;
    int marker;
    void *ok = NULL;
    assert_int_equal(pthread_create(&t, NULL, fail_on_other_thread, &marker), 0);
    assert_int_equal(pthread_join(t, &ok), 0);
    assert_ptr_equal(ok, &marker);
    assert_non_null(strstr(zkpipe_last_detail(), "permits"));
}

static void snapshot_counts_the_waist(void **state)
{
    (void)state;
    assert_int_equal(zkpipe_snapshot_in_waist(NULL), 0);
    assert_int_equal(zkpipe_snapshot_resident(NULL), 0);
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    uint32_t host_stage;
    assert_int_equal(zkpipe_acct_register_stage(acct, "host", &host_stage), ZKPIPE_OK);
    /* A stage of the host's counts in neither. */
    const uint32_t stages[] = {ZKPIPE_STAGE_SYNTH,  ZKPIPE_STAGE_PENDING, ZKPIPE_STAGE_QUEUED,
                               ZKPIPE_STAGE_QUEUED, ZKPIPE_STAGE_PROVING, ZKPIPE_STAGE_FINALIZE,
                               host_stage};
    enum { N = sizeof stages / sizeof stages[0] };
    zkpipe_ledger l[N];
    for (size_t i = 0; i < N; i++)
        assert_int_equal(zkpipe_ledger_open(&l[i], acct, stages[i]), ZKPIPE_OK);
    zkpipe_snapshot s;
    assert_int_equal(zkpipe_acct_snapshot(acct, &s), ZKPIPE_OK);
    assert_int_equal(zkpipe_snapshot_in_waist(&s), 4);
    assert_int_equal(zkpipe_snapshot_resident(&s), 6);
    for (size_t i = 0; i < N; i++)
        zkpipe_ledger_close(&l[i]);
    assert_int_equal(zkpipe_acct_snapshot(acct, &s), ZKPIPE_OK);
    assert_int_equal(zkpipe_snapshot_resident(&s), 0);
    zkpipe_acct_destroy(acct);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stage_ops_fields_are_named),
        cmocka_unit_test(engine_config_fields_are_named),
        cmocka_unit_test(chan_and_cache_fields_are_named),
        cmocka_unit_test(each_thread_has_its_line),
        cmocka_unit_test(snapshot_counts_the_waist),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
