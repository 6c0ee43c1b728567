/* The CUDA backend against the CPU, bit for bit: NTTs (every kind, both fields, several sizes)
 * and the quotient, G1 MSMs (N = 0 and 1, zero scalars, points at infinity, density,
 * Montgomery and plain scalars, both curves) and whole proofs with given r and s; device
 * memory is charged to the ledger and all of it released. With ZKPIPE_TEST_CUDA_LOG=L set
 * (cuda/gpu-check.sh sets 22) it goes on to 2^L elements: every NTT kind and the quotient on
 * both fields, G1 MSMs with random, zero, one and all-equal scalars on both curves.
 *
 * Without a usable device it checks that the launchers fail cleanly (ZKPIPE_EDEVICE with
 * CUDA's message, nothing left charged) and exits 77, which ctest reports as skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cuda/cuda_backend.h"
#include "fixtures.h"
#include "points.h"
#include "groth16/prove.h"
#include "prove_synth.h"
#include "msm/msm.h"
#include "poly/ntt.h"
#include "zkpipe/zkpipe.h"

static void *alloc_or_fail(size_t bytes)
{
    void *p = calloc(bytes ? bytes : 1, 1);
    assert_non_null(p);
    return p;
}

static void no_charge_left(void)
{
    zkpipe_snapshot snap;
    assert_int_equal(zkpipe_acct_snapshot(fixture_acct, &snap), ZKPIPE_OK);
    assert_int_equal(snap.live_bytes, 0);
}

/* The device bytes charged at the peak since the last reset, in the QUEUED stage. */
static uint64_t device_peak(void)
{
    zkpipe_snapshot snap;
    assert_int_equal(zkpipe_acct_snapshot(fixture_acct, &snap), ZKPIPE_OK);
    return snap.stage[ZKPIPE_STAGE_QUEUED].kind[ZKPIPE_KIND_DEVICE].peak_bytes;
}

/* The CPU's side of the comparisons runs on this pool (NULL: on the calling thread); main
 * makes one for the large sizes. */
static zkpipe_pool *cpu_pool;

/* ZKPIPE_TEST_CUDA_LOG=L (17 to 24) adds the NTTs, the quotient and G1 MSMs of 2^L elements on
 * both curves (random and all-equal scalars), each against the CPU on every core: the device
 * check's sizes, too large and slow for the CPU side of a plain run. 0 when unset; a value out
 * of range fails the run rather than testing less than asked. */
static unsigned large_log(void)
{
    const char *s = getenv("ZKPIPE_TEST_CUDA_LOG");
    char *end;
    if (s == NULL || *s == '\0')
        return 0;
    unsigned long v = strtoul(s, &end, 10);
    if (*end != '\0' || v < 17 || v > 24) {
        print_error("ZKPIPE_TEST_CUDA_LOG=%s: not a size from 17 to 24\n", s);
        exit(1);
    }
    return (unsigned)v;
}

