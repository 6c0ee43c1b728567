#include "zkpipe/pool.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include "core/alloc_internal.h"
#include "core/pool_internal.h"

struct worker {
    zkpipe_pool *pool;
    pthread_t thread;
    unsigned index;
};

struct zkpipe_pool {
    zkpipe_allocator allocator;
    unsigned nthreads;
    pthread_mutex_t lock;
    pthread_cond_t wake; /* workers: a new loop was posted, or stop */
    pthread_cond_t done; /* owner: the last worker that joined the loop left it */
    pthread_cond_t idle; /* other callers: the pool is free again */
    uint64_t generation; /* bumped once per posted loop */
    unsigned active;     /* workers inside the posted loop */
    bool open;           /* workers may still join the posted loop */
    bool stop;
    bool busy;
    pthread_t owner; /* the caller of the loop in progress; valid while busy */
    /* The posted loop; written under `lock` before the wake-up. */
    zkpipe_pool_fn fn;
    void *ctx;
    size_t n, chunk, nchunks;
    atomic_size_t next_chunk;
    struct worker workers[]; /* nthreads - 1 */
};

static void run_chunks(zkpipe_pool *p, unsigned index)
{
    for (;;) {
        size_t c = atomic_fetch_add_explicit(&p->next_chunk, 1, memory_order_relaxed);
        if (c >= p->nchunks)
            return;
        size_t begin = c * p->chunk;
        size_t end = p->n - begin < p->chunk ? p->n : begin + p->chunk;
        p->fn(p->ctx, begin, end, index);
    }
}

static void run_inline(zkpipe_pool_fn fn, void *ctx, size_t n, size_t chunk, unsigned index)
{
    for (size_t begin = 0; begin < n;) {
        size_t end = n - begin < chunk ? n : begin + chunk;
        fn(ctx, begin, end, index);
        begin = end;
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    zkpipe_pool *p = w->pool;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->generation == seen && !p->stop)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop)
            break;
        seen = p->generation;
        /* A worker that wakes after the owner closed the loop stays out of it, so the owner
         * never waits for threads the scheduler has not run yet. */
        if (!p->open)
            continue;
        p->active++;
        pthread_mutex_unlock(&p->lock);
        run_chunks(p, w->index);
        pthread_mutex_lock(&p->lock);
        if (--p->active == 0 && !p->open)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static int init_sync(zkpipe_pool *p)
{
    if (pthread_mutex_init(&p->lock, NULL) != 0)
        return -1;
    if (pthread_cond_init(&p->wake, NULL) != 0)
        goto no_wake;
    if (pthread_cond_init(&p->done, NULL) != 0)
        goto no_done;
    if (pthread_cond_init(&p->idle, NULL) != 0)
        goto no_idle;
    return 0;
no_idle:
    pthread_cond_destroy(&p->done);
no_done:
    pthread_cond_destroy(&p->wake);
no_wake:
    pthread_mutex_destroy(&p->lock);
    return -1;
}

static void destroy_sync(zkpipe_pool *p)
{
    pthread_cond_destroy(&p->idle);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
}

/* Stops and joins the first `started` workers. */
static void stop_workers(zkpipe_pool *p, unsigned started)
{
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < started; i++)
        pthread_join(p->workers[i].thread, NULL);
}

static unsigned online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        return 1;
    return n > ZKPIPE_POOL_MAX_THREADS ? ZKPIPE_POOL_MAX_THREADS : (unsigned)n;
}

zkpipe_status zkpipe_pool_create(zkpipe_pool **out, unsigned nthreads,
                                 const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out == NULL || a == NULL || nthreads > ZKPIPE_POOL_MAX_THREADS)
        return ZKPIPE_EINVAL;
    if (nthreads == 0)
        nthreads = online_cpus();
    size_t size = sizeof(zkpipe_pool) + (nthreads - 1) * sizeof(struct worker);
    zkpipe_pool *p = zkpipe__calloc(a, 1, size, _Alignof(zkpipe_pool));
    if (p == NULL)
        return ZKPIPE_ENOMEM;
    p->allocator = *a;
    p->nthreads = nthreads;
    atomic_init(&p->next_chunk, 0);
    if (init_sync(p) != 0) {
        zkpipe__free(a, p);
        return ZKPIPE_ENOMEM;
    }
    /* Workers start with every signal blocked so the host's signals keep going to its own
     * threads; the caller's mask is restored afterwards. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    unsigned started = 0;
    for (; started < nthreads - 1; started++) {
        struct worker *w = &p->workers[started];
        w->pool = p;
        w->index = started + 1;
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
            break;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (started < nthreads - 1) {
        stop_workers(p, started);
        destroy_sync(p);
        zkpipe__free(a, p);
        return ZKPIPE_ETHREAD;
    }
    *out = p;
    return ZKPIPE_OK;
}

void zkpipe_pool_destroy(zkpipe_pool *pool)
{
    if (pool == NULL)
        return;
    stop_workers(pool, pool->nthreads - 1);
    destroy_sync(pool);
    zkpipe_allocator a = pool->allocator;
    zkpipe__free(&a, pool);
}

unsigned zkpipe_pool_threads(const zkpipe_pool *pool)
{
    return pool == NULL ? 1 : pool->nthreads;
}

/* The worker index of the calling thread when it is one of the pool's workers. */
static bool find_worker(const zkpipe_pool *p, pthread_t self, unsigned *index)
{
    for (unsigned i = 0; i + 1 < p->nthreads; i++) {
        if (pthread_equal(p->workers[i].thread, self)) {
            *index = p->workers[i].index;
            return true;
        }
    }
    return false;
}

zkpipe_status zkpipe_pool_parallel_for(zkpipe_pool *pool, size_t n, size_t chunk, zkpipe_pool_fn fn,
                                       void *ctx)
{
    if (n == 0)
        return ZKPIPE_OK;
    if (fn == NULL)
        return ZKPIPE_EINVAL;
    unsigned threads = zkpipe_pool_threads(pool);
    if (chunk == 0) /* a few chunks per thread even out threads that start late or run slower */
        chunk = zkpipe__pool_chunk(pool, n, 1);
    size_t nchunks = n / chunk + (n % chunk != 0);
    if (threads == 1 || nchunks == 1) {
        run_inline(fn, ctx, n, chunk, 0);
        return ZKPIPE_OK;
    }

    pthread_t self = pthread_self();
    unsigned index;
    if (find_worker(pool, self, &index)) {
        run_inline(fn, ctx, n, chunk, index);
        return ZKPIPE_OK;
    }
    pthread_mutex_lock(&pool->lock);
    if (pool->busy && pthread_equal(pool->owner, self)) {
        pthread_mutex_unlock(&pool->lock);
        run_inline(fn, ctx, n, chunk, 0);
        return ZKPIPE_OK;
    }
    while (pool->busy)
        pthread_cond_wait(&pool->idle, &pool->lock);
    pool->busy = true;
    pool->owner = self;
    pool->fn = fn;
    pool->ctx = ctx;
    pool->n = n;
    pool->chunk = chunk;
    pool->nchunks = nchunks;
    atomic_store_explicit(&pool->next_chunk, 0, memory_order_relaxed);
    pool->open = true;
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);

    run_chunks(pool, 0);

    pthread_mutex_lock(&pool->lock);
    pool->open = false;
    while (pool->active > 0)
        pthread_cond_wait(&pool->done, &pool->lock);
    pool->busy = false;
    pthread_cond_signal(&pool->idle);
    pthread_mutex_unlock(&pool->lock);
    return ZKPIPE_OK;
}
