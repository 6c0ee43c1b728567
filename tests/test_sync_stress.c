/* Many producers and consumers through one channel with a partition semaphore and a ledger per
 * item, while a thread takes snapshots and checks conservation and the in-flight bound
 * (ARCHITECTURE.md invariants 1 and 2) on every one. Then the same traffic is cut by a close
 * and a destroy with items still inside: every item must end exactly once as received, handed
 * back to its producer, or dropped, and every counter must return to zero.
 *
 * Worker threads never call cmocka: they count failures and keep the first message, and the
 * main thread asserts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <sched.h>

#include <cmocka.h>

#include "sanitize.h"
#include "zkpipe/chan.h"

#define PRODUCERS 4
#define CONSUMERS 4
#define PERMITS 3
#define CAPACITY 4
#define ITEM_BYTES 4096u
/* Items per run: 1e6 (1e5 under sanitizers); `--light` (the variant the sanitizer runs keep)
 * moves 1e5 in every build. */
static uint32_t stress_items = 1000000u; /* main sets it */

/* How an item ended; each item must reach exactly one of these. */
enum fate { FATE_NONE, FATE_RECEIVED, FATE_REFUSED, FATE_DROPPED };

typedef struct item {
    zkpipe_ledger ledger;
    zkpipe_permit permit; /* used by odd items: a permit handed over inside its item */
    uint32_t seq;
} item;

typedef struct rig {
    zkpipe_acct *acct;
    zkpipe_sem *permits;
    zkpipe_chan *ch;
    uint32_t items;
    _Atomic uint32_t next_seq;
    _Atomic unsigned char *fate; /* per item, enum fate */
    uint64_t receive_limit;      /* consumers stop after this many receives */
    _Atomic uint64_t receive_claims;
    _Atomic bool stop_snapshots;
    _Atomic uint64_t snapshots;
    _Atomic uint64_t failures;
    _Atomic(const char *) first_failure;
} rig;

static void report(rig *r, const char *what)
{
    const char *none = NULL;
    atomic_compare_exchange_strong(&r->first_failure, &none, what);
    atomic_fetch_add(&r->failures, 1);
}

static void set_fate(rig *r, const item *it, enum fate f)
{
    unsigned char expected = FATE_NONE;
    if (it->seq >= r->items || !atomic_compare_exchange_strong(&r->fate[it->seq], &expected, f))
        report(r, "an item ended twice or has a bad sequence number");
}

static zkpipe_ledger *item_ledger(void *it, void *ctx)
{
    (void)ctx;
    return &((item *)it)->ledger;
}

static void drop_item(void *p, void *ctx)
{
    rig *r = ctx;
    item *it = p;
    if (zkpipe_ledger_is_open(&it->ledger))
        report(r, "a dropped item's ledger is still open");
    set_fate(r, it, FATE_DROPPED);
    free(it);
}

/* A refused item goes back the way it came: ledger closed, permit released, item freed. */
static void hand_back(rig *r, item *it, zkpipe_permit *permit)
{
    if (zkpipe_ledger_stage(&it->ledger) != ZKPIPE_STAGE_PENDING)
        report(r, "a refused item's ledger left PENDING");
    /* Ledger first: releasing the permit first would let a new item into SYNTH while this
     * one still counts as PENDING. */
    zkpipe_ledger_close(&it->ledger);
    if (!zkpipe_permit_is_held(permit) || zkpipe_permit_release(permit) != ZKPIPE_OK)
        report(r, "a refused send did not leave the permit held");
    set_fate(r, it, FATE_REFUSED);
    free(it);
}

static void *producer(void *arg)
{
    rig *r = arg;
    for (;;) {
        uint32_t seq = atomic_fetch_add(&r->next_seq, 1);
        if (seq >= r->items)
            return NULL;
        item *it = malloc(sizeof *it);
        if (it == NULL) {
            report(r, "malloc failed");
            return NULL;
        }
        /* Odd items carry their permit inside: a receiver may free it while send returns. */
        zkpipe_permit local, *permit = seq % 2 ? &it->permit : &local;
        if (zkpipe_sem_acquire(r->permits, permit, 1) != ZKPIPE_OK) {
            report(r, "acquire failed");
            free(it);
            return NULL;
        }
        it->seq = seq;
        if (zkpipe_ledger_open(&it->ledger, r->acct, ZKPIPE_STAGE_SYNTH) != ZKPIPE_OK ||
            zkpipe_ledger_charge(&it->ledger, ZKPIPE_KIND_ABC, ITEM_BYTES) != ZKPIPE_OK ||
            zkpipe_ledger_move(&it->ledger, ZKPIPE_STAGE_PENDING) != ZKPIPE_OK)
            report(r, "ledger open, charge or move failed");
        zkpipe_status st = zkpipe_chan_send(r->ch, it, permit);
        if (st == ZKPIPE_ECLOSED) {
            hand_back(r, it, permit);
        } else if (st != ZKPIPE_OK || (permit == &local && zkpipe_permit_is_held(&local))) {
            report(r, "send failed or kept the permit");
            return NULL;
        }
    }
}

