/* Resident keys under the byte budget (zkpipe/key_cache.h).
 *
 * One lock guards the cache: the list of keys, each key's state, pins, ledger and permit. Loads
 * run unlocked, the key marked LOADING meanwhile so that its other users wait for that one load
 * (on `changed`); unloads run locked, so a key is never loaded and unloaded at once. The lock
 * is taken before the budget's own (a release under it wakes the budget's waiters), never the
 * other way round. */
#include "engine/key_cache_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "core/clock_internal.h"
#include "core/detail.h"
#include "core/struct_size_internal.h"
#include "sync/sem_internal.h"
#include "zkpipe/trace.h"

/* How often an admission waiting for the budget looks for releasable keys at least. */
#define POLL_NS 20000000ull

enum { KEY_RELEASED = 0, KEY_LOADING = 1, KEY_RESIDENT = 2 };

struct zkpipe_key {
    zkpipe_key_cache *cache;
    zkpipe_key *prev, *next;
    zkpipe_key_ops ops; /* fields past the host's struct_size NULL */
    void *ctx;
    uint64_t bytes;
    uint32_t kind;
    int state;
    unsigned pins;
    uint64_t used_ns;     /* when last pinned or unpinned */
    void *handle;         /* while resident */
    zkpipe_permit permit; /* its budget units while resident under a budget */
    zkpipe_ledger ledger; /* in "keys" while resident */
    uint64_t charged;     /* what the ledger holds */
};

struct zkpipe_key_cache {
    zkpipe_allocator allocator;
    zkpipe_acct *acct;
    uint32_t stage;
    uint64_t idle_ns;
    uint32_t idle_ms;
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a load ended */
    zkpipe_key *head;
    zkpipe_sem *budget; /* the bound engine's, or NULL */
    uint64_t keys, loads, releases, failures, taken, returned;
};

void zkpipe_key_cache_config_init(zkpipe_key_cache_config *config)
{
    if (config == NULL)
        return;
    memset(config, 0, sizeof *config);
    config->struct_size = sizeof *config;
}

zkpipe_status zkpipe_key_cache_create(zkpipe_key_cache **out, const zkpipe_key_cache_config *in)
{
    zkpipe_key_cache_config cfg;
    zkpipe_key_cache_config_init(&cfg);
    if (out == NULL ||
        (in != NULL && zkpipe__struct_in(&cfg, sizeof cfg, in,
                                         ZKPIPE__SIZE_THROUGH(zkpipe_key_cache_config, allocator),
                                         "zkpipe_key_cache_config") != ZKPIPE_OK))
        return ZKPIPE_EINVAL;
    const zkpipe_allocator *a = zkpipe__allocator_or_default(cfg.allocator);
    if (a == NULL)
        return zkpipe__refuse(ZKPIPE_EINVAL,
                              "zkpipe_key_cache_config.allocator lacks its alloc or free function");
    zkpipe_key_cache *c = zkpipe__calloc(a, 1, sizeof *c, _Alignof(zkpipe_key_cache));
    if (c == NULL)
        return ZKPIPE_ENOMEM;
    c->allocator = *a;
    c->acct = cfg.acct != NULL ? cfg.acct : zkpipe_acct_default();
    c->idle_ms = cfg.idle_ms;
    c->idle_ns = (uint64_t)cfg.idle_ms * 1000000u;
    zkpipe_status st = zkpipe_acct_register_stage(c->acct, "keys", &c->stage);
    if (st == ZKPIPE_OK && pthread_mutex_init(&c->lock, NULL) != 0)
        st = ZKPIPE_ENOMEM;
    if (st == ZKPIPE_OK && (st = zkpipe__cond_init_monotonic(&c->changed)) != ZKPIPE_OK)
        pthread_mutex_destroy(&c->lock);
    if (st != ZKPIPE_OK) {
        zkpipe__free(a, c);
        return st;
    }
    *out = c;
    return ZKPIPE_OK;
}

/* The key's ledger brought to what is resident now. Locked. */
static void refresh(zkpipe_key *k)
{
    if (k->state != KEY_RESIDENT)
        return;
    uint64_t now = k->ops.resident != NULL ? k->ops.resident(k->ctx, k->handle) : k->bytes;
    if (now > k->bytes)
        now = k->bytes;
    if (now == k->charged)
        return;
    /* One buffer per key: its bytes replaced as a whole. */
    if (zkpipe_ledger_release(&k->ledger, k->kind, k->charged) == ZKPIPE_OK &&
        zkpipe_ledger_charge(&k->ledger, k->kind, now) == ZKPIPE_OK)
        k->charged = now;
}

