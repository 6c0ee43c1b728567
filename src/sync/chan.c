/* Bounded MPMC channel: a ring of slots under one mutex. Ledger moves happen under that
 * mutex, at the moment an item enters or leaves a slot, so the accounting never shows more
 * items QUEUED than there are slots. */
#include "zkpipe/chan.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "core/clock_internal.h"
#include "core/detail.h"
#include "core/struct_size_internal.h"
#include "sync/wait_internal.h"

struct zkpipe_chan {
    zkpipe_allocator allocator;
    pthread_mutex_t lock;
    pthread_cond_t not_full;
    pthread_cond_t not_empty;
    zkpipe_chan_config config; /* its allocator pointer is not used after create */
    size_t head;               /* slot of the oldest item */
    size_t count;
    zkpipe_chan_counters counters; /* queued, capacity and closed are filled in by stats */
    bool closed;
    void *slots[];
};

void zkpipe_chan_config_init(zkpipe_chan_config *config, size_t capacity)
{
    if (config == NULL)
        return;
    memset(config, 0, sizeof *config);
    config->struct_size = sizeof *config;
    config->capacity = capacity;
    config->recv_stage = ZKPIPE_STAGE_PROVING;
}

/* The first published layout of zkpipe_chan_config ended with `allocator`. */
#define CHAN_CONFIG_V1_SIZE ZKPIPE__SIZE_THROUGH(zkpipe_chan_config, allocator)

zkpipe_status zkpipe_chan_create(zkpipe_chan **out, const zkpipe_chan_config *caller)
{
    zkpipe_chan_config config;
    if (out == NULL || caller == NULL)
        return ZKPIPE_EINVAL;
    zkpipe_chan_config_init(&config, 0);
    if (zkpipe__struct_in(&config, sizeof config, caller, CHAN_CONFIG_V1_SIZE,
                          "zkpipe_chan_config") != ZKPIPE_OK)
        return ZKPIPE_EINVAL;
    if (config.capacity == 0)
        return zkpipe__refuse(ZKPIPE_EINVAL, "zkpipe_chan_config.capacity is 0: at least 1");
    if (config.recv_stage >= ZKPIPE_STAGE_MAX)
        return zkpipe__refuse(ZKPIPE_EINVAL, "zkpipe_chan_config.recv_stage %u is past %u",
                              (unsigned)config.recv_stage, (unsigned)ZKPIPE_STAGE_MAX - 1);
    const zkpipe_allocator *a = zkpipe__allocator_or_default(config.allocator);
    if (a == NULL)
        return zkpipe__refuse(ZKPIPE_EINVAL,
                              "zkpipe_chan_config.allocator lacks its alloc or free function");
    if (config.capacity > (SIZE_MAX - sizeof(zkpipe_chan)) / sizeof(void *))
        return ZKPIPE_EOVERFLOW;
    zkpipe_chan *ch = zkpipe__alloc(a, sizeof(zkpipe_chan) + config.capacity * sizeof(void *),
                                    _Alignof(zkpipe_chan));
    if (ch == NULL)
        return ZKPIPE_ENOMEM;
    memset(ch, 0, sizeof *ch);
    ch->allocator = *a;
    ch->config = config;
    ch->config.allocator = NULL;
    zkpipe_status st = ZKPIPE_ENOMEM;
    if (pthread_mutex_init(&ch->lock, NULL) != 0)
        goto fail_mutex;
    st = zkpipe__cond_init_monotonic(&ch->not_full);
    if (st != ZKPIPE_OK)
        goto fail_not_full;
    st = zkpipe__cond_init_monotonic(&ch->not_empty);
    if (st != ZKPIPE_OK)
        goto fail_not_empty;
    *out = ch;
    return ZKPIPE_OK;

fail_not_empty:
    pthread_cond_destroy(&ch->not_full);
fail_not_full:
    pthread_mutex_destroy(&ch->lock);
fail_mutex:
    zkpipe__free(a, ch);
    return st;
}

void zkpipe_chan_destroy(zkpipe_chan *ch)
{
    if (ch == NULL)
        return;
    zkpipe_chan_clear(ch);
    pthread_cond_destroy(&ch->not_empty);
    pthread_cond_destroy(&ch->not_full);
    pthread_mutex_destroy(&ch->lock);
    zkpipe_allocator a = ch->allocator;
    zkpipe__free(&a, ch);
}

