/* The engine's life cycle and its queue of submitted jobs. */
#include <string.h>

#include <stdio.h>

#include "core/alloc_internal.h"
#include "core/detail.h"
#include "core/memory.h"
#include "core/struct_size_internal.h"
#include "engine/engine_internal.h"
#include "engine/key_cache_internal.h"
#include "engine/reentry.h"
#include "sync/sem_internal.h"

void zkpipe_engine_config_init(zkpipe_engine_config *config)
{
    if (config == NULL)
        return;
    memset(config, 0, sizeof *config);
    config->struct_size = sizeof *config;
    config->synth_workers = 2;
    config->permits = 2;
    config->capacity = 2;
    config->prover_workers = 1;
    config->prover_threads = 1;
    config->backend = ZKPIPE_BACKEND_AUTO;
    config->release = ZKPIPE_RELEASE_DELIVERY;
    config->max_batch = 1;
}

/* ZKPIPE_OK, or ZKPIPE_EINVAL with the line naming the field that is wrong. */
static zkpipe_status config_check(const zkpipe_engine_config *c)
{
    const char *bad =
        c->synth_workers < 1    ? "synth_workers is 0: at least 1"
        : c->permits < 1        ? "permits is 0: at least 1"
        : c->capacity < 1       ? "capacity is 0: at least 1"
        : c->prover_workers < 1 ? "prover_workers is 0: at least 1"
        : c->prover_threads < 1 ? "prover_threads is 0: at least 1"
        : c->prover_threads > ZKPIPE_POOL_MAX_THREADS
            ? "prover_threads is past ZKPIPE_POOL_MAX_THREADS"
        : c->release != ZKPIPE_RELEASE_DELIVERY && c->release != ZKPIPE_RELEASE_EARLY
            ? "release is not a zkpipe_release"
        : c->reservation != ZKPIPE_RESERVATION_FOLLOW && c->reservation != ZKPIPE_RESERVATION_WHOLE
            ? "reservation is not a zkpipe_reservation"
        : c->concurrency != ZKPIPE_CONCURRENCY_FIXED && c->concurrency != ZKPIPE_CONCURRENCY_AUTO
            ? "concurrency is not a zkpipe_concurrency"
        : c->report_ms > 0 && c->report_file == NULL && c->report_fn == NULL
            ? "report_ms is set without report_file or report_fn"
        : zkpipe__allocator_or_default(c->allocator) == NULL
            ? "allocator lacks its alloc or free function"
        : zkpipe_backend_name(c->backend) == NULL ? "backend is not a zkpipe_backend"
        : c->max_batch < 1 || c->max_batch > ZKPIPE_ENGINE_MAX_BATCH
            ? "max_batch is not in 1..ZKPIPE_ENGINE_MAX_BATCH"
            : NULL;
    if (bad != NULL)
        return zkpipe__refuse(ZKPIPE_EINVAL, "zkpipe_engine_config.%s", bad);
    return ZKPIPE_OK;
}

/* Tells every thread of `e` to stop: closed, canceling, the semaphores and the channel closed
 * (waiters woken), so each worker ends what it holds and leaves its loop. */
static void stop(zkpipe_engine *e)
{
    pthread_mutex_lock(&e->lock);
    e->closed = 1;
    atomic_store(&e->canceling, 1);
    pthread_cond_broadcast(&e->work);
    pthread_mutex_unlock(&e->lock);
    zkpipe_sem_close(e->permits);
    zkpipe_sem_close(e->budget);
    zkpipe_chan_close(e->ch);
}

/* After stop: joins the workers (but the calling one, which detaches itself: a deferred
 * destroy), ends what the channel still holds, frees everything and tells the host. */
