/* The FIFO count/byte semaphore: arguments, allocation failures, FIFO service, timeouts,
 * close, and permit misuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <cmocka.h>

#include "fail_alloc.h"
#include "fail_pthread.h"
#include "nap.h"
#include "sanitize.h"
#include "sync/sem_internal.h"
#include "zkpipe/sem.h"

/* Waits (without a time limit) until `n` threads are queued on `s`. */
static void await_waiters(const zkpipe_sem *s, uint64_t n)
{
    while (zkpipe_sem_waiters(s) != n)
        nap_ms(1);
}

typedef struct acquirer {
    zkpipe_sem *sem;
    uint64_t units;
    uint64_t timeout_ns; /* 0: block without a timeout */
    zkpipe_permit permit;
    zkpipe_status status;
    pthread_t thread;
} acquirer;

static void *acquirer_main(void *arg)
{
    acquirer *a = arg;
    a->status = a->timeout_ns == 0
                    ? zkpipe_sem_acquire(a->sem, &a->permit, a->units)
                    : zkpipe_sem_acquire_timed(a->sem, &a->permit, a->units, a->timeout_ns);
    return NULL;
}

static void start_acquirer(acquirer *a, zkpipe_sem *s, uint64_t units, uint64_t timeout_ns)
{
    a->sem = s;
    a->units = units;
    a->timeout_ns = timeout_ns;
    a->status = ZKPIPE_EINVAL;
    assert_int_equal(pthread_create(&a->thread, NULL, acquirer_main, a), 0);
}