static zkpipe_ledger *ledger_of(const zkpipe_chan *ch, void *item)
{
    return ch->config.ledger_of != NULL ? ch->config.ledger_of(item, ch->config.ctx) : NULL;
}

static bool can_send(const zkpipe_chan *ch)
{
    return ch->closed || ch->count < ch->config.capacity;
}

static bool can_recv(const zkpipe_chan *ch)
{
    return ch->closed || ch->count > 0;
}

/* Waits on `cv` until `ready(ch)`; called and returns with the lock held. `waiting` counts
 * the blocked threads for zkpipe_chan_stats. */
static zkpipe_status wait_until(zkpipe_chan *ch, bool (*ready)(const zkpipe_chan *),
                                pthread_cond_t *cv, uint64_t *waiting, zkpipe__wait_mode mode,
                                const struct timespec *deadline)
{
    zkpipe_status st = ZKPIPE_OK;
    if (ready(ch))
        return st;
    if (mode == ZKPIPE__WAIT_TRY)
        return ZKPIPE_EAGAIN;
    (*waiting)++;
    while (!ready(ch)) {
        if (mode == ZKPIPE__WAIT_BLOCK) {
            pthread_cond_wait(cv, &ch->lock);
        } else if (pthread_cond_timedwait(cv, &ch->lock, deadline) == ETIMEDOUT && !ready(ch)) {
            st = ZKPIPE_ETIMEDOUT;
            break;
        }
    }
    (*waiting)--;
    return st;
}

static zkpipe_status send_item(zkpipe_chan *ch, void *item, zkpipe_permit *permit,
                               zkpipe__wait_mode mode, uint64_t timeout_ns)
{
    if (ch == NULL || item == NULL)
        return ZKPIPE_EINVAL;
    if (permit != NULL && permit->sem != NULL && permit->ticket == 0)
        return ZKPIPE_ESTATE;
    zkpipe_ledger *ledger = ledger_of(ch, item);
    if (ledger != NULL) {
        if (!zkpipe_ledger_is_open(ledger))
            return ZKPIPE_EINVAL;
        /* Checked now so that the move on receive cannot fail. */
        if (ch->config.recv_stage >= ZKPIPE_STAGE_BUILTIN_COUNT &&
            zkpipe_acct_stage_name(ledger->acct, ch->config.recv_stage) == NULL)
            return ZKPIPE_EINVAL;
    }
    struct timespec deadline = {0, 0};
    if (mode == ZKPIPE__WAIT_TIMED)
        deadline = zkpipe__deadline_after(timeout_ns);

    pthread_mutex_lock(&ch->lock);
    bool wake = false;
    zkpipe_permit held = {0};
    zkpipe_status st =
        wait_until(ch, can_send, &ch->not_full, &ch->counters.waiting_senders, mode, &deadline);
    if (st == ZKPIPE_OK && ch->closed)
        st = ZKPIPE_ECLOSED;
    if (st == ZKPIPE_OK) {
        ch->slots[(ch->head + ch->count) % ch->config.capacity] = item;
        ch->count++;
        ch->counters.sent++;
        if (ledger != NULL) {
            zkpipe_status moved = zkpipe_ledger_move(ledger, ZKPIPE_STAGE_QUEUED);
            assert(moved == ZKPIPE_OK); /* the ledger was checked open; QUEUED is built in */
            (void)moved;
        }
        if (ch->config.on_send != NULL)
            ch->config.on_send(item, ch->config.ctx);
        wake = ch->counters.waiting_receivers > 0;
        /* Taken over while no receiver can see the item yet: the permit may live inside it. */
        if (permit != NULL) {
            held = *permit;
            memset(permit, 0, sizeof *permit);
        }
    }
    pthread_mutex_unlock(&ch->lock);
    /* Signalled after unlocking so the woken receiver does not block on the mutex at once. */
    if (wake)
        pthread_cond_signal(&ch->not_empty);
    /* The item is delivered whatever the semaphore says; it refuses a stale permit copy
     * without harm to its count. */
    (void)zkpipe_permit_release(&held);
    return st;
}

zkpipe_status zkpipe_chan_send(zkpipe_chan *ch, void *item, zkpipe_permit *permit)
{
    return send_item(ch, item, permit, ZKPIPE__WAIT_BLOCK, 0);
}

zkpipe_status zkpipe_chan_try_send(zkpipe_chan *ch, void *item, zkpipe_permit *permit)
{
    return send_item(ch, item, permit, ZKPIPE__WAIT_TRY, 0);
}

