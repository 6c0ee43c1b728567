/* Calls into the engine from its own threads: from a stage operation or a done callback,
 * zkpipe_engine_destroy is deferred to the last worker, zkpipe_engine_drain and a job's wait
 * are refused with ZKPIPE_ESTATE and a detail line, and a job destroyed from a partition (its
 * own or another's) is cancelled and freed as it ends. Each case runs under an alarm, so a
 * hang fails it; the sanitizer and valgrind runs catch a use after free. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/clock_internal.h"
#include "engine_jobs.h"
#include "nap.h"
#include "zkpipe/zkpipe.h"

/* Every case ends well within this; a hang is killed by the alarm. */
#define LIMIT_S 60
#define WAIT_NS (30ull * 1000000000ull)
#define PARTITIONS 8

typedef enum action {
    DESTROY_ENGINE,
    DRAIN,
    WAIT_OWN_JOB,
    DESTROY_OWN_JOB,
    DESTROY_OTHER_JOB,
} action;

typedef struct host {
    action act;
    int in_synth; /* act in synthesize rather than prove */
    zkpipe_engine *engine;
    _Atomic(zkpipe_job *) job; /* the job to act on, published by the test */
    atomic_int fired;
    zkpipe_status got, got_timed;
    char detail[ZKPIPE_DETAIL_MAX];
    atomic_int proved, results_freed;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int destroyed;
} host;

static void host_init(host *h, action act, int in_synth)
{
    memset(h, 0, sizeof *h);
    h->act = act;
    h->in_synth = in_synth;
    atomic_init(&h->job, NULL);
    atomic_init(&h->fired, 0);
    atomic_init(&h->proved, 0);
    atomic_init(&h->results_freed, 0);
    assert_int_equal(pthread_mutex_init(&h->lock, NULL), 0);
    assert_int_equal(zkpipe__cond_init_monotonic(&h->cond), ZKPIPE_OK);
}

static void host_fini(host *h)
{
    pthread_mutex_destroy(&h->lock);
    pthread_cond_destroy(&h->cond);
}

static void on_destroyed(void *ctx)
{
    host *h = ctx;
    pthread_mutex_lock(&h->lock);
    h->destroyed = 1;
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
}

/* Waits (at most WAIT_NS) for the engine's teardown to complete. */
static int wait_destroyed(host *h)
{
    struct timespec deadline = zkpipe__deadline_after(WAIT_NS);
    pthread_mutex_lock(&h->lock);
    while (!h->destroyed && pthread_cond_timedwait(&h->cond, &h->lock, &deadline) == 0)
        ;
    int done = h->destroyed;
    pthread_mutex_unlock(&h->lock);
    return done;
}

static zkpipe_job *published_job(host *h)
{
    zkpipe_job *job;
    while ((job = atomic_load(&h->job)) == NULL)
        nap_ms(1);
    return job;
}

/* The misuse, once, from a stage operation; the call's detail buffer is copied, then cleared
 * so that the partition's own result stays clean. */
static void act(host *h, const zkpipe_stage_call *call)
{
    if (atomic_exchange(&h->fired, 1))
        return;
    switch (h->act) {
    case DESTROY_ENGINE:
        zkpipe_engine_destroy(h->engine);
        break;
    case DRAIN:
        h->got = zkpipe_engine_drain(h->engine);
        break;
    case WAIT_OWN_JOB:
        h->got_timed = zkpipe_job_wait_timed(published_job(h), 1000);
        h->got = zkpipe_job_wait(published_job(h));
        break;
    case DESTROY_OWN_JOB:
    case DESTROY_OTHER_JOB:
        zkpipe_job_destroy(published_job(h));
        break;
    }
    snprintf(h->detail, sizeof h->detail, "%s", call->detail);
    call->detail[0] = '\0';
    /* Let the engine's other threads run on meanwhile: a teardown done too early shows. */
    nap_ms(20);
}

static zkpipe_status synthesize(const zkpipe_stage_call *call, void **item)
{
    host *h = call->ctx;
    if (h->in_synth)
        act(h, call);
    *item = malloc(16);
    return *item != NULL ? ZKPIPE_OK : ZKPIPE_ENOMEM;
}

static zkpipe_status prove(const zkpipe_stage_call *call, void *item, zkpipe_partition_result *out)
{
    host *h = call->ctx;
    if (!h->in_synth)
        act(h, call);
    free(item);
    out->host = malloc(8);
    atomic_fetch_add(&h->proved, 1);
    return out->host != NULL ? ZKPIPE_OK : ZKPIPE_ENOMEM;
}

static void discard(const zkpipe_stage_call *call, void *item)
{
    (void)call;
    free(item);
}

static void result_free(void *ctx, size_t partition, void *result)
{
    (void)partition;
    host *h = ctx;
    free(result);
    atomic_fetch_add(&h->results_freed, 1);
}

static const zkpipe_stage_ops ops = {
    .struct_size = sizeof(zkpipe_stage_ops),
    .name = "reentry",
    .synthesize = synthesize,
    .prove = prove,
    .discard = discard,
    .result_free = result_free,
};

