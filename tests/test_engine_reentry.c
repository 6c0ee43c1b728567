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

/* A case: under the alarm, a host acting as told, its engine (one synthesis worker, one
 * prover, a registry of its own) and the job the test submitted. */
typedef struct rig {
    host h;
    zkpipe_acct *acct;
    zkpipe_engine *e;
    zkpipe_job *job; /* NULL once destroyed, or once it is a partition's to destroy */
} rig;

static void rig_start(rig *r, action what, int in_synth)
{
    alarm(LIMIT_S);
    host_init(&r->h, what, in_synth);
    assert_int_equal(zkpipe_acct_create(NULL, &r->acct), ZKPIPE_OK);
    zkpipe_engine_config cfg = engine_jobs_config(r->acct);
    cfg.synth_workers = 1;
    cfg.permits = 1;
    cfg.capacity = 1;
    cfg.on_destroyed = on_destroyed;
    cfg.on_destroyed_ctx = &r->h;
    assert_int_equal(zkpipe_engine_create(&r->h.engine, &cfg), ZKPIPE_OK);
    r->e = r->h.engine;
    r->job = NULL;
}

/* Submits a job of n of the host's partitions; `publish`: the host's misuse acts on it. */
static void rig_submit(rig *r, size_t n, int publish)
{
    assert_int_equal(engine_jobs_submit(r->e, &r->job, &ops, &r->h, n), ZKPIPE_OK);
    if (publish)
        atomic_store(&r->h.job, r->job);
}

/* Ends a case: the job if still the test's, the engine unless a partition destroyed it (its
 * teardown is waited for either way), the registry, the host. */
static void rig_end(rig *r, int engine_gone)
{
    zkpipe_job_destroy(r->job);
    if (!engine_gone)
        zkpipe_engine_destroy(r->e);
    assert_true(wait_destroyed(&r->h));
    zkpipe_acct_destroy(r->acct);
    host_fini(&r->h);
    alarm(0);
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
    rig r;
    rig_start(&r, DESTROY_ENGINE, in_synth);
    rig_submit(&r, PARTITIONS, 0);
    assert_int_equal(zkpipe_job_wait_timed(r.job, WAIT_NS), ZKPIPE_OK);
    /* The engine is gone only once the last worker left; the job outlives it. */
    assert_true(wait_destroyed(&r.h));
    size_t proved = check_results(r.job);
    /* From prove, the partition that destroyed it was proved; from synthesis none need be. */
    assert_true(in_synth || proved >= 1);
    assert_int_equal((size_t)atomic_load(&r.h.proved), proved);
    zkpipe_job_destroy(r.job);
    r.job = NULL;
    assert_int_equal(atomic_load(&r.h.results_freed), (int)proved);
    rig_end(&r, 1);
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
    rig r;
    rig_start(&r, DRAIN, 0);
    atomic_store(&r.h.fired, 1); /* the operations do nothing: the callback acts */
    zkpipe_partition parts[PARTITIONS];
    for (size_t i = 0; i < PARTITIONS; i++)
        parts[i] = (zkpipe_partition){.ops = &ops, .ctx = &r.h};
    assert_int_equal(
        zkpipe_engine_submit(r.e, &r.job, parts, PARTITIONS, done_destroys_engine, &r.h),
        ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait_timed(r.job, WAIT_NS), ZKPIPE_OK);
    assert_true(wait_destroyed(&r.h));
    assert_int_equal(check_results(r.job), PARTITIONS);
    rig_end(&r, 1);
}

/* A host keeps the handle zkpipe_engine_submit gives in the request its done callback reads
 * and frees (a server's request, say): the handle is there before any partition starts, and
 * submit writes nothing after the job is out of its hands. The handle is a plain pointer, so
 * TSan reports a write of it that the callback's read is not ordered after. */
typedef struct request {
    zkpipe_job *job;
    host *h;
} request;

static atomic_int handles_checked; /* under the host's lock's condition */

static void done_checks_handle(zkpipe_job *job, void *ctx)
{
    request *q = ctx;
    host *h = q->h;
    int same = q->job == job;
    free(q);
    zkpipe_job_destroy(job); /* from its own callback: freed once it has ended */
    pthread_mutex_lock(&h->lock);
    h->got = same ? ZKPIPE_OK : ZKPIPE_EINVAL;
    atomic_fetch_add(&handles_checked, 1);
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
}

