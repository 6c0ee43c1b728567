/* Costs of the accounting layer: ledger moves (uncontended and with two threads on one
 * registry), charge/release pairs and snapshots. Prints medians of several runs. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_stats.h"
#include "zkpipe/zkpipe.h"

#define RUNS 7
#define MOVES 2000000
#define SNAPSHOTS 20000

static void check(zkpipe_status rc, const char *what)
{
    if (rc != ZKPIPE_OK) {
        fprintf(stderr, "bench_acct: %s: %s\n", what, zkpipe_status_str(rc));
        exit(1);
    }
}

/* Opens `l` in synth with one buffer of each of the first `kinds` kinds. */
static void open_loaded(zkpipe_ledger *l, zkpipe_acct *acct, uint32_t kinds)
{
    check(zkpipe_ledger_open(l, acct, ZKPIPE_STAGE_SYNTH), "open");
    for (uint32_t k = 0; k < kinds; k++)
        check(zkpipe_ledger_charge(l, k, (uint64_t)1 << 30), "charge");
}

/* ns per move of `l` between stages `a` and `a + 1`, `n` times. */
static double time_moves(zkpipe_ledger *l, uint32_t a, long n)
{
    double t0 = bench_clock_ns(CLOCK_MONOTONIC);
    long failed = 0;
    for (long i = 0; i < n; i++)
        failed += zkpipe_ledger_move(l, a + (uint32_t)(i & 1)) != ZKPIPE_OK;
    double ns = (bench_clock_ns(CLOCK_MONOTONIC) - t0) / (double)n;
    return failed == 0 ? ns : -1.0;
}

static double moves_uncontended(uint32_t kinds)
{
    zkpipe_acct *acct;
    check(zkpipe_acct_create(NULL, &acct), "create");
    zkpipe_ledger l;
    open_loaded(&l, acct, kinds);
    double v[RUNS];
    for (int r = 0; r < RUNS; r++)
        v[r] = time_moves(&l, ZKPIPE_STAGE_QUEUED, MOVES);
    zkpipe_ledger_close(&l);
    zkpipe_acct_destroy(acct);
    return bench_median(v, RUNS);
}

typedef struct mover {
    zkpipe_acct *acct;
    uint32_t first_stage;
    double ns;
} mover;

static void *mover_main(void *arg)
{
    mover *m = arg;
    zkpipe_ledger l;
    open_loaded(&l, m->acct, 3);
    m->ns = time_moves(&l, m->first_stage, MOVES);
    zkpipe_ledger_close(&l);
    return NULL;
}

/* Both threads move between the same two stages (`shared`) or between stages of their own. */
static double moves_two_threads(int shared)
{
    zkpipe_acct *acct;
    check(zkpipe_acct_create(NULL, &acct), "create");
    double v[RUNS];
    for (int r = 0; r < RUNS; r++) {
        mover m[2] = {{acct, ZKPIPE_STAGE_QUEUED, 0},
                      {acct, shared ? ZKPIPE_STAGE_QUEUED : ZKPIPE_STAGE_SYNTH, 0}};
        pthread_t t[2];
        for (int i = 0; i < 2; i++)
            if (pthread_create(&t[i], NULL, mover_main, &m[i]) != 0)
                check(ZKPIPE_ETHREAD, "pthread_create");
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        v[r] = (m[0].ns + m[1].ns) / 2;
    }
    zkpipe_acct_destroy(acct);
    return bench_median(v, RUNS);
}

/* ns per charge or release; with `watch_us` > 0 a sampler trace watches the registry (one
 * sample at most every watch_us microseconds), the cost of zkpipe_trace_watch on the hot path. */
static double charge_release_pairs(uint32_t watch_us)
{
    zkpipe_acct *acct;
    check(zkpipe_acct_create(NULL, &acct), "create");
    zkpipe_trace *trace = NULL;
    if (watch_us > 0) {
        check(zkpipe_trace_open_sampler(&trace, NULL), "trace");
        check(zkpipe_trace_watch(trace, acct, watch_us), "watch");
    }
    zkpipe_ledger l;
    open_loaded(&l, acct, 3);
    double v[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_clock_ns(CLOCK_MONOTONIC);
        for (long i = 0; i < MOVES; i++) {
            if (zkpipe_ledger_charge(&l, ZKPIPE_KIND_H, 4096) == ZKPIPE_OK)
                zkpipe_ledger_release(&l, ZKPIPE_KIND_H, 4096);
        }
        v[r] = (bench_clock_ns(CLOCK_MONOTONIC) - t0) / (2.0 * MOVES);
    }
    zkpipe_ledger_close(&l);
    zkpipe_trace_close(trace);
    zkpipe_acct_destroy(acct);
    return bench_median(v, RUNS);
}

static double snapshots(void)
{
    zkpipe_acct *acct;
    check(zkpipe_acct_create(NULL, &acct), "create");
    zkpipe_ledger l;
    open_loaded(&l, acct, 3);
    static zkpipe_snapshot s;
    double v[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_clock_ns(CLOCK_MONOTONIC);
        for (long i = 0; i < SNAPSHOTS; i++)
            zkpipe_acct_snapshot(acct, &s);
        v[r] = (bench_clock_ns(CLOCK_MONOTONIC) - t0) / SNAPSHOTS;
    }
    zkpipe_ledger_close(&l);
    zkpipe_acct_destroy(acct);
    return bench_median(v, RUNS);
}

int main(void)
{
    printf("bench_acct: medians of %d runs\n", RUNS);
    printf("move, 1 kind charged, uncontended:     %7.1f ns\n", moves_uncontended(1));
    printf("move, 3 kinds charged, uncontended:    %7.1f ns\n", moves_uncontended(3));
    printf("move, 3 kinds, 2 threads, same stages: %7.1f ns per move per thread\n",
           moves_two_threads(1));
    printf("move, 3 kinds, 2 threads, own stages:  %7.1f ns per move per thread\n",
           moves_two_threads(0));
    printf("charge or release (pairs, 1 thread):   %7.1f ns\n", charge_release_pairs(0));
    printf("  the same, watched by a trace (10 ms): %7.1f ns\n", charge_release_pairs(10000));
    printf("  the same, watched by a trace (1 ms):  %7.1f ns\n", charge_release_pairs(1000));
    printf("snapshot (built-in kinds and stages):  %7.1f ns\n", snapshots());
    return 0;
}
