/* The bounded channel: arguments, allocation failures, FIFO order, timeouts, the ledger moves
 * and permit hand-over on delivery, hooks, close, and dropping items on clear/destroy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#include <cmocka.h>

#include "fail_alloc.h"
#include "fail_pthread.h"
#include "nap.h"
#include "zkpipe/chan.h"

typedef struct item {
    zkpipe_ledger ledger;
    int id;
    int destroyed;
} item;

static zkpipe_ledger *item_ledger(void *it, void *ctx)
{
    (void)ctx;
    return &((item *)it)->ledger;
}

static void item_destroy(void *it, void *ctx)
{
    int *count = ctx;
    ((item *)it)->destroyed++;
    (*count)++;
}

static zkpipe_chan_counters stats_of(zkpipe_chan *ch)
{
    zkpipe_chan_counters c;
    assert_int_equal(zkpipe_chan_stats(ch, &c), ZKPIPE_OK);
    assert_int_equal(c.sent, c.received + c.dropped + c.queued);
    return c;
}

static zkpipe_chan *make_chan(size_t capacity, int *destroyed)
{
    zkpipe_chan_config cfg;
    zkpipe_chan_config_init(&cfg, capacity);
    cfg.ledger_of = item_ledger;
    cfg.destroy_item = item_destroy;
    cfg.ctx = destroyed;
    zkpipe_chan *ch = NULL;
    assert_int_equal(zkpipe_chan_create(&ch, &cfg), ZKPIPE_OK);
    return ch;
}

/* A channel of unaccounted items with no callbacks. */
static zkpipe_chan *make_plain_chan(size_t capacity)
{
    zkpipe_chan_config cfg;
    zkpipe_chan_config_init(&cfg, capacity);
    zkpipe_chan *ch = NULL;
    assert_int_equal(zkpipe_chan_create(&ch, &cfg), ZKPIPE_OK);
    return ch;
}

/* Opens the item's ledger in SYNTH, charges it and moves it to PENDING, as a producer does. */
static void synthesize(item *it, zkpipe_acct *acct, int id)
{
    it->id = id;
    it->destroyed = 0;
    assert_int_equal(zkpipe_ledger_open(&it->ledger, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&it->ledger, ZKPIPE_KIND_ABC, 4096), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_move(&it->ledger, ZKPIPE_STAGE_PENDING), ZKPIPE_OK);
}

/* Live items and bytes of `stage` in a snapshot of `acct` (stage ZKPIPE_STAGE_MAX: totals). */
static uint64_t live_items(zkpipe_acct *acct, uint32_t stage, uint64_t *bytes)
{
    zkpipe_snapshot s;
    assert_int_equal(zkpipe_acct_snapshot(acct, &s), ZKPIPE_OK);
    if (stage == ZKPIPE_STAGE_MAX) {
        *bytes = s.live_bytes;
        return s.live_items;
    }
    *bytes = s.stage[stage].live_bytes;
    return s.stage[stage].live_items;
}

/* A registry, a one-unit partition semaphore and a channel of accounted items. */
typedef struct fixture {
    zkpipe_acct *acct;
    zkpipe_sem *sem;
    zkpipe_chan *ch;
    int destroyed;
} fixture;

static void fixture_open(fixture *f, size_t capacity)
{
    assert_int_equal(zkpipe_acct_create(NULL, &f->acct), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_create(&f->sem, 1, NULL), ZKPIPE_OK);
    f->destroyed = 0;
    f->ch = make_chan(capacity, &f->destroyed);
}

static void fixture_close(fixture *f)
{
    zkpipe_chan_destroy(f->ch);
    zkpipe_sem_destroy(f->sem);
    zkpipe_acct_destroy(f->acct);
}