static void create_rejects_bad_arguments(void **state)
{
    (void)state;
    zkpipe_sem *s = NULL;
    zkpipe_allocator half = {NULL, NULL, NULL};
    assert_int_equal(zkpipe_sem_create(NULL, 1, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_sem_create(&s, 0, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_sem_create(&s, 1, &half), ZKPIPE_EINVAL);
    assert_null(s);
    zkpipe_sem_destroy(NULL);
    zkpipe_sem_close(NULL);
    assert_int_equal(zkpipe_sem_available(NULL), 0);
    assert_int_equal(zkpipe_sem_capacity(NULL), 0);
    assert_int_equal(zkpipe_sem_waiters(NULL), 0);
}

static int create_attempt(void *arg, const zkpipe_allocator *a)
{
    return zkpipe_sem_create(arg, 5, a);
}

static void create_cleanup(void *arg)
{
    zkpipe_sem **s = arg;
    zkpipe_sem_destroy(*s);
    *s = NULL;
}

static void create_survives_every_allocation_failure(void **state)
{
    (void)state;
    zkpipe_sem *s = NULL;
    assert_int_equal(fail_alloc_walk(create_attempt, create_cleanup, &s), 1);
    assert_null(s);
}

static void create_survives_every_pthread_failure(void **state)
{
    (void)state;
    zkpipe_sem *s = NULL;
    assert_int_equal(fail_pthread_walk(create_attempt, create_cleanup, &s, ZKPIPE_OK), 1);
    assert_null(s);
}

/* A wait needs a condition variable of its own; when it cannot have one, nothing changes. */
static int wait_attempt(void *arg, const zkpipe_allocator *a)
{
    (void)a;
    zkpipe_permit p;
    return zkpipe_sem_acquire_timed(arg, &p, 1, 1000000);
}

static void a_wait_that_cannot_start_changes_nothing(void **state)
{
    (void)state;
    zkpipe_sem *s;
    zkpipe_permit held;
    assert_int_equal(zkpipe_sem_create(&s, 1, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_acquire(s, &held, 1), ZKPIPE_OK);
    assert_int_equal(fail_pthread_walk(wait_attempt, NULL, s, ZKPIPE_ETIMEDOUT), 3);
    assert_int_equal(zkpipe_sem_waiters(s), 0);
    assert_int_equal(zkpipe_sem_available(s), 0);
    assert_int_equal(zkpipe_permit_release(&held), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 1);
    zkpipe_sem_destroy(s);
}

static void acquire_and_release_count_units(void **state)
{
    (void)state;
    zkpipe_sem *s;
    assert_int_equal(zkpipe_sem_create(&s, 100, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_capacity(s), 100);
    zkpipe_permit a, b, z;
    assert_int_equal(zkpipe_sem_acquire(s, &a, 60), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_try_acquire(s, &b, 40), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 0);
    assert_ptr_equal(a.sem, s);
    assert_int_equal(a.units, 60);
    assert_true(zkpipe_permit_is_held(&a));
    assert_int_equal(zkpipe_sem_try_acquire(s, &z, 1), ZKPIPE_EAGAIN);
    assert_int_equal(zkpipe_sem_acquire_timed(s, &z, 1, 0), ZKPIPE_ETIMEDOUT);
    assert_int_equal(zkpipe_permit_release(&a), ZKPIPE_OK);
    assert_false(zkpipe_permit_is_held(&a));
    assert_int_equal(zkpipe_sem_available(s), 60);
    assert_int_equal(zkpipe_sem_acquire_timed(s, &a, 60, 1000000), ZKPIPE_OK);
    assert_int_equal(zkpipe_permit_release(&a), ZKPIPE_OK);
    assert_int_equal(zkpipe_permit_release(&b), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 100);
    zkpipe_sem_destroy(s);
}

static void acquire_rejects_bad_requests(void **state)
{
    (void)state;
    zkpipe_sem *s;
    zkpipe_permit p;
    assert_int_equal(zkpipe_sem_create(&s, 8, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_acquire(NULL, &p, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_sem_acquire(s, NULL, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_sem_try_acquire(NULL, &p, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_sem_acquire_timed(s, NULL, 1, 1), ZKPIPE_EINVAL);
    /* More than capacity can never be served: refused at once, even by the blocking call. */
    assert_int_equal(zkpipe_sem_acquire(s, &p, 9), ZKPIPE_ETOOBIG);
    assert_int_equal(zkpipe_sem_acquire_timed(s, &p, UINT64_MAX, 1), ZKPIPE_ETOOBIG);
    assert_int_equal(zkpipe_sem_available(s), 8);
    assert_int_equal(zkpipe_permit_release(NULL), ZKPIPE_EINVAL);
    assert_false(zkpipe_permit_is_held(NULL));
    zkpipe_sem_destroy(s);
}

static void zero_units_give_an_empty_permit(void **state)
{
    (void)state;
    zkpipe_sem *s;
    assert_int_equal(zkpipe_sem_create(&s, 1, NULL), ZKPIPE_OK);
    zkpipe_permit all, p = {s, 7, 7, 7};
    assert_int_equal(zkpipe_sem_acquire(s, &all, 1), ZKPIPE_OK);
    /* Even with nothing available, zero units never wait. */
    assert_int_equal(zkpipe_sem_acquire(s, &p, 0), ZKPIPE_OK);
    assert_null(p.sem);
    assert_int_equal(p.units, 0);
    assert_false(zkpipe_permit_is_held(&p));
    assert_int_equal(zkpipe_permit_release(&p), ZKPIPE_OK);
    zkpipe_permit zero = {0};
    assert_int_equal(zkpipe_permit_release(&zero), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 0);
    assert_int_equal(zkpipe_permit_release(&all), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 1);
    zkpipe_sem_destroy(s);
}

static void double_release_is_refused_and_count_intact(void **state)
{
    (void)state;
    zkpipe_sem *s;
    assert_int_equal(zkpipe_sem_create(&s, 10, NULL), ZKPIPE_OK);
    zkpipe_permit p;
    assert_int_equal(zkpipe_sem_acquire(s, &p, 4), ZKPIPE_OK);
    zkpipe_permit stale = p;
    assert_int_equal(zkpipe_permit_release(&p), ZKPIPE_OK);
    assert_int_equal(zkpipe_permit_release(&p), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_sem_available(s), 10);
    /* A copy taken while the permit was held still looks held, but the semaphore no longer
     * has that acquisition outstanding. */
    assert_true(zkpipe_permit_is_held(&stale));
    assert_int_equal(zkpipe_permit_release(&stale), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_sem_available(s), 10);

    /* With a smaller permit outstanding, a stale copy of a bigger one is still refused. */
    zkpipe_permit small;
    assert_int_equal(zkpipe_sem_acquire(s, &small, 1), ZKPIPE_OK);
    assert_int_equal(zkpipe_permit_release(&stale), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_sem_available(s), 9);
    /* A forged ticket the semaphore never issued is refused too. */
    zkpipe_permit forged = small;
    forged.ticket = small.ticket + 1000;
    assert_int_equal(zkpipe_permit_release(&forged), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_sem_available(s), 9);
    assert_int_equal(zkpipe_permit_release(&small), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 10);
    zkpipe_sem_destroy(s);
}

static void stale_copy_is_refused_while_a_twin_is_outstanding(void **state)
{
    (void)state;
    zkpipe_sem *s;
    assert_int_equal(zkpipe_sem_create(&s, 10, NULL), ZKPIPE_OK);
    zkpipe_permit a, b;
    assert_int_equal(zkpipe_sem_acquire(s, &a, 4), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_acquire(s, &b, 4), ZKPIPE_OK);
    zkpipe_permit stale = a;
    assert_int_equal(zkpipe_permit_release(&a), ZKPIPE_OK);
    /* b's 4 units could cover it, but they are b's. */
    assert_int_equal(zkpipe_permit_release(&stale), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_sem_available(s), 6);
    /* A new acquisition reusing a's slot does not revive the stale copy either. */
    zkpipe_permit c;
    assert_int_equal(zkpipe_sem_acquire(s, &c, 4), ZKPIPE_OK);
    assert_int_equal(c.slot, stale.slot);
    assert_int_equal(zkpipe_permit_release(&stale), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_sem_available(s), 2);
    assert_int_equal(zkpipe_permit_release(&b), ZKPIPE_OK);
    assert_int_equal(zkpipe_permit_release(&c), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 10);
    zkpipe_sem_destroy(s);
}

static void permits_past_the_tracked_ones_are_counted(void **state)
{
    (void)state;
    enum { N = ZKPIPE_SEM_TRACKED_PERMITS + 4 };
    zkpipe_sem *s;
    assert_int_equal(zkpipe_sem_create(&s, N + 10, NULL), ZKPIPE_OK);
    zkpipe_permit *p = calloc(N, sizeof *p);
    assert_non_null(p);
    for (int i = 0; i < N; i++)
        assert_int_equal(zkpipe_sem_acquire(s, &p[i], 1), ZKPIPE_OK);
    assert_int_not_equal(p[ZKPIPE_SEM_TRACKED_PERMITS - 1].slot, 0);
    assert_int_equal(p[ZKPIPE_SEM_TRACKED_PERMITS].slot, 0);
    zkpipe_permit tracked = p[0], untracked = p[N - 1];
    /* No untracked permit of 5 units can exist: the 4 untracked ones hold 4 units in all. */
    zkpipe_permit bigger = untracked;
    bigger.units = 5;
    assert_int_equal(zkpipe_permit_release(&bigger), ZKPIPE_ESTATE);
    for (int i = 0; i < N; i++)
        assert_int_equal(zkpipe_permit_release(&p[i]), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), N + 10);
    assert_int_equal(zkpipe_permit_release(&tracked), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_permit_release(&untracked), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_sem_available(s), N + 10);
    free(p);
    zkpipe_sem_destroy(s);
}

static void large_waiter_is_served_before_later_small_ones(void **state)
{
    (void)state;
    zkpipe_sem *s;
    assert_int_equal(zkpipe_sem_create(&s, 10, NULL), ZKPIPE_OK);
    zkpipe_permit a, b, extra;
    assert_int_equal(zkpipe_sem_acquire(s, &a, 6), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_acquire(s, &b, 4), ZKPIPE_OK);
    acquirer large, small;
    start_acquirer(&large, s, 8, 0);
    await_waiters(s, 1);
    start_acquirer(&small, s, 1, 0);
    await_waiters(s, 2);

    /* 4 units free: enough for the small request, but it queued behind the large one. Grants
     * happen inside release, so the state right after it returns is exact. */
    assert_int_equal(zkpipe_permit_release(&b), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 4);
    assert_int_equal(zkpipe_sem_waiters(s), 2);
    assert_int_equal(zkpipe_sem_try_acquire(s, &extra, 1), ZKPIPE_EAGAIN);
    assert_int_equal(zkpipe_sem_acquire_timed(s, &extra, 1, 1000), ZKPIPE_ETIMEDOUT);

    assert_int_equal(zkpipe_permit_release(&a), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_waiters(s), 0);
    assert_int_equal(zkpipe_sem_available(s), 1);
    pthread_join(large.thread, NULL);
    pthread_join(small.thread, NULL);
    assert_int_equal(large.status, ZKPIPE_OK);
    assert_int_equal(small.status, ZKPIPE_OK);
    assert_true(large.permit.ticket < small.permit.ticket);
    assert_int_equal(zkpipe_permit_release(&large.permit), ZKPIPE_OK);
    assert_int_equal(zkpipe_permit_release(&small.permit), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 10);
    zkpipe_sem_destroy(s);
}

/* ---- the looking wait and the split (sync/sem_internal.h) ---- */

typedef struct looker {
    zkpipe_sem *sem;
    uint64_t units, lower_to; /* asked for; what look lowers it to once `lower` is set */
    atomic_int lower, looks;
    zkpipe_permit permit;
    zkpipe_status status;
    pthread_t thread;
} looker;

static uint64_t lower_on_demand(void *ctx, uint64_t *units)
{
    looker *l = ctx;
    atomic_fetch_add(&l->looks, 1);
    if (atomic_load(&l->lower))
        *units = l->lower_to;
    return 1000000; /* 1 ms */
}

static void *looker_main(void *arg)
{
    looker *l = arg;
    l->status = zkpipe__sem_acquire_looking(l->sem, &l->permit, l->units, lower_on_demand, l);
    return NULL;
}

static void start_looker(looker *l, zkpipe_sem *s, uint64_t units, uint64_t lower_to)
{
    memset(l, 0, sizeof *l);
    l->sem = s;
    l->units = units;
    l->lower_to = lower_to;
    l->status = ZKPIPE_EINVAL;
    assert_int_equal(pthread_create(&l->thread, NULL, looker_main, l), 0);
}

/* A waiter whose look lowers its request is served for the lower amount, in its place: the
 * smaller request queued behind it is not served first, and a higher value is ignored. */
static void lowered_request_is_served_in_its_place(void **state)
{
    (void)state;
    zkpipe_sem *s;
    assert_int_equal(zkpipe_sem_create(&s, 10, NULL), ZKPIPE_OK);
    zkpipe_permit held;
    assert_int_equal(zkpipe_sem_acquire(s, &held, 6), ZKPIPE_OK);
    looker l;
    start_looker(&l, s, 8, 3);
    await_waiters(s, 1);
    acquirer small;
    start_acquirer(&small, s, 1, 0);
    await_waiters(s, 2);
    while (atomic_load(&l.looks) < 2) /* looked, and not lowered: still queued */
        nap_ms(1);
    assert_int_equal(zkpipe_sem_waiters(s), 2);
    atomic_store(&l.lower, 1);
    pthread_join(l.thread, NULL);
    assert_int_equal(l.status, ZKPIPE_OK);
    assert_int_equal(l.permit.units, 3);
    pthread_join(small.thread, NULL); /* 1 left after 3: served once the head was */
    assert_int_equal(small.status, ZKPIPE_OK);
    assert_true(l.permit.ticket < small.permit.ticket);
    assert_int_equal(zkpipe_sem_available(s), 0);
    assert_int_equal(zkpipe_permit_release(&l.permit), ZKPIPE_OK);
    assert_int_equal(zkpipe_permit_release(&small.permit), ZKPIPE_OK);
    assert_int_equal(zkpipe_permit_release(&held), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 10);

    /* Raised by look: ignored, the waiter gets what it asked for. */
    assert_int_equal(zkpipe_sem_acquire(s, &held, 7), ZKPIPE_OK);
    start_looker(&l, s, 4, 9);
    atomic_store(&l.lower, 1);
    await_waiters(s, 1);
    while (atomic_load(&l.looks) < 2)
        nap_ms(1);
    assert_int_equal(zkpipe_sem_waiters(s), 1);
    assert_int_equal(zkpipe_permit_release(&held), ZKPIPE_OK);
    pthread_join(l.thread, NULL);
    assert_int_equal(l.status, ZKPIPE_OK);
    assert_int_equal(l.permit.units, 4);
    assert_int_equal(zkpipe_permit_release(&l.permit), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 10);
    assert_int_equal(zkpipe__sem_acquire_looking(s, &held, 1, NULL, NULL), ZKPIPE_EINVAL);
    zkpipe_sem_destroy(s);
}

/* Lowered to nothing: the waiter leaves with an empty permit, and the one behind it, which
 * fits, is served. */
static void request_lowered_to_zero_leaves_the_queue(void **state)
{
    (void)state;
    zkpipe_sem *s;
    assert_int_equal(zkpipe_sem_create(&s, 10, NULL), ZKPIPE_OK);
    zkpipe_permit held;
    assert_int_equal(zkpipe_sem_acquire(s, &held, 8), ZKPIPE_OK);
    looker l;
    start_looker(&l, s, 5, 0);
    await_waiters(s, 1);
    acquirer small;
    start_acquirer(&small, s, 2, 0);
    await_waiters(s, 2);
    atomic_store(&l.lower, 1);
    pthread_join(l.thread, NULL);
    pthread_join(small.thread, NULL);
    assert_int_equal(l.status, ZKPIPE_OK);
    assert_false(zkpipe_permit_is_held(&l.permit));
    assert_int_equal(zkpipe_permit_release(&l.permit), ZKPIPE_OK); /* empty: nothing to do */
    assert_int_equal(small.status, ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 0);
    assert_int_equal(zkpipe_sem_waiters(s), 0);
    assert_int_equal(zkpipe_permit_release(&small.permit), ZKPIPE_OK);
    assert_int_equal(zkpipe_permit_release(&held), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 10);
    zkpipe_sem_destroy(s);
}

/* A split moves units between holders without freeing them: no waiter is served between, each
 * part is given back on its own, and the original's stale copy is refused. */
static void split_moves_units_without_freeing_them(void **state)
{
    (void)state;
    zkpipe_sem *s;
    assert_int_equal(zkpipe_sem_create(&s, 10, NULL), ZKPIPE_OK);
    zkpipe_permit whole, part, stale, none;
    memset(&none, 0, sizeof none);
    assert_int_equal(zkpipe_sem_acquire(s, &whole, 9), ZKPIPE_OK);
    stale = whole;
    acquirer waiter;
    start_acquirer(&waiter, s, 2, 0);
    await_waiters(s, 1);
    assert_int_equal(zkpipe__permit_split(&whole, &part, 0), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe__permit_split(&whole, &part, 9), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe__permit_split(&none, &part, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe__permit_split(&whole, &part, 6), ZKPIPE_OK);
    assert_int_equal(whole.units, 3);
    assert_int_equal(part.units, 6);
    assert_int_equal(zkpipe_sem_available(s), 1);
    assert_int_equal(zkpipe_sem_waiters(s), 1);
    assert_int_equal(zkpipe_permit_release(&stale), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_permit_release(&whole), ZKPIPE_OK);
    pthread_join(waiter.thread, NULL);
    assert_int_equal(waiter.status, ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 2);
    assert_int_equal(zkpipe__permit_split(&whole, &stale, 1), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_permit_release(&part), ZKPIPE_OK);
    assert_int_equal(zkpipe_permit_release(&waiter.permit), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 10);
    zkpipe_sem_destroy(s);
}

/* ---- growth and the overdraft (sync/sem_internal.h) ---- */

/* A member thread: admitted (or growing its `permit`) in the background. */
typedef struct member {
    zkpipe_sem *sem;
    uint64_t units;
    int grow, late; /* grow `permit` by `units` (late phase or early); else admit `units` */
    zkpipe_permit permit;
    zkpipe_status status;
    pthread_t thread;
} member;

static void *member_main(void *arg)
{
    member *m = arg;
    m->status = m->grow ? zkpipe__sem_grow(m->sem, &m->permit, m->units, m->late, NULL, NULL)
                        : zkpipe__sem_admit(m->sem, &m->permit, m->units, NULL, NULL);
    return NULL;
}

static void start_member(member *m, zkpipe_sem *s, zkpipe_permit held, uint64_t units, int grow,
                         int late)
{
    m->sem = s;
    m->permit = held;
    m->units = units;
    m->grow = grow;
    m->late = late;
    m->status = ZKPIPE_EINVAL;
    assert_int_equal(pthread_create(&m->thread, NULL, member_main, m), 0);
}

static zkpipe_permit admitted(zkpipe_sem *s, uint64_t units)
{
    zkpipe_permit p;
    zkpipe__sem_join(s);
    assert_int_equal(zkpipe__sem_admit(s, &p, units, NULL, NULL), ZKPIPE_OK);
    return p;
}

static zkpipe__sem_waits waits_of(zkpipe_sem *s)
{
    zkpipe__sem_waits w;
    zkpipe__sem_waits_get(s, &w);
    return w;
}

/* Growth is served ahead of a waiting admission; when every member waits (the admission, and
 * the grower itself) the grower overdraws; units coming back pay the debt before the admission
 * is served. */
static void growth_goes_ahead_and_overdraws_when_all_wait(void **state)
{
    (void)state;
    zkpipe_sem *s;
    assert_int_equal(zkpipe_sem_create(&s, 10, NULL), ZKPIPE_OK);
    zkpipe_permit a = admitted(s, 6);
    zkpipe__sem_join(s);
    member b;
    start_member(&b, s, (zkpipe_permit){0}, 8, 0, 0);
    await_waiters(s, 1);
    assert_int_equal(zkpipe__sem_grow(s, &a, 3, 0, NULL, NULL), ZKPIPE_OK); /* ahead of b */
    assert_int_equal(a.units, 9);
    assert_int_equal(zkpipe__sem_grow(s, &a, 2, 0, NULL, NULL), ZKPIPE_OK); /* 1 free: over */
    assert_int_equal(a.units, 11);
    zkpipe__sem_waits w = waits_of(s);
    assert_int_equal(w.debt, 1);
    assert_int_equal(w.overdrafts, 1);
    assert_int_equal(w.debt_peak, 1);
    assert_int_equal(zkpipe_sem_available(s), 0);

    assert_int_equal(zkpipe_permit_release_units(&a, 1), ZKPIPE_OK); /* pays the debt */
    assert_int_equal(waits_of(s).debt, 0);
    assert_int_equal(zkpipe_permit_release_units(&a, 4), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_waiters(s), 1); /* 4 free, b needs 8 */
    assert_int_equal(zkpipe_permit_release(&a), ZKPIPE_OK);
    zkpipe__sem_leave(s);
    pthread_join(b.thread, NULL);
    assert_int_equal(b.status, ZKPIPE_OK);
    assert_int_equal(b.permit.units, 8);
    assert_int_equal(zkpipe_permit_release(&b.permit), ZKPIPE_OK);
    zkpipe__sem_leave(s);
    assert_int_equal(zkpipe_sem_available(s), 10);
    assert_int_equal(waits_of(s).admissions, 1);
    zkpipe_sem_destroy(s);
}

/* An early grower waits while another member can move; a late one overdraws at once when the
 * overdraft is free, and a second late one waits for that debt to be paid, as does an admission
 * even of nothing. The growers are served first once units come back, and a member leaving
 * wakes an early grower that may now overdraw although no unit it could use came back. */
static void early_growth_waits_while_a_member_can_move(void **state)
{
    (void)state;
    zkpipe_sem *s;
    assert_int_equal(zkpipe_sem_create(&s, 10, NULL), ZKPIPE_OK);
    zkpipe_permit a = admitted(s, 4), c = admitted(s, 4), d = admitted(s, 2);
    member ga;
    start_member(&ga, s, a, 3, 1, 0);
    await_waiters(s, 1);
    assert_int_equal(zkpipe__sem_grow(s, &c, 5, 1, NULL, NULL), ZKPIPE_OK); /* late: over */
    assert_int_equal(c.units, 9);
    assert_int_equal(waits_of(s).debt, 5);
    zkpipe__sem_join(s);
    member z;
    start_member(&z, s, (zkpipe_permit){0}, 0, 0, 0); /* nothing, but after the debt */
    await_waiters(s, 2);
    member gd;
    start_member(&gd, s, d, 1, 1, 1); /* late, but the overdraft is taken */
    await_waiters(s, 3);
    assert_int_equal(zkpipe_permit_release(&c), ZKPIPE_OK); /* pays 5, 4 free: a's 3, d's 1 */
    zkpipe__sem_leave(s);
    pthread_join(z.thread, NULL);
    assert_int_equal(z.status, ZKPIPE_OK);
    assert_false(zkpipe_permit_is_held(&z.permit));
    zkpipe__sem_leave(s);
    pthread_join(ga.thread, NULL);
    assert_int_equal(ga.status, ZKPIPE_OK);
    assert_int_equal(ga.permit.units, 7);
    pthread_join(gd.thread, NULL);
    assert_int_equal(gd.status, ZKPIPE_OK);
    assert_int_equal(gd.permit.units, 3);
    assert_int_equal(zkpipe_sem_available(s), 0);

    /* a grows early by 5 while d can move: it waits; d's 3 units coming back are not enough,
     * and once d leaves, a is the only member and waiting: it overdraws by 2. */
    member gb;
    start_member(&gb, s, ga.permit, 5, 1, 0);
    await_waiters(s, 1);
    assert_int_equal(zkpipe_permit_release(&gd.permit), ZKPIPE_OK); /* 3 free: not 5 */
    assert_int_equal(zkpipe_sem_waiters(s), 1);
    zkpipe__sem_leave(s); /* d gone: a alone, waiting: it overdraws by 2 */
    pthread_join(gb.thread, NULL);
    assert_int_equal(gb.status, ZKPIPE_OK);
    assert_int_equal(gb.permit.units, 12);
    zkpipe__sem_waits w = waits_of(s);
    assert_int_equal(w.debt, 2);
    assert_int_equal(w.overdrafts, 2);
    assert_int_equal(w.debt_peak, 5);
    assert_int_equal(w.growths, 3);
    assert_int_equal(w.admissions, 1);
    assert_int_equal(zkpipe_permit_release(&gb.permit), ZKPIPE_OK);
    zkpipe__sem_leave(s);
    assert_int_equal(waits_of(s).debt, 0);
    assert_int_equal(zkpipe_sem_available(s), 10);
    /* Misuse: another semaphore's permit; closed. */
    zkpipe_sem *t;
    assert_int_equal(zkpipe_sem_create(&t, 4, NULL), ZKPIPE_OK);
    zkpipe_permit other;
    assert_int_equal(zkpipe_sem_acquire(t, &other, 1), ZKPIPE_OK);
    assert_int_equal(zkpipe__sem_grow(s, &other, 1, 1, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe__sem_grow(NULL, &other, 1, 1, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_permit_release(&other), ZKPIPE_OK);
    zkpipe_sem_close(t);
    assert_int_equal(zkpipe__sem_grow(t, &other, 1, 1, NULL, NULL), ZKPIPE_ECLOSED);
    zkpipe_sem_destroy(t);
    zkpipe_sem_destroy(s);
}

/* A permit given back a part at a time: waiters are served in FIFO order as the parts come
 * back, the rest stays held, and the last part ends the permit. */
static void partial_release_serves_waiters_in_order(void **state)
{
    (void)state;
    zkpipe_sem *s;
    assert_int_equal(zkpipe_sem_create(&s, 10, NULL), ZKPIPE_OK);
    zkpipe_permit p;
    assert_int_equal(zkpipe_sem_acquire(s, &p, 10), ZKPIPE_OK);
    acquirer large, small;
    start_acquirer(&large, s, 5, 0);
    await_waiters(s, 1);
    start_acquirer(&small, s, 1, 0);
    await_waiters(s, 2);

    /* 3 units back: the head needs 5, and the small request stays behind it. */
    assert_int_equal(zkpipe_permit_release_units(&p, 3), ZKPIPE_OK);
    assert_int_equal(p.units, 7);
    assert_true(zkpipe_permit_is_held(&p));
    assert_int_equal(zkpipe_sem_available(s), 3);
    assert_int_equal(zkpipe_sem_waiters(s), 2);
    /* 3 more: the head gets its 5, then the small one its 1 (grants happen inside). */
    assert_int_equal(zkpipe_permit_release_units(&p, 3), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_waiters(s), 0);
    assert_int_equal(zkpipe_sem_available(s), 0);
    pthread_join(large.thread, NULL);
    pthread_join(small.thread, NULL);
    assert_int_equal(large.status, ZKPIPE_OK);
    assert_int_equal(small.status, ZKPIPE_OK);
    assert_true(large.permit.ticket < small.permit.ticket);

    /* The last part ends the permit. */
    assert_int_equal(p.units, 4);
    assert_int_equal(zkpipe_permit_release_units(&p, 4), ZKPIPE_OK);
    assert_false(zkpipe_permit_is_held(&p));
    assert_int_equal(zkpipe_permit_release(&p), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_permit_release_units(&p, 1), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_permit_release(&large.permit), ZKPIPE_OK);
    assert_int_equal(zkpipe_permit_release(&small.permit), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 10);
    zkpipe_sem_destroy(s);
}

/* A limit below the capacity: acquires beyond it wait (FIFO), lowering it below what is held
 * revokes nothing, raising it serves the waiters at once. */
static void limit_holds_back_and_raising_it_serves_waiters(void **state)
{
    (void)state;
    zkpipe_sem *s;
    assert_int_equal(zkpipe_sem_create(&s, 4, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_limit(s), 4);
    assert_int_equal(zkpipe_sem_set_limit(NULL, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_sem_set_limit(s, 0), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_sem_set_limit(s, 5), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_sem_limit(NULL), 0);
    assert_int_equal(zkpipe_sem_limit(s), 4);

    zkpipe_permit p[4];
    assert_int_equal(zkpipe_sem_acquire(s, &p[0], 1), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_acquire(s, &p[1], 1), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_acquire(s, &p[2], 1), ZKPIPE_OK);
    /* Three held; a limit of 1 revokes none of them and lends nothing more. */
    assert_int_equal(zkpipe_sem_set_limit(s, 1), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_limit(s), 1);
    assert_int_equal(zkpipe_sem_available(s), 0);
    assert_int_equal(zkpipe_sem_try_acquire(s, &p[3], 1), ZKPIPE_EAGAIN);
    assert_int_equal(zkpipe_permit_release(&p[0]), ZKPIPE_OK);
    assert_int_equal(zkpipe_permit_release(&p[1]), ZKPIPE_OK);
    /* One held, the limit reached: still nothing to lend, though 3 units are free. */
    assert_int_equal(zkpipe_sem_available(s), 0);
    acquirer a, b;
    start_acquirer(&a, s, 1, 0);
    await_waiters(s, 1);
    start_acquirer(&b, s, 1, 0);
    await_waiters(s, 2);
    /* Raised to 2: the head is served at once, the next stays queued. */
    assert_int_equal(zkpipe_sem_set_limit(s, 2), ZKPIPE_OK);
    pthread_join(a.thread, NULL);
    assert_int_equal(a.status, ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_waiters(s), 1);
    /* A release within the limit serves the next. */
    assert_int_equal(zkpipe_permit_release(&p[2]), ZKPIPE_OK);
    pthread_join(b.thread, NULL);
    assert_int_equal(b.status, ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 0);
    /* Back to the capacity: everything not held is lendable. */
    assert_int_equal(zkpipe_sem_set_limit(s, 4), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 2);
    /* A request above the limit waits for the limit, not only for free units. */
    assert_int_equal(zkpipe_permit_release(&a.permit), ZKPIPE_OK);
    assert_int_equal(zkpipe_permit_release(&b.permit), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_set_limit(s, 2), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_try_acquire(s, &p[3], 3), ZKPIPE_EAGAIN);
    acquirer big;
    start_acquirer(&big, s, 3, 0);
    await_waiters(s, 1);
    assert_int_equal(zkpipe_sem_set_limit(s, 3), ZKPIPE_OK);
    pthread_join(big.thread, NULL);
    assert_int_equal(big.status, ZKPIPE_OK);
    assert_int_equal(zkpipe_permit_release(&big.permit), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 3);
    zkpipe_sem_destroy(s);
}

/* Too many units, an empty permit, a stale copy from before a partial release: refused with
 * nothing changed. */
static void partial_release_refuses_what_is_not_held(void **state)
{
    (void)state;
    zkpipe_sem *s;
    assert_int_equal(zkpipe_sem_create(&s, 10, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_permit_release_units(NULL, 1), ZKPIPE_EINVAL);
    zkpipe_permit empty;
    memset(&empty, 0, sizeof empty);
    assert_int_equal(zkpipe_permit_release_units(&empty, 0), ZKPIPE_OK);
    assert_int_equal(zkpipe_permit_release_units(&empty, 1), ZKPIPE_EINVAL);
    zkpipe_permit p;
    assert_int_equal(zkpipe_sem_acquire(s, &p, 6), ZKPIPE_OK);
    assert_int_equal(zkpipe_permit_release_units(&p, 7), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_permit_release_units(&p, 0), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 4);
    zkpipe_permit stale = p;
    assert_int_equal(zkpipe_permit_release_units(&p, 2), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 6);
    /* The copy still says 6 units: the semaphore knows this acquisition holds 4. */
    assert_int_equal(zkpipe_permit_release(&stale), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_permit_release_units(&stale, 1), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_sem_available(s), 6);
    assert_int_equal(zkpipe_permit_release(&p), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 10);

    /* Past the tracked permits, partial releases are counted: a capacity of 1000 tracks 256
     * single-unit permits, then one untracked permit of 500 gives its units back in parts. */
    zkpipe_sem *big;
    assert_int_equal(zkpipe_sem_create(&big, 1000, NULL), ZKPIPE_OK);
    static zkpipe_permit ones[ZKPIPE_SEM_TRACKED_PERMITS];
    for (size_t i = 0; i < ZKPIPE_SEM_TRACKED_PERMITS; i++)
        assert_int_equal(zkpipe_sem_acquire(big, &ones[i], 1), ZKPIPE_OK);
    zkpipe_permit u;
    assert_int_equal(zkpipe_sem_acquire(big, &u, 500), ZKPIPE_OK);
    assert_int_equal(u.slot, 0);
    assert_int_equal(zkpipe_permit_release_units(&u, 200), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(big), 1000 - 256 - 300);
    zkpipe_permit ustale = u;
    ustale.units = 500;
    assert_int_equal(zkpipe_permit_release(&ustale), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_permit_release(&u), ZKPIPE_OK);
    for (size_t i = 0; i < ZKPIPE_SEM_TRACKED_PERMITS; i++)
        assert_int_equal(zkpipe_permit_release(&ones[i]), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(big), 1000);
    zkpipe_sem_destroy(big);
    zkpipe_sem_destroy(s);
}

static void timed_out_head_lets_the_queue_move(void **state)
{
    (void)state;
    zkpipe_sem *s;
    assert_int_equal(zkpipe_sem_create(&s, 4, NULL), ZKPIPE_OK);
    zkpipe_permit held;
    assert_int_equal(zkpipe_sem_acquire(s, &held, 3), ZKPIPE_OK);
    acquirer large, small;
    start_acquirer(&large, s, 4, 20 * 1000 * 1000);
    await_waiters(s, 1);
    start_acquirer(&small, s, 1, 0);
    /* The small request (1 unit fits) can only be served once the large one gives up. */
    pthread_join(large.thread, NULL);
    pthread_join(small.thread, NULL);
    assert_int_equal(large.status, ZKPIPE_ETIMEDOUT);
    assert_int_equal(small.status, ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 0);
    assert_int_equal(zkpipe_permit_release(&small.permit), ZKPIPE_OK);
    assert_int_equal(zkpipe_permit_release(&held), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 4);
    zkpipe_sem_destroy(s);
}

static void close_wakes_waiters_and_keeps_releases_working(void **state)
{
    (void)state;
    zkpipe_sem *s;
    assert_int_equal(zkpipe_sem_create(&s, 2, NULL), ZKPIPE_OK);
    zkpipe_permit held, p;
    assert_int_equal(zkpipe_sem_acquire(s, &held, 2), ZKPIPE_OK);
    acquirer w[3];
    for (int i = 0; i < 3; i++) {
        start_acquirer(&w[i], s, 1, i == 2 ? UINT64_MAX : 0);
        await_waiters(s, (uint64_t)i + 1);
    }
    zkpipe_sem_close(s);
    for (int i = 0; i < 3; i++) {
        pthread_join(w[i].thread, NULL);
        assert_int_equal(w[i].status, ZKPIPE_ECLOSED);
    }
    assert_int_equal(zkpipe_sem_waiters(s), 0);
    assert_int_equal(zkpipe_sem_acquire(s, &p, 1), ZKPIPE_ECLOSED);
    assert_int_equal(zkpipe_sem_try_acquire(s, &p, 1), ZKPIPE_ECLOSED);
    assert_int_equal(zkpipe_sem_acquire_timed(s, &p, 1, 1), ZKPIPE_ECLOSED);
    assert_int_equal(zkpipe_permit_release(&held), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(s), 2);
    zkpipe_sem_close(s);
    assert_int_equal(zkpipe_sem_acquire(s, &p, 1), ZKPIPE_ECLOSED);
    zkpipe_sem_destroy(s);
}

#define CONTENTION_ROUNDS (ZKPIPE_TEST_SANITIZED ? 2000 : 20000)

typedef struct contender {
    zkpipe_sem *sem;
    _Atomic uint64_t *in_use;
    unsigned seed;
    int failures;
    pthread_t thread;
} contender;

static void *contender_main(void *arg)
{
    contender *c = arg;
    for (int i = 0; i < CONTENTION_ROUNDS; i++) {
        c->seed = c->seed * 1103515245u + 12345u;
        uint64_t units = 1 + (c->seed >> 16) % 16;
        zkpipe_permit p;
        zkpipe_status st = (i % 3 == 0) ? zkpipe_sem_acquire_timed(c->sem, &p, units, 1000)
                                        : zkpipe_sem_acquire(c->sem, &p, units);
        if (st == ZKPIPE_ETIMEDOUT)
            continue;
        if (st != ZKPIPE_OK) {
            c->failures++;
            continue;
        }
        uint64_t now = atomic_fetch_add(c->in_use, units) + units;
        if (now > zkpipe_sem_capacity(c->sem))
            c->failures++;
        /* Every other round gives part of the permit back first. */
        uint64_t part = i % 2 == 0 ? units / 2 : 0;
        atomic_fetch_sub(c->in_use, part);
        if (zkpipe_permit_release_units(&p, part) != ZKPIPE_OK || p.units != units - part)
            c->failures++;
        atomic_fetch_sub(c->in_use, units - part);
        if (zkpipe_permit_release(&p) != ZKPIPE_OK)
            c->failures++;
    }
    return NULL;
}

static void contention_never_exceeds_capacity(void **state)
{
    (void)state;
    zkpipe_sem *s;
    assert_int_equal(zkpipe_sem_create(&s, 24, NULL), ZKPIPE_OK);
    _Atomic uint64_t in_use = 0;
    contender c[4];
    for (int i = 0; i < 4; i++) {
        c[i] = (contender){.sem = s, .in_use = &in_use, .seed = (unsigned)i + 1};
        assert_int_equal(pthread_create(&c[i].thread, NULL, contender_main, &c[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(c[i].thread, NULL);
        assert_int_equal(c[i].failures, 0);
    }
    assert_int_equal(zkpipe_sem_available(s), 24);
    assert_int_equal(zkpipe_sem_waiters(s), 0);
    zkpipe_sem_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_rejects_bad_arguments),
        cmocka_unit_test(create_survives_every_allocation_failure),
        cmocka_unit_test(create_survives_every_pthread_failure),
        cmocka_unit_test(a_wait_that_cannot_start_changes_nothing),
        cmocka_unit_test(acquire_and_release_count_units),
        cmocka_unit_test(acquire_rejects_bad_requests),
        cmocka_unit_test(zero_units_give_an_empty_permit),
        cmocka_unit_test(double_release_is_refused_and_count_intact),
        cmocka_unit_test(stale_copy_is_refused_while_a_twin_is_outstanding),
        cmocka_unit_test(permits_past_the_tracked_ones_are_counted),
        cmocka_unit_test(large_waiter_is_served_before_later_small_ones),
        cmocka_unit_test(lowered_request_is_served_in_its_place),
        cmocka_unit_test(request_lowered_to_zero_leaves_the_queue),
        cmocka_unit_test(split_moves_units_without_freeing_them),
        cmocka_unit_test(growth_goes_ahead_and_overdraws_when_all_wait),
        cmocka_unit_test(early_growth_waits_while_a_member_can_move),
        cmocka_unit_test(partial_release_serves_waiters_in_order),
        cmocka_unit_test(partial_release_refuses_what_is_not_held),
        cmocka_unit_test(limit_holds_back_and_raising_it_serves_waiters),
        cmocka_unit_test(timed_out_head_lets_the_queue_move),
        cmocka_unit_test(close_wakes_waiters_and_keeps_releases_working),
        cmocka_unit_test(contention_never_exceeds_capacity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
