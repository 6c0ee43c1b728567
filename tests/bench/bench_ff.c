/* Field arithmetic timings for both curves: ns per operation over RUNS runs of a dependent chain
 * (x = x * y, x = x^2, x = 1/x), so latencies rather than throughput; median and minimum (the
 * minimum is the steadier figure on a shared machine). Each operation is a real call, as a
 * library such as blst is called. Then the Fq products as the MSMs' batch kernels run them, in
 * ns per element: the scalar product in two interleaved chains, and eight elements at once on
 * each lane family the CPU has (ff/fp_x8.h's IFMA lanes, ff/fp_x8f.h's AVX-512F ones), two
 * interleaved chains inlined, as the kernels inline them; ZKPIPE_CPU_MASK hides a family.
 * Usage: bench_ff [iterations per run, default 20000; inversions run 1/100 of that]. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_stats.h"
#include "ff/bls12_381_fq12.h"
#include "ff/bls12_381_fr.h"
#include "ff/bn254_fq12.h"
#include "ff/bn254_fr.h"
#include "ff/bls12_381_fq_x8.h"
#include "ff/bn254_fq_x8.h"
#include "ff/bn254_fq_x8f.h"

enum { RUNS = 31 };

static uint64_t sink; /* results feed this so the chains cannot be optimised away */

static double now_ns(void)
{
    return bench_clock_ns(CLOCK_MONOTONIC);
}

static void report(const char *field, const char *op, double *t)
{
    double median = bench_median(t, RUNS); /* sorts t, so t[0] is then the minimum */
    printf("%-14s %-4s median %10.1f ns   min %10.1f ns\n", field, op, median, t[0]);
}

/* Benchmarks for a type T made of `nbase` elements of the prime field B (every type here is a
 * plain array of base-field elements in memory, so it is filled coefficient by coefficient). */
#define BENCH_TYPE(T, B)                                                                           \
    static void T##_fill(T *t, uint64_t seed)                                                      \
    {                                                                                              \
        B e[sizeof(T) / sizeof(B)];                                                                \
        for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {                                      \
            B##_from_u64(&e[i], seed * 0x9e3779b97f4a7c15u + i);                                   \
            B##_inv(&e[i], &e[i]); /* a full-width value */                                        \
        }                                                                                          \
        memcpy(t, e, sizeof e);                                                                    \
    }                                                                                              \
    static __attribute__((noinline)) void T##_mul_call(T *r, const T *a, const T *b)               \
    {                                                                                              \
        T##_mul(r, a, b);                                                                          \
    }                                                                                              \
    static __attribute__((noinline)) void T##_sqr_call(T *r, const T *a)                           \
    {                                                                                              \
        T##_sqr(r, a);                                                                             \
    }                                                                                              \
    static void T##_bench(const char *name, long n, int with_inv)                                  \
    {                                                                                              \
        double t[RUNS];                                                                            \
        T x, y;                                                                                    \
        T##_fill(&y, 2);                                                                           \
        for (int r = 0; r < RUNS; r++) {                                                           \
            T##_fill(&x, 1);                                                                       \
            double t0 = now_ns();                                                                  \
            for (long i = 0; i < n; i++)                                                           \
                T##_mul_call(&x, &x, &y);                                                          \
            t[r] = (now_ns() - t0) / (double)n;                                                    \
            sink ^= ((const uint64_t *)(const void *)&x)[0];                                       \
        }                                                                                          \
        report(name, "mul", t);                                                                    \
        for (int r = 0; r < RUNS; r++) {                                                           \
            T##_fill(&x, 1);                                                                       \
            double t0 = now_ns();                                                                  \
            for (long i = 0; i < n; i++)                                                           \
                T##_sqr_call(&x, &x);                                                              \
            t[r] = (now_ns() - t0) / (double)n;                                                    \
            sink ^= ((const uint64_t *)(const void *)&x)[0];                                       \
        }                                                                                          \
        report(name, "sqr", t);                                                                    \
        if (!with_inv)                                                                             \
            return;                                                                                \
        long m = n / 100 > 0 ? n / 100 : 1;                                                        \
        for (int r = 0; r < RUNS; r++) {                                                           \
            T##_fill(&x, 1);                                                                       \
            double t0 = now_ns();                                                                  \
            for (long i = 0; i < m; i++)                                                           \
                T##_inv(&x, &x);                                                                   \
            t[r] = (now_ns() - t0) / (double)m;                                                    \
            sink ^= ((const uint64_t *)(const void *)&x)[0];                                       \
        }                                                                                          \
        report(name, "inv", t);                                                                    \
    }