static void release(zkpipe_engine *e)
{
    pthread_t self = pthread_self();
    for (unsigned i = 0; i < e->started; i++) {
        if (pthread_equal(e->threads[i], self))
            pthread_detach(self);
        else
            pthread_join(e->threads[i], NULL);
    }
    /* Done callbacks of the jobs the channel's items end run here: this thread works for the
     * engine meanwhile, so their calls into it are refused or deferred as on a worker. */
    zkpipe__reentry_enter(e);
    zkpipe_chan_destroy(e->ch);
    zkpipe__reentry_enter(NULL);
    if (e->keys_bound)
        zkpipe__key_cache_unbind(e->config.keys);
    zkpipe_reporter_stop(e->reporter);
    zkpipe__observe_destroy(e->observe);
    for (unsigned i = 0; e->pools != NULL && i < e->config.prover_workers; i++)
        zkpipe_pool_destroy(e->pools[i]);
    zkpipe_sem_destroy(e->budget);
    zkpipe_sem_destroy(e->permits);
    pthread_mutex_destroy(&e->lock);
    pthread_cond_destroy(&e->work);
    pthread_cond_destroy(&e->idle);
    zkpipe__admission_destroy(&e->adm);
    zkpipe__autotune_destroy(&e->tune);
    zkpipe__free(&e->allocator, e->threads);
    zkpipe__free(&e->allocator, e->pools);
    zkpipe__free(&e->allocator, e->batches);
    zkpipe__free(&e->allocator, e->batch_space);
    void (*destroyed)(void *) = e->config.on_destroyed;
    void *destroyed_ctx = e->config.on_destroyed_ctx;
    zkpipe_allocator a = e->allocator;
    zkpipe__free(&a, e);
    if (destroyed != NULL)
        destroyed(destroyed_ctx);
}

/* Stops and frees whatever `e` holds. Used by destroy and by a failed create alike. */
static void teardown(zkpipe_engine *e)
{
    stop(e);
    release(e);
}

void zkpipe__engine_worker_exit(zkpipe_engine *e)
{
    zkpipe__reentry_enter(NULL);
    /* The destroying worker set `deferred` while it was live, so the last one out sees it. */
    if (atomic_fetch_sub(&e->live, 1) == 1 && atomic_load(&e->deferred))
        release(e);
}

/* The lock, both condition variables, the admission table and the controller; on failure
 * none is left. */
static zkpipe_status init_sync(zkpipe_engine *e)
{
    zkpipe_status st = ZKPIPE_ENOMEM;
    const zkpipe_engine_config *c = &e->config;
    if (zkpipe__admission_init(&e->adm) != ZKPIPE_OK)
        return st;
    if (zkpipe__autotune_init(&e->tune, c->permits, c->synth_workers, c->capacity,
                              c->prover_workers) != ZKPIPE_OK) {
        zkpipe__admission_destroy(&e->adm);
        return st;
    }
    if (pthread_mutex_init(&e->lock, NULL) == 0) {
        if (pthread_cond_init(&e->work, NULL) == 0) {
            if (pthread_cond_init(&e->idle, NULL) == 0)
                return ZKPIPE_OK;
            pthread_cond_destroy(&e->work);
        }
        pthread_mutex_destroy(&e->lock);
    }
    zkpipe__autotune_destroy(&e->tune);
    zkpipe__admission_destroy(&e->adm);
    return st;
}

/* The reporter's sink: the registry's line with the engine's estimate of what no ledger
 * holds, to the host's sink or file. */
static void report_line(const char *line, void *ctx)
{
    zkpipe_engine *e = ctx;
    uint64_t un = zkpipe__unaccounted_sample(&e->unaccounted);
    snprintf(e->report_line, sizeof e->report_line, "%s unaccounted~=%.1f MiB", line,
             (double)un / (1024.0 * 1024.0));
    if (e->config.report_fn != NULL) {
        e->config.report_fn(e->report_line, e->config.report_ctx);
    } else {
        fprintf(e->config.report_file, "%s\n", e->report_line);
        fflush(e->config.report_file);
    }
}

static zkpipe_status make_channel(zkpipe_engine *e)
{
    zkpipe_chan_config cc;
    zkpipe_chan_config_init(&cc, e->config.capacity);
    cc.ledger_of = zkpipe__item_ledger;
    cc.on_send = zkpipe__item_on_send;
    cc.on_recv = zkpipe__item_on_recv;
    cc.destroy_item = zkpipe__item_drop;
    cc.ctx = e;
    cc.allocator = &e->allocator;
    return zkpipe_chan_create(&e->ch, &cc);
}

