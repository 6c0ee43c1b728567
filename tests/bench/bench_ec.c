/* Prints the cost of the curve operations per group: Jacobian add, mixed add, double, scalar
 * multiplication by a 255-bit scalar, batch normalisation per point, decoding with full
 * validation (the subgroup check dominates); bench_pairing covers pairings. Figures
 * are wall-clock on whatever machine runs this; they are not assertions. Usage: bench_ec
 * [iterations scale, default 1]. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_stats.h"
#include "ec/bls12_381_g1.h"
#include "ec/bls12_381_g2.h"
#include "ec/bn254_g1.h"
#include "ec/bn254_g2.h"

static double now(void)
{
    return bench_clock_ns(CLOCK_MONOTONIC) * 1e-9;
}

static void report(const char *group, const char *op, double seconds, long n)
{
    printf("%-14s %-22s %10.3f us/op  (%ld ops)\n", group, op, seconds / (double)n * 1e6, n);
}

#define BATCH 256

/* ENCODE(G, out) writes p's encoding; DECODE(G, p, in) decodes it. */
#define BENCH_GROUP(G, FR, ENC_BYTES, ENCODE, DECODE)                                              \
    static void bench_##G(long scale)                                                              \
    {                                                                                              \
        G##_affine g, a;                                                                           \
        G p, q, batch[BATCH];                                                                      \
        static G##_affine out[BATCH];                                                              \
        FR k;                                                                                      \
        uint8_t enc[ENC_BYTES];                                                                    \
        long n;                                                                                    \
        double t;                                                                                  \
        G##_generator(&g);                                                                         \
        G##_from_affine(&p, &g);                                                                   \
        FR##_set_one(&k);                                                                          \
        FR##_neg(&k, &k); /* r - 1: a full-length scalar */                                        \
        G##_dbl(&q, &p);                                                                           \
        G##_dbl(&q, &q);                                                                           \
        n = 20000 * scale;                                                                         \
        t = now();                                                                                 \
        for (long i = 0; i < n; i++)                                                               \
            G##_add(&q, &q, &p);                                                                   \
        report(#G, "add", now() - t, n);                                                           \
        t = now();                                                                                 \
        for (long i = 0; i < n; i++)                                                               \
            G##_add_affine(&q, &q, &g);                                                            \
        report(#G, "add_affine", now() - t, n);                                                    \
        t = now();                                                                                 \
        for (long i = 0; i < n; i++)                                                               \
            G##_dbl(&q, &q);                                                                       \
        report(#G, "dbl", now() - t, n);                                                           \
        n = 50 * scale;                                                                            \
        t = now();                                                                                 \
        for (long i = 0; i < n; i++)                                                               \
            G##_mul(&q, &q, &k);                                                                   \
        report(#G, "mul (255-bit scalar)", now() - t, n);                                          \
        for (int i = 0; i < BATCH; i++)                                                            \
            G##_add(&batch[i], i ? &batch[i - 1] : &q, &p);                                        \
        n = 20 * scale;                                                                            \
        t = now();                                                                                 \
        for (long i = 0; i < n; i++)                                                               \
            G##_batch_to_affine(out, batch, BATCH);                                                \
        report(#G, "batch_to_affine/point", now() - t, n * BATCH);                                 \
        G##_to_affine(&a, &q);                                                                     \
        ENCODE(G, enc, &a);                                                                        \
        n = 50 * scale;                                                                            \
        t = now();                                                                                 \
        for (long i = 0; i < n; i++)                                                               \
            if (DECODE(G, &a, enc) != ZKPIPE_OK)                                                   \
                abort();                                                                           \
        report(#G, "decode (validated)", now() - t, n);                                            \
    }

#define ENC_C(G, out, p) G##_to_compressed(out, p)
#define DEC_C(G, p, in) G##_from_compressed(p, in)
#define ENC_U(G, out, p) G##_to_uncompressed(out, p)
#define DEC_U(G, p, in) G##_from_uncompressed(p, in)

BENCH_GROUP(bls12_381_g1, bls12_381_fr, 48, ENC_C, DEC_C)
BENCH_GROUP(bls12_381_g2, bls12_381_fr, 96, ENC_C, DEC_C)
BENCH_GROUP(bn254_g1, bn254_fr, 64, ENC_U, DEC_U)
BENCH_GROUP(bn254_g2, bn254_fr, 128, ENC_U, DEC_U)

int main(int argc, char **argv)
{
    long scale = argc > 1 ? atol(argv[1]) : 1;
    if (scale < 1)
        scale = 1;
    bench_bls12_381_g1(scale);
    bench_bls12_381_g2(scale);
    bench_bn254_g1(scale);
    bench_bn254_g2(scale);
    return 0;
}
