/* Costs of the pairings of BLS12-381 and BN254 (µs per Miller loop, final exponentiation,
 * pairing, G2 preparation and a four-pair prepared check as a Groth16 verifier runs it); the
 * point operations are in bench_ec. Prints the best of several runs. Usage: bench_pairing [scale],
 * scale multiplies the iteration counts (default 1). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_stats.h"
#include "ec/bls12_381_pairing.h"
#include "ec/bn254_pairing.h"

#define RUNS 5

static double now_ns(void)
{
    return bench_clock_ns(CLOCK_MONOTONIC);
}

/* The best over RUNS of the time per iteration of BODY run n times, in unit ns (1 or 1000):
 * on a shared machine the least disturbed run is the closest to the code's own cost. */
#define TIME(result, n, unit, BODY)                                                                \
    do {                                                                                           \
        (result) = 1e300;                                                                          \
        for (int r_ = 0; r_ < RUNS; r_++) {                                                        \
            double t0_ = now_ns();                                                                 \
            for (long i_ = 0; i_ < (n); i_++) {                                                    \
                BODY;                                                                              \
            }                                                                                      \
            double v_ = (now_ns() - t0_) / (double)(n) / (unit);                                   \
            if (v_ < (result))                                                                     \
                (result) = v_;                                                                     \
        }                                                                                          \
    } while (0)

/* Sink that keeps results observable so the loops are not optimised away. */
static volatile uint64_t sink;

#define BENCH_CURVE(C)                                                                             \
    static void bench_##C(long scale)                                                              \
    {                                                                                              \
        static C##_g2_prepared prep[4];                                                            \
        const C##_g2_prepared *pp[4] = {&prep[0], &prep[1], &prep[2], &prep[3]};                   \
        C##_g1_affine p1, ps[4];                                                                   \
        C##_g2_affine p2, qs[4];                                                                   \
        C##_fq12 f, e;                                                                             \
        double ml, fe, pair, prepare, check, check_plain;                                          \
        C##_g1_generator(&p1);                                                                     \
        C##_g2_generator(&p2);                                                                     \
        for (int i = 0; i < 4; i++) {                                                              \
            ps[i] = p1;                                                                            \
            qs[i] = p2;                                                                            \
            C##_g2_prepare(&prep[i], &p2);                                                         \
        }                                                                                          \
        C##_miller_loop(&f, &p1, &p2);                                                             \
        TIME(ml, 20 * scale, 1000, C##_miller_loop(&e, &p1, &p2); sink += e.c0.c0.c0.l[0]);        \
        TIME(fe, 20 * scale, 1000, C##_final_exp(&e, &f); sink += e.c0.c0.c0.l[0]);                \
        TIME(pair, 20 * scale, 1000, C##_pairing(&e, &p1, &p2); sink += e.c0.c0.c0.l[0]);          \
        TIME(prepare, 20 * scale, 1000, C##_g2_prepare(&prep[0], &p2);                             \
             sink += prep[0].lines[0].c0.c0.l[0]);                                                 \
        TIME(check, 10 * scale, 1000, sink += (uint64_t)C##_pairing_check_prepared(ps, pp, 4));    \
        printf("%-9s miller loop %8.1f us  final exp %8.1f us  pairing %8.1f us\n", #C, ml, fe,    \
               pair);                                                                              \
        TIME(check_plain, 10 * scale, 1000, sink += (uint64_t)C##_pairing_check(ps, qs, 4));       \
        printf("%-9s g2 prepare %9.1f us  4-pair check %8.1f us (prepared) %8.1f us (plain)\n",    \
               #C, prepare, check, check_plain);                                                   \
    }

BENCH_CURVE(bls12_381)
BENCH_CURVE(bn254)

int main(int argc, char **argv)
{
    long scale = argc > 1 ? atol(argv[1]) : 1;
    if (scale < 1)
        scale = 1;
    bench_bls12_381(scale);
    bench_bn254(scale);
    return 0;
}