#define FIELD_CASES(F)                                                                             \
    static void F##_random(F *v, size_t n, uint64_t *seed)                                         \
    {                                                                                              \
        for (size_t i = 0; i < n; i++) {                                                           \
            uint64_t limbs[4] = {test_splitmix64(seed), test_splitmix64(seed),                     \
                                 test_splitmix64(seed), test_splitmix64(seed) >> 4};               \
            assert_true(F##_from_canonical(&v[i], limbs));                                         \
        }                                                                                          \
    }                                                                                              \
    /* Every NTT kind and the quotient on 2^log random elements, against the CPU. */               \
    static void F##_ntt_case(unsigned log, uint64_t seed)                                          \
    {                                                                                              \
        F g;                                                                                       \
        F##_from_u64(&g, 5);                                                                       \
        size_t n = (size_t)1 << log;                                                               \
        zkpipe__##F##_domain *d;                                                                   \
        F *x = alloc_or_fail(n * sizeof(F)), *y = alloc_or_fail(n * sizeof(F));                    \
        assert_int_equal(zkpipe__##F##_domain_create(&d, log, NULL, NULL), ZKPIPE_OK);             \
        for (int kind = 0; kind < 4; kind++) {                                                     \
            F##_random(x, n, &seed);                                                               \
            memcpy(y, x, n * sizeof(F));                                                           \
            zkpipe_ledger ledger;                                                                  \
            assert_int_equal(zkpipe_acct_reset_peaks(fixture_acct), ZKPIPE_OK);                    \
            assert_int_equal(zkpipe_ledger_open(&ledger, fixture_acct, ZKPIPE_STAGE_QUEUED),       \
                             ZKPIPE_OK);                                                           \
            assert_int_equal(                                                                      \
                zkpipe__cuda_ntt_##F(x[0].l, log, (zkpipe__cuda_ntt_kind)kind, g.l, &ledger),      \
                ZKPIPE_OK);                                                                        \
            assert_true(device_peak() >= 2 * n * sizeof(F));                                       \
            assert_true(zkpipe__cuda_last_device_ms() >= 0);                                       \
            zkpipe_ledger_close(&ledger);                                                          \
            no_charge_left();                                                                      \
            if (kind == 0)                                                                         \
                zkpipe__##F##_ntt(y, d, cpu_pool);                                                 \
            else if (kind == 1)                                                                    \
                zkpipe__##F##_intt(y, d, cpu_pool);                                                \
            else if (kind == 2)                                                                    \
                zkpipe__##F##_coset_ntt(y, d, &g, cpu_pool);                                       \
            else                                                                                   \
                zkpipe__##F##_coset_intt(y, d, &g, cpu_pool);                                      \
            assert_memory_equal(x, y, n * sizeof(F));                                              \
        }                                                                                          \
        /* the quotient, from x (a), y (b) and their product minus one (c) */                      \
        F *c = alloc_or_fail(n * sizeof(F)), *h = alloc_or_fail(n * sizeof(F)), one;               \
        F##_random(x, n, &seed);                                                                   \
        F##_random(y, n, &seed);                                                                   \
        F##_set_one(&one);                                                                         \
        for (size_t i = 0; i < n; i++) {                                                           \
            F##_mul(&c[i], &x[i], &y[i]);                                                          \
            F##_sub(&c[i], &c[i], &one);                                                           \
        }                                                                                          \
        assert_int_equal(zkpipe__cuda_h_##F(h[0].l, x[0].l, y[0].l, c[0].l, log, g.l, 1, NULL),    \
                         ZKPIPE_OK);                                                               \
        zkpipe__##F##_intt(x, d, cpu_pool);                                                        \
        zkpipe__##F##_coset_ntt(x, d, &g, cpu_pool);                                               \
        zkpipe__##F##_intt(y, d, cpu_pool);                                                        \
        zkpipe__##F##_coset_ntt(y, d, &g, cpu_pool);                                               \
        zkpipe__##F##_intt(c, d, cpu_pool);                                                        \
        zkpipe__##F##_coset_ntt(c, d, &g, cpu_pool);                                               \
        for (size_t i = 0; i < n; i++) {                                                           \
            F##_mul(&x[i], &x[i], &y[i]);                                                          \
            F##_sub(&x[i], &x[i], &c[i]);                                                          \
        }                                                                                          \
        zkpipe__##F##_divide_by_vanishing_on_coset(x, d, &g, cpu_pool);                            \
        zkpipe__##F##_coset_intt(x, d, &g, cpu_pool);                                              \
        assert_memory_equal(h, x, n * sizeof(F));                                                  \
        free(c);                                                                                   \
        free(h);                                                                                   \
        free(x);                                                                                   \
        free(y);                                                                                   \
        zkpipe__##F##_domain_destroy(d);                                                           \
    }                                                                                              \
    static void F##_ntt_matches_cpu(void **state)                                                  \
    {                                                                                              \
        (void)state;                                                                               \
        static const unsigned sizes[] = {0, 1, 2, 3, 7, 12, 16, 20};                               \
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)                                \
            F##_ntt_case(sizes[s], 5 + s);                                                         \
    }                                                                                              \
    static void F##_ntt_large(void **state)                                                        \
    {                                                                                              \
        (void)state;                                                                               \
        F##_ntt_case(large_log(), 99);                                                             \
    }

FIELD_CASES(bls12_381_fr)
FIELD_CASES(bn254_fr)

#define GROUP_CASES(G, FR)                                                                         \
    TEST_POINTS_DEFINE(G)                                                                          \
    static void G##_check(const G##_affine *bases, const uint64_t *k, const uint64_t *density,     \
                          size_t n, int mont)                                                      \
    {                                                                                              \
        G want, got;                                                                               \
        zkpipe__msm_config cfg = {0, mont ? ZKPIPE__MSM_MONTGOMERY : 0};                           \
        zkpipe_ledger ledger;                                                                      \
        assert_int_equal(zkpipe__msm_##G##_ex(&want, bases, k, density, n, &cfg, cpu_pool, NULL),  \
                         ZKPIPE_OK);                                                               \
        assert_int_equal(zkpipe_ledger_open(&ledger, fixture_acct, ZKPIPE_STAGE_QUEUED),           \
                         ZKPIPE_OK);                                                               \
        G##_affine gen;                                                                            \
        G##_generator(&gen);                                                                       \
        G##_from_affine(&got, &gen); /* must be overwritten */                                     \
        assert_int_equal(zkpipe__cuda_msm_##G(&got, bases, k, density, n, mont, &ledger),          \
                         ZKPIPE_OK);                                                               \
        zkpipe_ledger_close(&ledger);                                                              \
        no_charge_left();                                                                          \
        assert_true(G##_eq(&got, &want));                                                          \
    }                                                                                              \
    /* n random scalars, reduced and in Montgomery form, as the zkey prover passes them. */        \
    static void G##_random_mont(uint64_t *k, size_t n, uint64_t *seed)                             \
    {                                                                                              \
        for (size_t i = 0; i < n; i++) {                                                           \
            FR e;                                                                                  \
            for (int l = 0; l < 4; l++)                                                            \
                k[4 * i + l] = test_splitmix64(seed);                                              \
            k[4 * i + 3] >>= 4;                                                                    \
            assert_true(FR##_from_canonical(&e, k + 4 * i));                                       \
            memcpy(k + 4 * i, e.l, sizeof e.l);                                                    \
        }                                                                                          \
    }                                                                                              \
    /* 2^large_log() points: random scalars, then all zero, all one and all one random value. */   \
    static void G##_msm_large(void **state)                                                        \
    {                                                                                              \
        (void)state;                                                                               \
        size_t n = (size_t)1 << large_log();                                                       \
        G##_affine *bases = alloc_or_fail(n * sizeof(G##_affine));                                 \
        uint64_t *k = alloc_or_fail(n * 4 * sizeof(uint64_t)), seed = 17;                          \
        G##_test_points(bases, n, &seed);                                                          \
        G##_random_mont(k, n, &seed);                                                              \
        G##_check(bases, k, NULL, n, 1);                                                           \
        memset(k, 0, n * 4 * sizeof(uint64_t));                                                    \
        G##_check(bases, k, NULL, n, 0);                                                           \
        for (size_t i = 0; i < n; i++)                                                             \
            k[4 * i] = 1;                                                                          \
        G##_check(bases, k, NULL, n, 0);                                                           \
        G##_random_mont(k, 1, &seed);                                                              \
        for (size_t i = 1; i < n; i++)                                                             \
            memcpy(k + 4 * i, k, 4 * sizeof(uint64_t));                                            \
        G##_check(bases, k, NULL, n, 1);                                                           \
        free(bases);                                                                               \
        free(k);                                                                                   \
    }                                                                                              \
    static void G##_msm_matches_cpu(void **state)                                                  \
    {                                                                                              \
        (void)state;                                                                               \
        size_t big = (size_t)1 << 16;                                                              \
        G##_affine *bases = alloc_or_fail(big * sizeof(G##_affine));                               \
        uint64_t *k = alloc_or_fail(big * 4 * sizeof(uint64_t)), seed = 13;                        \
        uint64_t *density = alloc_or_fail(big / 64 * sizeof(uint64_t));                            \
        G##_test_points(bases, big, &seed);                                                        \
        for (size_t i = 0; i < 4 * big; i++)                                                       \
            k[i] = test_splitmix64(&seed);                                                         \
        G##_check(bases, k, NULL, 0, 0);                                                           \
        G##_check(bases, k, NULL, 1, 0);                                                           \
        G##_check(bases, k, NULL, 1000, 0);                                                        \
        memset(k, 0, 64 * 4 * sizeof(uint64_t)); /* zero scalars, then infinity bases */           \
        G##_check(bases, k, NULL, 64, 0);                                                          \
        for (size_t i = 0; i < 64; i += 2)                                                         \
            G##_affine_set_infinity(&bases[i]);                                                    \
        for (size_t i = 0; i < 64; i++)                                                            \
            k[4 * i] = i % 3;                                                                      \
        G##_check(bases, k, NULL, 64, 0);                                                          \
        for (size_t i = 0; i < 5000; i++) { /* one bucket of 5000 points */                        \
            memset(k + 4 * i, 0, 4 * sizeof(uint64_t));                                            \
            k[4 * i] = 1;                                                                          \
        }                                                                                          \
        G##_check(bases, k, NULL, 5000, 0);                                                        \
        G##_random_mont(k, big, &seed);                                                            \
        G##_check(bases, k, NULL, big, 1);                                                         \
        for (size_t w = 0; w < big / 64; w++)                                                      \
            density[w] = test_splitmix64(&seed);                                                   \
        G##_check(bases, k, density, big, 1);                                                      \
        free(bases);                                                                               \
        free(k);                                                                                   \
        free(density);                                                                             \
    }

GROUP_CASES(bls12_381_g1, bls12_381_fr)
GROUP_CASES(bn254_g1, bn254_fr)

/* The same r and s give the same proof bytes on both backends, and the proof verifies. */
static void proofs_match_cpu(void **state)
{
    (void)state;
    static const zkpipe_curve curves[] = {ZKPIPE_CURVE_BLS12_381, ZKPIPE_CURVE_BN254};
    static const uint8_t seed[32] = {4, 5, 6};
    zkpipe_pool *pool;
    assert_int_equal(zkpipe_pool_create(&pool, 2, NULL), ZKPIPE_OK);
    for (size_t c = 0; c < 2; c++) {
        for (unsigned log_rows = 4; log_rows <= 12; log_rows += 8) {
            fixture_keys k;
            fixture_keys_make(&k, curves[c], log_rows, seed, pool);
            uint64_t r[4], s[4];
            assert_int_equal(random_scalar(r, curves[c]), ZKPIPE_OK);
            assert_int_equal(random_scalar(s, curves[c]), ZKPIPE_OK);
            zkpipe_groth16_proof p[2];
            for (int b = 0; b < 2; b++) {
                zkpipe__synth_result res;
                zkpipe_ledger ledger;
                assert_int_equal(zkpipe_ledger_open(&ledger, fixture_acct, ZKPIPE_STAGE_QUEUED),
                                 ZKPIPE_OK);
                assert_int_equal(zkpipe__synth(&res, k.cs, pool, &ledger), ZKPIPE_OK);
                assert_int_equal(prove_synth(&p[b], NULL, NULL, k.pk, &res, r, s, pool,
                                             b ? ZKPIPE_BACKEND_CUDA : ZKPIPE_BACKEND_CPU),
                                 ZKPIPE_OK);
                zkpipe_ledger_close(&ledger);
                no_charge_left();
            }
            assert_int_equal(p[0].size, p[1].size);
            assert_memory_equal(p[0].bytes, p[1].bytes, p[0].size);
            zkpipe_scalar in;
            assert_int_equal(zkpipe_cs_value(k.cs, &in, 1), ZKPIPE_OK);
            assert_int_equal(zkpipe_groth16_verify(k.pvk, &in, 1, &p[1]), ZKPIPE_OK);
            fixture_keys_free(&k);
        }
    }
    zkpipe_pool_destroy(pool);
}

/* Arguments the launchers refuse before touching the device. */
static void invalid_arguments(void **state)
{
    (void)state;
    uint64_t a[4] = {1}, zero[4] = {0};
    bls12_381_g1 out;
    bls12_381_g1_affine base;
    memset(&base, 0, sizeof base);
    assert_int_equal(zkpipe__cuda_ntt_bls12_381_fr(NULL, 0, ZKPIPE__CUDA_NTT, NULL, NULL),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe__cuda_ntt_bn254_fr(a, 0, ZKPIPE__CUDA_COSET_NTT, NULL, NULL),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe__cuda_ntt_bn254_fr(a, 0, ZKPIPE__CUDA_COSET_INTT, zero, NULL),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe__cuda_ntt_bn254_fr(a, 0, (zkpipe__cuda_ntt_kind)7, NULL, NULL),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe__cuda_ntt_bn254_fr(a, 29, ZKPIPE__CUDA_NTT, NULL, NULL),
                     ZKPIPE_ETOOBIG);
    assert_int_equal(zkpipe__cuda_h_bn254_fr(a, a, NULL, a, 0, a, 1, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe__cuda_h_bn254_fr(a, a, a, a, 40, a, 1, NULL), ZKPIPE_ETOOBIG);
    /* g = 1: Z = g^n - 1 = 0 on that "coset" */
    bn254_fr one;
    bn254_fr_set_one(&one);
    assert_int_equal(zkpipe__cuda_h_bn254_fr(a, a, a, a, 0, one.l, 1, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe__cuda_msm_bls12_381_g1(NULL, &base, a, NULL, 1, 0, NULL),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe__cuda_msm_bls12_381_g1(&out, &base, NULL, NULL, 1, 0, NULL),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe__cuda_msm_bls12_381_g1(&out, NULL, a, NULL, 1, 0, NULL), ZKPIPE_EINVAL);
    /* no dense base: infinity without the device */
    uint64_t none = 0;
    assert_int_equal(zkpipe__cuda_msm_bls12_381_g1(&out, NULL, a, &none, 1, 0, NULL), ZKPIPE_OK);
    assert_true(bls12_381_g1_is_infinity(&out));
}

/* Without a device every launcher call that needs one fails with ZKPIPE_EDEVICE and CUDA's
 * message, and leaves nothing charged; the prover refuses the CUDA backend (ZKPIPE_ENODEVICE)
 * and consumes the result; auto proves on the CPU. */
static void without_a_device_calls_fail_cleanly(void **state)
{
    (void)state;
    uint64_t a[2 * 4] = {1};
    bn254_fr g;
    bn254_fr_from_u64(&g, 5);
    bls12_381_g1 out;
    bls12_381_g1_affine base;
    bls12_381_g1_generator(&base);
    zkpipe_ledger ledger;
    assert_int_equal(zkpipe_ledger_open(&ledger, fixture_acct, ZKPIPE_STAGE_QUEUED), ZKPIPE_OK);
    assert_int_equal(zkpipe__cuda_ntt_bn254_fr(a, 1, ZKPIPE__CUDA_NTT, NULL, &ledger),
                     ZKPIPE_EDEVICE);
    assert_true(strlen(zkpipe__cuda_last_error()) > 0);
    assert_true(zkpipe__cuda_last_device_ms() < 0); /* nothing reached the device */
    no_charge_left();
    assert_int_equal(zkpipe__cuda_h_bn254_fr(a, a, a, a, 1, g.l, 1, &ledger), ZKPIPE_EDEVICE);
    no_charge_left();
    assert_int_equal(zkpipe__cuda_msm_bls12_381_g1(&out, &base, a, NULL, 1, 0, &ledger),
                     ZKPIPE_EDEVICE);
    no_charge_left();
    zkpipe_ledger_close(&ledger);

    zkpipe_backend b = ZKPIPE_BACKEND_CUDA;
    const char *why = NULL;
    assert_int_equal(zkpipe_backend_resolve(&b, ZKPIPE_BACKEND_CUDA, &why), ZKPIPE_ENODEVICE);
    assert_non_null(why);
    assert_int_equal(zkpipe_backend_resolve(&b, ZKPIPE_BACKEND_AUTO, &why), ZKPIPE_OK);
    assert_int_equal(b, ZKPIPE_BACKEND_CPU);

    static const uint8_t seed[32] = {1};
    fixture_keys k;
    fixture_keys_make(&k, ZKPIPE_CURVE_BN254, 4, seed, NULL);
    zkpipe__synth_result res;
    zkpipe_groth16_proof proof;
    uint64_t r[4], s[4];
    assert_int_equal(random_scalar(r, ZKPIPE_CURVE_BN254), ZKPIPE_OK);
    assert_int_equal(random_scalar(s, ZKPIPE_CURVE_BN254), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_open(&ledger, fixture_acct, ZKPIPE_STAGE_QUEUED), ZKPIPE_OK);
    assert_int_equal(zkpipe__synth(&res, k.cs, NULL, &ledger), ZKPIPE_OK);
    assert_int_equal(prove_synth(&proof, NULL, NULL, k.pk, &res, r, s, NULL, ZKPIPE_BACKEND_CUDA),
                     ZKPIPE_ENODEVICE);
    no_charge_left();
    /* auto falls back to the CPU */
    assert_int_equal(zkpipe__synth(&res, k.cs, NULL, &ledger), ZKPIPE_OK);
    assert_int_equal(prove_synth(&proof, NULL, NULL, k.pk, &res, r, s, NULL, ZKPIPE_BACKEND_AUTO),
                     ZKPIPE_OK);
    zkpipe_ledger_close(&ledger);
    no_charge_left();
    fixture_keys_free(&k);
}

int main(void)
{
    zkpipe_backend backend;
    const char *why;
    if (zkpipe_backend_resolve(&backend, ZKPIPE_BACKEND_AUTO, &why) != ZKPIPE_OK ||
        backend != ZKPIPE_BACKEND_CUDA) {
        const struct CMUnitTest offline[] = {
            cmocka_unit_test(invalid_arguments),
            cmocka_unit_test(without_a_device_calls_fail_cleanly),
        };
        print_message("skipping the GPU checks: %s\n", why);
        return cmocka_run_group_tests(offline, fixture_acct_setup, fixture_acct_teardown) == 0 ? 77
                                                                                               : 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(invalid_arguments),        cmocka_unit_test(bls12_381_fr_ntt_matches_cpu),
        cmocka_unit_test(bn254_fr_ntt_matches_cpu), cmocka_unit_test(bls12_381_g1_msm_matches_cpu),
        cmocka_unit_test(bn254_g1_msm_matches_cpu), cmocka_unit_test(proofs_match_cpu),
    };
    int failed = cmocka_run_group_tests(tests, fixture_acct_setup, fixture_acct_teardown);
    if (large_log() == 0)
        return failed;
    const struct CMUnitTest large[] = {
        cmocka_unit_test(bls12_381_fr_ntt_large),
        cmocka_unit_test(bn254_fr_ntt_large),
        cmocka_unit_test(bls12_381_g1_msm_large),
        cmocka_unit_test(bn254_g1_msm_large),
    };
    if (zkpipe_pool_create(&cpu_pool, 0, NULL) != ZKPIPE_OK) {
        print_error("cannot start the CPU's pool\n");
        return 1;
    }
    failed +=
        cmocka_run_group_tests_name("large", large, fixture_acct_setup, fixture_acct_teardown);
    zkpipe_pool_destroy(cpu_pool);
    return failed;
}
