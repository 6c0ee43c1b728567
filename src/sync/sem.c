/* FIFO counting semaphore with direct hand-off: a release grants units to the waiters at the
 * head of the queue itself, so a thread arriving later cannot barge past them.
 *
 * Permits are checked on release against a table of outstanding acquisitions: slot i holds the
 * ticket of the permit that owns it, and tickets are never reused, so only that acquisition can
 * give its units back; a second release or a stale copy finds another ticket or none. Past
 * ZKPIPE_SEM_TRACKED_PERMITS outstanding permits, further ones are only counted, and a stale
 * copy of one is refused whenever the untracked count cannot cover it. */
#include "zkpipe/sem.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "core/clock_internal.h"
#include "sync/sem_internal.h"
#include "sync/wait_internal.h"

/* What a waiter asks for. Growers (sem_internal.h) queue ahead of every other waiter. */
typedef enum waiter_kind {
    W_PLAIN,      /* an acquire */
    W_MEMBER,     /* a member's admission (zkpipe__sem_admit) */
    W_GROW_EARLY, /* a member's growth, in its early phase */
    W_GROW_LATE,  /* ... in its late phase */
} waiter_kind;

/* One blocked acquire; lives on the waiting thread's stack. */
typedef struct waiter {
    struct waiter *prev, *next;
    pthread_cond_t cond;
    uint64_t units;
    uint64_t ticket; /* set by the granting thread, with slot (not for growers) */
    uint32_t slot;
    waiter_kind kind;
    bool done;   /* granted or closed; `status` says which */
    bool poked;  /* a grower: what may_overdraw reads has changed */
    uint64_t t0; /* when it started waiting */
    zkpipe_status status;
} waiter;

struct zkpipe_sem {
    zkpipe_allocator allocator;
    pthread_mutex_t lock;
    waiter *head, *tail;
    uint64_t capacity;
    uint64_t available; /* capacity minus the units held */
    uint64_t withheld;  /* capacity minus the limit (zkpipe_sem_set_limit) */
    uint64_t last_ticket;
    uint64_t untracked_units;   /* held by permits that found no free slot */
    uint64_t untracked_permits; /* how many such permits are outstanding */
    uint32_t nslots;
    uint32_t free_count;  /* free_slots[0 .. free_count) are free */
    uint64_t *slot_units; /* units each slot's permit holds now; in the block, after slot_ticket */
    uint32_t *free_slots; /* in the same block, after slot_units */
    bool closed;
    /* Growth (sem_internal.h): the one overdraft, and what decides who may take it. */
    uint64_t debt;           /* units held beyond the capacity */
    uint64_t debtor;         /* the ticket of the permit that holds them; 0 without debt */
    uint64_t members;        /* joined and not left */
    uint64_t queued_members; /* of them, waiting for admission in the queue */
    uint64_t early_growers;  /* of them, waiting for growth in their early phase */
    zkpipe__sem_waits waits; /* the figures zkpipe__sem_waits copies */
    /* Mirrors of lendable(), the limit and the queue length for the lock-free queries. */
    _Atomic uint64_t available_view;
    _Atomic uint64_t limit_view;
    _Atomic uint64_t waiters_view;
    uint64_t slot_ticket[]; /* ticket of the permit owning each slot; 0 when free */
};