/* Gives the key's budget units back. Locked. */
static void uncharge(zkpipe_key *k)
{
    if (zkpipe_permit_is_held(&k->permit)) {
        k->cache->returned += k->permit.units;
        zkpipe_permit_release(&k->permit);
    }
    memset(&k->permit, 0, sizeof k->permit);
}

/* A load has made the key resident (with `permit`, possibly empty, as its units). Locked. */
static void make_resident(zkpipe_key *k, void *handle, const zkpipe_permit *permit)
{
    k->handle = handle;
    k->permit = *permit;
    k->state = KEY_RESIDENT;
    k->charged = 0;
    k->cache->loads++;
    /* The stage is registered at create and the kind at add: the ledger cannot fail. */
    if (zkpipe_ledger_open(&k->ledger, k->cache->acct, k->cache->stage) == ZKPIPE_OK &&
        zkpipe_ledger_charge(&k->ledger, k->kind, 0) == ZKPIPE_OK)
        refresh(k);
}

/* Unloads a resident unpinned key. Locked. */
static void unload(zkpipe_key *k)
{
    k->ops.unload(k->ctx, k->handle);
    k->handle = NULL;
    zkpipe_ledger_close(&k->ledger);
    k->charged = 0;
    uncharge(k);
    k->state = KEY_RELEASED;
}

void zkpipe_key_cache_destroy(zkpipe_key_cache *cache)
{
    if (cache == NULL)
        return;
    while (cache->head != NULL)
        zkpipe_key_remove(cache->head);
    pthread_cond_destroy(&cache->changed);
    pthread_mutex_destroy(&cache->lock);
    zkpipe_allocator a = cache->allocator;
    zkpipe__free(&a, cache);
}

/* Releases the least recently used resident key that no one has pinned for idle_ns, other than
 * `own`. 1 when one was released. Locked. */
static int release_one(zkpipe_key_cache *c, const zkpipe_key *own, uint64_t now)
{
    zkpipe_key *victim = NULL;
    for (zkpipe_key *k = c->head; k != NULL; k = k->next)
        if (k != own && k->state == KEY_RESIDENT && k->pins == 0 &&
            now - k->used_ns >= c->idle_ns && (victim == NULL || k->used_ns < victim->used_ns))
            victim = k;
    if (victim == NULL)
        return 0;
    unload(victim);
    c->releases++;
    return 1;
}

#define OPS_MIN_SIZE ZKPIPE__SIZE_THROUGH(zkpipe_key_ops, unload)

zkpipe_status zkpipe_key_add(zkpipe_key_cache *cache, zkpipe_key **out, const zkpipe_key_ops *ops,
                             void *ctx, uint64_t bytes, void *handle, int loaded)
{
    if (cache == NULL || out == NULL || ops == NULL || bytes == 0)
        return ZKPIPE_EINVAL;
    if (ops->struct_size < OPS_MIN_SIZE)
        return zkpipe__struct_size_refused("zkpipe_key_ops", ops->struct_size, OPS_MIN_SIZE,
                                           sizeof(zkpipe_key_ops));
    const char *missing = ops->load == NULL     ? "load"
                          : ops->unload == NULL ? "unload"
                          : ops->kind == NULL   ? "kind"
                                                : NULL;
    if (missing != NULL)
        return zkpipe__refuse(ZKPIPE_EINVAL, "zkpipe_key_ops.%s is NULL", missing);
    zkpipe_key *k = zkpipe__calloc(&cache->allocator, 1, sizeof *k, _Alignof(zkpipe_key));
    if (k == NULL)
        return ZKPIPE_ENOMEM;
    k->cache = cache;
    memcpy(&k->ops, ops, ops->struct_size < sizeof k->ops ? ops->struct_size : sizeof k->ops);
    k->ops.struct_size = sizeof k->ops;
    k->ctx = ctx;
    k->bytes = bytes;
    k->used_ns = zkpipe_trace_now();
    zkpipe_status st = zkpipe_acct_register_kind(cache->acct, ops->kind, &k->kind);
    pthread_mutex_lock(&cache->lock);
    zkpipe_permit permit;
    memset(&permit, 0, sizeof permit);
    if (st == ZKPIPE_OK && loaded && cache->budget != NULL) {
        /* Room now, made by releasing idle keys if need be; else the key starts released. */
        zkpipe_status got;
        while ((got = zkpipe_sem_try_acquire(cache->budget, &permit, bytes)) == ZKPIPE_EAGAIN &&
               release_one(cache, NULL, zkpipe_trace_now()))
            ;
        if (got == ZKPIPE_OK) {
            cache->taken += bytes;
        } else {
            ops->unload(ctx, handle);
            loaded = 0;
        }
    }
    if (st == ZKPIPE_OK) {
        if (loaded)
            make_resident(k, handle, &permit);
        k->next = cache->head;
        if (cache->head != NULL)
            cache->head->prev = k;
        cache->head = k;
        cache->keys++;
    }
    pthread_mutex_unlock(&cache->lock);
    if (st != ZKPIPE_OK) {
        zkpipe__free(&cache->allocator, k);
        return st;
    }
    *out = k;
    return ZKPIPE_OK;
}

