/* The CUDA kernels' per-thread steps (cuda/ntt_kernel.h, cuda/msm_kernel.h) run on the host,
 * one thread index after another in the order the launchers issue them, against the CPU NTT
 * and MSM: the GPU code's logic is checked on every build, with or without a device. A qsort
 * stands in for CUB's radix sort (any order within a bucket gives the same sum). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cuda/msm_kernel.h"
#include "cuda/ntt_kernel.h"
#include "msm/msm.h"
#include "msm/xyzz.h"
#include "poly/ntt.h"
#include "points.h"
#include "sanitize.h"

static void *alloc_or_fail(size_t bytes)
{
    void *p = calloc(bytes ? bytes : 1, 1);
    assert_non_null(p);
    return p;
}

static void bit_reverse_is_an_involution(void **state)
{
    (void)state;
    for (unsigned bits = 0; bits <= 12; bits++) {
        uint32_t n = (uint32_t)1 << bits;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t r = zkpipe__cuda_bit_reverse(i, bits);
            assert_true(r < n);
            assert_int_equal(zkpipe__cuda_bit_reverse(r, bits), i);
        }
    }
    assert_int_equal(zkpipe__cuda_bit_reverse(1, 27), 1u << 26);
}

/* Every stage's butterflies touch each position exactly once, with lo < hi = lo + 2^s and a
 * twiddle index inside the n/2 table. */
static void butterflies_cover_each_stage(void **state)
{
    (void)state;
    for (unsigned log_n = 1; log_n <= 10; log_n++) {
        uint32_t n = (uint32_t)1 << log_n;
        unsigned char *seen = alloc_or_fail(n);
        for (unsigned s = 0; s < log_n; s++) {
            memset(seen, 0, n);
            for (uint32_t t = 0; t < n / 2; t++) {
                uint32_t lo, hi, w;
                zkpipe__cuda_butterfly_index(&lo, &hi, &w, t, s, log_n);
                assert_int_equal(hi, lo + (1u << s));
                assert_true(hi < n && w < n / 2);
                assert_int_equal(w % (n >> (s + 1)), 0);
                seen[lo]++;
                seen[hi]++;
            }
            for (uint32_t i = 0; i < n; i++)
                assert_int_equal(seen[i], 1);
        }
        free(seen);
    }
}