zkpipe_status zkpipe_sem_create(zkpipe_sem **out, uint64_t capacity,
                                const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out == NULL || capacity == 0 || a == NULL)
        return ZKPIPE_EINVAL;
    uint32_t nslots =
        capacity < ZKPIPE_SEM_TRACKED_PERMITS ? (uint32_t)capacity : ZKPIPE_SEM_TRACKED_PERMITS;
    size_t size = sizeof(zkpipe_sem) + nslots * (2 * sizeof(uint64_t) + sizeof(uint32_t));
    zkpipe_sem *s = zkpipe__calloc(a, 1, size, _Alignof(zkpipe_sem));
    if (s == NULL)
        return ZKPIPE_ENOMEM;
    s->allocator = *a;
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        zkpipe__free(a, s);
        return ZKPIPE_ENOMEM;
    }
    s->nslots = nslots;
    s->slot_units = s->slot_ticket + nslots;
    s->free_slots = (uint32_t *)(s->slot_units + nslots);
    /* Handed out from the top of the stack: slot 0 first. */
    for (uint32_t i = 0; i < nslots; i++)
        s->free_slots[i] = nslots - 1 - i;
    s->free_count = nslots;
    s->capacity = capacity;
    s->available = capacity;
    atomic_init(&s->available_view, capacity);
    atomic_init(&s->limit_view, capacity);
    atomic_init(&s->waiters_view, 0);
    *out = s;
    return ZKPIPE_OK;
}

void zkpipe_sem_destroy(zkpipe_sem *sem)
{
    if (sem == NULL)
        return;
    pthread_mutex_destroy(&sem->lock);
    zkpipe_allocator a = sem->allocator;
    zkpipe__free(&a, sem);
}