void zkpipe_key_remove(zkpipe_key *key)
{
    if (key == NULL)
        return;
    zkpipe_key_cache *c = key->cache;
    pthread_mutex_lock(&c->lock);
    while (key->state == KEY_LOADING)
        pthread_cond_wait(&c->changed, &c->lock);
    if (key->state == KEY_RESIDENT)
        unload(key);
    if (key->prev != NULL)
        key->prev->next = key->next;
    else
        c->head = key->next;
    if (key->next != NULL)
        key->next->prev = key->prev;
    c->keys--;
    pthread_mutex_unlock(&c->lock);
    zkpipe__free(&c->allocator, key);
}

/* What a waiting admission looks at (take_units): its key, and its request without the key. */
typedef struct looker {
    zkpipe_key_cache *cache;
    const zkpipe_key *own;
    uint64_t units;
} looker;

/* Called by an admission waiting for the budget, in its place in the queue. If its own key is
 * no longer released (another admission loaded it meanwhile), the key's bytes it asked for are
 * not needed: its request drops to its own units (waiting for a load that another has already
 * paid for would hold it forever, since it never releases its own key). Then releases one idle
 * key other than its own if there is one (then it looks again at once); else asks to be called
 * again when the next resident key other than its own has been idle for idle_ns, and at least
 * every POLL_NS (a key may be unpinned, or loaded by another admission, at any time). */
static uint64_t look(void *ctx, uint64_t *request)
{
    looker *l = ctx;
    zkpipe_key_cache *c = l->cache;
    uint64_t now = zkpipe_trace_now(), wait = POLL_NS;
    pthread_mutex_lock(&c->lock);
    if (l->own != NULL && l->own->state != KEY_RELEASED && *request > l->units)
        *request = l->units;
    if (release_one(c, l->own, now)) {
        wait = 0;
    } else {
        for (const zkpipe_key *k = c->head; k != NULL; k = k->next) {
            if (k == l->own || k->state != KEY_RESIDENT || k->pins > 0)
                continue;
            uint64_t idle = now - k->used_ns, w = idle >= c->idle_ns ? 1 : c->idle_ns - idle;
            if (w < wait)
                wait = w;
        }
    }
    pthread_mutex_unlock(&c->lock);
    return wait;
}

uint64_t zkpipe__keys_look(void *cache, uint64_t *units)
{
    looker l = {cache, NULL, *units};
    return look(&l, units);
}

/* Takes `units` + `need` of the budget into *p (or only `units` if the key's load is paid for
 * by another meanwhile: look), releasing idle keys while they do not fit; a member's admission
 * when `member` (sem_internal.h). */
static zkpipe_status take_units(zkpipe_key_cache *c, const zkpipe_key *own, zkpipe_sem *budget,
                                uint64_t units, uint64_t need, int member, zkpipe_permit *p)
{
    looker l = {c, own, units};
    return member ? zkpipe__sem_admit(budget, p, units + need, look, &l)
                  : zkpipe__sem_acquire_looking(budget, p, units + need, look, &l);
}

/* Loads `k` (KEY_LOADING, pinned once by the caller) with `kp` as its units. Called unlocked;
 * returns locked. */
static zkpipe_status load(zkpipe_key *k, zkpipe_permit *kp, char *detail, size_t cap)
{
    zkpipe_key_cache *c = k->cache;
    void *handle = NULL;
    char line[1];
    zkpipe_status st = k->ops.load(k->ctx, &handle, detail != NULL ? detail : line,
                                   detail != NULL ? cap : sizeof line);
    pthread_mutex_lock(&c->lock);
    if (st == ZKPIPE_OK) {
        make_resident(k, handle, kp);
    } else {
        k->state = KEY_RELEASED;
        k->pins--;
        c->failures++;
        if (zkpipe_permit_is_held(kp)) {
            c->returned += kp->units;
            zkpipe_permit_release(kp);
        }
    }
    pthread_cond_broadcast(&c->changed);
    return st;
}

