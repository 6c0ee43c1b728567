/* Field and tower arithmetic against @noble/curves (tests/vectors/<curve>_ff.txt): products,
 * inverses, square roots (either root) and non-squares for Fr, Fq, Fq2 and Fq12. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ff/bls12_381_fq12.h"
#include "ff/bls12_381_fr.h"
#include "ff/bn254_fq12.h"
#include "ff/bn254_fr.h"
#include "vectors.h"

/* Record kinds each file must contain, in the order of the counters below. */
static const char *const kinds[] = {
    "fr_modulus", "fr_mul",        "fr_inv",   "fr_sqrt",      "fr_nonsquare", "fq_modulus",
    "fq_mul",     "fq_inv",        "fq_sqrt",  "fq_nonsquare", "fq2_mul",      "fq2_inv",
    "fq2_sqrt",   "fq2_nonsquare", "fq12_mul", "fq12_inv",
};
enum { NKINDS = sizeof kinds / sizeof kinds[0] };

static int kind_index(const char *name)
{
    for (int k = 0; k < NKINDS; k++) {
        if (strcmp(kinds[k], name) == 0)
            return k;
    }
    return -1;
}

/* Per prime field F: token decoding and the four checks a prime-field record can ask for. */
#define PRIME_CHECKS(F)                                                                            \
    static void F##_token(F *r, const vectors_record *rec, size_t i)                               \
    {                                                                                              \
        uint8_t buf[F##_BYTES];                                                                    \
        if (vectors_hex(rec, i, buf, sizeof buf) != 0 || !F##_from_bytes_be(r, buf))               \
            fail_msg("line %u: token %zu is not a canonical element", rec->line, i);               \
    }                                                                                              \
    static void F##_check(const vectors_record *rec, const char *op)                               \
    {                                                                                              \
        F a, b, c, x;                                                                              \
        F##_token(&a, rec, 0);                                                                     \
        if (strcmp(op, "modulus") == 0) { /* the token is p - 1 */                                 \
            F##_set_one(&x);                                                                       \
            F##_add(&x, &x, &a);                                                                   \
            assert_true(F##_is_zero(&x));                                                          \
        } else if (strcmp(op, "mul") == 0) {                                                       \
            F##_token(&b, rec, 1);                                                                 \
            F##_token(&c, rec, 2);                                                                 \
            F##_mul(&x, &a, &b);                                                                   \
            assert_true(F##_eq(&x, &c));                                                           \
        } else if (strcmp(op, "inv") == 0) {                                                       \
            F##_token(&c, rec, 1);                                                                 \
            assert_int_equal(F##_inv(&x, &a), 1);                                                  \
            assert_true(F##_eq(&x, &c));                                                           \
        } else if (strcmp(op, "sqrt") == 0) {                                                      \
            F##_token(&c, rec, 1);                                                                 \
            assert_int_equal(F##_sqrt(&x, &a), 1);                                                 \
            F##_neg(&b, &c);                                                                       \
            assert_true(F##_eq(&x, &c) || F##_eq(&x, &b));                                         \
        } else {                                                                                   \
            assert_int_equal(F##_legendre(&a), -1);                                                \
            assert_int_equal(F##_sqrt(&x, &a), 0);                                                 \
        }                                                                                          \
    }

#define CURVE_CHECKS(P)                                                                            \
    PRIME_CHECKS(P##_fr)                                                                           \
    PRIME_CHECKS(P##_fq)                                                                           \
    static void P##_fq2_token(P##_fq2 *r, const vectors_record *rec, size_t i)                     \
    {                                                                                              \
        P##_fq_token(&r->c0, rec, i);                                                              \
        P##_fq_token(&r->c1, rec, i + 1);                                                          \
    }                                                                                              \
    /* Twelve Fq tokens in memory order c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1. */            \
    static void P##_fq12_token(P##_fq12 *r, const vectors_record *rec, size_t i)                   \
    {                                                                                              \
        P##_fq2 *slot[6] = {&r->c0.c0, &r->c0.c1, &r->c0.c2, &r->c1.c0, &r->c1.c1, &r->c1.c2};     \
        for (size_t k = 0; k < 6; k++)                                                             \
            P##_fq2_token(slot[k], rec, i + 2 * k);                                                \
    }                                                                                              \
    static void P##_fq2_check(const vectors_record *rec, const char *op)                           \
    {                                                                                              \
        P##_fq2 a, b, c, x;                                                                        \
        P##_fq2_token(&a, rec, 0);                                                                 \
        if (strcmp(op, "mul") == 0) {                                                              \
            P##_fq2_token(&b, rec, 2);                                                             \
            P##_fq2_token(&c, rec, 4);                                                             \
            P##_fq2_mul(&x, &a, &b);                                                               \
            assert_true(P##_fq2_eq(&x, &c));                                                       \
        } else if (strcmp(op, "inv") == 0) {                                                       \
            P##_fq2_token(&c, rec, 2);                                                             \
            assert_int_equal(P##_fq2_inv(&x, &a), 1);                                              \
            assert_true(P##_fq2_eq(&x, &c));                                                       \
        } else if (strcmp(op, "sqrt") == 0) {                                                      \
            P##_fq2_token(&c, rec, 2);                                                             \
            assert_int_equal(P##_fq2_sqrt(&x, &a), 1);                                             \
            P##_fq2_neg(&b, &c);                                                                   \
            assert_true(P##_fq2_eq(&x, &c) || P##_fq2_eq(&x, &b));                                 \
        } else {                                                                                   \
            assert_int_equal(P##_fq2_legendre(&a), -1);                                            \
            assert_int_equal(P##_fq2_sqrt(&x, &a), 0);                                             \
        }                                                                                          \
    }                                                                                              \
    static void P##_fq12_check(const vectors_record *rec, const char *op)                          \
    {                                                                                              \
        P##_fq12 a, b, c, x;                                                                       \
        P##_fq12_token(&a, rec, 0);                                                                \
        if (strcmp(op, "mul") == 0) {                                                              \
            P##_fq12_token(&b, rec, 12);                                                           \
            P##_fq12_token(&c, rec, 24);                                                           \
            P##_fq12_mul(&x, &a, &b);                                                              \
            assert_true(P##_fq12_eq(&x, &c));                                                      \
            P##_fq12_sqr(&x, &a); /* and the squaring path against the product */                  \
            P##_fq12_mul(&b, &a, &a);                                                              \
            assert_true(P##_fq12_eq(&x, &b));                                                      \
        } else {                                                                                   \
            P##_fq12_token(&c, rec, 12);                                                           \
            assert_int_equal(P##_fq12_inv(&x, &a), 1);                                             \
            assert_true(P##_fq12_eq(&x, &c));                                                      \
        }                                                                                          \
    }                                                                                              \
    static void P##_matches_noble(void **state)                                                    \
    {                                                                                              \
        (void)state;                                                                               \
        vectors_file f;                                                                            \
        size_t seen[NKINDS] = {0};                                                                 \
        assert_int_equal(vectors_load(&f, "tests/vectors/" #P "_ff.txt"), 0);                      \
        for (size_t i = 0; i < f.count; i++) {                                                     \
            const vectors_record *rec = &f.records[i];                                             \
            int k = kind_index(rec->name);                                                         \
            if (k < 0)                                                                             \
                fail_msg("line %u: unknown record %s", rec->line, rec->name);                      \
            seen[k]++;                                                                             \
            const char *op = strchr(rec->name, '_') + 1;                                           \
            if (strncmp(rec->name, "fr_", 3) == 0)                                                 \
                P##_fr_check(rec, op);                                                             \
            else if (strncmp(rec->name, "fq_", 3) == 0)                                            \
                P##_fq_check(rec, op);                                                             \
            else if (strncmp(rec->name, "fq2_", 4) == 0)                                           \
                P##_fq2_check(rec, op);                                                            \
            else                                                                                   \
                P##_fq12_check(rec, op);                                                           \
        }                                                                                          \
        for (int k = 0; k < NKINDS; k++) {                                                         \
            if (seen[k] == 0)                                                                      \
                fail_msg("no %s record in " #P "_ff.txt", kinds[k]);                               \
        }                                                                                          \
        vectors_free(&f);                                                                          \
    }

CURVE_CHECKS(bls12_381)
CURVE_CHECKS(bn254)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bls12_381_matches_noble),
        cmocka_unit_test(bn254_matches_noble),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
