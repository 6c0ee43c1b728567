/* CUDA backend timings: G1 MSM of BLS12-381 at 2^20, 2^22, 2^24 points, the NTT over
 * BLS12-381's Fr at 2^20 .. 2^24, and a whole proof of the test circuit at 2^20 rows on the
 * CUDA and CPU backends. Median wall milliseconds of each launcher call (host transfers and
 * device allocation included) and of its device work alone (zkpipe__cuda_last_device_ms), after
 * one warm-up call.
 *
 *   bench_cuda [repetitions [max_log_msm [max_log_ntt [log_prove]]]]   defaults: 3 24 24 20
 *
 * Exits 77 without a usable device. The MSM's bases are 2^16 distinct points repeated (the
 * time does not depend on which points they are); its scalars are random reduced Fr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_stats.h"
#include "cuda/cuda_backend.h"
#include "groth16/prove.h"
#include "prove_synth.h"
#include "zkpipe/testcircuit.h"
#include "zkpipe/zkpipe.h"

#define DISTINCT (1u << 16)
#define MAX_REPS 16

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static void *alloc_or_die(size_t bytes)
{
    void *p = malloc(bytes);
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static void random_fr(bls12_381_fr *v, size_t n, uint64_t *seed)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t limbs[4] = {splitmix64(seed), splitmix64(seed), splitmix64(seed),
                             splitmix64(seed) >> 4};
        bls12_381_fr_from_canonical(&v[i], limbs);
    }
}

static void check(zkpipe_status st, const char *what)
{
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "%s: %s (%s)\n", what, zkpipe_status_name(st), zkpipe__cuda_last_error());
        exit(1);
    }
}

static double now_ms(void)
{
    return bench_clock_ns(CLOCK_MONOTONIC) / 1e6;
}

static void bench_msm(unsigned max_log, int reps)
{
    size_t n = (size_t)1 << max_log;
    bls12_381_g1_affine *bases = alloc_or_die(n * sizeof *bases);
    bls12_381_fr *k = alloc_or_die(n * sizeof *k);
    bls12_381_g1 *jac = alloc_or_die(DISTINCT * sizeof *jac), p, step;
    bls12_381_g1_affine g;
    uint64_t seed = 1;
    bls12_381_g1_generator(&g);
    bls12_381_g1_from_affine(&p, &g);
    bls12_381_g1_dbl(&step, &p);
    for (size_t i = 0; i < DISTINCT; i++) {
        jac[i] = p;
        bls12_381_g1_add(&p, &p, &step);
    }
    bls12_381_g1_batch_to_affine(bases, jac, DISTINCT);
    for (size_t i = DISTINCT; i < n; i++)
        bases[i] = bases[i % DISTINCT];
    random_fr(k, n, &seed);
    for (unsigned log = 20; log <= max_log; log += 2) {
        double t[MAX_REPS], dev[MAX_REPS];
        bls12_381_g1 out;
        check(zkpipe__cuda_msm_bls12_381_g1(&out, bases, k[0].l, NULL, (size_t)1 << log, 1, NULL),
              "msm");
        for (int r = 0; r < reps; r++) {
            double t0 = now_ms();
            check(
                zkpipe__cuda_msm_bls12_381_g1(&out, bases, k[0].l, NULL, (size_t)1 << log, 1, NULL),
                "msm");
            t[r] = now_ms() - t0;
            dev[r] = zkpipe__cuda_last_device_ms();
        }
        printf("msm_g1 bls12_381 2^%u %10.2f ms  (device %.2f ms)\n", log,
               bench_median(t, (size_t)reps), bench_median(dev, (size_t)reps));
    }
    free(jac);
    free(k);
    free(bases);
}

static void bench_ntt(unsigned max_log, int reps)
{
    size_t n = (size_t)1 << max_log;
    bls12_381_fr *a = alloc_or_die(n * sizeof *a);
    uint64_t seed = 2;
    random_fr(a, n, &seed);
    for (unsigned log = 20; log <= max_log; log++) {
        double t[MAX_REPS], dev[MAX_REPS];
        check(zkpipe__cuda_ntt_bls12_381_fr(a[0].l, log, ZKPIPE__CUDA_NTT, NULL, NULL), "ntt");
        for (int r = 0; r < reps; r++) {
            double t0 = now_ms();
            check(zkpipe__cuda_ntt_bls12_381_fr(a[0].l, log, ZKPIPE__CUDA_NTT, NULL, NULL), "ntt");
            t[r] = now_ms() - t0;
            dev[r] = zkpipe__cuda_last_device_ms();
        }
        printf("ntt bls12_381_fr 2^%u %10.2f ms  (device %.2f ms)\n", log,
               bench_median(t, (size_t)reps), bench_median(dev, (size_t)reps));
    }
    free(a);
}

/* One proof per backend at 2^log rows, same r and s: the times and whether the bytes agree. */
static void bench_prove(unsigned log)
{
    static const uint8_t seed[32] = {7};
    zkpipe_pool *pool;
    zkpipe_cs *cs;
    zkpipe_groth16_pk *pk;
    zkpipe_groth16_vk *vk;
    uint64_t r[4], s[4];
    zkpipe_groth16_proof proof[2];
    check(zkpipe_pool_create(&pool, 0, NULL), "pool");
    check(zkpipe_cs_create(&cs, ZKPIPE_CURVE_BLS12_381, ZKPIPE_CS_WITNESS, NULL), "cs");
    check(zkpipe_testcircuit_build(cs, log, 42, 1), "circuit");
    double t0 = now_ms();
    check(zkpipe_groth16_setup_insecure(&pk, &vk, cs, seed, pool, NULL), "setup");
    printf("setup (cpu, insecure) 2^%u %10.2f ms\n", log, now_ms() - t0);
    check(random_scalar(r, ZKPIPE_CURVE_BLS12_381), "r");
    check(random_scalar(s, ZKPIPE_CURVE_BLS12_381), "s");
    for (int b = 1; b >= 0; b--) {
        zkpipe__synth_result res;
        zkpipe_groth16_timings t;
        check(zkpipe__synth(&res, cs, pool, NULL), "synth");
        check(prove_synth(&proof[b], NULL, &t, pk, &res, r, s, pool,
                          b ? ZKPIPE_BACKEND_CUDA : ZKPIPE_BACKEND_CPU),
              "prove");
        printf("prove %s 2^%u %10.2f ms (h %.2f, A %.2f, B1 %.2f, C %.2f, B2 on cpu %.2f)\n",
               b ? "cuda" : "cpu", log, 1e3 * t.total, 1e3 * t.h, 1e3 * t.msm_a, 1e3 * t.msm_b1,
               1e3 * t.msm_c, 1e3 * t.msm_b2);
    }
    printf("proof bytes %s\n",
           memcmp(proof[0].bytes, proof[1].bytes, proof[0].size) == 0 ? "equal" : "DIFFER");
    zkpipe_groth16_pk_destroy(pk);
    zkpipe_groth16_vk_destroy(vk);
    zkpipe_cs_destroy(cs);
    zkpipe_pool_destroy(pool);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 3;
    unsigned max_msm = argc > 2 ? (unsigned)atoi(argv[2]) : 24;
    unsigned max_ntt = argc > 3 ? (unsigned)atoi(argv[3]) : 24;
    unsigned log_prove = argc > 4 ? (unsigned)atoi(argv[4]) : 20;
    zkpipe_backend b;
    const char *why;
    if (reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "repetitions: 1 .. %d\n", MAX_REPS);
        return 2;
    }
    if (zkpipe_backend_resolve(&b, ZKPIPE_BACKEND_AUTO, &why) != ZKPIPE_OK ||
        b != ZKPIPE_BACKEND_CUDA) {
        printf("no GPU: %s\n", why);
        return 77;
    }
    printf("backend: %s\n", why);
    bench_msm(max_msm, reps);
    bench_ntt(max_ntt, reps);
    if (log_prove >= 4)
        bench_prove(log_prove);
    return 0;
}