/* Gives `units` of *p back (all of them: the permit ends). */
static void give_back(zkpipe_permit *p, uint64_t units)
{
    if (units > 0 && zkpipe_permit_is_held(p))
        zkpipe_permit_release_units(p, units);
}

zkpipe_status zkpipe__key_admit(zkpipe_key_cache *cache, zkpipe_key *key, zkpipe_sem *budget,
                                uint64_t units, int member, zkpipe_permit *permit, void **handle,
                                char *detail, size_t cap)
{
    memset(permit, 0, sizeof *permit);
    *handle = NULL;
    zkpipe_key_cache *c = key != NULL ? key->cache : cache;
    if (c == NULL || budget == NULL || c->budget != budget) {
        /* Nothing this budget holds can be released: take the units as always, then pin the
         * key against its own cache's budget. */
        zkpipe_status st = ZKPIPE_OK;
        if (budget != NULL && member)
            st = zkpipe__sem_admit(budget, permit, units, NULL, NULL);
        else if (budget != NULL && units > 0)
            st = zkpipe_sem_acquire(budget, permit, units);
        if (st == ZKPIPE_OK && key != NULL &&
            (st = zkpipe_key_pin(key, handle, detail, cap)) != ZKPIPE_OK)
            zkpipe_permit_release(permit);
        return st;
    }
    /* A key is charged to this budget while resident, and must be while its partition runs:
     * if the two cannot fit together, waiting would never end. */
    if (key != NULL &&
        (units > UINT64_MAX - key->bytes || units + key->bytes > zkpipe_sem_capacity(budget)))
        return ZKPIPE_ETOOBIG;
    for (;;) {
        pthread_mutex_lock(&c->lock);
        while (key != NULL && key->state == KEY_LOADING)
            pthread_cond_wait(&c->changed, &c->lock);
        uint64_t need = key != NULL && key->state == KEY_RELEASED ? key->bytes : 0;
        pthread_mutex_unlock(&c->lock);
        zkpipe_permit p;
        memset(&p, 0, sizeof p);
        zkpipe_status st = units + need > 0 || member
                               ? take_units(c, key, budget, units, need, member, &p)
                               : ZKPIPE_OK;
        if (st != ZKPIPE_OK)
            return st;
        uint64_t granted = zkpipe_permit_is_held(&p) ? p.units : 0;
        pthread_mutex_lock(&c->lock);
        if (key == NULL) {
            pthread_mutex_unlock(&c->lock);
            *permit = p;
            return ZKPIPE_OK;
        }
        if (key->state == KEY_RESIDENT) {
            /* Loaded (or never released) meanwhile: its units were not needed after all. */
            key->pins++;
            key->used_ns = zkpipe_trace_now();
            *handle = key->handle;
            refresh(key);
            pthread_mutex_unlock(&c->lock);
            give_back(&p, granted - units);
            *permit = p;
            return ZKPIPE_OK;
        }
        if (key->state == KEY_RELEASED && granted == units + key->bytes) {
            need = key->bytes;
            zkpipe_permit kp = p;
            if (units > 0 && (st = zkpipe__permit_split(&p, &kp, need)) != ZKPIPE_OK) {
                pthread_mutex_unlock(&c->lock);
                zkpipe_permit_release(&p);
                return st;
            }
            if (units == 0)
                memset(&p, 0, sizeof p);
            c->taken += need;
            key->state = KEY_LOADING;
            key->pins++;
            pthread_mutex_unlock(&c->lock);
            st = load(key, &kp, detail, cap);
            if (st == ZKPIPE_OK) {
                key->used_ns = zkpipe_trace_now();
                *handle = key->handle;
            }
            pthread_mutex_unlock(&c->lock);
            if (st != ZKPIPE_OK) {
                zkpipe_permit_release(&p);
                return st;
            }
            *permit = p;
            return ZKPIPE_OK;
        }
        /* Released while we waited (without its units), or being loaded by another: ask again. */
        pthread_mutex_unlock(&c->lock);
        zkpipe_permit_release(&p);
    }
}

