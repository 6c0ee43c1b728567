/* Synthesis timings for the built-in test circuit on both curves: building the system with
 * its witness (zkpipe_testcircuit_build), then evaluating it into a, b, c, assignments and
 * density (zkpipe__synth) on 1 thread and on a pool; medians, per constraint, of wall time
 * and of process CPU time (on a loaded machine the CPU figure is the steadier one; on the pool
 * it sums the threads).
 *
 *   bench_synth [log_rows... ]   default: 16 20; repetitions 5; pool of 2 threads
 *
 * Each synthesis is also checked with zkpipe_cs_check first; a failure exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_stats.h"
#include "circuit/synth.h"
#include "zkpipe/testcircuit.h"
#include "zkpipe/zkpipe.h"

#define REPS 5
#define NUM_PUBLIC 4
#define POOL_THREADS 2

typedef struct timing {
    double wall, cpu; /* medians, ns */
} timing;

typedef struct stopwatch {
    double wall[REPS], cpu[REPS], wall0, cpu0;
} stopwatch;

static void start(stopwatch *sw)
{
    sw->wall0 = bench_clock_ns(CLOCK_MONOTONIC);
    sw->cpu0 = bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

static void stop(stopwatch *sw, int r)
{
    sw->wall[r] = bench_clock_ns(CLOCK_MONOTONIC) - sw->wall0;
    sw->cpu[r] = bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - sw->cpu0;
}

static timing medians(stopwatch *sw)
{
    timing t = {bench_median(sw->wall, REPS), bench_median(sw->cpu, REPS)};
    return t;
}

static timing synth_time(const zkpipe_cs *cs, zkpipe_pool *pool, int *bad)
{
    stopwatch sw;
    for (int r = 0; r < REPS; r++) {
        zkpipe__synth_result res;
        start(&sw);
        *bad |= zkpipe__synth(&res, cs, pool, NULL) != ZKPIPE_OK;
        stop(&sw, r);
        zkpipe__synth_free(&res);
    }
    return medians(&sw);
}

static int bench(zkpipe_curve curve, unsigned log_rows, zkpipe_pool *pool)
{
    stopwatch build;
    zkpipe_cs *cs = NULL;
    int bad = 0;
    for (int r = 0; r < REPS && !bad; r++) {
        zkpipe_cs_destroy(cs);
        cs = NULL;
        start(&build);
        bad |= zkpipe_cs_create(&cs, curve, ZKPIPE_CS_WITNESS, NULL) != ZKPIPE_OK ||
               zkpipe_testcircuit_build(cs, log_rows, 1, NUM_PUBLIC) != ZKPIPE_OK;
        stop(&build, r);
    }
    uint64_t bytes = 0;
    bad = bad || zkpipe_cs_check(cs, NULL) != ZKPIPE_OK ||
          zkpipe_cs_synth_bytes(cs, &bytes, NULL) != ZKPIPE_OK;
    if (bad) {
        fprintf(stderr, "%s 2^%u: build or check failed\n", zkpipe_curve_name(curve), log_rows);
        zkpipe_cs_destroy(cs);
        return 1;
    }
    double m = (double)zkpipe_cs_num_constraints(cs);
    timing b = medians(&build), one = synth_time(cs, NULL, &bad), many = synth_time(cs, pool, &bad);
    printf("%-9s 2^%-2u m %8.0f aux %8zu | ns/constraint wall (cpu): build %6.0f (%6.0f) "
           "synth 1 thr %6.0f (%6.0f) %u thr %6.0f (%6.0f) | bytes/constraint: synth %5.1f "
           "cs %5.1f\n",
           zkpipe_curve_name(curve), log_rows, m, zkpipe_cs_num_aux(cs), b.wall / m, b.cpu / m,
           one.wall / m, one.cpu / m, zkpipe_pool_threads(pool), many.wall / m, many.cpu / m,
           (double)bytes / m, (double)zkpipe_cs_sizeof(cs) / m);
    fflush(stdout);
    zkpipe_cs_destroy(cs);
    return bad;
}

int main(int argc, char **argv)
{
    unsigned logs[16] = {16, 20};
    int nlogs = 2;
    if (argc > 1) {
        nlogs = 0;
        for (int i = 1; i < argc && nlogs < 16; i++)
            logs[nlogs++] = (unsigned)atoi(argv[i]);
    }
    zkpipe_pool *pool;
    if (zkpipe_pool_create(&pool, POOL_THREADS, NULL) != ZKPIPE_OK) {
        fprintf(stderr, "pool creation failed\n");
        return 1;
    }
    int bad = 0;
    const zkpipe_curve curves[] = {ZKPIPE_CURVE_BLS12_381, ZKPIPE_CURVE_BN254};
    for (int c = 0; c < 2; c++) {
        for (int i = 0; i < nlogs; i++)
            bad |= bench(curves[c], logs[i], pool);
    }
    zkpipe_pool_destroy(pool);
    return bad;
}