static void *consumer(void *arg)
{
    rig *r = arg;
    while (atomic_fetch_add(&r->receive_claims, 1) < r->receive_limit) {
        void *p;
        zkpipe_status st;
        do
            st = zkpipe_chan_recv_timed(r->ch, &p, 10 * 1000 * 1000);
        while (st == ZKPIPE_ETIMEDOUT);
        if (st == ZKPIPE_ECLOSED)
            return NULL;
        if (st != ZKPIPE_OK) {
            report(r, "recv failed");
            return NULL;
        }
        item *it = p;
        if (zkpipe_ledger_stage(&it->ledger) != ZKPIPE_STAGE_PROVING)
            report(r, "a received ledger is not in PROVING");
        if (zkpipe_ledger_release(&it->ledger, ZKPIPE_KIND_ABC, ITEM_BYTES) != ZKPIPE_OK)
            report(r, "release failed");
        zkpipe_ledger_close(&it->ledger);
        set_fate(r, it, FATE_RECEIVED);
        free(it);
    }
    return NULL;
}

/* Invariants 1 and 2 as seen in one snapshot. */
static void check_snapshot(rig *r, const zkpipe_snapshot *s)
{
    const zkpipe_snapshot_stage *st = s->stage;
    uint64_t items = 0, bytes = 0;
    for (uint32_t i = 0; i < ZKPIPE_STAGE_MAX; i++) {
        items += st[i].live_items;
        bytes += st[i].live_bytes;
        if (st[i].entered - st[i].left != st[i].live_items)
            report(r, "entered - left != live in a stage");
    }
    if (items != s->live_items || bytes != s->live_bytes)
        report(r, "stage totals do not add up to the registry totals");
    /* Items past SYNTH carry exactly their charge until a consumer releases it. */
    for (uint32_t i = ZKPIPE_STAGE_PENDING; i <= ZKPIPE_STAGE_QUEUED; i++)
        if (st[i].live_bytes != st[i].live_items * ITEM_BYTES)
            report(r, "bytes in PENDING or QUEUED do not match their items");
    uint64_t waiting = st[ZKPIPE_STAGE_SYNTH].live_items + st[ZKPIPE_STAGE_PENDING].live_items;
    if (waiting > PERMITS)
        report(r, "more items in SYNTH + PENDING than permits");
    if (st[ZKPIPE_STAGE_QUEUED].live_items > CAPACITY)
        report(r, "more items QUEUED than channel slots");
    if (waiting + st[ZKPIPE_STAGE_QUEUED].live_items > PERMITS + CAPACITY)
        report(r, "in flight exceeds permits + capacity");
}

static void *snapshotter(void *arg)
{
    rig *r = arg;
    zkpipe_snapshot *s = malloc(sizeof *s);
    if (s == NULL) {
        report(r, "malloc failed");
        return NULL;
    }
    do {
        if (zkpipe_acct_snapshot(r->acct, s) != ZKPIPE_OK)
            report(r, "snapshot failed");
        check_snapshot(r, s);
        atomic_fetch_add(&r->snapshots, 1);
        /* Ledger calls wait while a snapshot copies; back to back, snapshots would starve
         * the workers on two cores. */
        struct timespec pause = {0, 100 * 1000};
        nanosleep(&pause, NULL);
    } while (!atomic_load(&r->stop_snapshots));
    free(s);
    return NULL;
}

static void rig_setup(rig *r, uint32_t items, uint64_t receive_limit)
{
    *r = (rig){.items = items, .receive_limit = receive_limit};
    r->fate = calloc(items, sizeof *r->fate);
    assert_non_null(r->fate);
    assert_int_equal(zkpipe_acct_create(NULL, &r->acct), ZKPIPE_OK);
    assert_int_equal(zkpipe_sem_create(&r->permits, PERMITS, NULL), ZKPIPE_OK);
    zkpipe_chan_config cfg;
    zkpipe_chan_config_init(&cfg, CAPACITY);
    cfg.ledger_of = item_ledger;
    cfg.destroy_item = drop_item;
    cfg.ctx = r;
    assert_int_equal(zkpipe_chan_create(&r->ch, &cfg), ZKPIPE_OK);
}

/* After all threads are gone: no failure reported, every item ended exactly once, and every
 * live counter is back to zero. Returns how many items ended with fate `f`. */
static uint64_t count_fate(const rig *r, enum fate f)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < r->items; i++)
        n += atomic_load(&r->fate[i]) == f;
    return n;
}

