/* What a zkey's subgroup checks cost at open: zkpipe_zkey_open with ZKPIPE_IO_DEFER_SUBGROUP
 * (canonical and on the curve only) against every check, in alternating rounds on one pool,
 * with the median wall and process CPU milliseconds of each, their difference (what the
 * subgroup checks add) and each round's ratio; then the batched check of each query section on
 * its own (the aligned points the deferred reader holds) and of the four G1 sections at once (as
 * the reader checks them), median wall and CPU milliseconds.
 *
 *   bench_zkey_open ZKEY [threads [rounds [deferred]]]   defaults: 2 threads (0 = every CPU),
 *                                                        5 rounds
 *
 * With the word `deferred` only the deferred opens are timed (what zkpipe-prove does without
 * --full-check): at 2^20 and above the full checks take minutes a round.
 *
 * Figures are wall-clock and CPU time on whatever machine runs this; they are not assertions.
 * Exits 1 when an open fails (a full check that refuses the key included). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arith/curve_ops.h"
#include "bench_stats.h"
#include "groth16/keys.h"
#include "zkpipe/zkpipe.h"

#define MAX_ROUNDS 64

static double ms(clockid_t clock)
{
    return bench_clock_ns(clock) / 1e6;
}

/* Opens `path` with `flags` into *z, *wall and *cpu its milliseconds; 0 on success, else 1 with
 * a line on stderr. */
static int open_key(zkpipe_zkey **z, double *wall, double *cpu, const char *path, unsigned flags,
                    zkpipe_pool *pool)
{
    zkpipe_io_options io;
    char detail[256] = "";
    zkpipe_io_options_init(&io);
    io.pool = pool;
    io.flags = flags;
    double w0 = ms(CLOCK_MONOTONIC), c0 = ms(CLOCK_PROCESS_CPUTIME_ID);
    zkpipe_status st = zkpipe_zkey_open(z, detail, sizeof detail, path, &io);
    *wall = ms(CLOCK_MONOTONIC) - w0;
    *cpu = ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (st == ZKPIPE_OK)
        return 0;
    fprintf(stderr, "bench_zkey_open: %s: %s\n", path, detail[0] ? detail : "open failed");
    return 1;
}