/* Each prover worker's room for a batch: one block for all (max_batch <= 1024 and the count
 * of prover workers an unsigned, so the sizes cannot overflow a 64-bit size_t). */
static zkpipe_status make_batches(zkpipe_engine *e)
{
    const size_t m = e->config.max_batch, w = e->config.prover_workers;
    const size_t per = 4 * sizeof(void *) + sizeof(zkpipe_stage_call) + sizeof(zkpipe_status);
    e->batches = zkpipe__calloc(&e->allocator, w, sizeof *e->batches, _Alignof(zkpipe__batch));
    char *p = zkpipe__calloc(&e->allocator, w * m, per, _Alignof(zkpipe_stage_call));
    e->batch_space = p;
    if (e->batches == NULL || p == NULL)
        return ZKPIPE_ENOMEM;
    /* Calls first (the most aligned), then the pointers, then the statuses. */
    for (size_t i = 0; i < w; i++, p += m * sizeof(zkpipe_stage_call))
        e->batches[i].calls = (zkpipe_stage_call *)p;
    for (size_t i = 0; i < w; i++) {
        zkpipe__batch *b = &e->batches[i];
        b->held = (zkpipe__item **)p;
        b->items = b->held + m;
        b->payloads = (void **)(b->items + m);
        b->outs = (zkpipe_partition_result **)(b->payloads + m);
        p = (char *)(b->outs + m);
    }
    for (size_t i = 0; i < w; i++, p += m * sizeof(zkpipe_status))
        e->batches[i].statuses = (zkpipe_status *)p;
    return ZKPIPE_OK;
}

/* Everything but the lock and the threads. */
static zkpipe_status make_parts(zkpipe_engine *e)
{
    const zkpipe_engine_config *c = &e->config;
    unsigned nthreads = c->synth_workers + c->prover_workers;
    e->threads = zkpipe__calloc(&e->allocator, nthreads, sizeof *e->threads, _Alignof(pthread_t));
    e->pools =
        zkpipe__calloc(&e->allocator, c->prover_workers, sizeof *e->pools, _Alignof(zkpipe_pool *));
    if (e->threads == NULL || e->pools == NULL || make_batches(e) != ZKPIPE_OK)
        return ZKPIPE_ENOMEM;
    zkpipe_status st = zkpipe__observe_create(&e->observe, &e->allocator, c->trace);
    /* Auto: as many permits as synthesis workers, of which the controller lends some. */
    if (st == ZKPIPE_OK)
        st = zkpipe_sem_create(&e->permits, e->autotuning ? c->synth_workers : c->permits,
                               &e->allocator);
    if (st == ZKPIPE_OK && e->autotuning)
        st = zkpipe_sem_set_limit(e->permits, zkpipe__autotune_limit(&e->tune, NULL));
    if (st == ZKPIPE_OK && c->budget_bytes > 0)
        st = zkpipe_sem_create(&e->budget, c->budget_bytes, &e->allocator);
    if (st == ZKPIPE_OK && e->budget != NULL && c->keys != NULL &&
        (st = zkpipe__key_cache_bind(c->keys, e->budget)) == ZKPIPE_OK)
        e->keys_bound = 1;
    if (st == ZKPIPE_OK)
        st = make_channel(e);
    for (unsigned i = 0; st == ZKPIPE_OK && i < c->prover_workers; i++)
        st = zkpipe_pool_create(&e->pools[i], c->prover_threads, &e->allocator);
    if (st == ZKPIPE_OK && c->report_ms > 0)
        st = zkpipe_reporter_start(e->acct, c->report_ms, NULL, report_line, e, &e->allocator,
                                   &e->reporter);
    return st;
}

