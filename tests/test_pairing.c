/* The optimal ate pairings of BLS12-381 and BN254: against the known-answer pairings of
 * tests/vectors/ (computed by @noble/curves) coefficient by coefficient, the fast final
 * exponentiation against a plain exponentiation by the hard part's exponent, bilinearity,
 * order and non-degeneracy with fixed seeds, multi-pairings (more pairs than one chunk)
 * against products of single pairings, prepared G2 against plain, points at infinity, a
 * Groth16-shaped check, and one prepared point read by two threads at once. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ec/bls12_381_pairing.h"
#include "ec/bn254_pairing.h"
#include "vectors.h"

/* More pairs than ZKPIPE__PAIRING_CHUNK, so that chunks are multiplied together. */
#define MULTI_N (ZKPIPE__PAIRING_CHUNK + 2)

/* The hard part's exponents as little-endian limbs, computed with python3 big integers:
 * 3 (p⁴ - p² + 1)/r for BLS12-381 and 2x(6x² + 3x + 1) (p⁴ - p² + 1)/r for BN254, the
 * multiples the libraries our vectors come from compute (both prime to r). */
static const uint64_t bls12_381_hard[20] = {
    UINT64_C(0xaf444bdcaaab2f6b), UINT64_C(0xefcb3800a61a66d5), UINT64_C(0xb116bba59a18123a),
    UINT64_C(0x554e727d129be6a3), UINT64_C(0x8a65dbc1cc35fe5a), UINT64_C(0x6574220c23e5b6cc),
    UINT64_C(0x8c72178bc76a791c), UINT64_C(0xb415c7da454d4863), UINT64_C(0x37d47f639b68a630),
    UINT64_C(0x6a6a2b0ab1c47526), UINT64_C(0x6c9ae9625394f594), UINT64_C(0x6163cbf00bf566e4),
    UINT64_C(0x877c5e22f2639411), UINT64_C(0xb0f5836ba82b62de), UINT64_C(0xe3ae662e47a24ea0),
    UINT64_C(0x8d69012b6d183f47), UINT64_C(0xbcf13296f7a83fce), UINT64_C(0x7b69b9acc2cc45ea),
    UINT64_C(0x4237aa494c159cdc), UINT64_C(0x002e3941b8817705),
};
static const uint64_t bn254_hard[15] = {
    UINT64_C(0xcaa4152366144ab4), UINT64_C(0x114dc0ec2cab7ffd), UINT64_C(0x0cf0888c7a0ff6cf),
    UINT64_C(0x65c5644e949b6a90), UINT64_C(0x1be2458885117085), UINT64_C(0x5b35eb719e58db4b),
    UINT64_C(0x2566c550aeb7e0e2), UINT64_C(0x0c974024a316619f), UINT64_C(0xd147cb7d3a5203dc),
    UINT64_C(0x621d9bfed77c2ad0), UINT64_C(0x26473fbcd1c3ec1e), UINT64_C(0xe86518527b5e4036),
    UINT64_C(0x29259e9712ca7b71), UINT64_C(0x1891045f68d15763), UINT64_C(0x00679dd974c68787),
};

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ z >> 30) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ z >> 27) * UINT64_C(0x94d049bb133111eb);
    return z ^ z >> 31;
}

/* G_at(out, k): k times the generator of G, affine. */
#define POINT_AT(G, FR)                                                                            \
    static void G##_at(G##_affine *out, const FR *k)                                               \
    {                                                                                              \
        G t;                                                                                       \
        G##_generator(out);                                                                        \
        G##_from_affine(&t, out);                                                                  \
        G##_mul(&t, &t, k);                                                                        \
        G##_to_affine(out, &t);                                                                    \
    }

