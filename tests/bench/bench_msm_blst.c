/* zkpipe's single-thread BLS12-381 MSMs against blst's blst_p1s_mult_pippenger and
 * blst_p2s_mult_pippenger on the same points and scalars. Built only when CMake is given
 * -DBLST_DIR=<a built blst checkout> (its bindings/blst.h and libblst.a); blst itself is never
 * part of this repository.
 *
 *   bench_msm_blst [min_log_n [max_log_n [pairs [max_log_n_g2]]]]   defaults: 16 20 7 18
 *
 * Per size the two run in turn, zkpipe then blst, `pairs` times; each run is timed on the
 * process CPU clock (one thread, so a loaded machine disturbs it less than the wall clock).
 * Printed: the median of each, and the median of the per-pair ratios zkpipe / blst. The sums
 * are compared through their compressed encodings; a mismatch exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_bases.h"
#include "bench_stats.h"
#include "blst.h"
#include "ec/bls12_381_g1.h"
#include "ec/bls12_381_g2.h"
#include "msm/msm.h"
#include "zkpipe/zkpipe.h"

#define LIMBS ZKPIPE__MSM_SCALAR_LIMBS
#define MAX_PAIRS 64

/* Both libraries' view of one group: bases and sums in each one's types behind void pointers. */
typedef struct group {
    const char *name;
    size_t zk_affine, blst_affine, compressed;
    void (*fill)(void *zk, void *bl, size_t n);
    int (*run_zk)(uint8_t *out, const void *bases, const uint64_t *k, size_t n, zkpipe_pool *pool);
    size_t (*scratch_bytes)(size_t n);
    void (*run_blst)(uint8_t *out, const void *bases, const uint8_t *k, size_t n, void *scratch);
} group;

/* n points start + i·step, made by zkpipe and handed to blst through the uncompressed zcash
 * encoding, which both read. ZP: zkpipe's group, BP: blst's prefix. */