static zkpipe_status start_threads(zkpipe_engine *e)
{
    const zkpipe_engine_config *c = &e->config;
    unsigned nthreads = c->synth_workers + c->prover_workers;
    for (; e->started < nthreads; e->started++) {
        void *(*fn)(void *) =
            e->started < c->synth_workers ? zkpipe__synth_worker : zkpipe__prove_worker;
        atomic_fetch_add(&e->live, 1);
        if (pthread_create(&e->threads[e->started], NULL, fn, e) != 0) {
            atomic_fetch_sub(&e->live, 1);
            return ZKPIPE_ETHREAD;
        }
    }
    return ZKPIPE_OK;
}

/* The first published stage operations ended with discard. */
#define OPS_MIN_SIZE (offsetof(zkpipe_stage_ops, discard) + sizeof(void (*)(void)))

/* The first layout with struct_size ended with the allocator: anything shorter was never
 * published. */
#define CONFIG_MIN_SIZE ZKPIPE__SIZE_THROUGH(zkpipe_engine_config, allocator)

zkpipe_status zkpipe_engine_create(zkpipe_engine **out, const zkpipe_engine_config *config_in)
{
    if (out == NULL || config_in == NULL)
        return ZKPIPE_EINVAL;
    /* What the caller's struct covers, over this library's defaults. */
    zkpipe_engine_config full;
    zkpipe_engine_config_init(&full);
    zkpipe_status st =
        zkpipe__struct_in(&full, sizeof full, config_in, CONFIG_MIN_SIZE, "zkpipe_engine_config");
    if (st == ZKPIPE_OK)
        st = config_check(&full);
    if (st != ZKPIPE_OK)
        return st;
    const zkpipe_engine_config *config = &full;
    const zkpipe_allocator *a = zkpipe__allocator_or_default(config->allocator);
    /* Auto without a budget: half of what the machine has available now. */
    uint64_t avail = 0;
    if (config->concurrency == ZKPIPE_CONCURRENCY_AUTO && config->budget_bytes == 0) {
        if (zkpipe__mem_available_bytes(&avail) != ZKPIPE_OK || avail < 2)
            return ZKPIPE_EUNSUPPORTED;
        full.budget_bytes = avail / 2;
    }
    /* The backend is the stage operations' to resolve (zkpipe/engine.h): an engine of a host's
     * stages never loads the CUDA plug-in. */
    zkpipe_engine *e = zkpipe__calloc(a, 1, sizeof *e, _Alignof(zkpipe_engine));
    if (e == NULL)
        return ZKPIPE_ENOMEM;
    e->allocator = *a;
    e->config = *config;
    e->config.allocator = &e->allocator;
    e->acct = config->acct != NULL ? config->acct : zkpipe_acct_default();
    e->autotuning = config->concurrency == ZKPIPE_CONCURRENCY_AUTO;
    atomic_init(&e->prover_idle_ns, 0);
    zkpipe__unaccounted_init(&e->unaccounted, e->acct);
    atomic_init(&e->canceling, 0);
    atomic_init(&e->live, 0);
    atomic_init(&e->deferred, 0);
    atomic_init(&e->pools_taken, 0);
    atomic_init(&e->synth_taken, 0);
    st = init_sync(e);
    if (st != ZKPIPE_OK) {
        zkpipe__free(a, e);
        return st;
    }
    st = make_parts(e);
    if (st == ZKPIPE_OK)
        st = start_threads(e);
    if (st != ZKPIPE_OK) {
        e->config.on_destroyed = NULL; /* nothing was made: the host hears of nothing */
        teardown(e);
        return st;
    }
    *out = e;
    return ZKPIPE_OK;
}

void zkpipe_stage_ops_init(zkpipe_stage_ops *ops)
{
    if (ops == NULL)
        return;
    memset(ops, 0, sizeof *ops);
    ops->struct_size = sizeof *ops;
}