/* An engine of one synthesis worker and one prover counting in a registry of its own. */
static zkpipe_engine *start(host *h, zkpipe_acct **acct)
{
    assert_int_equal(zkpipe_acct_create(NULL, acct), ZKPIPE_OK);
    zkpipe_engine_config cfg = engine_jobs_config(*acct);
    cfg.synth_workers = 1;
    cfg.permits = 1;
    cfg.capacity = 1;
    cfg.on_destroyed = on_destroyed;
    cfg.on_destroyed_ctx = h;
    assert_int_equal(zkpipe_engine_create(&h->engine, &cfg), ZKPIPE_OK);
    return h->engine;
}

/* Every partition ended proved or cancelled; returns how many were proved. */
static size_t check_results(zkpipe_job *job)
{
    size_t proved = 0;
    for (size_t i = 0; i < zkpipe_job_partitions(job); i++) {
        zkpipe_partition_result r;
        assert_int_equal(zkpipe_job_result(job, i, &r), ZKPIPE_OK);
        if (r.status != ZKPIPE_ECANCELED)
            assert_int_equal(r.status, ZKPIPE_OK);
        proved += r.status == ZKPIPE_OK;
    }
    return proved;
}

static void destroy_engine_from(int in_synth)
{
    alarm(LIMIT_S);
    host h;
    host_init(&h, DESTROY_ENGINE, in_synth);
    zkpipe_acct *acct;
    zkpipe_engine *e = start(&h, &acct);
    zkpipe_job *job;
    assert_int_equal(engine_jobs_submit(e, &job, &ops, &h, PARTITIONS), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait_timed(job, WAIT_NS), ZKPIPE_OK);
    /* The engine is gone only once the last worker left; the job outlives it. */
    assert_true(wait_destroyed(&h));
    size_t proved = check_results(job);
    /* From prove, the partition that destroyed it was proved; from synthesis none need be. */
    assert_true(in_synth || proved >= 1);
    assert_int_equal((size_t)atomic_load(&h.proved), proved);
    zkpipe_job_destroy(job);
    assert_int_equal(atomic_load(&h.results_freed), (int)proved);
    zkpipe_acct_destroy(acct);
    host_fini(&h);
    alarm(0);
}

static void destroy_from_prove_is_deferred(void **state)
{
    (void)state;
    destroy_engine_from(0);
}

static void destroy_from_synthesize_is_deferred(void **state)
{
    (void)state;
    destroy_engine_from(1);
}

static void done_destroys_engine(zkpipe_job *job, void *ctx)
{
    (void)job;
    host *h = ctx;
    zkpipe_engine_destroy(h->engine);
}

static void destroy_from_done_callback_is_deferred(void **state)
{
    (void)state;
    alarm(LIMIT_S);
    host h;
    host_init(&h, DRAIN, 0);
    atomic_store(&h.fired, 1); /* the operations do nothing: the callback acts */
    zkpipe_acct *acct;
    zkpipe_engine *e = start(&h, &acct);
    zkpipe_partition parts[PARTITIONS];
    for (size_t i = 0; i < PARTITIONS; i++)
        parts[i] = (zkpipe_partition){.ops = &ops, .ctx = &h};
    zkpipe_job *job;
    assert_int_equal(zkpipe_engine_submit(e, &job, parts, PARTITIONS, done_destroys_engine, &h),
                     ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait_timed(job, WAIT_NS), ZKPIPE_OK);
    assert_true(wait_destroyed(&h));
    assert_int_equal(check_results(job), PARTITIONS);
    zkpipe_job_destroy(job);
    zkpipe_acct_destroy(acct);
    host_fini(&h);
    alarm(0);
}

/* A refused call: ZKPIPE_ESTATE and a line naming it; the job goes on to be proved whole. */
static void refused_from_prove(action what, const char *name)
{
    alarm(LIMIT_S);
    host h;
    host_init(&h, what, 0);
    zkpipe_acct *acct;
    zkpipe_engine *e = start(&h, &acct);
    zkpipe_job *job;
    assert_int_equal(engine_jobs_submit(e, &job, &ops, &h, PARTITIONS), ZKPIPE_OK);
    atomic_store(&h.job, job);
    assert_int_equal(zkpipe_job_wait_timed(job, WAIT_NS), ZKPIPE_OK);
    assert_int_equal(h.got, ZKPIPE_ESTATE);
    assert_non_null(strstr(h.detail, name));
    assert_int_equal(check_results(job), PARTITIONS);
    zkpipe_job_destroy(job);
    zkpipe_engine_destroy(e);
    assert_true(wait_destroyed(&h));
    zkpipe_acct_destroy(acct);
    host_fini(&h);
    alarm(0);
}

static void drain_from_prove_is_refused(void **state)
{
    (void)state;
    refused_from_prove(DRAIN, "zkpipe_engine_drain");
}

static void wait_from_prove_is_refused(void **state)
{
    (void)state;
    refused_from_prove(WAIT_OWN_JOB, "zkpipe_job_wait");
}

