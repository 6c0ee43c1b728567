/* Batched proving: with max_batch > 1 a prover worker takes up to max_batch items ready in the
 * channel and proves those of a table with prove_batch in one call, each in PROVING with its
 * own ledger; the partitions holding buffers never exceed permits + capacity + prover_workers
 * * max_batch on any snapshot (a concurrent reader checks every one), failures within a batch
 * are each partition's own, tables without prove_batch beside them are proved alone, and the
 * registry drains. `--stress`: more partitions on more workers (labelled stress: run under the
 * sanitizers, TSan included). */
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

#include "engine_jobs.h"
#include "nap.h"
#include "sanitize.h"
#include "snapshot_watch.h"
#include "zkpipe/zkpipe.h"

#define ITEM_BYTES 4096
#define WAIT_NS (300ull * 1000000000ull)

static int stress;

typedef struct host {
    atomic_uint max_n;     /* the largest batch seen */
    atomic_uint batches;   /* prove_batch calls */
    atomic_uint alone;     /* prove calls */
    atomic_uint bad_stage; /* partitions handed over outside PROVING */
    unsigned fail_every;   /* partitions whose index % fail_every == 1 fail (0: none) */
} host;

typedef struct item {
    size_t partition;
    unsigned char data[64];
} item;

static zkpipe_status synthesize(const zkpipe_stage_call *call, void **out)
{
    zkpipe_status st = zkpipe_ledger_charge(call->ledger, ZKPIPE_KIND_ABC, ITEM_BYTES);
    if (st != ZKPIPE_OK)
        return st;
    item *it = malloc(sizeof *it);
    if (it == NULL) {
        zkpipe_ledger_release(call->ledger, ZKPIPE_KIND_ABC, ITEM_BYTES);
        return ZKPIPE_ENOMEM;
    }
    it->partition = call->partition;
    memset(it->data, (int)call->partition, sizeof it->data);
    *out = it;
    return ZKPIPE_OK;
}

/* One partition's proof: its own status and line. */
static zkpipe_status prove_item(const zkpipe_stage_call *call, item *it)
{
    host *h = call->ctx;
    if (zkpipe_ledger_stage(call->ledger) != ZKPIPE_STAGE_PROVING)
        atomic_fetch_add(&h->bad_stage, 1);
    zkpipe_status st = ZKPIPE_OK;
    if (it->partition != call->partition || it->data[0] != (unsigned char)call->partition)
        st = ZKPIPE_ESTATE;
    else if (h->fail_every > 0 && call->partition % h->fail_every == 1)
        st = ZKPIPE_EUNSATISFIED;
    if (st != ZKPIPE_OK)
        snprintf(call->detail, call->detail_cap, "partition %zu failed alone", call->partition);
    zkpipe_ledger_release(call->ledger, ZKPIPE_KIND_ABC, ITEM_BYTES);
    free(it);
    return st;
}

static zkpipe_status prove(const zkpipe_stage_call *call, void *it, zkpipe_partition_result *out)
{
    (void)out;
    host *h = call->ctx;
    atomic_fetch_add(&h->alone, 1);
    nap_ms(1);
    return prove_item(call, it);
}

static void prove_batch(const zkpipe_stage_call *calls, void *const *items,
                        zkpipe_partition_result *const *outs, zkpipe_status *statuses, size_t n)
{
    host *h = calls[0].ctx;
    atomic_fetch_add(&h->batches, 1);
    unsigned seen = atomic_load(&h->max_n);
    while (n > seen && !atomic_compare_exchange_weak(&h->max_n, &seen, (unsigned)n))
        ;
    nap_ms(3); /* a device's batch: the channel fills meanwhile */
    for (size_t i = 0; i < n; i++) {
        assert_non_null(outs[i]);
        statuses[i] = prove_item(&calls[i], items[i]);
    }
}

static void discard(const zkpipe_stage_call *call, void *it)
{
    if (call->ledger != NULL)
        zkpipe_ledger_release(call->ledger, ZKPIPE_KIND_ABC, ITEM_BYTES);
    free(it);
}

static zkpipe_stage_ops batched_ops(void)
{
    zkpipe_stage_ops ops;
    zkpipe_stage_ops_init(&ops);
    ops.name = "batched";
    ops.synthesize = synthesize;
    ops.prove = prove;
    ops.discard = discard;
    ops.prove_batch = prove_batch;
    return ops;
}

