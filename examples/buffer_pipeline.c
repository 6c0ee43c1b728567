/* The bare narrow waist, without the engine: producers fill buffers and send them through a
 * bounded channel to one slower consumer, holding a partition permit from before the buffer
 * exists until the channel has taken it. So items being filled, filled and waiting, or queued
 * never exceed permits + capacity, however slow the consumer: the invariant the engine is built
 * on (docs/ARCHITECTURE.md). Every buffer is charged to its item's ledger, and the channel
 * moves the ledger from stage to stage, so the registry shows where the bytes are.
 *
 *   zkpipe-example-buffer [ITEMS]
 *
 * Exits 0 when every item arrived whole, the bound held and nothing is left accounted. The full
 * program (--release early, metrics, traces, plots) is tools/zkpipe_buffer_pipeline.c. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "zkpipe/zkpipe.h"

#define PRODUCERS 4
#define PERMITS 2
#define CAPACITY 2
#define WORDS (128u * 1024u) /* 1 MiB of 64-bit words per item */

typedef struct item {
    zkpipe_ledger ledger; /* the channel moves it: SYNTH -> PENDING -> QUEUED -> PROVING */
    uint64_t n;
    uint64_t words[WORDS];
} item;

typedef struct pipeline {
    zkpipe_acct *acct;
    zkpipe_sem *permits;
    zkpipe_chan *ch;
    atomic_ulong next, in_flight, peak, bad;
    unsigned long items;
} pipeline;

static zkpipe_ledger *ledger_of(void *it, void *ctx)
{
    (void)ctx;
    return &((item *)it)->ledger;
}

/* Under the channel's lock, as the consumer takes the item: it has left the waist. */
static void on_recv(void *it, void *ctx)
{
    (void)it;
    atomic_fetch_sub(&((pipeline *)ctx)->in_flight, 1);
}

static void *producer(void *arg)
{
    pipeline *p = arg;
    for (unsigned long n; (n = atomic_fetch_add(&p->next, 1)) < p->items;) {
        zkpipe_permit permit;
        if (zkpipe_sem_acquire(p->permits, &permit, 1) != ZKPIPE_OK)
            break;
        unsigned long now = atomic_fetch_add(&p->in_flight, 1) + 1;
        for (unsigned long peak = atomic_load(&p->peak);
             now > peak && !atomic_compare_exchange_weak(&p->peak, &peak, now);)
            ;
        item *it = malloc(sizeof *it);
        zkpipe_status st = it != NULL ? zkpipe_ledger_open(&it->ledger, p->acct, ZKPIPE_STAGE_SYNTH)
                                      : ZKPIPE_ENOMEM;
        if (st == ZKPIPE_OK && (st = zkpipe_ledger_charge(&it->ledger, ZKPIPE_KIND_ABC,
                                                          sizeof it->words)) == ZKPIPE_OK) {
            it->n = n;
            for (uint64_t w = 0; w < WORDS; w++)
                it->words[w] = n ^ w;
            st = zkpipe_ledger_move(&it->ledger, ZKPIPE_STAGE_PENDING);
        }
        /* The permit goes with the item: the channel releases it once it holds the item. */
        if (st == ZKPIPE_OK)
            st = zkpipe_chan_send(p->ch, it, &permit);
        if (st != ZKPIPE_OK) {
            fprintf(stderr, "item %lu: %s\n", n, zkpipe_status_str(st));
            atomic_fetch_add(&p->bad, 1);
            atomic_fetch_sub(&p->in_flight, 1);
            if (it != NULL)
                zkpipe_ledger_close(&it->ledger);
            free(it);
            zkpipe_permit_release(&permit);
            break;
        }
    }
    return NULL;
}

static void *consumer(void *arg)
{
    pipeline *p = arg;
    void *v;
    while (zkpipe_chan_recv(p->ch, &v) == ZKPIPE_OK) {
        item *it = v;
        uint64_t x = 0, want = 0;
        for (uint64_t w = 0; w < WORDS; w++) {
            x ^= it->words[w];
            want ^= it->n ^ w;
        }
        struct timespec t = {0, 2000000}; /* slower than the producers: the waist fills */
        nanosleep(&t, NULL);
        if (x != want)
            atomic_fetch_add(&p->bad, 1);
        zkpipe_ledger_release(&it->ledger, ZKPIPE_KIND_ABC, sizeof it->words);
        zkpipe_ledger_close(&it->ledger);
        free(it);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pipeline p = {.items = argc > 1 ? strtoul(argv[1], NULL, 10) : 32};
    if (p.items == 0 || p.items > 100000) {
        fprintf(stderr, "usage: %s [ITEMS (1..100000)]\n", argv[0]);
        return 2;
    }
    zkpipe_chan_config cfg;
    zkpipe_chan_config_init(&cfg, CAPACITY);
    cfg.ledger_of = ledger_of;
    cfg.on_recv = on_recv;
    cfg.ctx = &p;
    if (zkpipe_acct_create(NULL, &p.acct) != ZKPIPE_OK ||
        zkpipe_sem_create(&p.permits, PERMITS, NULL) != ZKPIPE_OK ||
        zkpipe_chan_create(&p.ch, &cfg) != ZKPIPE_OK) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    pthread_t prod[PRODUCERS], cons;
    int started = 0, consuming = pthread_create(&cons, NULL, consumer, &p) == 0, ok = consuming;
    while (ok && started < PRODUCERS &&
           (ok = pthread_create(&prod[started], NULL, producer, &p) == 0))
        started++;
    for (int i = 0; i < started; i++)
        pthread_join(prod[i], NULL);
    zkpipe_chan_close(p.ch); /* the consumer drains what is queued, then its recv fails */
    if (consuming)
        pthread_join(cons, NULL);

    zkpipe_snapshot s;
    int left = zkpipe_acct_snapshot(p.acct, &s) != ZKPIPE_OK || s.live_bytes != 0;
    unsigned long peak = atomic_load(&p.peak);
    printf("%lu items; at most %lu in the waist (bound %d); peak accounted %llu bytes\n", p.items,
           peak, PERMITS + CAPACITY, (unsigned long long)s.peak_bytes);
    zkpipe_chan_destroy(p.ch);
    zkpipe_sem_destroy(p.permits);
    zkpipe_acct_destroy(p.acct);
    int good = ok && atomic_load(&p.bad) == 0 && peak <= PERMITS + CAPACITY && !left;
    if (!good)
        fprintf(stderr, "FAILED\n");
    return good ? 0 : 1;
}
