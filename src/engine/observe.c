/* The engine watched from outside: per-partition histograms, the in-flight list, the trace
 * flusher (observe.h), and the public calls that read them (zkpipe/engine.h). */
#include <errno.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "core/clock_internal.h"
#include "engine/engine_internal.h"

struct zkpipe__observe {
    zkpipe_allocator allocator;
    zkpipe_histogram *hist[ZKPIPE_PHASE_COUNT];

    pthread_mutex_t lock;      /* the list */
    zkpipe__item *head, *tail; /* listed items, oldest first */
    size_t listed;

    zkpipe_trace *trace; /* flushed by `flusher`; NULL: no thread */
    pthread_mutex_t wake_lock;
    pthread_cond_t wake; /* destroy tells the flusher to stop */
    int stopping;        /* wake_lock */
    pthread_t flusher;
    int flushing; /* the thread was started */
};

static void *flush_loop(void *arg)
{
    zkpipe__observe *o = arg;
    pthread_mutex_lock(&o->wake_lock);
    while (!o->stopping) {
        struct timespec at = zkpipe__deadline_after((uint64_t)ZKPIPE__TRACE_FLUSH_MS * 1000000u);
        while (!o->stopping && pthread_cond_timedwait(&o->wake, &o->wake_lock, &at) != ETIMEDOUT)
            ;
        /* Flushed without the lock: a flush is a write, and destroy must be able to ask. */
        pthread_mutex_unlock(&o->wake_lock);
        zkpipe_trace_flush(o->trace);
        pthread_mutex_lock(&o->wake_lock);
    }
    pthread_mutex_unlock(&o->wake_lock);
    return NULL;
}

/* The flusher's lock, condition variable and thread; on failure none is left. */
static zkpipe_status start_flusher(zkpipe__observe *o)
{
    if (pthread_mutex_init(&o->wake_lock, NULL) != 0)
        return ZKPIPE_ENOMEM;
    zkpipe_status st = zkpipe__cond_init_monotonic(&o->wake);
    if (st == ZKPIPE_OK) {
        if (pthread_create(&o->flusher, NULL, flush_loop, o) == 0) {
            o->flushing = 1;
            return ZKPIPE_OK;
        }
        st = ZKPIPE_ETHREAD;
        pthread_cond_destroy(&o->wake);
    }
    pthread_mutex_destroy(&o->wake_lock);
    return st;
}

static void free_parts(zkpipe__observe *o)
{
    for (int i = 0; i < ZKPIPE_PHASE_COUNT; i++)
        zkpipe_histogram_destroy(o->hist[i]);
    zkpipe_allocator a = o->allocator;
    zkpipe__free(&a, o);
}

zkpipe_status zkpipe__observe_create(zkpipe__observe **out, const zkpipe_allocator *allocator,
                                     zkpipe_trace *trace)
{
    zkpipe__observe *o = zkpipe__calloc(allocator, 1, sizeof *o, _Alignof(zkpipe__observe));
    if (o == NULL)
        return ZKPIPE_ENOMEM;
    o->allocator = *allocator;
    zkpipe_status st = ZKPIPE_OK;
    /* The default ladder, 1 ms to 1000 s in nanoseconds: a test circuit's partition and a
     * production one of minutes both land inside it. */
    for (int i = 0; st == ZKPIPE_OK && i < ZKPIPE_PHASE_COUNT; i++)
        st = zkpipe_histogram_create(&o->hist[i], NULL, 0, 1e-9, &o->allocator);
    if (st == ZKPIPE_OK && pthread_mutex_init(&o->lock, NULL) != 0)
        st = ZKPIPE_ENOMEM;
    if (st != ZKPIPE_OK) {
        free_parts(o);
        return st;
    }
    o->trace = trace;
    if (trace != NULL && (st = start_flusher(o)) != ZKPIPE_OK) {
        pthread_mutex_destroy(&o->lock);
        free_parts(o);
        return st;
    }
    *out = o;
    return ZKPIPE_OK;
}

void zkpipe__observe_destroy(zkpipe__observe *o)
{
    if (o == NULL)
        return;
    if (o->flushing) {
        pthread_mutex_lock(&o->wake_lock);
        o->stopping = 1;
        pthread_cond_signal(&o->wake);
        pthread_mutex_unlock(&o->wake_lock);
        pthread_join(o->flusher, NULL);
        pthread_cond_destroy(&o->wake);
        pthread_mutex_destroy(&o->wake_lock);
        zkpipe_trace_flush(o->trace);
    }
    pthread_mutex_destroy(&o->lock);
    free_parts(o);
}