/* Checks each partition: proved, or failed with its own status and line. */
static void check_job(zkpipe_job *job, unsigned fail_every)
{
    for (size_t i = 0; i < zkpipe_job_partitions(job); i++) {
        zkpipe_partition_result r;
        assert_int_equal(zkpipe_job_result(job, i, &r), ZKPIPE_OK);
        if (fail_every > 0 && i % fail_every == 1) {
            assert_int_equal(r.status, ZKPIPE_EUNSATISFIED);
            char want[64];
            snprintf(want, sizeof want, "partition %zu failed alone", i);
            assert_string_equal(r.detail, want);
        } else {
            assert_int_equal(r.status, ZKPIPE_OK);
            assert_string_equal(r.detail, "");
        }
    }
}

static void run(unsigned prover_workers, unsigned max_batch, size_t partitions)
{
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    zkpipe_engine_config cfg = engine_jobs_config(acct);
    cfg.synth_workers = 2;
    cfg.permits = 2;
    cfg.capacity = max_batch;
    cfg.prover_workers = prover_workers;
    cfg.max_batch = max_batch;
    zkpipe_engine *e;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_OK);
    zkpipe_engine_counters c;
    assert_int_equal(zkpipe_engine_stats(e, &c), ZKPIPE_OK);
    assert_int_equal(c.resident_bound, c.bound + (uint64_t)prover_workers * max_batch);

    snapshot_watch w = {.acct = acct, .byte_limit = UINT64_MAX, .e = e, .max_permits = 2};
    assert_int_equal(snapshot_watch_start(&w), 0);
    host batched = {.fail_every = 5}, plain = {.fail_every = 0};
    zkpipe_stage_ops ops = batched_ops(), alone_ops = batched_ops();
    alone_ops.prove_batch = NULL;
    zkpipe_job *job, *other;
    assert_int_equal(engine_jobs_submit(e, &job, &ops, &batched, partitions), ZKPIPE_OK);
    assert_int_equal(engine_jobs_submit(e, &other, &alone_ops, &plain, partitions / 4 + 1),
                     ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait_timed(job, WAIT_NS), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait_timed(other, WAIT_NS), ZKPIPE_OK);
    snapshot_watch_stop(&w);

    check_job(job, batched.fail_every);
    check_job(other, 0);
    assert_int_equal(w.breaches, 0);
    assert_true(w.max_resident <= c.resident_bound);
    /* Batches did form, and never past max_batch; the table without prove_batch never was. */
    assert_true(atomic_load(&batched.max_n) > 1);
    assert_true(atomic_load(&batched.max_n) <= max_batch);
    assert_int_equal(atomic_load(&plain.batches), 0);
    assert_int_equal(atomic_load(&plain.alone), partitions / 4 + 1);
    assert_int_equal(atomic_load(&batched.bad_stage) + atomic_load(&plain.bad_stage), 0);
    zkpipe_job_destroy(job);
    zkpipe_job_destroy(other);
    zkpipe_engine_destroy(e);
    zkpipe_snapshot s;
    assert_int_equal(zkpipe_acct_snapshot(acct, &s), ZKPIPE_OK);
    assert_int_equal(s.live_bytes, 0);
    assert_int_equal(s.live_items, 0);
    zkpipe_acct_destroy(acct);
}

static void batches_hold_the_bound(void **state)
{
    (void)state;
    if (stress)
        run(3, 8, ZKPIPE_TEST_SANITIZED ? 400 : 3000);
    else
        run(1, 4, 60);
}

static void max_batch_is_checked(void **state)
{
    (void)state;
    zkpipe_engine_config cfg = engine_jobs_config(NULL);
    zkpipe_engine *e = NULL;
    cfg.max_batch = 0;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_EINVAL);
    assert_non_null(strstr(zkpipe_last_detail(), "max_batch"));
    cfg.max_batch = ZKPIPE_ENGINE_MAX_BATCH + 1;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_EINVAL);
    assert_null(e);
}

int main(int argc, char **argv)
{
    stress = argc > 1 && strcmp(argv[1], "--stress") == 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(batches_hold_the_bound),
        cmocka_unit_test(max_batch_is_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
