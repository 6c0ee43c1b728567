/* G1 and G2 MSM timings on BLS12-381 and BN254, 1 thread and all threads: median milliseconds
 * of zkpipe__msm_<group> over random bases and random scalars below r, wall-clock and the
 * 1-thread run's CPU time (which a loaded machine disturbs less), and the 1-thread CPU time of
 * the plain sum without the endomorphism split (ZKPIPE__MSM_NO_ENDO) with the ratio of the two.
 *
 *   bench_msm [min_log_n [max_log_n [repetitions [threads [max_log_n_g2]]]]]
 *       defaults: 16 20 3 0 (0 = all) 18; G2 runs min_log_n..max_log_n_g2.
 *   bench_msm --windows [the same arguments]
 *       the window plan against every forced window instead (msm/plan.c's cost model): per
 *       size, the median wall time on `threads` threads of the plan's sum and of the sums
 *       with c = 4 .. 16 forced, the fastest c and the plan's time over the fastest.
 *
 * Each size is also checked: the 1-thread, many-thread and plain sums must agree; a mismatch
 * exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_bases.h"
#include "bench_stats.h"
#include "msm/msm.h"
#include "zkpipe/zkpipe.h"

#define LIMBS ZKPIPE__MSM_SCALAR_LIMBS

/* One group's entry points behind untyped pointers, so the driver is written once. */
typedef struct group_ops {
    const char *name;
    size_t affine_bytes;
    void (*fill_bases)(void *bases, size_t n);
    int (*run)(void *out, const void *bases, const uint64_t *k, size_t n, zkpipe_pool *pool,
               unsigned window, unsigned flags);
    int (*eq)(const void *a, const void *b);
    const uint64_t *modulus;
    int g2; /* runs up to max_log_n_g2 */
} group_ops;

#define GROUP_OPS(G, FR, G2)                                                                       \
    BENCH_DEFINE_BASES(G)                                                                          \
    static void G##_fill_bases(void *bases, size_t n)                                              \
    {                                                                                              \
        G##_bench_bases((G##_affine *)bases, n);                                                   \
    }                                                                                              \
    static int G##_run(void *out, const void *bases, const uint64_t *k, size_t n,                  \
                       zkpipe_pool *pool, unsigned window, unsigned flags)                         \
    {                                                                                              \
        zkpipe__msm_config cfg = {window, flags};                                                  \
        return zkpipe__msm_##G##_ex((G *)out, bases, k, NULL, n, &cfg, pool, NULL);                \
    }                                                                                              \
    static int G##_eq_void(const void *a, const void *b)                                           \
    {                                                                                              \
        return G##_eq(a, b);                                                                       \
    }                                                                                              \
    static const group_ops G##_ops = {                                                             \
        #G, sizeof(G##_affine), G##_fill_bases, G##_run, G##_eq_void, FR##_MODULUS, G2};

GROUP_OPS(bls12_381_g1, bls12_381_fr, 0)
GROUP_OPS(bn254_g1, bn254_fr, 0)
GROUP_OPS(bls12_381_g2, bls12_381_fr, 1)
GROUP_OPS(bn254_g2, bn254_fr, 1)

static double clock_ms(clockid_t clock)
{
    return bench_clock_ns(clock) / 1e6;
}

/* Median wall and CPU milliseconds over reps runs at `window` (0: the plan's); the last sum is
 * left in out. */
static void median_ms(double *wall, double *cpu, const group_ops *g, void *out, const void *bases,
                      const uint64_t *k, size_t n, zkpipe_pool *pool, unsigned window,
                      unsigned flags, int reps)
{
    double walls[64], cpus[64];
    for (int r = 0; r < reps; r++) {
        double w0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
        if (g->run(out, bases, k, n, pool, window, flags) != ZKPIPE_OK) {
            fprintf(stderr, "msm failed\n");
            exit(1);
        }
        walls[r] = clock_ms(CLOCK_MONOTONIC) - w0;
        cpus[r] = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
    }
    *wall = bench_median(walls, (size_t)reps);
    *cpu = bench_median(cpus, (size_t)reps);
}

/* Windows forced in --windows mode. */
#define SWEEP_MIN_WINDOW 4
#define SWEEP_MAX_WINDOW 16

/* --windows: one line per size, the plan's sum (window 0) first, each forced window's sum
 * checked against it. Returns 1 when one differs. */