static void done_reads_the_handle_submit_gave(void **state)
{
    (void)state;
    rig r;
    rig_start(&r, DRAIN, 0);
    atomic_store(&r.h.fired, 1); /* the operations do nothing: the callback acts */
    for (int round = 0; round < 50; round++) {
        request *q = calloc(1, sizeof *q);
        assert_non_null(q);
        q->h = &r.h;
        zkpipe_partition p = {.ops = &ops, .ctx = &r.h};
        int before = atomic_load(&handles_checked);
        assert_int_equal(zkpipe_engine_submit(r.e, &q->job, &p, 1, done_checks_handle, q),
                         ZKPIPE_OK);
        pthread_mutex_lock(&r.h.lock);
        while (atomic_load(&handles_checked) == before)
            pthread_cond_wait(&r.h.cond, &r.h.lock);
        zkpipe_status got = r.h.got;
        pthread_mutex_unlock(&r.h.lock);
        assert_int_equal(got, ZKPIPE_OK);
    }
    rig_end(&r, 0);
}

/* A call refused from a stage operation (`in_synth`: synthesize, else prove): ZKPIPE_ESTATE
 * and a line naming it; the job goes on to be proved whole. */
static void refused_from(action what, int in_synth, const char *name)
{
    rig r;
    rig_start(&r, what, in_synth);
    rig_submit(&r, PARTITIONS, 1);
    assert_int_equal(zkpipe_job_wait_timed(r.job, WAIT_NS), ZKPIPE_OK);
    assert_int_equal(r.h.got, ZKPIPE_ESTATE);
    assert_non_null(strstr(r.h.detail, name));
    if (what == WAIT_OWN_JOB) /* refused at once rather than timing out after its millisecond */
        assert_int_equal(r.h.got_timed, ZKPIPE_ESTATE);
    assert_int_equal(check_results(r.job), PARTITIONS);
    rig_end(&r, 0);
}

static void drain_from_prove_is_refused(void **state)
{
    (void)state;
    refused_from(DRAIN, 0, "zkpipe_engine_drain");
}

static void wait_from_prove_is_refused(void **state)
{
    (void)state;
    refused_from(WAIT_OWN_JOB, 0, "zkpipe_job_wait");
}

static void drain_from_synthesize_is_refused(void **state)
{
    (void)state;
    refused_from(DRAIN, 1, "zkpipe_engine_drain");
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
    rig r;
    rig_start(&r, DESTROY_OWN_JOB, 0);
    rig_submit(&r, PARTITIONS, 1);
    r.job = NULL; /* the job is the partition's now: the test never touches it */
    uint64_t proved, canceled;
    drained_counts(r.e, &proved, &canceled);
    assert_int_equal(proved + canceled, PARTITIONS);
    assert_true(proved >= 1);
    assert_true(canceled >= 1); /* with one permit and one slot, most never started proving */
    /* The job was freed at its end, its hosts' results with it. */
    assert_int_equal(atomic_load(&r.h.results_freed), (int)proved);
    rig_end(&r, 0);
}

static void other_job_destroyed_from_prove(void **state)
{
    (void)state;
    rig r;
    host other;
    rig_start(&r, DESTROY_OTHER_JOB, 0);
    host_init(&other, DRAIN, 0);
    atomic_store(&other.fired, 1);
    rig_submit(&r, 2, 0);
    /* Behind the first job, on the one prover that destroys it: waiting would never end. */
    zkpipe_job *queued;
    assert_int_equal(engine_jobs_submit(r.e, &queued, &ops, &other, PARTITIONS), ZKPIPE_OK);
    atomic_store(&r.h.job, queued);
    assert_int_equal(zkpipe_job_wait_timed(r.job, WAIT_NS), ZKPIPE_OK);
    assert_int_equal(check_results(r.job), 2);
    uint64_t proved, canceled;
    drained_counts(r.e, &proved, &canceled);
    assert_int_equal(proved + canceled, 2 + PARTITIONS);
    assert_int_equal(atomic_load(&other.results_freed), atomic_load(&other.proved));
    rig_end(&r, 0);
    host_fini(&other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(destroy_from_prove_is_deferred),
        cmocka_unit_test(destroy_from_synthesize_is_deferred),
        cmocka_unit_test(destroy_from_done_callback_is_deferred),
        cmocka_unit_test(done_reads_the_handle_submit_gave),
        cmocka_unit_test(drain_from_prove_is_refused),
        cmocka_unit_test(drain_from_synthesize_is_refused),
        cmocka_unit_test(wait_from_prove_is_refused),
        cmocka_unit_test(own_job_destroyed_from_prove),
        cmocka_unit_test(other_job_destroyed_from_prove),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