#define GROUP(ZP, BP, UNC, CMP)                                                                    \
    BENCH_DEFINE_BASES(ZP)                                                                         \
    static void ZP##_fill(void *zk, void *bl, size_t n)                                            \
    {                                                                                              \
        ZP##_affine *out = (ZP##_affine *)zk;                                                      \
        uint8_t enc[UNC];                                                                          \
        ZP##_bench_bases(out, n);                                                                  \
        for (size_t i = 0; i < n; i++) {                                                           \
            ZP##_to_uncompressed(enc, &out[i]);                                                    \
            if (BP##_deserialize(&((BP##_affine *)bl)[i], enc) != BLST_SUCCESS) {                  \
                fprintf(stderr, "blst refused a point\n");                                         \
                exit(2);                                                                           \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static int ZP##_run_zk(uint8_t *out, const void *bases, const uint64_t *k, size_t n,           \
                           zkpipe_pool *pool)                                                      \
    {                                                                                              \
        ZP sum;                                                                                    \
        ZP##_affine a;                                                                             \
        if (zkpipe__msm_##ZP(&sum, (const ZP##_affine *)bases, k, n, pool, NULL) != ZKPIPE_OK)     \
            return -1;                                                                             \
        ZP##_batch_to_affine(&a, &sum, 1);                                                         \
        ZP##_to_compressed(out, &a);                                                               \
        return 0;                                                                                  \
    }                                                                                              \
    static void ZP##_run_blst(uint8_t *out, const void *bases, const uint8_t *k, size_t n,         \
                              void *scratch)                                                       \
    {                                                                                              \
        const BP##_affine *points[2] = {(const BP##_affine *)bases, NULL};                         \
        const uint8_t *scalars[2] = {k, NULL};                                                     \
        BP sum;                                                                                    \
        BP##s_mult_pippenger(&sum, points, n, scalars, 255, (limb_t *)scratch);                    \
        BP##_compress(out, &sum);                                                                  \
    }                                                                                              \
    static const group ZP##_group = {#ZP,                                                          \
                                     sizeof(ZP##_affine),                                          \
                                     sizeof(BP##_affine),                                          \
                                     CMP,                                                          \
                                     ZP##_fill,                                                    \
                                     ZP##_run_zk,                                                  \
                                     BP##s_mult_pippenger_scratch_sizeof,                          \
                                     ZP##_run_blst};

GROUP(bls12_381_g1, blst_p1, 96, 48)
GROUP(bls12_381_g2, blst_p2, 192, 96)

/* The scalars as blst reads them: 32 little-endian bytes each. */
static void scalar_bytes(uint8_t *bytes, const uint64_t *k, size_t n)
{
    for (size_t i = 0; i < n * LIMBS; i++)
        for (int b = 0; b < 8; b++)
            bytes[8 * i + (size_t)b] = (uint8_t)(k[i] >> (8 * b));
}

static double cpu_ms(void)
{
    return bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID) / 1e6;
}

int main(int argc, char **argv)
{
    unsigned lo = argc > 1 ? (unsigned)atoi(argv[1]) : 16;
    unsigned hi = argc > 2 ? (unsigned)atoi(argv[2]) : 20;
    int pairs = argc > 3 ? atoi(argv[3]) : 7;
    unsigned hi_g2 = argc > 4 ? (unsigned)atoi(argv[4]) : 18;
    const group *groups[] = {&bls12_381_g1_group, &bls12_381_g2_group};
    zkpipe_pool *one = NULL;
    if (lo < 1 || lo > hi || hi > 24 || pairs < 1 || pairs > MAX_PAIRS ||
        zkpipe_pool_create(&one, 1, NULL) != ZKPIPE_OK) {
        fprintf(stderr, "usage: bench_msm_blst [min_log_n [max_log_n [pairs [max_log_n_g2]]]]\n");
        return 2;
    }
    size_t nmax = (size_t)1 << hi;
    uint64_t *k = malloc(nmax * LIMBS * sizeof *k);
    uint8_t *kb = malloc(nmax * 32);
    void *zk = malloc(nmax * sizeof(bls12_381_g2_affine));
    void *bl = malloc(nmax * sizeof(blst_p2_affine));
    if (k == NULL || kb == NULL || zk == NULL || bl == NULL) {
        fprintf(stderr, "out of memory\n");
        return 2;
    }
    bench_fill_scalars(k, nmax, bls12_381_fr_MODULUS);
    scalar_bytes(kb, k, nmax);
    printf("%-14s %6s %12s %12s %8s  (1 thread, CPU time, medians of %d pairs)\n", "group", "log_n",
           "zkpipe", "blst", "ratio", pairs);
    for (size_t gi = 0; gi < sizeof groups / sizeof groups[0]; gi++) {
        const group *g = groups[gi];
        unsigned top = g->blst_affine == sizeof(blst_p2_affine) && hi_g2 < hi ? hi_g2 : hi;
        if (top < lo)
            continue;
        g->fill(zk, bl, (size_t)1 << top);
        for (unsigned log_n = lo; log_n <= top; log_n++) {
            size_t n = (size_t)1 << log_n;
            double tz[MAX_PAIRS], tb[MAX_PAIRS], ratio[MAX_PAIRS];
            uint8_t ez[96], eb[96];
            void *scratch = malloc(g->scratch_bytes(n));
            if (scratch == NULL) {
                fprintf(stderr, "out of memory\n");
                return 2;
            }
            for (int r = 0; r < pairs; r++) {
                double t0 = cpu_ms();
                if (g->run_zk(ez, zk, k, n, one) != 0) {
                    fprintf(stderr, "zkpipe msm failed\n");
                    return 1;
                }
                double t1 = cpu_ms();
                g->run_blst(eb, bl, kb, n, scratch);
                double t2 = cpu_ms();
                tz[r] = t1 - t0;
                tb[r] = t2 - t1;
                ratio[r] = tz[r] / tb[r];
                if (memcmp(ez, eb, g->compressed) != 0) {
                    fprintf(stderr, "%s 2^%u: zkpipe and blst sums differ\n", g->name, log_n);
                    return 1;
                }
            }
            free(scratch);
            printf("%-14s %6u %9.1f ms %9.1f ms %7.3fx\n", g->name, log_n,
                   bench_median(tz, (size_t)pairs), bench_median(tb, (size_t)pairs),
                   bench_median(ratio, (size_t)pairs));
            fflush(stdout);
        }
    }
    free(k);
    free(kb);
    free(zk);
    free(bl);
    zkpipe_pool_destroy(one);
    return 0;
}