static int window_sweep(const group_ops *g, void *bases, const uint64_t *k, unsigned log_n,
                        zkpipe_pool *pool, int reps)
{
    size_t n = (size_t)1 << log_n;
    uint64_t want[128], got[128];
    double wall, cpu, plan, best = 0;
    unsigned best_c = 0;
    /* one sum first, untimed: the first to allocate its scratch faults it in (and moves the C
     * library's mmap threshold), which the forced sums after it would not pay */
    median_ms(&plan, &cpu, g, want, bases, k, n, pool, 0, 0, 1);
    median_ms(&plan, &cpu, g, want, bases, k, n, pool, 0, 0, reps);
    printf("%-14s %6u  plan %9.3f ms  forced:", g->name, log_n, plan);
    for (unsigned c = SWEEP_MIN_WINDOW; c <= SWEEP_MAX_WINDOW; c++) {
        median_ms(&wall, &cpu, g, got, bases, k, n, pool, c, 0, reps);
        if (!g->eq(want, got)) {
            fprintf(stderr, "\n%s 2^%u: the sum at c = %u differs from the plan's\n", g->name,
                    log_n, c);
            return 1;
        }
        printf(" %u:%.3f", c, wall);
        if (best_c == 0 || wall < best) {
            best = wall;
            best_c = c;
        }
    }
    printf("  fastest c = %u, plan / fastest %.2f\n", best_c, plan / best);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    int windows = argc > 1 && strcmp(argv[1], "--windows") == 0;
    if (windows) {
        argc--;
        argv++;
    }
    unsigned lo = argc > 1 ? (unsigned)atoi(argv[1]) : 16;
    unsigned hi = argc > 2 ? (unsigned)atoi(argv[2]) : 20;
    int reps = argc > 3 ? atoi(argv[3]) : 3;
    unsigned threads = argc > 4 ? (unsigned)atoi(argv[4]) : 0;
    unsigned hi_g2 = argc > 5 ? (unsigned)atoi(argv[5]) : 18;
    const group_ops *groups[] = {&bls12_381_g1_ops, &bn254_g1_ops, &bls12_381_g2_ops,
                                 &bn254_g2_ops};
    zkpipe_pool *one = NULL, *all = NULL;
    if (lo > hi || hi > 26 || hi_g2 > hi || reps < 1 || reps > 64 ||
        zkpipe_pool_create(&one, 1, NULL) != ZKPIPE_OK ||
        zkpipe_pool_create(&all, threads, NULL) != ZKPIPE_OK) {
        fprintf(stderr, "usage: bench_msm [--windows] [min_log_n [max_log_n [repetitions "
                        "[threads [max_log_n_g2]]]]]\n");
        return 2;
    }
    size_t nmax = (size_t)1 << hi;
    uint64_t *k = malloc(nmax * LIMBS * sizeof *k);
    size_t affine_bytes = 0;
    for (size_t gi = 0; gi < sizeof groups / sizeof groups[0]; gi++)
        if (groups[gi]->affine_bytes > affine_bytes)
            affine_bytes = groups[gi]->affine_bytes;
    void *bases = malloc(nmax * affine_bytes);
    if (k == NULL || bases == NULL) {
        fprintf(stderr, "out of memory\n");
        return 2;
    }
    if (windows)
        printf("%-14s %6s  wall milliseconds (median of %d, %u threads)\n", "group", "log_n", reps,
               zkpipe_pool_threads(all));
    else
        printf("%-14s %6s %12s %12s %12s %8s %12s %7s  (median of %d, %u threads)\n", "group",
               "log_n", "1 thread", "1 thr. CPU", "all threads", "speedup", "plain CPU", "ratio",
               reps, zkpipe_pool_threads(all));
    for (size_t gi = 0; gi < sizeof groups / sizeof groups[0]; gi++) {
        const group_ops *g = groups[gi];
        uint64_t r1[128], rn[128], rp[128]; /* room for any Jacobian point */
        unsigned top = g->g2 ? hi_g2 : hi;
        g->fill_bases(bases, (size_t)1 << top);
        bench_fill_scalars(k, (size_t)1 << top, g->modulus);
        for (unsigned log_n = lo; log_n <= top; log_n++) {
            size_t n = (size_t)1 << log_n;
            double t1, c1, tn, cn, tp, cp;
            if (windows) {
                if (window_sweep(g, bases, k, log_n, all, reps) != 0)
                    return 1;
                continue;
            }
            median_ms(&t1, &c1, g, r1, bases, k, n, one, 0, 0, reps);
            median_ms(&tn, &cn, g, rn, bases, k, n, all, 0, 0, reps);
            median_ms(&tp, &cp, g, rp, bases, k, n, one, 0, ZKPIPE__MSM_NO_ENDO, reps);
            if (!g->eq(r1, rn) || !g->eq(r1, rp)) {
                fprintf(stderr, "%s 2^%u: the 1-thread, all-thread and plain sums differ\n",
                        g->name, log_n);
                return 1;
            }
            printf("%-14s %6u %9.3f ms %9.3f ms %9.3f ms %7.2fx %9.3f ms %6.2fx\n", g->name, log_n,
                   t1, c1, tn, t1 / tn, cp, c1 / cp);
            fflush(stdout);
        }
    }
    free(k);
    free(bases);
    zkpipe_pool_destroy(one);
    zkpipe_pool_destroy(all);
    return 0;
}