zkpipe_status zkpipe_chan_send_timed(zkpipe_chan *ch, void *item, zkpipe_permit *permit,
                                     uint64_t timeout_ns)
{
    return send_item(ch, item, permit, ZKPIPE__WAIT_TIMED, timeout_ns);
}

/* Removes the oldest item; the caller holds the lock, has checked count > 0, and wakes a
 * sender after unlocking when wake_sender says so. */
static void *pop(zkpipe_chan *ch, bool *wake_sender)
{
    void *item = ch->slots[ch->head];
    ch->slots[ch->head] = NULL;
    ch->head = (ch->head + 1) % ch->config.capacity;
    ch->count--;
    *wake_sender = ch->counters.waiting_senders > 0;
    return item;
}

static zkpipe_status recv_item(zkpipe_chan *ch, void **out, zkpipe__wait_mode mode,
                               uint64_t timeout_ns)
{
    if (ch == NULL || out == NULL)
        return ZKPIPE_EINVAL;
    struct timespec deadline = {0, 0};
    if (mode == ZKPIPE__WAIT_TIMED)
        deadline = zkpipe__deadline_after(timeout_ns);

    pthread_mutex_lock(&ch->lock);
    zkpipe_status st =
        wait_until(ch, can_recv, &ch->not_empty, &ch->counters.waiting_receivers, mode, &deadline);
    void *item = NULL;
    bool wake = false;
    if (st == ZKPIPE_OK && ch->count == 0)
        st = ZKPIPE_ECLOSED;
    if (st == ZKPIPE_OK) {
        item = pop(ch, &wake);
        ch->counters.received++;
        zkpipe_ledger *ledger = ledger_of(ch, item);
        if (ledger != NULL) {
            zkpipe_status moved = zkpipe_ledger_move(ledger, ch->config.recv_stage);
            assert(moved == ZKPIPE_OK); /* send checked the ledger and the stage */
            (void)moved;
        }
        if (ch->config.on_recv != NULL)
            ch->config.on_recv(item, ch->config.ctx);
    }
    pthread_mutex_unlock(&ch->lock);
    if (wake)
        pthread_cond_signal(&ch->not_full);
    if (st == ZKPIPE_OK)
        *out = item;
    return st;
}

zkpipe_status zkpipe_chan_recv(zkpipe_chan *ch, void **out)
{
    return recv_item(ch, out, ZKPIPE__WAIT_BLOCK, 0);
}

zkpipe_status zkpipe_chan_try_recv(zkpipe_chan *ch, void **out)
{
    return recv_item(ch, out, ZKPIPE__WAIT_TRY, 0);
}

zkpipe_status zkpipe_chan_recv_timed(zkpipe_chan *ch, void **out, uint64_t timeout_ns)
{
    return recv_item(ch, out, ZKPIPE__WAIT_TIMED, timeout_ns);
}

void zkpipe_chan_close(zkpipe_chan *ch)
{
    if (ch == NULL)
        return;
    pthread_mutex_lock(&ch->lock);
    ch->closed = true;
    pthread_cond_broadcast(&ch->not_full);
    pthread_cond_broadcast(&ch->not_empty);
    pthread_mutex_unlock(&ch->lock);
}

uint64_t zkpipe_chan_clear(zkpipe_chan *ch)
{
    if (ch == NULL)
        return 0;
    uint64_t dropped = 0;
    /* One item per lock hold, so the destructor runs without the lock. */
    for (;;) {
        pthread_mutex_lock(&ch->lock);
        void *item = NULL;
        bool wake = false;
        if (ch->count > 0) {
            item = pop(ch, &wake);
            ch->counters.dropped++;
            zkpipe_ledger_close(ledger_of(ch, item));
        }
        pthread_mutex_unlock(&ch->lock);
        if (wake)
            pthread_cond_signal(&ch->not_full);
        if (item == NULL)
            return dropped;
        dropped++;
        if (ch->config.destroy_item != NULL)
            ch->config.destroy_item(item, ch->config.ctx);
    }
}

zkpipe_status zkpipe_chan_stats(zkpipe_chan *ch, zkpipe_chan_counters *out)
{
    if (ch == NULL || out == NULL)
        return ZKPIPE_EINVAL;
    pthread_mutex_lock(&ch->lock);
    *out = ch->counters;
    out->queued = ch->count;
    out->capacity = ch->config.capacity;
    out->closed = ch->closed;
    pthread_mutex_unlock(&ch->lock);
    return ZKPIPE_OK;
}
