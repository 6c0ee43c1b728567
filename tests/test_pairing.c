/* The optimal ate pairings of BLS12-381 and BN254: known answers from tests/vectors/ (noble),
 * bilinearity, non-degeneracy, points at infinity, and multi-pairings (more pairs than one
 * Miller-loop chunk) against products of single pairings. */
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

/* More pairs than ZKPIPE__EC_MILLER_CHUNK, so the product spans chunks. */
#define MANY 11

#define PAIRING_TESTS(C)                                                                           \
    /* p = a·G1 and q = b·G2. */                                                                 \
    static void C##_points(C##_g1_affine *p, C##_g2_affine *q, const C##_fr *a, const C##_fr *b)   \
    {                                                                                              \
        C##_g1 pj;                                                                                 \
        C##_g2 qj;                                                                                 \
        C##_g1_generator(p);                                                                       \
        C##_g2_generator(q);                                                                       \
        C##_g1_from_affine(&pj, p);                                                                \
        C##_g2_from_affine(&qj, q);                                                                \
        C##_g1_mul(&pj, &pj, a);                                                                   \
        C##_g2_mul(&qj, &qj, b);                                                                   \
        C##_g1_to_affine(p, &pj);                                                                  \
        C##_g2_to_affine(q, &qj);                                                                  \
    }                                                                                              \
    static void C##_read_fq12(C##_fq12 *r, const vectors_record *rec, size_t tok)                  \
    {                                                                                              \
        C##_fq *c[12] = {&r->c0.c0.c0, &r->c0.c0.c1, &r->c0.c1.c0, &r->c0.c1.c1,                   \
                         &r->c0.c2.c0, &r->c0.c2.c1, &r->c1.c0.c0, &r->c1.c0.c1,                   \
                         &r->c1.c1.c0, &r->c1.c1.c1, &r->c1.c2.c0, &r->c1.c2.c1};                  \
        uint8_t buf[C##_fq_BYTES];                                                                 \
        for (size_t i = 0; i < 12; i++) {                                                          \
            assert_int_equal(vectors_hex(rec, tok + i, buf, sizeof(buf)), 0);                      \
            assert_true(C##_fq_from_bytes_be(c[i], buf));                                          \
        }                                                                                          \
    }                                                                                              \
    static void C##_read_fr(C##_fr *r, const vectors_record *rec, size_t tok)                      \
    {                                                                                              \
        uint8_t buf[C##_fr_BYTES];                                                                 \
        assert_int_equal(vectors_hex(rec, tok, buf, sizeof(buf)), 0);                              \
        assert_true(C##_fr_from_bytes_be(r, buf));                                                 \
    }                                                                                              \
    static void C##_pairing_vectors(void **state)                                                  \
    {                                                                                              \
        vectors_file f;                                                                            \
        size_t n = 0;                                                                              \
        (void)state;                                                                               \
        assert_int_equal(vectors_load(&f, "tests/vectors/" #C "_pairing.txt"), 0);                 \
        for (size_t i = 0; i < f.count; i++) {                                                     \
            const vectors_record *rec = &f.records[i];                                             \
            C##_fr a, b;                                                                           \
            C##_g1_affine p;                                                                       \
            C##_g2_affine q;                                                                       \
            C##_fq12 want, got;                                                                    \
            if (strcmp(rec->name, "pairing") != 0)                                                 \
                continue;                                                                          \
            C##_read_fr(&a, rec, 0);                                                               \
            C##_read_fr(&b, rec, 1);                                                               \
            C##_read_fq12(&want, rec, 2);                                                          \
            C##_points(&p, &q, &a, &b);                                                            \
            C##_pairing(&got, &p, &q, 1);                                                          \
            if (!C##_fq12_eq(&got, &want))                                                         \
                fail_msg("%s line %u: pairing differs", #C, rec->line);                            \
            n++;                                                                                   \
        }                                                                                          \
        assert_true(n >= 5);                                                                       \
        vectors_free(&f);                                                                          \
    }                                                                                              \
    static void C##_pairing_properties(void **state)                                               \
    {                                                                                              \
        C##_fr a, b, ab, one, sum;                                                                 \
        C##_g1_affine g1, p[MANY];                                                                 \
        C##_g2_affine g2, q[MANY];                                                                 \
        C##_fq12 e, e1, e2, prod;                                                                  \
        uint64_t k[C##_fr_LIMBS];                                                                  \
        (void)state;                                                                               \
        C##_fr_from_u64(&a, 0x1234567);                                                            \
        C##_fr_from_u64(&b, 0x89abcdef);                                                           \
        C##_fr_mul(&ab, &a, &b);                                                                   \
        C##_fr_set_one(&one);                                                                      \
        C##_points(&g1, &g2, &one, &one);                                                          \
        C##_pairing(&e, &g1, &g2, 1); /* non-degenerate, of order r */                             \
        assert_false(C##_fq12_is_one(&e));                                                         \
        C##_fq12_pow(&e1, &e, C##_fr_MODULUS, C##_fr_LIMBS);                                       \
        assert_true(C##_fq12_is_one(&e1));                                                         \
        C##_points(&p[0], &q[0], &a, &b); /* e(aP, bQ) = e(abP, Q) = e(P, Q)^(ab) */               \
        C##_pairing(&e1, &p[0], &q[0], 1);                                                         \
        C##_points(&p[1], &q[1], &ab, &one);                                                       \
        C##_pairing(&e2, &p[1], &q[1], 1);                                                         \
        assert_true(C##_fq12_eq(&e1, &e2));                                                        \
        C##_fr_to_canonical(k, &ab);                                                               \
        C##_fq12_pow(&e2, &e, k, C##_fr_LIMBS);                                                    \
        assert_true(C##_fq12_eq(&e1, &e2));                                                        \
        C##_points(&p[1], &q[1], &one, &ab);                                                       \
        C##_pairing(&e2, &p[1], &q[1], 1);                                                         \
        assert_true(C##_fq12_eq(&e1, &e2));                                                        \
        C##_g1_affine_set_infinity(&p[1]); /* infinity on either side gives 1 */                   \
        C##_pairing(&e2, &p[1], &q[1], 1);                                                         \
        assert_true(C##_fq12_is_one(&e2));                                                         \
        C##_g2_affine_set_infinity(&q[0]);                                                         \
        C##_pairing(&e2, &p[0], &q[0], 1);                                                         \
        assert_true(C##_fq12_is_one(&e2));                                                         \
        C##_pairing(&e2, NULL, NULL, 0);                                                           \
        assert_true(C##_fq12_is_one(&e2));                                                         \
        /* MANY pairs (i+1)P, (i+2)Q with p[MANY-1] set so the exponents sum to 0: product 1, and  \
         * every prefix equals the product of its single pairings. */                              \
        C##_fr_set_zero(&sum);                                                                     \
        C##_fq12_set_one(&prod);                                                                   \
        for (int i = 0; i < MANY; i++) {                                                           \
            C##_fr_from_u64(&a, (uint64_t)i + 1);                                                  \
            C##_fr_from_u64(&b, (uint64_t)i + 2);                                                  \
            if (i == MANY - 1) {                                                                   \
                C##_fr_neg(&a, &sum);                                                              \
                C##_fr_set_one(&b);                                                                \
            }                                                                                      \
            C##_points(&p[i], &q[i], &a, &b);                                                      \
            C##_fr_mul(&ab, &a, &b);                                                               \
            C##_fr_add(&sum, &sum, &ab);                                                           \
            if (i < MANY - 1) {                                                                    \
                C##_pairing(&e1, &p[i], &q[i], 1);                                                 \
                C##_fq12_mul(&prod, &prod, &e1);                                                   \
            }                                                                                      \
        }                                                                                          \
        C##_pairing(&e1, p, q, MANY - 1);                                                          \
        assert_true(C##_fq12_eq(&e1, &prod));                                                      \
        C##_pairing(&e1, p, q, MANY);                                                              \
        assert_true(C##_fq12_is_one(&e1));                                                         \
    }

PAIRING_TESTS(bls12_381)
PAIRING_TESTS(bn254)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bls12_381_pairing_vectors),
        cmocka_unit_test(bls12_381_pairing_properties),
        cmocka_unit_test(bn254_pairing_vectors),
        cmocka_unit_test(bn254_pairing_properties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