static uint64_t now_ns(void)
{
    struct timespec t = zkpipe__clock_now();
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static bool is_grower(const waiter *w)
{
    return w->kind == W_GROW_EARLY || w->kind == W_GROW_LATE;
}

/* Growers whose answer to may_overdraw may have changed look again. */
static void poke(zkpipe_sem *s)
{
    for (waiter *w = s->head; w != NULL && is_grower(w); w = w->next) {
        w->poked = true;
        pthread_cond_signal(&w->cond);
    }
}

/* Counts `w` in or out of the figures may_overdraw reads (+1 or -1). */
static void count_waiter(zkpipe_sem *s, const waiter *w, int sign)
{
    uint64_t *n = w->kind == W_MEMBER       ? &s->queued_members
                  : w->kind == W_GROW_EARLY ? &s->early_growers
                                            : NULL;
    if (n != NULL)
        *n += (uint64_t)(int64_t)sign;
}

static void unlink_waiter(zkpipe_sem *s, waiter *w)
{
    count_waiter(s, w, -1);
    if (w->prev != NULL)
        w->prev->next = w->next;
    else
        s->head = w->next;
    if (w->next != NULL)
        w->next->prev = w->prev;
    else
        s->tail = w->prev;
    w->prev = w->next = NULL;
    atomic_fetch_sub_explicit(&s->waiters_view, 1, memory_order_relaxed);
}

/* What an acquire may take now: the units not held, less those the limit withholds (a limit
 * lowered below what is held withholds nothing more until enough comes back). */
static uint64_t lendable(const zkpipe_sem *s)
{
    return s->available > s->withheld ? s->available - s->withheld : 0;
}

/* A fresh ticket and, while one is free, a slot (1-based; 0: untracked) for a new permit of
 * `units` units already counted as held. The caller holds the lock. */
static uint64_t track(zkpipe_sem *s, uint64_t units, uint32_t *slot)
{
    uint64_t ticket = ++s->last_ticket;
    if (s->free_count > 0) {
        uint32_t i = s->free_slots[--s->free_count];
        s->slot_ticket[i] = ticket;
        s->slot_units[i] = units;
        *slot = i + 1;
    } else {
        s->untracked_units += units;
        s->untracked_permits++;
        *slot = 0;
    }
    return ticket;
}

/* Takes `units` for a new permit (see track). The caller holds the lock and has checked the
 * units fit. */
static uint64_t take(zkpipe_sem *s, uint64_t units, uint32_t *slot)
{
    s->available -= units;
    atomic_store_explicit(&s->available_view, lendable(s), memory_order_relaxed);
    return track(s, units, slot);
}

/* True when `p` is an outstanding acquisition of `s` holding what it says it holds (a stale
 * copy from before a partial release says more). The caller holds the lock. */
static bool outstanding(const zkpipe_sem *s, const zkpipe_permit *p)
{
    if (p->units > s->capacity - s->available + s->debt)
        return false;
    if (p->slot != 0)
        return p->slot <= s->nslots && s->slot_ticket[p->slot - 1] == p->ticket &&
               s->slot_units[p->slot - 1] == p->units;
    return s->untracked_permits > 0 && p->units <= s->untracked_units;
}

/* Gives `units` of `p`'s units back (all of them: the permit ends) if it is outstanding;
 * false (and nothing changed) otherwise. The caller holds the lock. */
static bool give_back(zkpipe_sem *s, const zkpipe_permit *p, uint64_t units)
{
    if (!outstanding(s, p))
        return false;
    bool all = units == p->units;
    if (p->slot != 0) {
        s->slot_units[p->slot - 1] -= units;
        if (all) {
            s->slot_ticket[p->slot - 1] = 0;
            s->free_slots[s->free_count++] = p->slot - 1;
        }
    } else {
        s->untracked_units -= units;
        if (all)
            s->untracked_permits--;
    }
    s->available += units;
    if (s->debt > 0) {
        /* Units coming back pay the overdraft first: no one is served before it is paid. */
        uint64_t paid = s->debt < s->available ? s->debt : s->available;
        s->debt -= paid;
        s->available -= paid;
        if (s->debt == 0) {
            s->debtor = 0;
            poke(s);
        }
    }
    atomic_store_explicit(&s->available_view, lendable(s), memory_order_relaxed);
    return true;
}

/* Serves waiters from the head while they fit; stops at the first that does not. */
static void grant_head(zkpipe_sem *s)
{
    /* While a debt is being paid, only growers are served (they need units, and none are
     * free): an admission even of nothing would let a member move past the debtor. */
    while (s->head != NULL && (s->debt == 0 || is_grower(s->head)) &&
           s->head->units <= lendable(s)) {
        waiter *w = s->head;
        unlink_waiter(s, w);
        if (is_grower(w)) {
            /* The grower adds them to its own permit (extend). */
            s->available -= w->units;
            atomic_store_explicit(&s->available_view, lendable(s), memory_order_relaxed);
        } else if (w->units > 0) {
            w->ticket = take(s, w->units, &w->slot);
        }
        w->status = ZKPIPE_OK;
        w->done = true;
        pthread_cond_signal(&w->cond);
    }
}

/* Blocks until `w` is granted or closed, or the deadline passes. Called with the lock held
 * and `w` queued; returns with the lock held and `w` unlinked. */
static zkpipe_status wait_turn(zkpipe_sem *s, waiter *w, const struct timespec *deadline)
{
    while (!w->done) {
        int rc = deadline != NULL ? pthread_cond_timedwait(&w->cond, &s->lock, deadline)
                                  : pthread_cond_wait(&w->cond, &s->lock);
        if (rc == ETIMEDOUT && !w->done) {
            unlink_waiter(s, w);
            /* We may have been the head that blocked smaller requests behind us. */
            grant_head(s);
            return ZKPIPE_ETIMEDOUT;
        }
    }
    return w->status;
}

/* Blocks until `w` is granted or closed, calling `look` (unlocked, `w` still queued) first and
 * then each time the wait it asked for has passed. Called and returns as wait_turn. */
static zkpipe_status wait_looking(zkpipe_sem *s, waiter *w, zkpipe__sem_look_fn look, void *ctx)
{
    while (!w->done) {
        uint64_t units = w->units;
        pthread_mutex_unlock(&s->lock);
        uint64_t next = look(ctx, &units);
        pthread_mutex_lock(&s->lock);
        if (!w->done && units < w->units) {
            /* A smaller request in the same place: it may fit now. None at all: the waiter
             * leaves with an empty permit, and those behind it may be served; a member keeps
             * its turn even then (grant_head: not past a debt). */
            w->units = units;
            if (units == 0 && w->kind != W_MEMBER) {
                unlink_waiter(s, w);
                w->status = ZKPIPE_OK;
                w->done = true;
            }
            grant_head(s);
        }
        if (w->done || next == 0)
            continue;
        struct timespec deadline = zkpipe__deadline_after(next);
        while (!w->done && pthread_cond_timedwait(&w->cond, &s->lock, &deadline) != ETIMEDOUT)
            ;
    }
    return w->status;
}

/* Queues `w` (its kind and units set): growers after the growers already queued, ahead of
 * every other waiter; the rest at the tail. The caller holds the lock. */
static zkpipe_status enqueue(zkpipe_sem *s, waiter *w)
{
    zkpipe_status st = zkpipe__cond_init_monotonic(&w->cond);
    if (st != ZKPIPE_OK)
        return st;
    waiter *after = s->tail;
    if (is_grower(w)) {
        after = NULL;
        for (waiter *q = s->head; q != NULL && is_grower(q); q = q->next)
            after = q;
    }
    w->prev = after;
    w->next = after != NULL ? after->next : s->head;
    if (w->next != NULL)
        w->next->prev = w;
    else
        s->tail = w;
    if (after != NULL)
        after->next = w;
    else
        s->head = w;
    atomic_fetch_add_explicit(&s->waiters_view, 1, memory_order_relaxed);
    w->t0 = now_ns();
    count_waiter(s, w, +1);
    if (w->kind == W_MEMBER || w->kind == W_GROW_EARLY)
        poke(s); /* one more member waiting: an early grower may overdraw now */
    return ZKPIPE_OK;
}

/* The common acquire; `timeout_ns` counts for ZKPIPE__WAIT_TIMED only, `look` for
 * ZKPIPE__WAIT_LOOKING only (NULL: none), `kind` is W_PLAIN or W_MEMBER. */
static zkpipe_status acquire_as(zkpipe_sem *s, zkpipe_permit *permit, uint64_t units,
                                zkpipe__wait_mode mode, uint64_t timeout_ns,
                                zkpipe__sem_look_fn look, void *ctx, waiter_kind kind)
{
    if (s == NULL || permit == NULL)
        return ZKPIPE_EINVAL;
    if (units > s->capacity)
        return ZKPIPE_ETOOBIG;
    struct timespec deadline = {0, 0};
    if (mode == ZKPIPE__WAIT_TIMED)
        deadline = zkpipe__deadline_after(timeout_ns);

    pthread_mutex_lock(&s->lock);
    zkpipe_status st = ZKPIPE_OK;
    uint64_t ticket = 0;
    uint32_t slot = 0;
    /* A member waits its turn even for nothing: see grant_head. */
    bool free_now = s->head == NULL && (kind != W_MEMBER || s->debt == 0);
    if (s->closed) {
        st = ZKPIPE_ECLOSED;
    } else if (units == 0 && (kind != W_MEMBER || free_now)) {
        /* Nothing to take: an empty permit. */
    } else if (free_now && units <= lendable(s)) {
        ticket = take(s, units, &slot);
    } else if (mode == ZKPIPE__WAIT_TRY) {
        st = ZKPIPE_EAGAIN;
    } else if (mode == ZKPIPE__WAIT_TIMED && timeout_ns == 0) {
        st = ZKPIPE_ETIMEDOUT;
    } else {
        waiter w;
        memset(&w, 0, sizeof w);
        w.units = units;
        w.kind = kind;
        st = enqueue(s, &w);
        if (st == ZKPIPE_OK) {
            st = look != NULL ? wait_looking(s, &w, look, ctx)
                              : wait_turn(s, &w, mode == ZKPIPE__WAIT_TIMED ? &deadline : NULL);
            ticket = w.ticket;
            slot = w.slot;
            units = w.units; /* lowered by `look`, perhaps */
            pthread_cond_destroy(&w.cond);
            if (kind == W_MEMBER) {
                s->waits.admissions++;
                s->waits.admission_ns += now_ns() - w.t0;
            }
        }
    }
    pthread_mutex_unlock(&s->lock);

    if (st == ZKPIPE_OK) {
        permit->sem = units == 0 ? NULL : s;
        permit->units = units;
        permit->ticket = ticket;
        permit->slot = slot;
    }
    return st;
}

static zkpipe_status acquire(zkpipe_sem *s, zkpipe_permit *permit, uint64_t units,
                             zkpipe__wait_mode mode, uint64_t timeout_ns)
{
    return acquire_as(s, permit, units, mode, timeout_ns, NULL, NULL, W_PLAIN);
}

zkpipe_status zkpipe__sem_acquire_looking(zkpipe_sem *sem, zkpipe_permit *permit, uint64_t units,
                                          zkpipe__sem_look_fn look, void *ctx)
{
    if (look == NULL)
        return ZKPIPE_EINVAL;
    return acquire_as(sem, permit, units, ZKPIPE__WAIT_LOOKING, 0, look, ctx, W_PLAIN);
}

zkpipe_status zkpipe__sem_admit(zkpipe_sem *sem, zkpipe_permit *permit, uint64_t units,
                                zkpipe__sem_look_fn look, void *ctx)
{
    return acquire_as(sem, permit, units, ZKPIPE__WAIT_LOOKING, 0, look, ctx, W_MEMBER);
}

zkpipe_status zkpipe_sem_acquire(zkpipe_sem *sem, zkpipe_permit *permit, uint64_t units)
{
    return acquire(sem, permit, units, ZKPIPE__WAIT_BLOCK, 0);
}

zkpipe_status zkpipe_sem_try_acquire(zkpipe_sem *sem, zkpipe_permit *permit, uint64_t units)
{
    return acquire(sem, permit, units, ZKPIPE__WAIT_TRY, 0);
}

zkpipe_status zkpipe_sem_acquire_timed(zkpipe_sem *sem, zkpipe_permit *permit, uint64_t units,
                                       uint64_t timeout_ns)
{
    return acquire(sem, permit, units, ZKPIPE__WAIT_TIMED, timeout_ns);
}

/* Gives `units` of the permit back: all of them end it. */
static zkpipe_status release_units(zkpipe_permit *permit, uint64_t units)
{
    zkpipe_sem *s = permit->sem;
    pthread_mutex_lock(&s->lock);
    bool valid = give_back(s, permit, units);
    if (valid)
        grant_head(s);
    pthread_mutex_unlock(&s->lock);
    if (!valid)
        return ZKPIPE_ESTATE;
    if (units == permit->units)
        permit->ticket = 0;
    else
        permit->units -= units;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_permit_release(zkpipe_permit *permit)
{
    if (permit == NULL)
        return ZKPIPE_EINVAL;
    if (permit->sem == NULL)
        return ZKPIPE_OK;
    if (permit->ticket == 0)
        return ZKPIPE_ESTATE;
    return release_units(permit, permit->units);
}

zkpipe_status zkpipe_permit_release_units(zkpipe_permit *permit, uint64_t units)
{
    if (permit == NULL)
        return ZKPIPE_EINVAL;
    if (permit->sem == NULL)
        return units == 0 ? ZKPIPE_OK : ZKPIPE_EINVAL;
    if (permit->ticket == 0)
        return ZKPIPE_ESTATE;
    if (units > permit->units)
        return ZKPIPE_EINVAL;
    if (units == 0)
        return ZKPIPE_OK;
    return release_units(permit, units);
}

int zkpipe_permit_is_held(const zkpipe_permit *permit)
{
    return permit != NULL && permit->sem != NULL && permit->ticket != 0;
}

void zkpipe_sem_close(zkpipe_sem *sem)
{
    if (sem == NULL)
        return;
    pthread_mutex_lock(&sem->lock);
    sem->closed = true;
    while (sem->head != NULL) {
        waiter *w = sem->head;
        unlink_waiter(sem, w);
        w->status = ZKPIPE_ECLOSED;
        w->done = true;
        pthread_cond_signal(&w->cond);
    }
    pthread_mutex_unlock(&sem->lock);
}

zkpipe_status zkpipe_sem_set_limit(zkpipe_sem *sem, uint64_t limit)
{
    if (sem == NULL || limit == 0 || limit > sem->capacity)
        return ZKPIPE_EINVAL;
    pthread_mutex_lock(&sem->lock);
    sem->withheld = sem->capacity - limit;
    atomic_store_explicit(&sem->available_view, lendable(sem), memory_order_relaxed);
    atomic_store_explicit(&sem->limit_view, limit, memory_order_relaxed);
    grant_head(sem); /* a raised limit serves the head at once */
    pthread_mutex_unlock(&sem->lock);
    return ZKPIPE_OK;
}

uint64_t zkpipe_sem_limit(const zkpipe_sem *sem)
{
    return sem == NULL ? 0 : atomic_load_explicit(&sem->limit_view, memory_order_relaxed);
}

uint64_t zkpipe_sem_available(const zkpipe_sem *sem)
{
    return sem == NULL ? 0 : atomic_load_explicit(&sem->available_view, memory_order_relaxed);
}

uint64_t zkpipe_sem_capacity(const zkpipe_sem *sem)
{
    return sem == NULL ? 0 : sem->capacity;
}

uint64_t zkpipe_sem_waiters(const zkpipe_sem *sem)
{
    return sem == NULL ? 0 : atomic_load_explicit(&sem->waiters_view, memory_order_relaxed);
}

zkpipe_status zkpipe__permit_split(zkpipe_permit *from, zkpipe_permit *out, uint64_t units)
{
    if (from == NULL || out == NULL || from->sem == NULL || units == 0 || units >= from->units)
        return ZKPIPE_EINVAL;
    if (from->ticket == 0)
        return ZKPIPE_ESTATE;
    zkpipe_sem *s = from->sem;
    pthread_mutex_lock(&s->lock);
    bool valid = outstanding(s, from);
    uint32_t slot = 0;
    uint64_t ticket = 0;
    if (valid) {
        /* The units stay held: they only change hands, so no waiter can take them between. */
        if (from->slot != 0)
            s->slot_units[from->slot - 1] -= units;
        else
            s->untracked_units -= units;
        ticket = track(s, units, &slot);
    }
    pthread_mutex_unlock(&s->lock);
    if (!valid)
        return ZKPIPE_ESTATE;
    from->units -= units;
    out->sem = s;
    out->units = units;
    out->ticket = ticket;
    out->slot = slot;
    return ZKPIPE_OK;
}

void zkpipe__sem_join(zkpipe_sem *sem)
{
    pthread_mutex_lock(&sem->lock);
    sem->members++;
    pthread_mutex_unlock(&sem->lock);
}

void zkpipe__sem_leave(zkpipe_sem *sem)
{
    pthread_mutex_lock(&sem->lock);
    sem->members--;
    poke(sem); /* one member fewer that could move */
    pthread_mutex_unlock(&sem->lock);
}

/* Adds `units`, already counted as held, to `p` (a new permit when it is empty). The caller
 * holds the lock. */
static void extend(zkpipe_sem *s, zkpipe_permit *p, uint64_t units)
{
    if (units == 0)
        return;
    if (!zkpipe_permit_is_held(p)) {
        p->sem = s;
        p->units = units;
        p->ticket = track(s, units, &p->slot);
        return;
    }
    if (p->slot != 0)
        s->slot_units[p->slot - 1] += units;
    else
        s->untracked_units += units;
    p->units += units;
}

/* Whether the member holding `p`, growing as `w`, may overdraw now (sem_internal.h). The
 * caller holds the lock. */
static bool may_overdraw(const zkpipe_sem *s, const waiter *w, const zkpipe_permit *p, bool queued)
{
    if (s->debt > 0)
        return zkpipe_permit_is_held(p) && p->ticket == s->debtor;
    if (w->kind == W_GROW_LATE)
        return true;
    /* Every member waits in this semaphore (`w` too, counted once queued): none can move
     * unless one goes over. */
    return s->early_growers + s->queued_members + !queued >= s->members;
}

/* Takes what is free of `units` and holds the rest as the debt of `p`. The caller holds the
 * lock and has checked may_overdraw. */
static void overdraw(zkpipe_sem *s, zkpipe_permit *p, uint64_t units)
{
    uint64_t have = lendable(s) < units ? lendable(s) : units;
    s->available -= have;
    atomic_store_explicit(&s->available_view, lendable(s), memory_order_relaxed);
    extend(s, p, units);
    if (units > have) {
        if (s->debt == 0)
            s->waits.overdrafts++;
        s->debt += units - have;
        s->debtor = p->ticket;
        s->waits.overdraft_bytes += units - have;
        if (s->debt > s->waits.debt_peak)
            s->waits.debt_peak = s->debt;
    }
}

zkpipe_status zkpipe__sem_grow(zkpipe_sem *sem, zkpipe_permit *permit, uint64_t units, int late,
                               zkpipe__sem_look_fn look, void *ctx)
{
    if (sem == NULL || permit == NULL || (permit->sem != NULL && permit->sem != sem))
        return ZKPIPE_EINVAL;
    if (units == 0)
        return ZKPIPE_OK;
    pthread_mutex_lock(&sem->lock);
    zkpipe_status st = ZKPIPE_OK;
    waiter w;
    memset(&w, 0, sizeof w);
    w.units = units;
    w.kind = late ? W_GROW_LATE : W_GROW_EARLY;
    if (zkpipe_permit_is_held(permit) && !outstanding(sem, permit)) {
        st = ZKPIPE_ESTATE;
    } else if (sem->closed) {
        st = ZKPIPE_ECLOSED;
    } else if ((sem->head == NULL || !is_grower(sem->head)) && sem->debt == 0 &&
               units <= lendable(sem)) {
        sem->available -= units;
        atomic_store_explicit(&sem->available_view, lendable(sem), memory_order_relaxed);
        extend(sem, permit, units);
    } else if (look == NULL && may_overdraw(sem, &w, permit, false)) {
        /* (With a look, what it can give back is tried before going over.) */
        overdraw(sem, permit, units);
    } else if ((st = enqueue(sem, &w)) == ZKPIPE_OK) {
        /* Each pass: served? a key to release (look)? may it overdraw? else sleep until a
         * grant, a poke or the time look asked for. */
        for (;;) {
            w.poked = false;
            if (w.done)
                break;
            uint64_t next = UINT64_MAX;
            if (look != NULL) {
                uint64_t ignored = units;
                pthread_mutex_unlock(&sem->lock);
                next = look(ctx, &ignored);
                pthread_mutex_lock(&sem->lock);
                if (w.done || next == 0)
                    continue;
            }
            if (may_overdraw(sem, &w, permit, true)) {
                unlink_waiter(sem, &w);
                overdraw(sem, permit, units);
                w.status = ZKPIPE_OK;
                w.done = true;
                w.units = 0; /* extended already */
                grant_head(sem);
                break;
            }
            if (w.poked)
                continue;
            struct timespec deadline = zkpipe__deadline_after(next);
            while (!w.done && !w.poked &&
                   (next == UINT64_MAX
                        ? pthread_cond_wait(&w.cond, &sem->lock)
                        : pthread_cond_timedwait(&w.cond, &sem->lock, &deadline)) != ETIMEDOUT)
                ;
        }
        st = w.status;
        if (st == ZKPIPE_OK)
            extend(sem, permit, w.units);
        pthread_cond_destroy(&w.cond);
        sem->waits.growths++;
        sem->waits.growth_ns += now_ns() - w.t0;
    }
    pthread_mutex_unlock(&sem->lock);
    return st;
}

void zkpipe__sem_waits_get(zkpipe_sem *sem, zkpipe__sem_waits *out)
{
    pthread_mutex_lock(&sem->lock);
    *out = sem->waits;
    out->debt = sem->debt;
    pthread_mutex_unlock(&sem->lock);
}