static void config_defaults_and_bad_arguments(void **state)
{
    (void)state;
    zkpipe_chan_config cfg;
    zkpipe_chan_config_init(&cfg, 3);
    zkpipe_chan_config_init(NULL, 3);
    assert_int_equal(cfg.capacity, 3);
    assert_int_equal(cfg.recv_stage, ZKPIPE_STAGE_PROVING);
    assert_null(cfg.ledger_of);
    assert_null(cfg.allocator);

    zkpipe_chan *ch = NULL;
    assert_int_equal(zkpipe_chan_create(NULL, &cfg), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_chan_create(&ch, NULL), ZKPIPE_EINVAL);
    cfg.capacity = 0;
    assert_int_equal(zkpipe_chan_create(&ch, &cfg), ZKPIPE_EINVAL);
    cfg.capacity = SIZE_MAX;
    assert_int_equal(zkpipe_chan_create(&ch, &cfg), ZKPIPE_EOVERFLOW);
    cfg.capacity = 3;
    cfg.recv_stage = ZKPIPE_STAGE_MAX;
    assert_int_equal(zkpipe_chan_create(&ch, &cfg), ZKPIPE_EINVAL);
    cfg.recv_stage = ZKPIPE_STAGE_PROVING;
    zkpipe_allocator half = {NULL, NULL, NULL};
    cfg.allocator = &half;
    assert_int_equal(zkpipe_chan_create(&ch, &cfg), ZKPIPE_EINVAL);
    assert_null(ch);

    zkpipe_chan_destroy(NULL);
    zkpipe_chan_close(NULL);
    assert_int_equal(zkpipe_chan_clear(NULL), 0);
    zkpipe_chan_counters c;
    assert_int_equal(zkpipe_chan_stats(NULL, &c), ZKPIPE_EINVAL);

    int destroyed = 0, x = 1;
    void *out;
    ch = make_chan(1, &destroyed);
    assert_int_equal(zkpipe_chan_stats(ch, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_chan_send(NULL, &x, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_chan_send(ch, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_chan_try_send(ch, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_chan_send_timed(NULL, &x, NULL, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_chan_recv(NULL, &out), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_chan_recv(ch, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_chan_try_recv(ch, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_chan_recv_timed(NULL, &out, 1), ZKPIPE_EINVAL);
    assert_int_equal(stats_of(ch).sent, 0);
    zkpipe_chan_destroy(ch);
}

static int create_attempt(void *arg, const zkpipe_allocator *a)
{
    zkpipe_chan_config cfg;
    zkpipe_chan_config_init(&cfg, 64);
    cfg.allocator = a;
    return zkpipe_chan_create(arg, &cfg);
}

static void create_cleanup(void *arg)
{
    zkpipe_chan **ch = arg;
    zkpipe_chan_destroy(*ch);
    *ch = NULL;
}

static void create_survives_every_allocation_failure(void **state)
{
    (void)state;
    zkpipe_chan *ch = NULL;
    assert_int_equal(fail_alloc_walk(create_attempt, create_cleanup, &ch), 1);
    assert_null(ch);
}

static void create_survives_every_pthread_failure(void **state)
{
    (void)state;
    zkpipe_chan *ch = NULL;
    /* The mutex, then two condition variables of three calls each. */
    assert_int_equal(fail_pthread_walk(create_attempt, create_cleanup, &ch, ZKPIPE_OK), 7);
    assert_null(ch);
}

static void items_come_out_in_order_and_full_or_empty_wait(void **state)
{
    (void)state;
    zkpipe_chan *ch = make_plain_chan(3);
    int v[8];
    void *out = NULL;
    assert_int_equal(zkpipe_chan_try_recv(ch, &out), ZKPIPE_EAGAIN);
    assert_int_equal(zkpipe_chan_recv_timed(ch, &out, 1000000), ZKPIPE_ETIMEDOUT);
    assert_null(out);
    /* Several laps round the ring. */
    for (int lap = 0; lap < 3; lap++) {
        assert_int_equal(zkpipe_chan_send(ch, &v[0], NULL), ZKPIPE_OK);
        assert_int_equal(zkpipe_chan_try_send(ch, &v[1], NULL), ZKPIPE_OK);
        assert_int_equal(zkpipe_chan_send_timed(ch, &v[2], NULL, 1000), ZKPIPE_OK);
        assert_int_equal(zkpipe_chan_try_send(ch, &v[3], NULL), ZKPIPE_EAGAIN);
        assert_int_equal(zkpipe_chan_send_timed(ch, &v[3], NULL, 1000000), ZKPIPE_ETIMEDOUT);
        assert_int_equal(zkpipe_chan_send_timed(ch, &v[3], NULL, 0), ZKPIPE_ETIMEDOUT);
        assert_int_equal(stats_of(ch).queued, 3);
        assert_int_equal(zkpipe_chan_recv(ch, &out), ZKPIPE_OK);
        assert_ptr_equal(out, &v[0]);
        assert_int_equal(zkpipe_chan_try_recv(ch, &out), ZKPIPE_OK);
        assert_ptr_equal(out, &v[1]);
        assert_int_equal(zkpipe_chan_recv_timed(ch, &out, 1000), ZKPIPE_OK);
        assert_ptr_equal(out, &v[2]);
    }
    zkpipe_chan_counters c = stats_of(ch);
    assert_int_equal(c.sent, 9);
    assert_int_equal(c.received, 9);
    assert_int_equal(c.queued, 0);
    assert_int_equal(c.capacity, 3);
    zkpipe_chan_destroy(ch);
}

static void delivery_moves_the_ledger_then_releases_the_permit(void **state)
{
    (void)state;
    fixture f;
    fixture_open(&f, 2);
    item it;
    zkpipe_permit permit;
    assert_int_equal(zkpipe_sem_acquire(f.sem, &permit, 1), ZKPIPE_OK);
    synthesize(&it, f.acct, 1);
    uint64_t bytes;
    assert_int_equal(live_items(f.acct, ZKPIPE_STAGE_PENDING, &bytes), 1);
    assert_int_equal(zkpipe_chan_send(f.ch, &it, &permit), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_stage(&it.ledger), ZKPIPE_STAGE_QUEUED);
    assert_int_equal(live_items(f.acct, ZKPIPE_STAGE_PENDING, &bytes), 0);
    assert_int_equal(live_items(f.acct, ZKPIPE_STAGE_QUEUED, &bytes), 1);
    assert_int_equal(bytes, 4096);
    assert_null(permit.sem);
    assert_false(zkpipe_permit_is_held(&permit));
    assert_int_equal(zkpipe_sem_available(f.sem), 1);
    /* The emptied permit is harmless to release again. */
    assert_int_equal(zkpipe_permit_release(&permit), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_available(f.sem), 1);

    void *out;
    assert_int_equal(zkpipe_chan_recv(f.ch, &out), ZKPIPE_OK);
    assert_ptr_equal(out, &it);
    assert_int_equal(zkpipe_ledger_stage(&it.ledger), ZKPIPE_STAGE_PROVING);
    assert_int_equal(live_items(f.acct, ZKPIPE_STAGE_QUEUED, &bytes), 0);
    assert_int_equal(live_items(f.acct, ZKPIPE_STAGE_PROVING, &bytes), 1);
    assert_int_equal(bytes, 4096);
    zkpipe_ledger_close(&it.ledger);
    assert_int_equal(f.destroyed, 0);
    fixture_close(&f);
}

static void send_refuses_bad_ledgers_and_released_permits(void **state)
{
    (void)state;
    fixture f;
    fixture_open(&f, 2);

    item closed = {0};
    assert_int_equal(zkpipe_chan_send(f.ch, &closed, NULL), ZKPIPE_EINVAL);

    item it;
    synthesize(&it, f.acct, 1);
    zkpipe_permit permit;
    assert_int_equal(zkpipe_sem_acquire(f.sem, &permit, 1), ZKPIPE_OK);
    zkpipe_permit released = permit;
    assert_int_equal(zkpipe_permit_release(&released), ZKPIPE_OK);
    assert_int_equal(zkpipe_chan_send(f.ch, &it, &released), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_ledger_stage(&it.ledger), ZKPIPE_STAGE_PENDING);
    assert_int_equal(stats_of(f.ch).sent, 0);

    /* A receive stage the item's registry does not know is refused before delivery. */
    zkpipe_chan_config cfg;
    zkpipe_chan_config_init(&cfg, 1);
    cfg.ledger_of = item_ledger;
    cfg.recv_stage = ZKPIPE_STAGE_MAX - 1;
    zkpipe_chan *custom;
    assert_int_equal(zkpipe_chan_create(&custom, &cfg), ZKPIPE_OK);
    assert_int_equal(zkpipe_chan_send(custom, &it, NULL), ZKPIPE_EINVAL);
    zkpipe_chan_destroy(custom);

    uint32_t stage;
    assert_int_equal(zkpipe_acct_register_stage(f.acct, "verify", &stage), ZKPIPE_OK);
    cfg.recv_stage = stage;
    assert_int_equal(zkpipe_chan_create(&custom, &cfg), ZKPIPE_OK);
    assert_int_equal(zkpipe_chan_send(custom, &it, NULL), ZKPIPE_OK);
    void *out;
    assert_int_equal(zkpipe_chan_recv(custom, &out), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_stage(&it.ledger), stage);
    zkpipe_chan_destroy(custom);

    zkpipe_ledger_close(&it.ledger);
    fixture_close(&f);
}

typedef struct hook_log {
    int sends, recvs;
    int bad; /* a hook saw the ledger in the wrong stage or an unexpected item */
    void *last;
} hook_log;

static void on_send(void *it, void *ctx)
{
    hook_log *log = ctx;
    log->sends++;
    log->last = it;
    if (zkpipe_ledger_stage(&((item *)it)->ledger) != ZKPIPE_STAGE_QUEUED)
        log->bad++;
}

static void on_recv(void *it, void *ctx)
{
    hook_log *log = ctx;
    log->recvs++;
    log->last = it;
    if (zkpipe_ledger_stage(&((item *)it)->ledger) != ZKPIPE_STAGE_FINALIZE)
        log->bad++;
}

static void hooks_see_the_item_after_its_ledger_moved(void **state)
{
    (void)state;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    hook_log log = {0};
    zkpipe_chan_config cfg;
    zkpipe_chan_config_init(&cfg, 4);
    cfg.ledger_of = item_ledger;
    cfg.on_send = on_send;
    cfg.on_recv = on_recv;
    cfg.recv_stage = ZKPIPE_STAGE_FINALIZE;
    cfg.ctx = &log;
    zkpipe_chan *ch;
    assert_int_equal(zkpipe_chan_create(&ch, &cfg), ZKPIPE_OK);
    item a, b;
    synthesize(&a, acct, 1);
    synthesize(&b, acct, 2);
    assert_int_equal(zkpipe_chan_send(ch, &a, NULL), ZKPIPE_OK);
    assert_ptr_equal(log.last, &a);
    assert_int_equal(zkpipe_chan_send(ch, &b, NULL), ZKPIPE_OK);
    assert_ptr_equal(log.last, &b);
    void *out;
    assert_int_equal(zkpipe_chan_recv(ch, &out), ZKPIPE_OK);
    assert_ptr_equal(log.last, &a);
    assert_int_equal(log.sends, 2);
    assert_int_equal(log.recvs, 1);
    assert_int_equal(log.bad, 0);
    zkpipe_ledger_close(&a.ledger);
    /* No destructor configured: the caller still gets b's ledger closed by the drop. */
    assert_int_equal(zkpipe_chan_clear(ch), 1);
    assert_false(zkpipe_ledger_is_open(&b.ledger));
    zkpipe_chan_destroy(ch);
    zkpipe_acct_destroy(acct);
}

typedef struct sender {
    zkpipe_chan *ch;
    item *it;
    zkpipe_permit *permit;
    zkpipe_status status;
    pthread_t thread;
} sender;

static void *sender_main(void *arg)
{
    sender *s = arg;
    s->status = zkpipe_chan_send(s->ch, s->it, s->permit);
    return NULL;
}

typedef struct receiver {
    zkpipe_chan *ch;
    void *out;
    zkpipe_status status;
    pthread_t thread;
} receiver;

static void *receiver_main(void *arg)
{
    receiver *r = arg;
    r->status = zkpipe_chan_recv(r->ch, &r->out);
    return NULL;
}

static void close_hands_back_blocked_sends_and_drains(void **state)
{
    (void)state;
    fixture f;
    fixture_open(&f, 1);

    item queued, blocked;
    synthesize(&queued, f.acct, 1);
    synthesize(&blocked, f.acct, 2);
    assert_int_equal(zkpipe_chan_send(f.ch, &queued, NULL), ZKPIPE_OK);
    zkpipe_permit permit;
    assert_int_equal(zkpipe_sem_acquire(f.sem, &permit, 1), ZKPIPE_OK);
    sender s = {.ch = f.ch, .it = &blocked, .permit = &permit, .status = ZKPIPE_OK};
    assert_int_equal(pthread_create(&s.thread, NULL, sender_main, &s), 0);
    while (stats_of(f.ch).waiting_senders != 1)
        nap_ms(1);
    zkpipe_chan_close(f.ch);
    pthread_join(s.thread, NULL);
    /* Refused: the sender keeps its item, its ledger where it was and its permit. */
    assert_int_equal(s.status, ZKPIPE_ECLOSED);
    assert_true(zkpipe_permit_is_held(&permit));
    assert_int_equal(zkpipe_sem_available(f.sem), 0);
    assert_int_equal(zkpipe_ledger_stage(&blocked.ledger), ZKPIPE_STAGE_PENDING);
    assert_int_equal(zkpipe_chan_send(f.ch, &blocked, &permit), ZKPIPE_ECLOSED);
    assert_int_equal(zkpipe_chan_try_send(f.ch, &blocked, &permit), ZKPIPE_ECLOSED);
    assert_int_equal(zkpipe_chan_send_timed(f.ch, &blocked, &permit, 1000), ZKPIPE_ECLOSED);
    assert_true(zkpipe_permit_is_held(&permit));
    assert_int_equal(zkpipe_permit_release(&permit), ZKPIPE_OK);

    /* Receivers drain what was queued before close, then learn it is closed. */
    void *out;
    assert_int_equal(zkpipe_chan_recv(f.ch, &out), ZKPIPE_OK);
    assert_ptr_equal(out, &queued);
    assert_int_equal(zkpipe_chan_recv(f.ch, &out), ZKPIPE_ECLOSED);
    assert_int_equal(zkpipe_chan_try_recv(f.ch, &out), ZKPIPE_ECLOSED);
    assert_int_equal(zkpipe_chan_recv_timed(f.ch, &out, 1000), ZKPIPE_ECLOSED);
    zkpipe_chan_counters c = stats_of(f.ch);
    assert_int_equal(c.sent, 1);
    assert_int_equal(c.received, 1);
    assert_int_equal(c.closed, 1);
    assert_int_equal(c.waiting_senders, 0);
    zkpipe_chan_close(f.ch);
    assert_int_equal(f.destroyed, 0);

    zkpipe_ledger_close(&queued.ledger);
    zkpipe_ledger_close(&blocked.ledger);
    fixture_close(&f);
}

static void close_wakes_blocked_receivers(void **state)
{
    (void)state;
    zkpipe_chan *ch = make_plain_chan(2);
    receiver r[2];
    for (int i = 0; i < 2; i++) {
        r[i] = (receiver){.ch = ch, .status = ZKPIPE_OK};
        assert_int_equal(pthread_create(&r[i].thread, NULL, receiver_main, &r[i]), 0);
    }
    while (stats_of(ch).waiting_receivers != 2)
        nap_ms(1);
    zkpipe_chan_close(ch);
    for (int i = 0; i < 2; i++) {
        pthread_join(r[i].thread, NULL);
        assert_int_equal(r[i].status, ZKPIPE_ECLOSED);
        assert_null(r[i].out);
    }
    zkpipe_chan_destroy(ch);
}

static void destroy_drops_items_and_closes_their_ledgers(void **state)
{
    (void)state;
    fixture f;
    fixture_open(&f, 4);
    item it[4];
    for (int i = 0; i < 4; i++) {
        synthesize(&it[i], f.acct, i);
        assert_int_equal(zkpipe_chan_send(f.ch, &it[i], NULL), ZKPIPE_OK);
    }
    void *out;
    assert_int_equal(zkpipe_chan_recv(f.ch, &out), ZKPIPE_OK);
    zkpipe_ledger_close(&it[0].ledger);
    uint64_t bytes;
    assert_int_equal(live_items(f.acct, ZKPIPE_STAGE_QUEUED, &bytes), 3);
    assert_int_equal(bytes, 3 * 4096);

    /* clear drops what is inside and leaves the channel usable. */
    assert_int_equal(zkpipe_chan_clear(f.ch), 3);
    zkpipe_chan_counters c = stats_of(f.ch);
    assert_int_equal(c.dropped, 3);
    assert_int_equal(c.queued, 0);
    assert_int_equal(f.destroyed, 3);
    for (int i = 1; i < 4; i++) {
        assert_int_equal(it[i].destroyed, 1);
        assert_false(zkpipe_ledger_is_open(&it[i].ledger));
    }
    assert_int_equal(live_items(f.acct, ZKPIPE_STAGE_MAX, &bytes), 0);
    assert_int_equal(bytes, 0);

    for (int i = 0; i < 2; i++) {
        synthesize(&it[i], f.acct, i);
        assert_int_equal(zkpipe_chan_send(f.ch, &it[i], NULL), ZKPIPE_OK);
    }
    assert_int_equal(live_items(f.acct, ZKPIPE_STAGE_MAX, &bytes), 2);
    zkpipe_chan_destroy(f.ch);
    f.ch = NULL;
    assert_int_equal(f.destroyed, 5);
    assert_false(zkpipe_ledger_is_open(&it[0].ledger));
    assert_false(zkpipe_ledger_is_open(&it[1].ledger));
    assert_int_equal(live_items(f.acct, ZKPIPE_STAGE_MAX, &bytes), 0);
    assert_int_equal(bytes, 0);
    fixture_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(config_defaults_and_bad_arguments),
        cmocka_unit_test(create_survives_every_allocation_failure),
        cmocka_unit_test(create_survives_every_pthread_failure),
        cmocka_unit_test(items_come_out_in_order_and_full_or_empty_wait),
        cmocka_unit_test(delivery_moves_the_ledger_then_releases_the_permit),
        cmocka_unit_test(send_refuses_bad_ledgers_and_released_permits),
        cmocka_unit_test(hooks_see_the_item_after_its_ledger_moved),
        cmocka_unit_test(close_hands_back_blocked_sends_and_drains),
        cmocka_unit_test(close_wakes_blocked_receivers),
        cmocka_unit_test(destroy_drops_items_and_closes_their_ledgers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