/* One timed open with `flags`, closed again; 0 on success. */
static int open_once(double *wall, double *cpu, const char *path, unsigned flags, zkpipe_pool *pool)
{
    zkpipe_zkey *z = NULL;
    if (open_key(&z, wall, cpu, path, flags, pool))
        return 1;
    zkpipe_zkey_destroy(z);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 5 || (argc == 5 && strcmp(argv[4], "deferred") != 0)) {
        fprintf(stderr, "usage: bench_zkey_open ZKEY [threads [rounds [deferred]]]\n");
        return 2;
    }
    int deferred_only = argc == 5;
    const char *path = argv[1];
    unsigned threads = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 2;
    int rounds = argc > 3 ? atoi(argv[3]) : 5;
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "bench_zkey_open: rounds must be 1 to %d\n", MAX_ROUNDS);
        return 2;
    }
    zkpipe_pool *pool = NULL;
    if (zkpipe_pool_create(&pool, threads, NULL) != ZKPIPE_OK) {
        fprintf(stderr, "bench_zkey_open: cannot create the pool\n");
        return 1;
    }
    double dw[MAX_ROUNDS], dc[MAX_ROUNDS], fw[MAX_ROUNDS], fc[MAX_ROUNDS], ratio[MAX_ROUNDS];
    double extra_w[MAX_ROUNDS], extra_c[MAX_ROUNDS];
    int bad = open_once(&dw[0], &dc[0], path, ZKPIPE_IO_DEFER_SUBGROUP, pool); /* warm-up */
    for (int i = 0; i < rounds && !bad; i++) {
        bad = open_once(&dw[i], &dc[i], path, ZKPIPE_IO_DEFER_SUBGROUP, pool);
        if (deferred_only) {
            if (!bad)
                printf("  round %d: deferred open %.1f ms wall, %.1f ms CPU\n", i + 1, dw[i],
                       dc[i]);
            continue;
        }
        bad = bad || open_once(&fw[i], &fc[i], path, 0, pool);
        ratio[i] = fw[i] / dw[i];
        extra_w[i] = fw[i] - dw[i];
        extra_c[i] = fc[i] - dc[i];
    }
    if (bad) {
        zkpipe_pool_destroy(pool);
        return 1;
    }
    if (deferred_only) {
        printf("%s, %u threads, %d rounds: open, deferred subgroup checks, median %.1f ms wall, "
               "%.1f ms CPU\n",
               path, zkpipe_pool_threads(pool), rounds, bench_median(dw, (size_t)rounds),
               bench_median(dc, (size_t)rounds));
        zkpipe_pool_destroy(pool);
        return 0;
    }
    printf("%s, %u threads, %d alternating rounds, medians:\n", path, zkpipe_pool_threads(pool),
           rounds);
    printf("  open, deferred subgroup checks  %9.1f ms wall  %9.1f ms CPU\n",
           bench_median(dw, (size_t)rounds), bench_median(dc, (size_t)rounds));
    printf("  open, every check               %9.1f ms wall  %9.1f ms CPU\n",
           bench_median(fw, (size_t)rounds), bench_median(fc, (size_t)rounds));
    printf("  the subgroup checks add         %9.1f ms wall  %9.1f ms CPU\n",
           bench_median(extra_w, (size_t)rounds), bench_median(extra_c, (size_t)rounds));
    printf("  full / deferred per round:");
    for (int i = 0; i < rounds; i++)
        printf(" %.2f", ratio[i]);
    printf("\n");

    /* Each query section's batched check on its own, from a deferred open's points. */
    zkpipe_zkey *z = NULL;
    double w_open, c_open;
    if (open_key(&z, &w_open, &c_open, path, ZKPIPE_IO_DEFER_SUBGROUP, pool)) {
        zkpipe_pool_destroy(pool);
        return 1;
    }
    const zkpipe_groth16_pk *pk = zkpipe_zkey_pk(z);
    zkpipe_zkey_info info;
    zkpipe_zkey_info_get(&info, z);
    const struct {
        const char *name;
        const uint64_t *p;
        size_t n;
        int g2;
    } sec[5] = {
        {"A (G1)", pk->a, info.num_vars, 0},
        {"B1 (G1)", pk->b1, info.num_vars, 0},
        {"B2 (G2)", pk->b2, info.num_vars, 1},
        {"C (G1)", pk->l, info.num_vars - info.num_public - 1, 0},
        {"H (G1)", pk->h, info.domain_size, 0},
    };
    /* runs 0..4: one section each; run 5: the G1 sections (all but B2) as one check */
    for (int s = 0; s < 6 && !bad; s++) {
        double w[MAX_ROUNDS], c[MAX_ROUNDS];
        const uint64_t *segs[4];
        size_t counts[4], nseg = 0, total = 0;
        for (int k = 0; k < 5; k++)
            if (s == 5 ? !sec[k].g2 : k == s) {
                segs[nseg] = sec[k].p;
                counts[nseg++] = sec[k].n;
                total += sec[k].n;
            }
        int g2 = s < 5 && sec[s].g2;
        for (int i = 0; i < rounds && !bad; i++) {
            int all = 0;
            double w0 = ms(CLOCK_MONOTONIC), c0 = ms(CLOCK_PROCESS_CPUTIME_ID);
            zkpipe_status st = pk->c->subgroup_batch(&all, segs, counts, nseg, g2, pool, NULL);
            w[i] = ms(CLOCK_MONOTONIC) - w0;
            c[i] = ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
            bad = st != ZKPIPE_OK || !all;
        }
        if (!bad)
            printf("  batched check of %-8s %7zu points  %9.1f ms wall  %9.1f ms CPU\n",
                   s == 5 ? "every G1" : sec[s].name, total, bench_median(w, (size_t)rounds),
                   bench_median(c, (size_t)rounds));
    }
    if (bad)
        fprintf(stderr, "bench_zkey_open: a section's batched check failed\n");
    zkpipe_zkey_destroy(z);
    zkpipe_pool_destroy(pool);
    return bad;
}
