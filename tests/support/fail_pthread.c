#include "fail_pthread.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "fail_alloc.h"
#include "zkpipe/status.h"

static atomic_long fail_at = -1;
static atomic_long calls;
static _Atomic(const char *) failed;
static atomic_uint started, finished;

void fail_pthread_arm(long at)
{
    atomic_store(&failed, NULL);
    atomic_store(&calls, 0);
    atomic_store(&started, 0);
    atomic_store(&finished, 0);
    atomic_store(&fail_at, at);
}

long fail_pthread_calls(void)
{
    return atomic_load(&calls);
}

const char *fail_pthread_failed(void)
{
    return atomic_load(&failed);
}

unsigned fail_pthread_started(void)
{
    return atomic_load(&started);
}

unsigned fail_pthread_finished(void)
{
    return atomic_load(&finished);
}

long fail_pthread_walk(int (*attempt)(void *arg, const zkpipe_allocator *a),
                       void (*cleanup)(void *arg), void *arg, int ok_status)
{
    for (long site = 0;; site++) {
        fail_alloc fa;
        fail_alloc_init(&fa, -1);
        fail_pthread_arm(site);
        int rc = attempt(arg, &fa.allocator);
        const char *name = fail_pthread_failed();
        fail_pthread_arm(-1);
        if (name == NULL) {
            assert_int_equal(rc, ok_status);
            if (cleanup != NULL)
                cleanup(arg);
            assert_int_equal(atomic_load(&fa.live), 0);
            return site;
        }
        assert_int_equal(rc, strcmp(name, "pthread_condattr_setclock") == 0 ? ZKPIPE_EUNSUPPORTED
                                                                            : ZKPIPE_ENOMEM);
        assert_int_equal(atomic_load(&fa.live), 0);
    }
}

/* 0, or `err` when this call is the one armed to fail. */
static int should_fail(const char *name, int err)
{
    if (atomic_fetch_add(&calls, 1) != atomic_load(&fail_at))
        return 0;
    atomic_store(&failed, name);
    return err;
}

/* The linker sends calls to pthread_X to __wrap_pthread_X and __real_pthread_X to the
 * original; the declarations exist only for this file. */
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __real_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a);
int __real_pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a);
int __real_pthread_condattr_init(pthread_condattr_t *a);
int __real_pthread_condattr_setclock(pthread_condattr_t *a, clockid_t clock);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a);
int __wrap_pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a);
int __wrap_pthread_condattr_init(pthread_condattr_t *a);
int __wrap_pthread_condattr_setclock(pthread_condattr_t *a, clockid_t clock);

/* A thread created while armed runs through this, which counts its return. */
typedef struct counted_start {
    void *(*fn)(void *);
    void *arg;
} counted_start;

static void *counted_main(void *p)
{
    counted_start cs = *(counted_start *)p;
    free(p);
    void *r = cs.fn(cs.arg);
    atomic_fetch_add(&finished, 1);
    return r;
}

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    int err = should_fail("pthread_create", EAGAIN);
    if (err != 0)
        return err;
    if (atomic_load(&fail_at) < 0)
        return __real_pthread_create(t, a, fn, arg);
    counted_start *cs = malloc(sizeof *cs);
    if (cs == NULL)
        return EAGAIN;
    cs->fn = fn;
    cs->arg = arg;
    err = __real_pthread_create(t, a, counted_main, cs);
    if (err != 0) {
        free(cs);
        return err;
    }
    atomic_fetch_add(&started, 1);
    return 0;
}

int __wrap_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
    int err = should_fail("pthread_mutex_init", ENOMEM);
    return err != 0 ? err : __real_pthread_mutex_init(m, a);
}

int __wrap_pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
    int err = should_fail("pthread_cond_init", ENOMEM);
    return err != 0 ? err : __real_pthread_cond_init(c, a);
}

int __wrap_pthread_condattr_init(pthread_condattr_t *a)
{
    int err = should_fail("pthread_condattr_init", ENOMEM);
    return err != 0 ? err : __real_pthread_condattr_init(a);
}

int __wrap_pthread_condattr_setclock(pthread_condattr_t *a, clockid_t clock)
{
    int err = should_fail("pthread_condattr_setclock", EINVAL);
    return err != 0 ? err : __real_pthread_condattr_setclock(a, clock);
}
