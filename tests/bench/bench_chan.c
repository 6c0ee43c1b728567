/* Channel round trips per second (one send plus one receive): one thread sending and
 * receiving in turn (the bare cost, no waiting), 1 producer / 1 consumer and 4 / 4, with items that
 * carry no ledger and with ledgers the channel moves (QUEUED on delivery, PROVING on receive); then
 * ns per semaphore acquire + release. Prints the median of several repetitions; figures, not
 * assertions.
 *
 * usage: bench_chan [items per repetition, default 100000] [repetitions, default 7] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_stats.h"
#include "zkpipe/chan.h"

#define CAPACITY 64
#define MAX_THREADS 4

typedef struct run {
    zkpipe_chan *ch;
    zkpipe_ledger *ledgers; /* item i is &ledgers[i]; the pointer is the item */
    size_t items;
    int producers;
    int consumers;
    int failed;
} run;

typedef struct worker {
    run *r;
    size_t first, count; /* producer: the slice of items it sends */
} worker;

static zkpipe_ledger *item_is_ledger(void *item, void *ctx)
{
    (void)ctx;
    return item;
}

static void *produce(void *arg)
{
    worker *w = arg;
    for (size_t i = w->first; i < w->first + w->count; i++)
        if (zkpipe_chan_send(w->r->ch, &w->r->ledgers[i], NULL) != ZKPIPE_OK)
            w->r->failed = 1;
    return NULL;
}

static void *consume(void *arg)
{
    worker *w = arg;
    void *item;
    while (zkpipe_chan_recv(w->r->ch, &item) == ZKPIPE_OK)
        ;
    return NULL;
}

/* One timed repetition; returns round trips per second, or 0 on failure. */
static double round_trips(run *r, zkpipe_acct *acct, int accounted)
{
    zkpipe_chan_config cfg;
    zkpipe_chan_config_init(&cfg, CAPACITY);
    if (accounted)
        cfg.ledger_of = item_is_ledger;
    if (zkpipe_chan_create(&r->ch, &cfg) != ZKPIPE_OK)
        return 0;
    for (size_t i = 0; i < r->items; i++)
        if (zkpipe_ledger_open(&r->ledgers[i], acct, ZKPIPE_STAGE_PENDING) != ZKPIPE_OK)
            r->failed = 1;

    pthread_t prod[MAX_THREADS], cons[MAX_THREADS];
    worker pw[MAX_THREADS], cw[MAX_THREADS];
    size_t slice = r->producers > 0 ? r->items / (size_t)r->producers : r->items;
    double t0 = bench_clock_ns(CLOCK_MONOTONIC);
    for (size_t i = 0; r->producers == 0 && i < r->items; i++) {
        void *item;
        if (zkpipe_chan_send(r->ch, &r->ledgers[i], NULL) != ZKPIPE_OK ||
            zkpipe_chan_recv(r->ch, &item) != ZKPIPE_OK)
            r->failed = 1;
    }
    for (int i = 0; i < r->consumers; i++) {
        cw[i] = (worker){r, 0, 0};
        pthread_create(&cons[i], NULL, consume, &cw[i]);
    }
    for (int i = 0; i < r->producers; i++) {
        pw[i] = (worker){r, (size_t)i * slice, slice};
        pthread_create(&prod[i], NULL, produce, &pw[i]);
    }
    for (int i = 0; i < r->producers; i++)
        pthread_join(prod[i], NULL);
    zkpipe_chan_close(r->ch);
    for (int i = 0; i < r->consumers; i++)
        pthread_join(cons[i], NULL);
    double dt = (bench_clock_ns(CLOCK_MONOTONIC) - t0) * 1e-9;

    zkpipe_chan_counters c;
    zkpipe_chan_stats(r->ch, &c);
    if (c.received != (r->producers > 0 ? slice * (size_t)r->producers : r->items))
        r->failed = 1;
    zkpipe_chan_destroy(r->ch);
    for (size_t i = 0; i < r->items; i++)
        zkpipe_ledger_close(&r->ledgers[i]);
    return r->failed ? 0 : (double)c.received / dt;
}

/* Median ns per acquire + release of one unit, with `threads` threads competing for
 * `threads` units (no waiting, but a shared lock). */
typedef struct sem_worker {
    zkpipe_sem *sem;
    size_t rounds;
} sem_worker;

static void *sem_loop(void *arg)
{
    sem_worker *w = arg;
    zkpipe_permit p;
    for (size_t i = 0; i < w->rounds; i++) {
        if (zkpipe_sem_acquire(w->sem, &p, 1) != ZKPIPE_OK)
            break;
        zkpipe_permit_release(&p);
    }
    return NULL;
}

static double sem_ns(int threads, size_t rounds, int reps)
{
    double v[64];
    for (int k = 0; k < reps; k++) {
        zkpipe_sem *sem;
        if (zkpipe_sem_create(&sem, (uint64_t)threads, NULL) != ZKPIPE_OK)
            return 0;
        pthread_t t[MAX_THREADS];
        sem_worker w = {sem, rounds};
        double t0 = bench_clock_ns(CLOCK_MONOTONIC);
        for (int i = 0; i < threads; i++)
            pthread_create(&t[i], NULL, sem_loop, &w);
        for (int i = 0; i < threads; i++)
            pthread_join(t[i], NULL);
        v[k] = (bench_clock_ns(CLOCK_MONOTONIC) - t0) / (double)(rounds * (size_t)threads);
        zkpipe_sem_destroy(sem);
    }
    return bench_median(v, (size_t)reps);
}

int main(int argc, char **argv)
{
    size_t items = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    if (items < MAX_THREADS || reps < 1 || reps > 64) {
        fprintf(stderr, "usage: bench_chan [items >= %d] [repetitions 1..64]\n", MAX_THREADS);
        return 2;
    }
    zkpipe_acct *acct;
    run r = {0};
    r.items = items;
    r.ledgers = calloc(items, sizeof *r.ledgers);
    if (r.ledgers == NULL || zkpipe_acct_create(NULL, &acct) != ZKPIPE_OK)
        return 1;

    printf("channel capacity %d, %zu items x %d repetitions, medians\n", CAPACITY, items, reps);
    const int shapes[3] = {0, 1, 4}; /* 0: one thread, send then receive */
    for (int s = 0; s < 3; s++) {
        double v[2][64], rate[2];
        r.producers = r.consumers = shapes[s];
        /* Repetitions of the two modes alternate so that a noisy moment hits both alike. */
        for (int k = 0; k < reps; k++) {
            for (int accounted = 0; accounted < 2; accounted++) {
                v[accounted][k] = round_trips(&r, acct, accounted);
                if (r.failed) {
                    fprintf(stderr, "bench_chan: a run failed\n");
                    return 1;
                }
            }
        }
        rate[0] = bench_median(v[0], (size_t)reps);
        rate[1] = bench_median(v[1], (size_t)reps);
        if (shapes[s] == 0)
            printf("1 thread");
        else
            printf("%dP/%dC   ", shapes[s], shapes[s]);
        printf("  no ledger %10.0f round trips/s  ledger moves %10.0f round trips/s  "
               "accounting adds %+.1f %% per round trip\n",
               rate[0], rate[1], (rate[0] / rate[1] - 1) * 100);
    }
    printf("sem acquire+release, 1 thread:  %.1f ns\n", sem_ns(1, items * 10, reps));
    printf("sem acquire+release, 4 threads: %.1f ns\n", sem_ns(4, items * 2, reps));
    zkpipe_acct_destroy(acct);
    free(r.ledgers);
    return 0;
}
