/* The thread pool: coverage of every index, worker indices, nesting, concurrent callers,
 * create/destroy cycles and every error path (pthread failures through --wrap, see below).
 * Worker threads only record what they see; the main thread asserts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

#include "fail_alloc.h"
#include "fail_pthread.h"
#include "sanitize.h"
#include "zkpipe/zkpipe.h"

/* What a loop body saw, filled in concurrently by every thread running it. */
typedef struct cover {
    size_t n, chunk;
    unsigned threads;
    atomic_uint *hits;        /* hits[i]: times index i was handed out */
    atomic_uint *busy;        /* busy[w]: bodies currently running with worker index w */
    atomic_uint errors;       /* bad ranges, worker indices, or a shared worker index */
    atomic_uint calls;        /* bodies run */
    atomic_uint off_caller;   /* bodies run on a thread other than the caller */
    atomic_uint signals_open; /* bodies on a worker thread that could receive SIGINT */
    pthread_t caller;
} cover;

static void cover_body(void *ctx, size_t begin, size_t end, unsigned worker)
{
    cover *c = ctx;
    atomic_fetch_add(&c->calls, 1);
    if (begin >= end || end > c->n || worker >= c->threads) {
        atomic_fetch_add(&c->errors, 1);
        return;
    }
    /* Every chunk but the last has exactly the requested size. */
    if (c->chunk != 0 && end - begin != c->chunk && end != c->n)
        atomic_fetch_add(&c->errors, 1);
    if (atomic_fetch_add(&c->busy[worker], 1) != 0)
        atomic_fetch_add(&c->errors, 1);
    if (!pthread_equal(pthread_self(), c->caller)) {
        atomic_fetch_add(&c->off_caller, 1);
        sigset_t mask;
        pthread_sigmask(SIG_BLOCK, NULL, &mask);
        if (!sigismember(&mask, SIGINT))
            atomic_fetch_add(&c->signals_open, 1);
    }
    for (size_t i = begin; i < end; i++)
        atomic_fetch_add(&c->hits[i], 1);
    atomic_fetch_sub(&c->busy[worker], 1);
}

static void cover_init(cover *c, size_t n, size_t chunk, unsigned threads)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->chunk = chunk;
    c->threads = threads;
    c->hits = calloc(n + 1, sizeof *c->hits);
    c->busy = calloc(threads, sizeof *c->busy);
    assert_non_null(c->hits);
    assert_non_null(c->busy);
    c->caller = pthread_self();
}

/* Asserts every index was covered exactly once and nothing odd was seen; frees. */
static void cover_check(cover *c)
{
    assert_int_equal(atomic_load(&c->errors), 0);
    assert_int_equal(atomic_load(&c->signals_open), 0);
    for (size_t i = 0; i < c->n; i++) {
        if (atomic_load(&c->hits[i]) != 1)
            fail_msg("index %zu of %zu (chunk %zu, %u threads) hit %u times", i, c->n, c->chunk,
                     c->threads, atomic_load(&c->hits[i]));
    }
    if (c->n == 0)
        assert_int_equal(atomic_load(&c->calls), 0);
    else if (c->chunk != 0)
        assert_int_equal(atomic_load(&c->calls), (c->n + c->chunk - 1) / c->chunk);
    free(c->hits);
    free(c->busy);
}

static void every_index_once(void **state)
{
    (void)state;
    const unsigned thread_counts[] = {1, 2, 3, 4, 8};
    const size_t sizes[] = {0, 1, 2, 3, 5, 7, 8, 63, 64, 1000, 4097};
    const size_t chunks[] = {0, 1, 2, 3, 64, 1000, 5000};
    for (size_t t = 0; t < sizeof thread_counts / sizeof *thread_counts; t++) {
        zkpipe_pool *pool = NULL;
        assert_int_equal(zkpipe_pool_create(&pool, thread_counts[t], NULL), ZKPIPE_OK);
        assert_int_equal(zkpipe_pool_threads(pool), thread_counts[t]);
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
                cover c;
                cover_init(&c, sizes[s], chunks[k], thread_counts[t]);
                assert_int_equal(
                    zkpipe_pool_parallel_for(pool, sizes[s], chunks[k], cover_body, &c), ZKPIPE_OK);
                if (thread_counts[t] == 1)
                    assert_int_equal(atomic_load(&c.off_caller), 0);
                cover_check(&c);
            }
        }
        zkpipe_pool_destroy(pool);
    }
}