/* ZKPIPE_OK, or ZKPIPE_EINVAL with the line naming partition `i`'s field that is wrong. */
static zkpipe_status parts_check(const zkpipe_partition *p, size_t i)
{
    const zkpipe_stage_ops *ops = p->ops;
    if (ops == NULL)
        return zkpipe__refuse(ZKPIPE_EINVAL, "partition %zu: zkpipe_partition.ops is NULL", i);
    if (p->reserved[0] != 0 || p->reserved[1] != 0)
        return zkpipe__refuse(ZKPIPE_EINVAL, "partition %zu: zkpipe_partition.reserved is not 0",
                              i);
    /* A longer table (newer headers) is read as far as this library knows it. */
    if (ops->struct_size < OPS_MIN_SIZE)
        return zkpipe__refuse(ZKPIPE_EINVAL,
                              "partition %zu: zkpipe_stage_ops.struct_size is %zu, below the "
                              "%zu of the first table: set it with zkpipe_stage_ops_init",
                              i, ops->struct_size, (size_t)OPS_MIN_SIZE);
    const char *missing = ops->synthesize == NULL ? "synthesize"
                          : ops->prove == NULL    ? "prove"
                          : ops->discard == NULL  ? "discard"
                                                  : NULL;
    if (missing != NULL)
        return zkpipe__refuse(ZKPIPE_EINVAL, "partition %zu: zkpipe_stage_ops.%s is NULL", i,
                              missing);
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_engine_submit(zkpipe_engine *engine, zkpipe_job **out,
                                   const zkpipe_partition *parts, size_t count,
                                   zkpipe_job_done_fn done, void *ctx)
{
    if (engine == NULL || out == NULL || parts == NULL || count == 0)
        return ZKPIPE_EINVAL;
    for (size_t i = 0; i < count; i++) {
        zkpipe_status st = parts_check(&parts[i], i);
        if (st != ZKPIPE_OK)
            return st;
        const zkpipe_stage_ops *ops = parts[i].ops;
        /* validate lies past the minimum: only a table that long has one. */
        zkpipe_status (*validate)(void *, size_t) =
            ops->struct_size >= offsetof(zkpipe_stage_ops, validate) + sizeof ops->validate
                ? ops->validate
                : NULL;
        st = validate != NULL ? validate(parts[i].ctx, i) : ZKPIPE_OK;
        if (st != ZKPIPE_OK)
            return st;
    }
    zkpipe_job *job;
    zkpipe_status st = zkpipe__job_create(&job, &engine->allocator, parts, count, done, ctx);
    if (st != ZKPIPE_OK)
        return st;
    pthread_mutex_lock(&engine->lock);
    if (engine->closed || count > UINT32_MAX - engine->tracks) {
        st = engine->closed ? ZKPIPE_ECLOSED : ZKPIPE_EOVERFLOW;
        pthread_mutex_unlock(&engine->lock);
        zkpipe__job_free(job);
        return st;
    }
    job->id = ++engine->jobs;
    job->engine = engine;
    for (size_t i = 0; i < count; i++)
        job->items[i].track = ++engine->tracks;
    /* Before the job is out of this thread's hands: its done callback may read the handle
     * where the host keeps it, and may free that place, before submit would return. */
    *out = job;
    if (engine->tail != NULL)
        engine->tail->next = job;
    else
        engine->head = job;
    engine->tail = job;
    engine->unfinished++;
    atomic_fetch_add(&engine->submitted, count);
    pthread_cond_broadcast(&engine->work);
    pthread_mutex_unlock(&engine->lock);
    return ZKPIPE_OK;
}

zkpipe__item *zkpipe__engine_take(zkpipe_engine *e)
{
    pthread_mutex_lock(&e->lock);
    while (e->head == NULL && !e->closed)
        pthread_cond_wait(&e->work, &e->lock);
    zkpipe_job *job = e->head;
    zkpipe__item *it = NULL;
    if (job != NULL) {
        it = &job->items[job->taken++];
        if (job->taken == job->count) {
            e->head = job->next;
            if (e->head == NULL)
                e->tail = NULL;
        }
    }
    pthread_mutex_unlock(&e->lock);
    return it;
}

void zkpipe__engine_job_done(zkpipe_engine *e)
{
    pthread_mutex_lock(&e->lock);
    e->unfinished--;
    pthread_cond_broadcast(&e->idle);
    pthread_mutex_unlock(&e->lock);
}

void zkpipe_engine_close(zkpipe_engine *engine)
{
    if (engine == NULL)
        return;
    pthread_mutex_lock(&engine->lock);
    engine->closed = 1;
    pthread_cond_broadcast(&engine->work);
    pthread_mutex_unlock(&engine->lock);
}

zkpipe_status zkpipe_engine_drain(zkpipe_engine *engine)
{
    if (engine == NULL)
        return ZKPIPE_OK;
    if (zkpipe__reentry_on(engine))
        return zkpipe__reentry_refuse("zkpipe_engine_drain");
    zkpipe_engine_close(engine);
    pthread_mutex_lock(&engine->lock);
    while (engine->unfinished > 0)
        pthread_cond_wait(&engine->idle, &engine->lock);
    pthread_mutex_unlock(&engine->lock);
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_engine_stats(zkpipe_engine *engine, zkpipe_engine_counters *out)
{
    if (engine == NULL || out == NULL)
        return ZKPIPE_EINVAL;
    memset(out, 0, sizeof *out);
    out->submitted = atomic_load(&engine->submitted);
    out->proved = atomic_load(&engine->proved);
    out->failed = atomic_load(&engine->failed);
    out->canceled = atomic_load(&engine->canceled);
    out->in_flight = atomic_load(&engine->in_flight);
    out->peak_in_flight = atomic_load(&engine->peak_in_flight);
    const zkpipe_engine_config *c = &engine->config;
    out->bound = (engine->autotuning ? c->synth_workers : c->permits) + c->capacity;
    out->resident_bound = out->bound + (uint64_t)c->prover_workers * c->max_batch;
    out->proving = atomic_load(&engine->proving);
    out->permits_available = zkpipe_sem_available(engine->permits);
    out->budget_bytes = engine->config.budget_bytes;
    out->budget_available = engine->budget != NULL ? zkpipe_sem_available(engine->budget) : 0;
    out->over_reservation_events = atomic_load(&engine->adm.over_events);
    out->over_reservation_bytes = atomic_load(&engine->adm.over_bytes);
    out->budget_returned_early = atomic_load(&engine->adm.returned_early);
    out->permits_admitted = engine->autotuning ? zkpipe_sem_limit(engine->permits) : c->permits;
    out->prover_idle_ns = atomic_load(&engine->prover_idle_ns);
    out->unaccounted_bytes = zkpipe__unaccounted_sample(&engine->unaccounted);
    out->unaccounted_peak_bytes = zkpipe__unaccounted_peak(&engine->unaccounted);
    if (engine->budget != NULL) {
        zkpipe__sem_waits w;
        zkpipe__sem_waits_get(engine->budget, &w);
        out->budget_admission_waits = w.admissions;
        out->budget_admission_wait_ns = w.admission_ns;
        out->budget_growth_waits = w.growths;
        out->budget_growth_wait_ns = w.growth_ns;
        out->budget_overdrafts = w.overdrafts;
        out->budget_overdraft_peak_bytes = w.debt_peak;
    }
    zkpipe_chan_counters ch;
    if (zkpipe_chan_stats(engine->ch, &ch) == ZKPIPE_OK) {
        out->channel_items = ch.queued;
        out->channel_capacity = ch.capacity;
        out->waiting_senders = ch.waiting_senders;
    }
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_engine_sources(zkpipe_engine *engine, zkpipe_engine_source *out, size_t cap,
                                    size_t *count)
{
    if (engine == NULL || count == NULL || (out == NULL && cap > 0))
        return ZKPIPE_EINVAL;
    *count = zkpipe__admission_sources(&engine->adm, out, cap);
    return ZKPIPE_OK;
}

void zkpipe_engine_destroy(zkpipe_engine *engine)
{
    if (engine == NULL)
        return;
    if (zkpipe__reentry_on(engine)) {
        /* From a stage operation or done callback: this thread still uses the engine, so the
         * last worker to leave frees it. Set before stop, while this worker is live. */
        atomic_store(&engine->deferred, 1);
        stop(engine);
        return;
    }
    teardown(engine);
}

void zkpipe__engine_set_prove_hook(zkpipe_engine *engine, zkpipe__prove_hook hook, void *ctx)
{
    engine->prove_hook = hook;
    engine->prove_hook_ctx = ctx;
}
