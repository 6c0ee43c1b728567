/* Field arithmetic timings for both curves: ns per operation over RUNS runs of a dependent chain
 * (x = x * y, x = x^2, x = 1/x), so latencies rather than throughput; median and minimum (the
 * minimum is the steadier figure on a shared machine). Each operation is a real call, as a
 * library such as blst is called. Usage: bench_ff [iterations per run, default 20000;
 * inversions run 1/100 of that]. */
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
    printf("(checksum %llx)\n", (unsigned long long)sink);
    return 0;
}