/* Everything below once per curve C; FQ_BYTES is the width of an Fq token in the vectors. */
#define PAIRING_TESTS(C, FQ_BYTES)                                                                 \
    /* A scalar below 2^252, under both curves' r. */                                              \
    static void C##_random_scalar(C##_fr *k, uint64_t *seed)                                       \
    {                                                                                              \
        uint64_t l[4];                                                                             \
        for (int i = 0; i < 4; i++)                                                                \
            l[i] = splitmix(seed);                                                                 \
        l[3] >>= 4;                                                                                \
        assert_true(C##_fr_from_canonical(k, l));                                                  \
    }                                                                                              \
    POINT_AT(C##_g1, C##_fr)                                                                       \
    POINT_AT(C##_g2, C##_fr)                                                                       \
    /* x^k for k in Fr, by the canonical integer. */                                               \
    static void C##_gt_pow(C##_fq12 *r, const C##_fq12 *x, const C##_fr *k)                        \
    {                                                                                              \
        uint64_t l[C##_fr_LIMBS_FOR_TEST];                                                         \
        C##_fr_to_canonical(l, k);                                                                 \
        C##_fq12_pow(r, x, l, C##_fr_LIMBS_FOR_TEST);                                              \
    }                                                                                              \
    /* The twelve Fq tokens of record r from token `first`, in tower order. */                     \
    static void C##_fq12_from_record(C##_fq12 *f, const vectors_record *r, size_t first)           \
    {                                                                                              \
        C##_fq6 *h[2] = {&f->c0, &f->c1};                                                          \
        unsigned char b[FQ_BYTES];                                                                 \
        size_t t = first;                                                                          \
        for (int i = 0; i < 2; i++) {                                                              \
            C##_fq2 *c[3] = {&h[i]->c0, &h[i]->c1, &h[i]->c2};                                     \
            for (int j = 0; j < 3; j++) {                                                          \
                assert_int_equal(vectors_hex(r, t++, b, sizeof b), 0);                             \
                assert_true(C##_fq_from_bytes_be(&c[j]->c0, b));                                   \
                assert_int_equal(vectors_hex(r, t++, b, sizeof b), 0);                             \
                assert_true(C##_fq_from_bytes_be(&c[j]->c1, b));                                   \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void test_##C##_vectors(void **state)                                                   \
    {                                                                                              \
        vectors_file vf;                                                                           \
        size_t seen = 0;                                                                           \
        (void)state;                                                                               \
        assert_int_equal(vectors_load(&vf, "tests/vectors/" #C "_pairing.txt"), 0);                \
        for (size_t i = 0; i < vf.count; i++) {                                                    \
            const vectors_record *r = &vf.records[i];                                              \
            unsigned char kb[32];                                                                  \
            C##_fr a, b;                                                                           \
            C##_g1_affine p;                                                                       \
            C##_g2_affine q;                                                                       \
            C##_fq12 want, got;                                                                    \
            if (strcmp(r->name, "pairing") != 0)                                                   \
                continue;                                                                          \
            assert_int_equal(r->count, 14);                                                        \
            assert_int_equal(vectors_hex(r, 0, kb, 32), 0);                                        \
            assert_true(C##_fr_from_bytes_be(&a, kb));                                             \
            assert_int_equal(vectors_hex(r, 1, kb, 32), 0);                                        \
            assert_true(C##_fr_from_bytes_be(&b, kb));                                             \
            C##_fq12_from_record(&want, r, 2);                                                     \
            C##_g1_at(&p, &a);                                                                     \
            C##_g2_at(&q, &b);                                                                     \
            C##_pairing(&got, &p, &q);                                                             \
            if (!C##_fq12_eq(&got, &want))                                                         \
                fail_msg(#C "_pairing.txt line %u: pairing differs", r->line);                     \
            seen++;                                                                                \
        }                                                                                          \
        vectors_free(&vf);                                                                         \
        assert_true(seen >= 3);                                                                    \
    }                                                                                              \
    /* The addition chain against the plain exponentiation, after the easy part. */                \
    static void test_##C##_final_exp_hard_part(void **state)                                       \
    {                                                                                              \
        uint64_t seed = 11;                                                                        \
        C##_fr a, b;                                                                               \
        C##_g1_affine p;                                                                           \
        C##_g2_affine q;                                                                           \
        C##_fq12 f, t, easy, want, got;                                                            \
        (void)state;                                                                               \
        C##_random_scalar(&a, &seed);                                                              \
        C##_random_scalar(&b, &seed);                                                              \
        C##_g1_at(&p, &a);                                                                         \
        C##_g2_at(&q, &b);                                                                         \
        C##_miller_loop(&f, &p, &q);                                                               \
        assert_true(C##_fq12_inv(&t, &f));                                                         \
        C##_fq12_conjugate(&easy, &f);                                                             \
        C##_fq12_mul(&easy, &easy, &t);                                                            \
        C##_fq12_frobenius(&t, &easy, 2);                                                          \
        C##_fq12_mul(&easy, &easy, &t);                                                            \
        C##_fq12_pow(&want, &easy, C##_hard, sizeof C##_hard / sizeof C##_hard[0]);                \
        C##_final_exp(&got, &f);                                                                   \
        assert_true(C##_fq12_eq(&got, &want));                                                     \
        assert_false(C##_fq12_is_one(&got));                                                       \
    }                                                                                              \
    /* e(aG1, bG2) = e(G1, G2)^(ab), e(G1, G2) ≠ 1 and e(G1, G2)^r = 1. */                       \
    static void test_##C##_bilinear(void **state)                                                  \
    {                                                                                              \
        uint64_t seed = 22;                                                                        \
        C##_fr a, b, ab, one;                                                                      \
        C##_g1_affine p, g1;                                                                       \
        C##_g2_affine q, g2;                                                                       \
        C##_fq12 e, base, want;                                                                    \
        (void)state;                                                                               \
        C##_random_scalar(&a, &seed);                                                              \
        C##_random_scalar(&b, &seed);                                                              \
        C##_fr_mul(&ab, &a, &b);                                                                   \
        C##_g1_at(&p, &a);                                                                         \
        C##_g2_at(&q, &b);                                                                         \
        C##_fr_set_one(&one);                                                                      \
        C##_g1_at(&g1, &one);                                                                      \
        C##_g2_at(&g2, &one);                                                                      \
        C##_pairing(&base, &g1, &g2);                                                              \
        assert_false(C##_fq12_is_one(&base));                                                      \
        C##_fq12_pow(&e, &base, C##_fr_MODULUS, C##_fr_LIMBS_FOR_TEST);                            \
        assert_true(C##_fq12_is_one(&e));                                                          \
        C##_pairing(&e, &p, &q);                                                                   \
        C##_gt_pow(&want, &base, &ab);                                                             \
        assert_true(C##_fq12_eq(&e, &want));                                                       \
        C##_pairing(&e, &g1, &q); /* e(G1, bG2) = e(G1, G2)^b too */                               \
        C##_gt_pow(&want, &base, &b);                                                              \
        assert_true(C##_fq12_eq(&e, &want));                                                       \
    }                                                                                              \
    /* e(P, Q) e(-P, Q) = 1 and e(P, Q) e(P, -Q) = 1, while e(P, Q)² ≠ 1. */                    \
    static void test_##C##_inverse(void **state)                                                   \
    {                                                                                              \
        uint64_t seed = 33;                                                                        \
        C##_fr a, b;                                                                               \
        C##_g1_affine p[2];                                                                        \
        C##_g2_affine q[2];                                                                        \
        (void)state;                                                                               \
        C##_random_scalar(&a, &seed);                                                              \
        C##_random_scalar(&b, &seed);                                                              \
        C##_g1_at(&p[0], &a);                                                                      \
        C##_g2_at(&q[0], &b);                                                                      \
        C##_g1_affine_neg(&p[1], &p[0]);                                                           \
        q[1] = q[0];                                                                               \
        assert_true(C##_pairing_check(p, q, 2));                                                   \
        p[1] = p[0];                                                                               \
        assert_false(C##_pairing_check(p, q, 2));                                                  \
        C##_g2_affine_neg(&q[1], &q[0]);                                                           \
        assert_true(C##_pairing_check(p, q, 2));                                                   \
    }                                                                                              \
    /* MULTI_N pairs, one at infinity: the multi-pairing, plain and prepared, against the          \
     * product of single pairings. */                                                              \
    static void test_##C##_multi(void **state)                                                     \
    {                                                                                              \
        static C##_g2_prepared prep[MULTI_N];                                                      \
        const C##_g2_prepared *pp[MULTI_N];                                                        \
        uint64_t seed = 44;                                                                        \
        C##_g1_affine p[MULTI_N];                                                                  \
        C##_g2_affine q[MULTI_N];                                                                  \
        C##_fq12 want, e, plain, prepared;                                                         \
        (void)state;                                                                               \
        C##_fq12_set_one(&want);                                                                   \
        for (int i = 0; i < MULTI_N; i++) {                                                        \
            C##_fr k;                                                                              \
            C##_random_scalar(&k, &seed);                                                          \
            C##_g1_at(&p[i], &k);                                                                  \
            C##_random_scalar(&k, &seed);                                                          \
            C##_g2_at(&q[i], &k);                                                                  \
            if (i == 3)                                                                            \
                C##_g1_affine_set_infinity(&p[i]);                                                 \
            C##_g2_prepare(&prep[i], &q[i]);                                                       \
            pp[i] = &prep[i];                                                                      \
            C##_pairing(&e, &p[i], &q[i]);                                                         \
            C##_fq12_mul(&want, &want, &e);                                                        \
        }                                                                                          \
        C##_multi_pairing(&e, p, q, MULTI_N);                                                      \
        assert_true(C##_fq12_eq(&e, &want));                                                       \
        C##_multi_miller_loop(&plain, p, q, MULTI_N);                                              \
        C##_multi_miller_loop_prepared(&prepared, p, pp, MULTI_N);                                 \
        assert_true(C##_fq12_eq(&plain, &prepared));                                               \
        C##_miller_loop(&plain, &p[0], &q[0]);                                                     \
        C##_multi_miller_loop_prepared(&prepared, p, pp, 1);                                       \
        assert_true(C##_fq12_eq(&plain, &prepared));                                               \
    }                                                                                              \
    /* A point at infinity on either side gives 1, prepared or not; so does the empty product. */  \
    static void test_##C##_infinity(void **state)                                                  \
    {                                                                                              \
        static C##_g2_prepared prep;                                                               \
        const C##_g2_prepared *pp = &prep;                                                         \
        C##_fr one;                                                                                \
        C##_g1_affine p, o1;                                                                       \
        C##_g2_affine q, o2;                                                                       \
        C##_fq12 e;                                                                                \
        (void)state;                                                                               \
        C##_fr_set_one(&one);                                                                      \
        C##_g1_at(&p, &one);                                                                       \
        C##_g2_at(&q, &one);                                                                       \
        C##_g1_affine_set_infinity(&o1);                                                           \
        C##_g2_affine_set_infinity(&o2);                                                           \
        C##_pairing(&e, &o1, &q);                                                                  \
        assert_true(C##_fq12_is_one(&e));                                                          \
        C##_pairing(&e, &p, &o2);                                                                  \
        assert_true(C##_fq12_is_one(&e));                                                          \
        C##_miller_loop(&e, &o1, &o2);                                                             \
        assert_true(C##_fq12_is_one(&e));                                                          \
        C##_g2_prepare(&prep, &o2);                                                                \
        assert_true(prep.infinity);                                                                \
        assert_true(C##_pairing_check_prepared(&p, &pp, 1));                                       \
        C##_g2_prepare(&prep, &q);                                                                 \
        assert_false(prep.infinity);                                                               \
        assert_false(C##_pairing_check_prepared(&p, &pp, 1));                                      \
        assert_true(C##_pairing_check_prepared(&o1, &pp, 1));                                      \
        C##_multi_pairing(&e, NULL, NULL, 0);                                                      \
        assert_true(C##_fq12_is_one(&e));                                                          \
        assert_true(C##_pairing_check(NULL, NULL, 0));                                             \
        assert_true(C##_pairing_check_prepared(NULL, NULL, 0));                                    \
    }                                                                                              \
    /* Groth16's equation e(A, B) = e(α, β) e(IC, γ) e(C, δ), checked as                       \
     * e(-A, B) e(α, β) e(IC, γ) e(C, δ) = 1 with β, γ, δ and B prepared; C solved from the \
     * exponents, then moved off by one. */                                                        \
    static void test_##C##_groth16_check(void **state)                                             \
    {                                                                                              \
        static C##_g2_prepared prep[4];                                                            \
        const C##_g2_prepared *pp[4] = {&prep[0], &prep[1], &prep[2], &prep[3]};                   \
        uint64_t seed = 55;                                                                        \
        C##_fr k1[4], k2[4], t, s;                                                                 \
        C##_g1_affine p[4];                                                                        \
        C##_g2_affine q[4];                                                                        \
        (void)state;                                                                               \
        for (int i = 0; i < 4; i++) {                                                              \
            C##_random_scalar(&k1[i], &seed);                                                      \
            C##_random_scalar(&k2[i], &seed);                                                      \
        }                                                                                          \
        /* k1[3] = (k1[0] k2[0] - k1[1] k2[1] - k1[2] k2[2]) / k2[3] */                            \
        C##_fr_mul(&t, &k1[0], &k2[0]);                                                            \
        for (int i = 1; i < 3; i++) {                                                              \
            C##_fr_mul(&s, &k1[i], &k2[i]);                                                        \
            C##_fr_sub(&t, &t, &s);                                                                \
        }                                                                                          \
        assert_true(C##_fr_inv(&s, &k2[3]));                                                       \
        C##_fr_mul(&k1[3], &t, &s);                                                                \
        for (int i = 0; i < 4; i++) {                                                              \
            C##_g1_at(&p[i], &k1[i]);                                                              \
            C##_g2_at(&q[i], &k2[i]);                                                              \
            C##_g2_prepare(&prep[i], &q[i]);                                                       \
        }                                                                                          \
        C##_g1_affine_neg(&p[0], &p[0]);                                                           \
        assert_true(C##_pairing_check_prepared(p, pp, 4));                                         \
        assert_true(C##_pairing_check(p, q, 4));                                                   \
        C##_fr_set_one(&s);                                                                        \
        C##_fr_add(&k1[3], &k1[3], &s);                                                            \
        C##_g1_at(&p[3], &k1[3]);                                                                  \
        assert_false(C##_pairing_check_prepared(p, pp, 4));                                        \
        assert_false(C##_pairing_check(p, q, 4));                                                  \
    }

#define bls12_381_fr_LIMBS_FOR_TEST ZKPIPE__BLS12_381_FR_LIMBS
#define bn254_fr_LIMBS_FOR_TEST ZKPIPE__BN254_FR_LIMBS

PAIRING_TESTS(bls12_381, 48)
PAIRING_TESTS(bn254, 32)

/* Threads sharing one prepared point, as verifier threads share a verifying key: each checks
 * e(-P, Q) e(P, Q) = 1 against it and records what it saw; the main thread asserts. */
typedef struct shared_check {
    const bn254_g2_prepared *prep;
    bn254_g1_affine p[2];
    int ok;
} shared_check;

static void *shared_check_run(void *arg)
{
    shared_check *c = arg;
    const bn254_g2_prepared *pp[2] = {c->prep, c->prep};
    c->ok = bn254_pairing_check_prepared(c->p, pp, 2);
    return NULL;
}

static void test_prepared_shared_by_threads(void **state)
{
    static bn254_g2_prepared prep;
    shared_check c[2];
    pthread_t th[2];
    bn254_fr k;
    bn254_g2_affine q;
    uint64_t seed = 66;
    (void)state;
    bn254_random_scalar(&k, &seed);
    bn254_g2_at(&q, &k);
    bn254_g2_prepare(&prep, &q);
    for (int i = 0; i < 2; i++) {
        c[i].prep = &prep;
        c[i].ok = -1;
        bn254_random_scalar(&k, &seed);
        bn254_g1_at(&c[i].p[0], &k);
        bn254_g1_affine_neg(&c[i].p[1], &c[i].p[0]);
        assert_int_equal(pthread_create(&th[i], NULL, shared_check_run, &c[i]), 0);
    }
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_int_equal(c[i].ok, 1);
    }
}

/* The prepared sizes follow from the loop parameters: BLS12-381 doubles for each bit of |x|
 * below the top and adds for each set one; BN254 does the same over the non-adjacent form of
 * 6x + 2 (a digit ±1 is an addition) and then adds two Frobenius images. */
static void test_line_counts(void **state)
{
    uint64_t bls_x = UINT64_C(0xd201000000010000);
    uint64_t x = UINT64_C(4965661367192848881);
    uint64_t hi = 1, lo = UINT64_C(0x9d797039be763ba8); /* 6x + 2 = 0x19d797039be763ba8 */
    unsigned bls_set = 0, naf_len = 0, naf_nonzero = 0;
    (void)state;
    assert_true(lo == 6 * x + 2); /* modulo 2^64 */
    for (int i = 0; i < 64; i++)
        bls_set += bls_x >> i & 1;
    assert_int_equal(BLS12_381_PAIRING_LINES, 63 + bls_set - 1);
    while (lo | hi) {
        if (lo & 1) {
            /* digit 2 - (n mod 4): subtract 1 or add 1 */
            if ((lo & 3) == 1) {
                lo -= 1;
            } else {
                lo += 1;
                hi += lo == 0;
            }
            naf_nonzero++;
        }
        lo = lo >> 1 | hi << 63;
        hi >>= 1;
        naf_len++;
    }
    assert_int_equal(BN254_PAIRING_LINES, (naf_len - 1) + (naf_nonzero - 1) + 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_counts),
        cmocka_unit_test(test_bls12_381_vectors),
        cmocka_unit_test(test_bls12_381_final_exp_hard_part),
        cmocka_unit_test(test_bls12_381_bilinear),
        cmocka_unit_test(test_bls12_381_inverse),
        cmocka_unit_test(test_bls12_381_multi),
        cmocka_unit_test(test_bls12_381_infinity),
        cmocka_unit_test(test_bls12_381_groth16_check),
        cmocka_unit_test(test_bn254_vectors),
        cmocka_unit_test(test_bn254_final_exp_hard_part),
        cmocka_unit_test(test_bn254_bilinear),
        cmocka_unit_test(test_bn254_inverse),
        cmocka_unit_test(test_bn254_multi),
        cmocka_unit_test(test_bn254_infinity),
        cmocka_unit_test(test_bn254_groth16_check),
        cmocka_unit_test(test_prepared_shared_by_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