BENCH_TYPE(bls12_381_fr, bls12_381_fr)
BENCH_TYPE(bls12_381_fq, bls12_381_fq)
BENCH_TYPE(bls12_381_fq2, bls12_381_fq)
BENCH_TYPE(bls12_381_fq12, bls12_381_fq)
BENCH_TYPE(bn254_fr, bn254_fr)
BENCH_TYPE(bn254_fq, bn254_fq)
BENCH_TYPE(bn254_fq2, bn254_fq)
BENCH_TYPE(bn254_fq12, bn254_fq)

/* x = x y twice over, two chains, n times: the scalar product as the batch's chains run it. */
#define BENCH_PAIR(F)                                                                              \
    static void F##_pair_bench(const char *name, long n)                                           \
    {                                                                                              \
        double t[RUNS];                                                                            \
        F x, z, y;                                                                                 \
        F##_fill(&y, 2);                                                                           \
        for (int r = 0; r < RUNS; r++) {                                                           \
            F##_fill(&x, 1);                                                                       \
            F##_fill(&z, 3);                                                                       \
            double t0 = now_ns();                                                                  \
            for (long i = 0; i < n; i++) {                                                         \
                F##_mul(&x, &x, &y);                                                               \
                F##_mul(&z, &z, &y);                                                               \
            }                                                                                      \
            t[r] = (now_ns() - t0) / (double)(2 * n);                                              \
            sink ^= x.l[0] ^ z.l[0];                                                               \
        }                                                                                          \
        report(name, "x2", t);                                                                     \
    }

BENCH_PAIR(bls12_381_fq)
BENCH_PAIR(bn254_fq)

#if ZKPIPE__FF_X86
/* The same on eight lanes of family X (TGT its target): x R-form, y R'-form (shifted on load),
 * so every product stays R-form and below 4 p (fp_x8.h's bounds). */
#define BENCH_LANES(F, X, TGT)                                                                     \
    TGT static void F##X##_bench(const char *name, long n)                                         \
    {                                                                                              \
        double t[RUNS];                                                                            \
        F e[8];                                                                                    \
        const F *pe[8];                                                                            \
        F##X x, z, y;                                                                              \
        for (int i = 0; i < 8; i++) {                                                              \
            F##_fill(&e[i], (uint64_t)i + 5);                                                      \
            pe[i] = &e[i];                                                                         \
        }                                                                                          \
        F##X##_load(&y, pe, 1);                                                                    \
        for (int r = 0; r < RUNS; r++) {                                                           \
            F##X##_load(&x, pe, 0);                                                                \
            z = x;                                                                                 \
            double t0 = now_ns();                                                                  \
            for (long i = 0; i < n; i++) {                                                         \
                F##X##_mul(&x, &x, &y);                                                            \
                F##X##_mul(&z, &z, &y);                                                            \
            }                                                                                      \
            t[r] = (now_ns() - t0) / (double)(16 * n);                                             \
            F##X##_reduce4(&x, &x);                                                                \
            F##X##_store((F *const[8]){&e[0], &e[1], &e[2], &e[3], &e[4], &e[5], &e[6], &e[7]},    \
                         &x, 8);                                                                   \
            sink ^= e[0].l[0] ^ (uint64_t)_mm512_reduce_add_epi64(z.l[0]);                         \
        }                                                                                          \
        report(name, "x8", t);                                                                     \
    }

BENCH_LANES(bls12_381_fq, _x8, ZKPIPE__X8_TARGET)
BENCH_LANES(bn254_fq, _x8, ZKPIPE__X8_TARGET)
BENCH_LANES(bn254_fq, _x8f, ZKPIPE__X8F_TARGET)
#endif

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000;
    if (n <= 0) {
        fprintf(stderr, "usage: %s [iterations per run > 0]\n", argv[0]);
        return 2;
    }
    bls12_381_fr_bench("bls12_381 fr", n, 1);
    bls12_381_fq_bench("bls12_381 fq", n, 1);
    bls12_381_fq2_bench("bls12_381 fq2", n, 1);
    bls12_381_fq12_bench("bls12_381 fq12", n / 20, 0);
    bn254_fr_bench("bn254 fr", n, 1);
    bn254_fq_bench("bn254 fq", n, 1);
    bn254_fq2_bench("bn254 fq2", n, 1);
    bn254_fq12_bench("bn254 fq12", n / 20, 0);
    printf("Fq products per element, two chains: scalar (x2), 8 lanes (x8)\n");
    bls12_381_fq_pair_bench("bls12_381 fq", n);
#if ZKPIPE__FF_X86
    if (zkpipe__ff_x86_ifma)
        bls12_381_fq_x8_bench("bls12_381 ifma", n);
#endif
    bn254_fq_pair_bench("bn254 fq", n);
#if ZKPIPE__FF_X86
    if (zkpipe__ff_x86_ifma)
        bn254_fq_x8_bench("bn254 ifma", n);
    if (zkpipe__ff_x86_avx512)
        bn254_fq_x8f_bench("bn254 avx512f", n);
#endif
    printf("(checksum %llx)\n", (unsigned long long)sink);
    return 0;
}