static void null_pool_runs_inline(void **state)
{
    (void)state;
    assert_int_equal(zkpipe_pool_threads(NULL), 1);
    for (size_t chunk = 0; chunk < 5; chunk++) {
        cover c;
        cover_init(&c, 37, chunk, 1);
        assert_int_equal(zkpipe_pool_parallel_for(NULL, 37, chunk, cover_body, &c), ZKPIPE_OK);
        assert_int_equal(atomic_load(&c.off_caller), 0);
        if (chunk == 0)
            assert_int_equal(atomic_load(&c.calls), 1);
        cover_check(&c);
    }
}

static void automatic_thread_count(void **state)
{
    (void)state;
    zkpipe_pool *pool = NULL;
    assert_int_equal(zkpipe_pool_create(&pool, 0, NULL), ZKPIPE_OK);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    assert_true(cpus >= 1);
    assert_int_equal(zkpipe_pool_threads(pool), (unsigned)cpus);
    zkpipe_pool_destroy(pool);
}

/* The caller's chunk waits until a worker has run one, so the loop can only finish if the
 * workers really take part (without any timing assumption). */
typedef struct handoff {
    atomic_uint worker_ran; /* bit w set when worker index w ran a chunk */
    atomic_uint bad;
} handoff;

static void handoff_body(void *ctx, size_t begin, size_t end, unsigned worker)
{
    handoff *h = ctx;
    if (end - begin != 1 || worker >= 4) {
        atomic_fetch_add(&h->bad, 1);
        return;
    }
    if (worker == 0) {
        while ((atomic_load(&h->worker_ran) & ~1u) == 0)
            sched_yield();
    }
    atomic_fetch_or(&h->worker_ran, 1u << worker);
}

static void workers_take_part(void **state)
{
    (void)state;
    zkpipe_pool *pool = NULL;
    assert_int_equal(zkpipe_pool_create(&pool, 4, NULL), ZKPIPE_OK);
    for (int round = 0; round < 20; round++) {
        handoff h;
        atomic_init(&h.worker_ran, 0);
        atomic_init(&h.bad, 0);
        assert_int_equal(zkpipe_pool_parallel_for(pool, 8, 1, handoff_body, &h), ZKPIPE_OK);
        assert_int_equal(atomic_load(&h.bad), 0);
        assert_true((atomic_load(&h.worker_ran) & ~1u) != 0);
    }
    zkpipe_pool_destroy(pool);
}

typedef struct nest {
    zkpipe_pool *pool;
    unsigned threads;
    atomic_uint errors;
    atomic_uint inner_total;
} nest;

typedef struct inner_ctx {
    nest *outer;
    unsigned worker;
    size_t seen;
} inner_ctx;

static void inner_body(void *ctx, size_t begin, size_t end, unsigned worker)
{
    inner_ctx *in = ctx;
    if (worker != in->worker)
        atomic_fetch_add(&in->outer->errors, 1);
    in->seen += end - begin;
}

static void outer_body(void *ctx, size_t begin, size_t end, unsigned worker)
{
    nest *ns = ctx;
    for (size_t i = begin; i < end; i++) {
        inner_ctx in = {ns, worker, 0};
        zkpipe_status rc = zkpipe_pool_parallel_for(ns->pool, 100, 7, inner_body, &in);
        if (rc != ZKPIPE_OK || in.seen != 100)
            atomic_fetch_add(&ns->errors, 1);
        atomic_fetch_add(&ns->inner_total, (unsigned)in.seen);
    }
}