static void wait_timed_from_prove_is_refused(void **state)
{
    (void)state;
    alarm(LIMIT_S);
    host h;
    host_init(&h, WAIT_OWN_JOB, 0);
    zkpipe_acct *acct;
    zkpipe_engine *e = start(&h, &acct);
    zkpipe_job *job;
    assert_int_equal(engine_jobs_submit(e, &job, &ops, &h, PARTITIONS), ZKPIPE_OK);
    atomic_store(&h.job, job);
    assert_int_equal(zkpipe_job_wait_timed(job, WAIT_NS), ZKPIPE_OK);
    /* Refused at once rather than timing out after its millisecond. */
    assert_int_equal(h.got_timed, ZKPIPE_ESTATE);
    zkpipe_job_destroy(job);
    zkpipe_engine_destroy(e);
    zkpipe_acct_destroy(acct);
    host_fini(&h);
    alarm(0);
}

static void drain_from_synthesize_is_refused(void **state)
{
    (void)state;
    alarm(LIMIT_S);
    host h;
    host_init(&h, DRAIN, 1);
    zkpipe_acct *acct;
    zkpipe_engine *e = start(&h, &acct);
    zkpipe_job *job;
    assert_int_equal(engine_jobs_submit(e, &job, &ops, &h, PARTITIONS), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait_timed(job, WAIT_NS), ZKPIPE_OK);
    assert_int_equal(h.got, ZKPIPE_ESTATE);
    assert_non_null(strstr(h.detail, "zkpipe_engine_drain"));
    zkpipe_job_destroy(job);
    zkpipe_engine_destroy(e);
    zkpipe_acct_destroy(acct);
    host_fini(&h);
    alarm(0);
}

/* The engine's counters once every job has ended: drain from the test's thread. */
static void drained_counts(zkpipe_engine *e, uint64_t *proved, uint64_t *canceled)
{
    assert_int_equal(zkpipe_engine_drain(e), ZKPIPE_OK);
    zkpipe_engine_counters c;
    assert_int_equal(zkpipe_engine_stats(e, &c), ZKPIPE_OK);
    *proved = c.proved;
    *canceled = c.canceled;
    assert_int_equal(c.failed, 0);
    assert_int_equal(c.in_flight + c.proving, 0);
}

static void own_job_destroyed_from_prove(void **state)
{
    (void)state;
    alarm(LIMIT_S);
    host h;
    host_init(&h, DESTROY_OWN_JOB, 0);
    zkpipe_acct *acct;
    zkpipe_engine *e = start(&h, &acct);
    zkpipe_job *job;
    assert_int_equal(engine_jobs_submit(e, &job, &ops, &h, PARTITIONS), ZKPIPE_OK);
    atomic_store(&h.job, job); /* the job is the partition's now: the test never touches it */
    uint64_t proved, canceled;
    drained_counts(e, &proved, &canceled);
    assert_int_equal(proved + canceled, PARTITIONS);
    assert_true(proved >= 1);
    assert_true(canceled >= 1); /* with one permit and one slot, most never started proving */
    /* The job was freed at its end, its hosts' results with it. */
    assert_int_equal(atomic_load(&h.results_freed), (int)proved);
    zkpipe_engine_destroy(e);
    zkpipe_acct_destroy(acct);
    host_fini(&h);
    alarm(0);
}

static void other_job_destroyed_from_prove(void **state)
{
    (void)state;
    alarm(LIMIT_S);
    host h, other;
    host_init(&h, DESTROY_OTHER_JOB, 0);
    host_init(&other, DRAIN, 0);
    atomic_store(&other.fired, 1);
    zkpipe_acct *acct;
    zkpipe_engine *e = start(&h, &acct);
    zkpipe_job *job, *queued;
    assert_int_equal(engine_jobs_submit(e, &job, &ops, &h, 2), ZKPIPE_OK);
    /* Behind the first job, on the one prover that destroys it: waiting would never end. */
    assert_int_equal(engine_jobs_submit(e, &queued, &ops, &other, PARTITIONS), ZKPIPE_OK);
    atomic_store(&h.job, queued);
    assert_int_equal(zkpipe_job_wait_timed(job, WAIT_NS), ZKPIPE_OK);
    assert_int_equal(check_results(job), 2);
    uint64_t proved, canceled;
    drained_counts(e, &proved, &canceled);
    assert_int_equal(proved + canceled, 2 + PARTITIONS);
    assert_int_equal(atomic_load(&other.results_freed), atomic_load(&other.proved));
    zkpipe_job_destroy(job);
    zkpipe_engine_destroy(e);
    zkpipe_acct_destroy(acct);
    host_fini(&other);
    host_fini(&h);
    alarm(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(destroy_from_prove_is_deferred),
        cmocka_unit_test(destroy_from_synthesize_is_deferred),
        cmocka_unit_test(destroy_from_done_callback_is_deferred),
        cmocka_unit_test(drain_from_prove_is_refused),
        cmocka_unit_test(drain_from_synthesize_is_refused),
        cmocka_unit_test(wait_from_prove_is_refused),
        cmocka_unit_test(wait_timed_from_prove_is_refused),
        cmocka_unit_test(own_job_destroyed_from_prove),
        cmocka_unit_test(other_job_destroyed_from_prove),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