static void rig_check_and_teardown(rig *r)
{
    const char *first = atomic_load(&r->first_failure);
    if (first != NULL)
        print_error("first worker failure: %s\n", first);
    assert_int_equal(atomic_load(&r->failures), 0);
    assert_true(atomic_load(&r->snapshots) > 0);
    assert_int_equal(count_fate(r, FATE_NONE), 0);
    zkpipe_snapshot *s = malloc(sizeof *s);
    assert_non_null(s);
    assert_int_equal(zkpipe_acct_snapshot(r->acct, s), ZKPIPE_OK);
    assert_int_equal(s->live_items, 0);
    assert_int_equal(s->live_bytes, 0);
    for (uint32_t i = 0; i < ZKPIPE_STAGE_MAX; i++) {
        assert_int_equal(s->stage[i].live_items, 0);
        assert_int_equal(s->stage[i].live_bytes, 0);
    }
    assert_int_equal(s->stage[ZKPIPE_STAGE_SYNTH].entered, r->items);
    free(s);
    assert_int_equal(zkpipe_sem_available(r->permits), PERMITS);
    zkpipe_sem_destroy(r->permits);
    zkpipe_acct_destroy(r->acct);
    free((void *)r->fate);
}

static void start(pthread_t *t, void *(*fn)(void *), rig *r)
{
    assert_int_equal(pthread_create(t, NULL, fn, r), 0);
}

typedef struct crew {
    pthread_t producers[PRODUCERS], consumers[CONSUMERS], snapshotter;
} crew;

static void start_crew(crew *c, rig *r)
{
    start(&c->snapshotter, snapshotter, r);
    for (int i = 0; i < CONSUMERS; i++)
        start(&c->consumers[i], consumer, r);
    for (int i = 0; i < PRODUCERS; i++)
        start(&c->producers[i], producer, r);
}

static void join_all(pthread_t *t, int n)
{
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}

static void every_item_is_received_exactly_once(void **state)
{
    (void)state;
    rig r;
    rig_setup(&r, stress_items, UINT64_MAX);
    crew w;
    start_crew(&w, &r);
    join_all(w.producers, PRODUCERS);
    zkpipe_chan_close(r.ch);
    join_all(w.consumers, CONSUMERS);
    atomic_store(&r.stop_snapshots, true);
    pthread_join(w.snapshotter, NULL);

    zkpipe_chan_counters c;
    assert_int_equal(zkpipe_chan_stats(r.ch, &c), ZKPIPE_OK);
    assert_int_equal(c.sent, stress_items);
    assert_int_equal(c.received, stress_items);
    assert_int_equal(c.dropped, 0);
    assert_int_equal(count_fate(&r, FATE_RECEIVED), stress_items);
    zkpipe_chan_destroy(r.ch);
    rig_check_and_teardown(&r);
}

static void close_and_destroy_mid_traffic_lose_nothing(void **state)
{
    (void)state;
    /* Consumers stop on their own after `cut` items, so the channel fills up behind them. */
    const uint64_t cut = stress_items / 20;
    rig r;
    rig_setup(&r, stress_items / 4, cut);
    crew w;
    start_crew(&w, &r);
    /* Once the channel has filled behind the stopped consumers, close it under the
     * producers: blocked and later sends are handed back. */
    join_all(w.consumers, CONSUMERS);
    zkpipe_chan_counters c;
    do {
        sched_yield();
        assert_int_equal(zkpipe_chan_stats(r.ch, &c), ZKPIPE_OK);
    } while (c.queued < CAPACITY && atomic_load(&r.failures) == 0);
    zkpipe_chan_close(r.ch);
    join_all(w.producers, PRODUCERS);

    assert_int_equal(zkpipe_chan_stats(r.ch, &c), ZKPIPE_OK);
    assert_int_equal(c.received, cut);
    assert_int_equal(c.queued, CAPACITY);
    /* Destroyed with items inside while snapshots still run. */
    zkpipe_chan_destroy(r.ch);
    atomic_store(&r.stop_snapshots, true);
    pthread_join(w.snapshotter, NULL);

    uint64_t received = count_fate(&r, FATE_RECEIVED), dropped = count_fate(&r, FATE_DROPPED);
    assert_int_equal(received, c.received);
    assert_int_equal(dropped, c.queued);
    assert_int_equal(c.sent, received + dropped);
    assert_int_equal(count_fate(&r, FATE_REFUSED), r.items - c.sent);
    assert_true(count_fate(&r, FATE_REFUSED) > 0);
    rig_check_and_teardown(&r);
}

int main(int argc, char **argv)
{
    if (ZKPIPE_TEST_SANITIZED || (argc > 1 && strcmp(argv[1], "--light") == 0))
        stress_items = 100000u;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_item_is_received_exactly_once),
        cmocka_unit_test(close_and_destroy_mid_traffic_lose_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