static void nested_calls_run_inline(void **state)
{
    (void)state;
    nest ns;
    memset(&ns, 0, sizeof ns);
    assert_int_equal(zkpipe_pool_create(&ns.pool, 3, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_pool_parallel_for(ns.pool, 64, 1, outer_body, &ns), ZKPIPE_OK);
    assert_int_equal(atomic_load(&ns.errors), 0);
    assert_int_equal(atomic_load(&ns.inner_total), 64 * 100);
    zkpipe_pool_destroy(ns.pool);
}

typedef struct caller_arg {
    zkpipe_pool *pool;
    unsigned seed;
    unsigned rounds;
    unsigned bad; /* read by the main thread after join */
} caller_arg;

static void *concurrent_caller(void *arg)
{
    caller_arg *ca = arg;
    for (unsigned r = 0; r < ca->rounds; r++) {
        size_t n = (ca->seed * 7919u + r * 104729u) % 3000;
        size_t chunk = r % 5 == 0 ? 0 : (r * 13u) % 97 + 1;
        cover c;
        memset(&c, 0, sizeof c);
        c.n = n;
        c.chunk = chunk;
        c.threads = zkpipe_pool_threads(ca->pool);
        c.hits = calloc(n + 1, sizeof *c.hits);
        c.busy = calloc(c.threads, sizeof *c.busy);
        c.caller = pthread_self();
        if (c.hits == NULL || c.busy == NULL ||
            zkpipe_pool_parallel_for(ca->pool, n, chunk, cover_body, &c) != ZKPIPE_OK) {
            ca->bad++;
        } else {
            if (atomic_load(&c.errors) != 0)
                ca->bad++;
            for (size_t i = 0; i < n; i++)
                if (atomic_load(&c.hits[i]) != 1)
                    ca->bad++;
        }
        free(c.hits);
        free(c.busy);
    }
    return NULL;
}

static void concurrent_callers_are_serialised(void **state)
{
    (void)state;
    zkpipe_pool *pool = NULL;
    assert_int_equal(zkpipe_pool_create(&pool, 3, NULL), ZKPIPE_OK);
    enum { CALLERS = 4 };
    pthread_t th[CALLERS];
    caller_arg args[CALLERS];
    for (unsigned i = 0; i < CALLERS; i++) {
        args[i] = (caller_arg){pool, i + 1, ZKPIPE_TEST_SANITIZED ? 40 : 300, 0};
        assert_int_equal(pthread_create(&th[i], NULL, concurrent_caller, &args[i]), 0);
    }
    for (unsigned i = 0; i < CALLERS; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_int_equal(args[i].bad, 0);
    }
    zkpipe_pool_destroy(pool);
}

static void create_destroy_cycles(void **state)
{
    (void)state;
    unsigned cycles = ZKPIPE_TEST_SANITIZED ? 30 : 200;
    for (unsigned i = 0; i < cycles; i++) {
        zkpipe_pool *pool = NULL;
        unsigned threads = 1 + i % 6;
        assert_int_equal(zkpipe_pool_create(&pool, threads, NULL), ZKPIPE_OK);
        if (i % 2 == 0) {
            cover c;
            cover_init(&c, 100 + i, 0, threads);
            assert_int_equal(zkpipe_pool_parallel_for(pool, 100 + i, 0, cover_body, &c), ZKPIPE_OK);
            cover_check(&c);
        }
        zkpipe_pool_destroy(pool);
    }
}

static void creation_keeps_caller_signal_mask(void **state)
{
    (void)state;
    sigset_t before, after;
    pthread_sigmask(SIG_BLOCK, NULL, &before);
    zkpipe_pool *pool = NULL;
    assert_int_equal(zkpipe_pool_create(&pool, 3, NULL), ZKPIPE_OK);
    pthread_sigmask(SIG_BLOCK, NULL, &after);
    for (int sig = 1; sig < 32; sig++)
        assert_int_equal(sigismember(&before, sig), sigismember(&after, sig));
    zkpipe_pool_destroy(pool);
}

static void invalid_arguments(void **state)
{
    (void)state;
    zkpipe_pool *pool = NULL;
    assert_int_equal(zkpipe_pool_create(NULL, 2, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_pool_create(&pool, ZKPIPE_POOL_MAX_THREADS + 1, NULL), ZKPIPE_EINVAL);
    zkpipe_allocator half = {NULL, NULL, NULL};
    assert_int_equal(zkpipe_pool_create(&pool, 2, &half), ZKPIPE_EINVAL);
    assert_null(pool);

    assert_int_equal(zkpipe_pool_create(&pool, 2, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_pool_parallel_for(pool, 10, 0, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_pool_parallel_for(NULL, 10, 0, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_pool_parallel_for(pool, 0, 0, NULL, NULL), ZKPIPE_OK);
    zkpipe_pool_destroy(pool);
    zkpipe_pool_destroy(NULL);
}

static int create_attempt(void *arg, const zkpipe_allocator *a)
{
    zkpipe_pool **pool = arg;
    return zkpipe_pool_create(pool, 4, a);
}

static void destroy_cleanup(void *arg)
{
    zkpipe_pool **pool = arg;
    zkpipe_pool_destroy(*pool);
    *pool = NULL;
}

static void allocation_failures(void **state)
{
    (void)state;
    zkpipe_pool *pool = NULL;
    assert_int_equal(fail_alloc_walk(create_attempt, destroy_cleanup, &pool), 1);
}

/* This executable links with support/fail_pthread: each pthread call zkpipe_pool_create makes
 * fails in turn, and a failed create must have joined every worker it had started. */
static void thread_resource_failures(void **state)
{
    (void)state;
    const unsigned threads = 5;
    for (long fail_at = 0;; fail_at++) {
        fail_alloc fa;
        fail_alloc_init(&fa, -1);
        fail_pthread_arm(fail_at);
        zkpipe_pool *pool = NULL;
        zkpipe_status rc = zkpipe_pool_create(&pool, threads, &fa.allocator);
        const char *failed = fail_pthread_failed();
        unsigned started = fail_pthread_started(), finished = fail_pthread_finished();
        fail_pthread_arm(-1);
        if (failed == NULL) {
            /* One mutex, three condition variables, threads - 1 workers: all walked. */
            assert_int_equal(fail_at, 4 + threads - 1);
            assert_int_equal(rc, ZKPIPE_OK);
            assert_int_equal(started, threads - 1);
            cover c;
            cover_init(&c, 500, 3, threads);
            assert_int_equal(zkpipe_pool_parallel_for(pool, 500, 3, cover_body, &c), ZKPIPE_OK);
            cover_check(&c);
            /* The workers end only here, after the disarm above reset the count. */
            zkpipe_pool_destroy(pool);
            assert_int_equal(fail_pthread_finished(), threads - 1);
            assert_int_equal(atomic_load(&fa.live), 0);
            return;
        }
        assert_int_equal(rc, fail_at < 4 ? ZKPIPE_ENOMEM : ZKPIPE_ETHREAD);
        assert_null(pool);
        assert_int_equal(started, fail_at < 4 ? 0 : fail_at - 4);
        assert_int_equal(finished, started);
        assert_int_equal(atomic_load(&fa.live), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_index_once),
        cmocka_unit_test(null_pool_runs_inline),
        cmocka_unit_test(automatic_thread_count),
        cmocka_unit_test(workers_take_part),
        cmocka_unit_test(nested_calls_run_inline),
        cmocka_unit_test(concurrent_callers_are_serialised),
        cmocka_unit_test(create_destroy_cycles),
        cmocka_unit_test(creation_keeps_caller_signal_mask),
        cmocka_unit_test(invalid_arguments),
        cmocka_unit_test(allocation_failures),
        cmocka_unit_test(thread_resource_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