zkpipe_status zkpipe_key_pin(zkpipe_key *key, void **handle, char *detail, size_t detail_cap)
{
    if (key == NULL || handle == NULL)
        return ZKPIPE_EINVAL;
    zkpipe_key_cache *c = key->cache;
    pthread_mutex_lock(&c->lock);
    zkpipe_sem *budget = c->budget;
    pthread_mutex_unlock(&c->lock);
    if (budget != NULL) {
        zkpipe_permit none;
        return zkpipe__key_admit(c, key, budget, 0, 0, &none, handle, detail, detail_cap);
    }
    /* No budget: nothing to charge or release, only the load. */
    pthread_mutex_lock(&c->lock);
    while (key->state == KEY_LOADING)
        pthread_cond_wait(&c->changed, &c->lock);
    zkpipe_status st = ZKPIPE_OK;
    if (key->state == KEY_RESIDENT) {
        key->pins++;
        refresh(key);
    } else {
        zkpipe_permit empty;
        memset(&empty, 0, sizeof empty);
        key->state = KEY_LOADING;
        key->pins++;
        pthread_mutex_unlock(&c->lock);
        st = load(key, &empty, detail, detail_cap);
    }
    if (st == ZKPIPE_OK) {
        key->used_ns = zkpipe_trace_now();
        *handle = key->handle;
    }
    pthread_mutex_unlock(&c->lock);
    return st;
}

void zkpipe_key_unpin(zkpipe_key *key)
{
    if (key == NULL)
        return;
    zkpipe_key_cache *c = key->cache;
    pthread_mutex_lock(&c->lock);
    if (key->pins > 0 && key->state == KEY_RESIDENT) {
        key->pins--;
        key->used_ns = zkpipe_trace_now();
        refresh(key); /* what the work that used it brought in */
    }
    pthread_mutex_unlock(&c->lock);
}

int zkpipe_key_is_resident(const zkpipe_key *key)
{
    if (key == NULL)
        return 0;
    zkpipe_key_cache *c = key->cache;
    pthread_mutex_lock(&c->lock);
    int resident = key->state == KEY_RESIDENT;
    pthread_mutex_unlock(&c->lock);
    return resident;
}

zkpipe_status zkpipe__key_cache_bind(zkpipe_key_cache *cache, zkpipe_sem *budget)
{
    pthread_mutex_lock(&cache->lock);
    zkpipe_status st = cache->budget != NULL ? ZKPIPE_ESTATE : ZKPIPE_OK;
    zkpipe_key *k = cache->head;
    for (; st == ZKPIPE_OK && k != NULL; k = k->next)
        if (k->state == KEY_RESIDENT &&
            zkpipe_sem_try_acquire(budget, &k->permit, k->bytes) != ZKPIPE_OK)
            st = ZKPIPE_ETOOBIG;
        else if (k->state == KEY_RESIDENT)
            cache->taken += k->bytes;
    if (st == ZKPIPE_ETOOBIG) /* give back what the keys before took */
        for (zkpipe_key *u = cache->head; u != k; u = u->next)
            uncharge(u);
    if (st == ZKPIPE_OK)
        cache->budget = budget;
    pthread_mutex_unlock(&cache->lock);
    return st;
}

void zkpipe__key_cache_unbind(zkpipe_key_cache *cache)
{
    pthread_mutex_lock(&cache->lock);
    for (zkpipe_key *k = cache->head; k != NULL; k = k->next)
        uncharge(k);
    cache->budget = NULL;
    pthread_mutex_unlock(&cache->lock);
}

uint64_t zkpipe__key_cache_releasable(zkpipe_key_cache *cache)
{
    uint64_t units = 0;
    pthread_mutex_lock(&cache->lock);
    for (const zkpipe_key *k = cache->head; k != NULL; k = k->next)
        if (k->pins == 0 && zkpipe_permit_is_held(&k->permit))
            units += k->permit.units;
    pthread_mutex_unlock(&cache->lock);
    return units;
}

zkpipe_status zkpipe_key_cache_stats(zkpipe_key_cache *cache, zkpipe_key_cache_counters *out)
{
    if (cache == NULL || out == NULL)
        return ZKPIPE_EINVAL;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&cache->lock);
    for (zkpipe_key *k = cache->head; k != NULL; k = k->next) {
        refresh(k);
        out->resident_keys += k->state == KEY_RESIDENT;
        out->pinned_keys += k->pins > 0;
        out->resident_bytes += k->charged;
        uint64_t units = zkpipe_permit_is_held(&k->permit) ? k->permit.units : 0;
        out->charged_bytes += units;
        out->unpinned_bytes += k->pins == 0 ? units : 0;
    }
    out->keys = cache->keys;
    out->loads = cache->loads;
    out->releases = cache->releases;
    out->load_failures = cache->failures;
    out->budget_taken = cache->taken;
    out->budget_returned = cache->returned;
    out->idle_ms = cache->idle_ms;
    out->bound = cache->budget != NULL;
    pthread_mutex_unlock(&cache->lock);
    return ZKPIPE_OK;
}