/* ntt.cu's launch sequences, serially. */
#define NTT_EMULATION(F)                                                                           \
    ZKPIPE__CUDA_NTT_DEFINE(F)                                                                     \
    static void F##_emu_forward(F *a, F *tmp, unsigned log_n, const F *w)                          \
    {                                                                                              \
        uint32_t n = (uint32_t)1 << log_n, half = n / 2;                                           \
        F *table = alloc_or_fail((half ? half : 1) * sizeof(F));                                   \
        for (uint32_t c = 0; c * ZKPIPE__CUDA_NTT_CHUNK < half; c++)                               \
            zkpipe__cuda_##F##_powers(table, c, half, w);                                          \
        for (uint32_t i = 0; i < n; i++)                                                           \
            zkpipe__cuda_##F##_permute(tmp, a, i, log_n);                                          \
        for (unsigned s = 0; s < log_n; s++)                                                       \
            for (uint32_t t = 0; t < half; t++)                                                    \
                zkpipe__cuda_##F##_butterfly(tmp, table, t, s, log_n);                             \
        memcpy(a, tmp, n * sizeof(F));                                                             \
        free(table);                                                                               \
    }                                                                                              \
    static void F##_emu_scale(F *a, uint32_t n, const F *factor, const F *ratio)                   \
    {                                                                                              \
        for (uint32_t c = 0; c * ZKPIPE__CUDA_NTT_CHUNK < n; c++)                                  \
            zkpipe__cuda_##F##_scale(a, c, n, factor, ratio);                                      \
    }                                                                                              \
    static void F##_emu_inverse(F *a, F *tmp, unsigned log_n, const F *w, const F *factor)         \
    {                                                                                              \
        uint32_t n = (uint32_t)1 << log_n;                                                         \
        F##_emu_forward(a, tmp, log_n, w);                                                         \
        memcpy(tmp, a, n * sizeof(F));                                                             \
        for (uint32_t j = 0; j < n; j++)                                                           \
            zkpipe__cuda_##F##_negate(a, tmp, j, n, factor);                                       \
    }                                                                                              \
    static void F##_assert_equal(const F *x, const F *y, size_t n)                                 \
    {                                                                                              \
        for (size_t i = 0; i < n; i++)                                                             \
            if (!F##_eq(&x[i], &y[i]))                                                             \
                fail_msg("element %zu of %zu differs", i, n);                                      \
    }                                                                                              \
    /* Forward, inverse, coset forward and coset inverse, and the whole quotient, against          \
     * src/poly, bit for bit, from log_n = 0 up. */                                                \
    static void F##_ntt_matches_cpu(void **state)                                                  \
    {                                                                                              \
        (void)state;                                                                               \
        uint64_t seed = 7;                                                                         \
        for (unsigned log_n = 0; log_n <= (ZKPIPE_TEST_SANITIZED ? 8u : 11u); log_n++) {           \
            uint32_t n = (uint32_t)1 << log_n;                                                     \
            F *x[3], *y[3], *tmp = alloc_or_fail(n * sizeof(F)), w, n_inv, g, g_inv, one, z,       \
                            z_inv;                                                                 \
            zkpipe__##F##_domain *d;                                                               \
            assert_int_equal(zkpipe__##F##_domain_create(&d, log_n, NULL, NULL), ZKPIPE_OK);       \
            for (int k = 0; k < 3; k++) {                                                          \
                x[k] = alloc_or_fail(n * sizeof(F));                                               \
                y[k] = alloc_or_fail(n * sizeof(F));                                               \
                for (uint32_t i = 0; i < n; i++) {                                                 \
                    uint64_t limbs[F##_LIMBS] = {test_splitmix64(&seed), test_splitmix64(&seed),   \
                                                 test_splitmix64(&seed),                           \
                                                 test_splitmix64(&seed) >> 4};                     \
                    assert_true(F##_from_canonical(&x[k][i], limbs));                              \
                }                                                                                  \
                memcpy(y[k], x[k], n * sizeof(F));                                                 \
            }                                                                                      \
            zkpipe__##F##_domain_generator(&w, d);                                                 \
            F##_from_u64(&n_inv, n);                                                               \
            F##_inv(&n_inv, &n_inv);                                                               \
            F##_from_u64(&g, 5);                                                                   \
            F##_inv(&g_inv, &g);                                                                   \
            F##_set_one(&one);                                                                     \
            /* forward on x[0], inverse on x[1], coset forward on x[2] */                          \
            F##_emu_forward(x[0], tmp, log_n, &w);                                                 \
            zkpipe__##F##_ntt(y[0], d, NULL);                                                      \
            F##_emu_inverse(x[1], tmp, log_n, &w, &n_inv);                                         \
            zkpipe__##F##_intt(y[1], d, NULL);                                                     \
            F##_emu_scale(x[2], n, &one, &g);                                                      \
            F##_emu_forward(x[2], tmp, log_n, &w);                                                 \
            zkpipe__##F##_coset_ntt(y[2], d, &g, NULL);                                            \
            for (int k = 0; k < 3; k++)                                                            \
                F##_assert_equal(x[k], y[k], n);                                                   \
            /* coset inverse of the coset forward's output gives back the input */                 \
            F##_emu_inverse(x[2], tmp, log_n, &w, &one);                                           \
            F##_emu_scale(x[2], n, &n_inv, &g_inv);                                                \
            zkpipe__##F##_coset_intt(y[2], d, &g, NULL);                                           \
            F##_assert_equal(x[2], y[2], n);                                                       \
            /* the quotient: (a b - c) / Z on the coset, from x = y as a, b, c */                  \
            zkpipe__##F##_vanishing_on_coset(&z, d, &g);                                           \
            F##_inv(&z_inv, &z);                                                                   \
            for (int k = 0; k < 3; k++)                                                            \
                F##_emu_inverse(x[k], tmp, log_n, &w, &n_inv);                                     \
            for (uint32_t i = 0; i < n; i++)                                                       \
                zkpipe__cuda_##F##_quotient(tmp, x[0], x[1], x[2], i, &z_inv);                     \
            for (int k = 0; k < 3; k++)                                                            \
                zkpipe__##F##_intt(y[k], d, NULL);                                                 \
            for (uint32_t i = 0; i < n; i++) {                                                     \
                F##_mul(&y[0][i], &y[0][i], &y[1][i]);                                             \
                F##_sub(&y[0][i], &y[0][i], &y[2][i]);                                             \
            }                                                                                      \
            zkpipe__##F##_divide_by_vanishing_on_coset(y[0], d, &g, NULL);                         \
            F##_assert_equal(tmp, y[0], n);                                                        \
            for (int k = 0; k < 3; k++) {                                                          \
                free(x[k]);                                                                        \
                free(y[k]);                                                                        \
            }                                                                                      \
            free(tmp);                                                                             \
            zkpipe__##F##_domain_destroy(d);                                                       \
        }                                                                                          \
    }

NTT_EMULATION(bls12_381_fr)
NTT_EMULATION(bn254_fr)

/* Σ_j d_j 2^(jc) rebuilt in 5 two's-complement limbs equals k, for every window width. */
static void booth_digits_sum_to_the_scalar(void **state)
{
    (void)state;
    uint64_t seed = 3;
    for (int round = 0; round < 200; round++) {
        uint64_t k[4];
        for (int l = 0; l < 4; l++)
            k[l] = round < 2 ? (round ? UINT64_MAX : 0) : test_splitmix64(&seed);
        for (unsigned c = 1; c <= ZKPIPE__CUDA_MSM_MAX_WINDOW; c++) {
            unsigned windows = (256 + 1 + c - 1) / c;
            uint64_t acc[5] = {0};
            for (unsigned j = windows; j-- > 0;) {
                for (int l = 4; l >= 0; l--) /* acc <<= c */
                    acc[l] = acc[l] << c | (l ? acc[l - 1] >> (64 - c) : 0);
                int d = zkpipe__cuda_booth_digit(k, j, c);
                assert_true(d >= -(1 << (c - 1)) && d <= 1 << (c - 1));
                uint64_t add = (uint64_t)(int64_t)d, ext = d < 0 ? UINT64_MAX : 0, carry = 0;
                for (int l = 0; l < 5; l++) {
                    uint64_t t = acc[l] + carry;
                    carry = t < carry;
                    acc[l] = t + (l ? ext : add);
                    carry += acc[l] < t;
                }
            }
            assert_memory_equal(acc, k, sizeof k);
            assert_int_equal(acc[4], 0);
        }
    }
}

static void shapes_and_piece_owners(void **state)
{
    (void)state;
    zkpipe__cuda_msm_shape s;
    zkpipe__cuda_msm_shape_make(&s, 1, 255);
    assert_int_equal(s.window, 4);
    assert_int_equal(s.windows, 64);
    assert_int_equal(s.segs * s.seg, s.buckets);
    zkpipe__cuda_msm_shape_make(&s, (size_t)1 << 24, 255);
    assert_int_equal(s.window, 16);
    assert_int_equal(s.windows, 16);
    assert_int_equal(s.segs, 128);
    assert_true((uint64_t)s.windows << 24 < (uint64_t)1 << 31);
    /* offsets of buckets with 2, 0, 0, 3, 0 pieces */
    const uint32_t offsets[6] = {0, 2, 2, 2, 5, 5};
    const uint32_t owner[5] = {0, 0, 3, 3, 3};
    for (uint32_t p = 0; p < 5; p++)
        assert_int_equal(zkpipe__cuda_msm_piece_owner(offsets, p, 5), owner[p]);
}

static int pair_cmp(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* msm_impl.cuh's launch sequence, serially; *out as the launcher returns it. */
#define MSM_EMULATION(G, F, FR)                                                                    \
    TEST_POINTS_DEFINE(G)                                                                          \
    ZKPIPE__MSM_DEFINE_XYZZ(G, F)                                                                  \
    ZKPIPE__CUDA_MSM_DEFINE(G, F, FR)                                                              \
    static void G##_emu_msm(G *out, const G##_affine *bases, const uint64_t *scalars, uint32_t n,  \
                            int mont)                                                              \
    {                                                                                              \
        zkpipe__cuda_msm_shape s;                                                                  \
        zkpipe__cuda_msm_shape_make(&s, n, zkpipe__cuda_##G##_scalar_bits(mont));                  \
        uint32_t total = s.windows * n;                                                            \
        uint32_t *keys = alloc_or_fail(total * sizeof(uint32_t));                                  \
        uint32_t *vals = alloc_or_fail(total * sizeof(uint32_t));                                  \
        uint64_t *pairs = alloc_or_fail(total * sizeof(uint64_t));                                 \
        uint32_t *starts = alloc_or_fail(s.nkeys * sizeof(uint32_t));                              \
        uint32_t *ends = alloc_or_fail(s.nkeys * sizeof(uint32_t));                                \
        uint32_t *counts = alloc_or_fail((s.nkeys + 1) * sizeof(uint32_t));                        \
        uint32_t *offsets = alloc_or_fail((s.nkeys + 1) * sizeof(uint32_t));                       \
        G##_xyzz *buckets = alloc_or_fail(s.nkeys * sizeof(G##_xyzz));                             \
        G##_xyzz *sums = alloc_or_fail(s.windows * s.segs * sizeof(G##_xyzz));                     \
        G##_xyzz *runs = alloc_or_fail(s.windows * s.segs * sizeof(G##_xyzz));                     \
        G##_xyzz *wins = alloc_or_fail(s.windows * sizeof(G##_xyzz));                              \
        for (uint32_t i = 0; i < n; i++)                                                           \
            zkpipe__cuda_##G##_digits(keys, vals, scalars, mont, i, n, &s);                        \
        for (uint32_t i = 0; i < total; i++)                                                       \
            pairs[i] = (uint64_t)keys[i] << 32 | vals[i];                                          \
        qsort(pairs, total, sizeof *pairs, pair_cmp);                                              \
        for (uint32_t i = 0; i < total; i++) {                                                     \
            keys[i] = (uint32_t)(pairs[i] >> 32);                                                  \
            vals[i] = (uint32_t)pairs[i];                                                          \
        }                                                                                          \
        for (uint32_t i = 0; i < total; i++)                                                       \
            zkpipe__cuda_msm_bounds(starts, ends, keys, i, total, s.nkeys);                        \
        for (uint32_t b = 0; b <= s.nkeys; b++)                                                    \
            zkpipe__cuda_msm_piece_count(counts, starts, ends, b, s.nkeys);                        \
        offsets[0] = 0;                                                                            \
        for (uint32_t b = 0; b < s.nkeys; b++)                                                     \
            offsets[b + 1] = offsets[b] + counts[b];                                               \
        G##_xyzz *partials = alloc_or_fail(offsets[s.nkeys] * sizeof(G##_xyzz));                   \
        for (uint32_t p = 0; p < offsets[s.nkeys]; p++)                                            \
            zkpipe__cuda_##G##_piece_sum(partials, bases, vals, starts, ends, offsets, p,          \
                                         s.nkeys);                                                 \
        uint32_t *offsets2 = alloc_or_fail((s.nkeys + 1) * sizeof(uint32_t));                      \
        for (uint32_t b = 0; b <= s.nkeys; b++)                                                    \
            zkpipe__cuda_msm_piece_count(counts, offsets, offsets + 1, b, s.nkeys);                \
        for (uint32_t b = 0; b < s.nkeys; b++)                                                     \
            offsets2[b + 1] = offsets2[b] + counts[b];                                             \
        G##_xyzz *merged = alloc_or_fail(offsets2[s.nkeys] * sizeof(G##_xyzz));                    \
        for (uint32_t p = 0; p < offsets2[s.nkeys]; p++)                                           \
            zkpipe__cuda_##G##_piece_merge(merged, partials, offsets, offsets2, p, s.nkeys);       \
        for (uint32_t b = 0; b < s.nkeys; b++)                                                     \
            zkpipe__cuda_##G##_bucket_sum(buckets, merged, offsets2, b);                           \
        for (uint32_t w = 0; w < s.windows; w++)                                                   \
            for (uint32_t t = 0; t < s.segs; t++)                                                  \
                zkpipe__cuda_##G##_segment(sums, runs, buckets, w, t, &s);                         \
        for (uint32_t w = 0; w < s.windows; w++)                                                   \
            zkpipe__cuda_##G##_window_sum(wins, sums, runs, w, &s);                                \
        zkpipe__cuda_##G##_combine(out, wins, &s);                                                 \
        free(keys), free(vals), free(pairs), free(starts), free(ends), free(counts);               \
        free(offsets), free(buckets), free(sums), free(runs), free(wins), free(partials);          \
        free(offsets2), free(merged);                                                              \
    }                                                                                              \
    static void G##_check(const G##_affine *bases, const uint64_t *k, uint32_t n, int mont)        \
    {                                                                                              \
        G want, got;                                                                               \
        zkpipe__msm_config cfg = {0, mont ? ZKPIPE__MSM_MONTGOMERY : 0};                           \
        assert_int_equal(zkpipe__msm_##G##_ex(&want, bases, k, NULL, n, &cfg, NULL, NULL),         \
                         ZKPIPE_OK);                                                               \
        G##_emu_msm(&got, bases, k, n, mont);                                                      \
        assert_true(G##_eq(&got, &want));                                                          \
    }                                                                                              \
    /* Edge cases (one point, zero scalars, infinity bases, P and -P, a bucket cut into many       \
     * pieces) and random sums whose windows need several reduction segments. */                   \
    static void G##_msm_matches_cpu(void **state)                                                  \
    {                                                                                              \
        (void)state;                                                                               \
        uint32_t big = ZKPIPE_TEST_SANITIZED ? 600 : (1u << 13) + 5;                               \
        G##_affine *bases = alloc_or_fail(big * sizeof(G##_affine));                               \
        uint64_t *k = alloc_or_fail(big * 4 * sizeof(uint64_t)), seed = 11;                        \
        G##_test_points(bases, big, &seed);                                                        \
        for (uint32_t i = 0; i < 4 * big; i++)                                                     \
            k[i] = test_splitmix64(&seed);                                                         \
        G##_check(bases, k, 1, 0);                                                                 \
        memset(k, 0, 4 * 4 * sizeof(uint64_t)); /* zero scalars */                                 \
        G##_check(bases, k, 4, 0);                                                                 \
        k[0] = 1;                                                                                  \
        G##_affine_set_infinity(&bases[1]);                                                        \
        k[4] = 5;                                                                                  \
        G##_affine_neg(&bases[2], &bases[0]); /* P and -P with equal scalars: cancel */            \
        k[8] = 1;                                                                                  \
        G##_check(bases, k, 4, 0);                                                                 \
        for (uint32_t i = 0; i < big; i++) { /* one bucket of every point */                       \
            memset(k + 4 * i, 0, 4 * sizeof(uint64_t));                                            \
            k[4 * i] = 1;                                                                          \
        }                                                                                          \
        G##_check(bases, k, 300, 0); /* 5 pieces */                                                \
        G##_check(bases, k, big, 0); /* 129 pieces, 3 merged sums (600: 10, 1) */                  \
        for (uint32_t i = 0; i < 4 * big; i++)                                                     \
            k[i] = test_splitmix64(&seed);                                                         \
        for (uint32_t i = 0; i < big; i++) { /* Montgomery scalars must be reduced */              \
            FR e;                                                                                  \
            k[4 * i + 3] >>= 4;                                                                    \
            assert_true(FR##_from_canonical(&e, k + 4 * i));                                       \
            memcpy(k + 4 * i, e.l, sizeof e.l);                                                    \
        }                                                                                          \
        G##_check(bases, k, 77, 1);                                                                \
        G##_check(bases, k, big, 1);                                                               \
        free(bases);                                                                               \
        free(k);                                                                                   \
    }

MSM_EMULATION(bls12_381_g1, bls12_381_fq, bls12_381_fr)
MSM_EMULATION(bn254_g1, bn254_fq, bn254_fr)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bit_reverse_is_an_involution),
        cmocka_unit_test(butterflies_cover_each_stage),
        cmocka_unit_test(bls12_381_fr_ntt_matches_cpu),
        cmocka_unit_test(bn254_fr_ntt_matches_cpu),
        cmocka_unit_test(booth_digits_sum_to_the_scalar),
        cmocka_unit_test(shapes_and_piece_owners),
        cmocka_unit_test(bls12_381_g1_msm_matches_cpu),
        cmocka_unit_test(bn254_g1_msm_matches_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