static void observe_between(zkpipe_histogram *h, uint64_t from_ns, uint64_t to_ns)
{
    if (from_ns != 0)
        zkpipe_histogram_observe(h, to_ns > from_ns ? to_ns - from_ns : 0);
}

void zkpipe__observe_stage(zkpipe__observe *o, zkpipe__item *it, uint32_t stage, uint64_t now_ns)
{
    zkpipe__item_watch *w = &it->watch;
    atomic_store_explicit(&w->since_ns, now_ns, memory_order_relaxed);
    atomic_store_explicit(&w->stage, stage, memory_order_relaxed);
    if (stage == ZKPIPE_STAGE_SYNTH) {
        pthread_mutex_lock(&o->lock);
        /* After every item that began before it: two workers may mark in one order and
         * take the lock in the other, so the list stays oldest first only by looking. */
        zkpipe__item *before = o->tail;
        while (before != NULL && before->at[ZKPIPE_STAGE_SYNTH] > now_ns)
            before = before->watch.prev;
        w->prev = before;
        w->next = before != NULL ? before->watch.next : o->head;
        if (w->next != NULL)
            w->next->watch.prev = it;
        else
            o->tail = it;
        if (before != NULL)
            before->watch.next = it;
        else
            o->head = it;
        w->listed = 1;
        o->listed++;
        pthread_mutex_unlock(&o->lock);
    } else if (stage == ZKPIPE_STAGE_PENDING) {
        observe_between(o->hist[ZKPIPE_PHASE_SYNTH], it->at[ZKPIPE_STAGE_SYNTH], now_ns);
    } else if (stage == ZKPIPE_STAGE_PROVING) {
        observe_between(o->hist[ZKPIPE_PHASE_WAIT], it->at[ZKPIPE_STAGE_PENDING], now_ns);
    }
}

void zkpipe__observe_end(zkpipe__observe *o, zkpipe__item *it, zkpipe_status status,
                         uint64_t end_ns)
{
    zkpipe__item_watch *w = &it->watch;
    if (w->listed) {
        pthread_mutex_lock(&o->lock);
        if (w->prev != NULL)
            w->prev->watch.next = w->next;
        else
            o->head = w->next;
        if (w->next != NULL)
            w->next->watch.prev = w->prev;
        else
            o->tail = w->prev;
        w->prev = w->next = NULL;
        w->listed = 0;
        o->listed--;
        pthread_mutex_unlock(&o->lock);
    }
    if (status != ZKPIPE_ECANCELED)
        observe_between(o->hist[ZKPIPE_PHASE_PROVE], it->at[ZKPIPE_STAGE_PROVING], end_ns);
}

zkpipe_status zkpipe_engine_histogram(zkpipe_engine *engine, zkpipe_engine_phase phase,
                                      zkpipe_histogram_snapshot *out)
{
    if (engine == NULL || out == NULL || (unsigned)phase >= ZKPIPE_PHASE_COUNT)
        return ZKPIPE_EINVAL;
    return zkpipe_histogram_read(engine->observe->hist[phase], out);
}

zkpipe_status zkpipe_engine_in_flight(zkpipe_engine *engine, zkpipe_partition_info *out, size_t cap,
                                      size_t *count)
{
    if (engine == NULL || count == NULL || (out == NULL && cap > 0))
        return ZKPIPE_EINVAL;
    zkpipe__observe *o = engine->observe;
    uint64_t now = zkpipe_trace_now();
    pthread_mutex_lock(&o->lock);
    size_t n = 0;
    for (const zkpipe__item *it = o->head; it != NULL && n < cap; it = it->watch.next, n++) {
        zkpipe_partition_info *p = &out[n];
        memset(p, 0, sizeof *p);
        /* job->id and at[SYNTH] were written before the item was listed, under this lock. */
        p->job = it->job->id;
        p->index = it->index;
        p->stage = atomic_load_explicit(&it->watch.stage, memory_order_relaxed);
        uint64_t since = atomic_load_explicit(&it->watch.since_ns, memory_order_relaxed);
        uint64_t began = it->at[ZKPIPE_STAGE_SYNTH];
        p->age_ns = now > began ? now - began : 0;
        p->stage_ns = now > since ? now - since : 0;
    }
    *count = o->listed;
    pthread_mutex_unlock(&o->lock);
    return ZKPIPE_OK;
}
