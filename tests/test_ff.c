/* Prime fields and towers: algebraic properties with fixed seeds, edge values, encodings,
 * and a few answers computed independently with python3 big integers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ff/bls12_381_fq.h"
#include "ff/bls12_381_fr.h"
#include "ff/bn254_fq.h"
#include "ff/bn254_fr.h"

#define ITERS 200

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    /* splitmix64: a fixed seed gives the same elements on every run */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void hex_to_bytes(uint8_t *out, const char *hex, size_t n)
{
    assert_int_equal(strlen(hex), 2 * n);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
        out[i] = (uint8_t)v;
    }
}

/* The byte pattern the python-computed answers use: (i * m + k) mod 256, top nibble cleared. */
static void pattern_bytes(uint8_t *out, size_t n, unsigned m, unsigned k)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)(i * m + k);
    out[0] &= 0x0f;
}

/* Instantiates the prime-field tests for field F. Every 8th random element is an edge value
 * (0, 1 or p - 1) so the carries at the ends of the range are exercised. */
#define FIELD_TESTS(F)                                                                             \
    static void F##_random(F *r)                                                                   \
    {                                                                                              \
        uint64_t t[F##_LIMBS];                                                                     \
        uint64_t k = rng_next();                                                                   \
        if (k % 8 == 0) {                                                                          \
            F##_set_one(r);                                                                        \
            if (k % 3 == 0)                                                                        \
                F##_set_zero(r);                                                                   \
            else if (k % 3 == 1)                                                                   \
                F##_neg(r, r);                                                                     \
            return;                                                                                \
        }                                                                                          \
        do {                                                                                       \
            for (int i = 0; i < F##_LIMBS; i++)                                                    \
                t[i] = rng_next();                                                                 \
            t[F##_LIMBS - 1] &=                                                                    \
                (UINT64_C(1) << (64 - __builtin_clzll(F##_MODULUS[F##_LIMBS - 1]))) - 1;           \
        } while (!F##_from_canonical(r, t));                                                       \
    }                                                                                              \
    static void F##_axioms(void **state)                                                           \
    {                                                                                              \
        (void)state;                                                                               \
        rng_state = 1;                                                                             \
        F zero, one;                                                                               \
        F##_set_zero(&zero);                                                                       \
        F##_set_one(&one);                                                                         \
        for (int it = 0; it < ITERS; it++) {                                                       \
            F a, b, c, x, y, z;                                                                    \
            F##_random(&a);                                                                        \
            F##_random(&b);                                                                        \
            F##_random(&c);                                                                        \
            F##_add(&x, &a, &b);                                                                   \
            F##_add(&y, &b, &a);                                                                   \
            assert_true(F##_eq(&x, &y));                                                           \
            F##_mul(&x, &a, &b);                                                                   \
            F##_mul(&y, &b, &a);                                                                   \
            assert_true(F##_eq(&x, &y));                                                           \
            F##_add(&x, &a, &b);                                                                   \
            F##_add(&x, &x, &c);                                                                   \
            F##_add(&y, &b, &c);                                                                   \
            F##_add(&y, &a, &y);                                                                   \
            assert_true(F##_eq(&x, &y));                                                           \
            F##_mul(&x, &a, &b);                                                                   \
            F##_mul(&x, &x, &c);                                                                   \
            F##_mul(&y, &b, &c);                                                                   \
            F##_mul(&y, &a, &y);                                                                   \
            assert_true(F##_eq(&x, &y));                                                           \
            F##_add(&x, &b, &c); /* a (b + c) = ab + ac */                                         \
            F##_mul(&x, &a, &x);                                                                   \
            F##_mul(&y, &a, &b);                                                                   \
            F##_mul(&z, &a, &c);                                                                   \
            F##_add(&y, &y, &z);                                                                   \
            assert_true(F##_eq(&x, &y));                                                           \
            F##_sub(&x, &a, &b); /* a - b = a + (-b) */                                            \
            F##_neg(&y, &b);                                                                       \
            F##_add(&y, &a, &y);                                                                   \
            assert_true(F##_eq(&x, &y));                                                           \
            F##_add(&x, &x, &b);                                                                   \
            assert_true(F##_eq(&x, &a));                                                           \
            F##_dbl(&x, &a);                                                                       \
            F##_add(&y, &a, &a);                                                                   \
            assert_true(F##_eq(&x, &y));                                                           \
            F##_sqr(&x, &a);                                                                       \
            F##_mul(&y, &a, &a);                                                                   \
            assert_true(F##_eq(&x, &y));                                                           \
            F##_mul(&x, &a, &one);                                                                 \
            assert_true(F##_eq(&x, &a));                                                           \
            F##_add(&x, &a, &zero);                                                                \
            assert_true(F##_eq(&x, &a));                                                           \
            F##_mul(&x, &a, &zero);                                                                \
            assert_true(F##_is_zero(&x));                                                          \
            F##_neg(&x, &a);                                                                       \
            F##_add(&x, &x, &a);                                                                   \
            assert_true(F##_is_zero(&x));                                                          \
        }                                                                                          \
    }                                                                                              \
    static void F##_edges(void **state)                                                            \
    {                                                                                              \
        (void)state;                                                                               \
        F zero, one, m1, x, y;                                                                     \
        F##_set_zero(&zero);                                                                       \
        F##_set_one(&one);                                                                         \
        assert_true(F##_is_zero(&zero));                                                           \
        assert_false(F##_is_zero(&one));                                                           \
        assert_true(F##_is_one(&one));                                                             \
        assert_false(F##_is_one(&zero));                                                           \
        F##_neg(&x, &zero);                                                                        \
        assert_true(F##_is_zero(&x));                                                              \
        uint64_t t[F##_LIMBS];                                                                     \
        memcpy(t, F##_MODULUS, sizeof t);                                                          \
        t[0] -= 1;                                                                                 \
        assert_true(F##_from_canonical(&m1, t));                                                   \
        F##_neg(&x, &one);                                                                         \
        assert_true(F##_eq(&x, &m1));                                                              \
        F##_add(&x, &m1, &one); /* (p - 1) + 1 = 0 */                                              \
        assert_true(F##_is_zero(&x));                                                              \
        F##_sqr(&x, &m1);                                                                          \
        assert_true(F##_is_one(&x));                                                               \
        F##_sub(&x, &zero, &one);                                                                  \
        assert_true(F##_eq(&x, &m1));                                                              \
        F##_dbl(&x, &m1);                                                                          \
        F##_sub(&y, &m1, &one);                                                                    \
        assert_true(F##_eq(&x, &y));                                                               \
        F##_from_u64(&x, 6);                                                                       \
        F##_from_u64(&y, 2);                                                                       \
        F##_from_u64(&m1, 3);                                                                      \
        F##_mul(&y, &y, &m1);                                                                      \
        assert_true(F##_eq(&x, &y));                                                               \
        F##_from_u64(&x, 0);                                                                       \
        assert_true(F##_is_zero(&x));                                                              \
        F##_from_u64(&x, 1);                                                                       \
        assert_true(F##_is_one(&x));                                                               \
        F##_from_u64(&x, UINT64_MAX);                                                              \
        F##_to_canonical(t, &x);                                                                   \
        assert_true(t[0] == UINT64_MAX && t[1] == 0);                                              \
        /* pow: a^0 = 1, a^1 = a, a^(p-1) = 1 */                                                   \
        rng_state = 2;                                                                             \
        F a;                                                                                       \
        do                                                                                         \
            F##_random(&a);                                                                        \
        while (F##_is_zero(&a));                                                                   \
        uint64_t e[F##_LIMBS] = {0};                                                               \
        F##_pow(&x, &a, e, F##_LIMBS);                                                             \
        assert_true(F##_is_one(&x));                                                               \
        e[0] = 1;                                                                                  \
        F##_pow(&x, &a, e, 1);                                                                     \
        assert_true(F##_eq(&x, &a));                                                               \
        memcpy(e, F##_MODULUS, sizeof e);                                                          \
        e[0] -= 1;                                                                                 \
        F##_pow(&x, &a, e, F##_LIMBS);                                                             \
        assert_true(F##_is_one(&x));                                                               \
    }                                                                                              \
    static void F##_inverse(void **state)                                                          \
    {                                                                                              \
        (void)state;                                                                               \
        rng_state = 3;                                                                             \
        F a, x, y;                                                                                 \
        F##_set_one(&x);                                                                           \
        assert_int_equal(F##_inv(&x, &x), 1);                                                      \
        assert_true(F##_is_one(&x));                                                               \
        F##_set_zero(&a);                                                                          \
        F##_set_one(&x);                                                                           \
        assert_int_equal(F##_inv(&x, &a), 0);                                                      \
        assert_true(F##_is_zero(&x));                                                              \
        for (int it = 0; it < ITERS / 4; it++) {                                                   \
            F##_random(&a);                                                                        \
            if (F##_is_zero(&a))                                                                   \
                continue;                                                                          \
            assert_int_equal(F##_inv(&x, &a), 1);                                                  \
            F##_mul(&y, &x, &a);                                                                   \
            assert_true(F##_is_one(&y));                                                           \
            y = a; /* output aliasing the input */                                                 \
            assert_int_equal(F##_inv(&y, &y), 1);                                                  \
            assert_true(F##_eq(&x, &y));                                                           \
        }                                                                                          \
    }                                                                                              \
    static void F##_batch_inverse(void **state)                                                    \
    {                                                                                              \
        (void)state;                                                                               \
        rng_state = 4;                                                                             \
        enum { N = 17 };                                                                           \
        F in[N], out[N], scratch[N], x;                                                            \
        for (int i = 0; i < N; i++) {                                                              \
            F##_random(&in[i]);                                                                    \
            if (i == 0 || i == 5 || i == N - 1)                                                    \
                F##_set_zero(&in[i]);                                                              \
        }                                                                                          \
        F##_batch_inv(out, in, N, scratch);                                                        \
        for (int i = 0; i < N; i++) {                                                              \
            F##_inv(&x, &in[i]);                                                                   \
            assert_true(F##_eq(&x, &out[i]));                                                      \
        }                                                                                          \
        F##_batch_inv(in, in, N, scratch); /* in place */                                          \
        assert_memory_equal(in, out, sizeof in);                                                   \
        F##_batch_inv(out, in, 0, scratch);                                                        \
        assert_memory_equal(in, out, sizeof in);                                                   \
    }                                                                                              \
    static void F##_square_roots(void **state)                                                     \
    {                                                                                              \
        (void)state;                                                                               \
        rng_state = 5;                                                                             \
        F a, s, x, y;                                                                              \
        int squares = 0, non_squares = 0;                                                          \
        F##_set_zero(&a);                                                                          \
        assert_int_equal(F##_legendre(&a), 0);                                                     \
        assert_int_equal(F##_sqrt(&x, &a), 1);                                                     \
        assert_true(F##_is_zero(&x));                                                              \
        for (int it = 0; it < ITERS / 4; it++) {                                                   \
            F##_random(&a);                                                                        \
            F##_sqr(&s, &a);                                                                       \
            assert_int_equal(F##_legendre(&s), F##_is_zero(&a) ? 0 : 1);                           \
            assert_int_equal(F##_sqrt(&x, &s), 1);                                                 \
            F##_sqr(&y, &x);                                                                       \
            assert_true(F##_eq(&y, &s));                                                           \
            int l = F##_legendre(&a);                                                              \
            int ok = F##_sqrt(&x, &a);                                                             \
            assert_int_equal(ok, l >= 0);                                                          \
            if (ok) {                                                                              \
                F##_sqr(&y, &x);                                                                   \
                assert_true(F##_eq(&y, &a));                                                       \
                squares++;                                                                         \
            } else {                                                                               \
                assert_true(F##_is_zero(&x));                                                      \
                non_squares++;                                                                     \
            }                                                                                      \
        }                                                                                          \
        assert_true(squares > 5 && non_squares > 5);                                               \
    }                                                                                              \
    static void F##_encodings(void **state)                                                        \
    {                                                                                              \
        (void)state;                                                                               \
        rng_state = 6;                                                                             \
        uint8_t be[F##_BYTES], le[F##_BYTES];                                                      \
        F a, x, keep;                                                                              \
        for (int it = 0; it < ITERS / 4; it++) {                                                   \
            F##_random(&a);                                                                        \
            F##_to_bytes_be(be, &a);                                                               \
            F##_to_bytes_le(le, &a);                                                               \
            for (int i = 0; i < F##_BYTES; i++)                                                    \
                assert_int_equal(be[i], le[F##_BYTES - 1 - i]);                                    \
            assert_int_equal(F##_from_bytes_be(&x, be), 1);                                        \
            assert_true(F##_eq(&x, &a));                                                           \
            assert_int_equal(F##_from_bytes_le(&x, le), 1);                                        \
            assert_true(F##_eq(&x, &a));                                                           \
            uint64_t t[F##_LIMBS];                                                                 \
            F##_to_canonical(t, &a);                                                               \
            assert_true(zkpipe__limbs_lt(t, F##_MODULUS, F##_LIMBS));                              \
            assert_int_equal(F##_from_canonical(&x, t), 1);                                        \
            assert_true(F##_eq(&x, &a));                                                           \
        }                                                                                          \
        /* p, p + 1 and 2^bits - 1 are rejected and leave the output untouched */                  \
        uint64_t t[F##_LIMBS];                                                                     \
        memcpy(t, F##_MODULUS, sizeof t);                                                          \
        F##_set_one(&keep);                                                                        \
        x = keep;                                                                                  \
        assert_int_equal(F##_from_canonical(&x, t), 0);                                            \
        zkpipe__limbs_to_bytes(be, t, F##_LIMBS, 1);                                               \
        zkpipe__limbs_to_bytes(le, t, F##_LIMBS, 0);                                               \
        assert_int_equal(F##_from_bytes_be(&x, be), 0);                                            \
        assert_int_equal(F##_from_bytes_le(&x, le), 0);                                            \
        be[F##_BYTES - 1]++;                                                                       \
        le[0]++;                                                                                   \
        assert_int_equal(F##_from_bytes_be(&x, be), 0);                                            \
        assert_int_equal(F##_from_bytes_le(&x, le), 0);                                            \
        memset(be, 0xff, sizeof be);                                                               \
        assert_int_equal(F##_from_bytes_be(&x, be), 0);                                            \
        assert_int_equal(F##_from_bytes_le(&x, be), 0);                                            \
        assert_true(F##_eq(&x, &keep));                                                            \
        /* p - 1 is the largest accepted value */                                                  \
        t[0] -= 1;                                                                                 \
        zkpipe__limbs_to_bytes(be, t, F##_LIMBS, 1);                                               \
        assert_int_equal(F##_from_bytes_be(&x, be), 1);                                            \
        F##_neg(&a, &keep);                                                                        \
        assert_true(F##_eq(&x, &a));                                                               \
    }                                                                                              \
    static void F##_known_answers(const char *prod, const char *inv, const char *sum,              \
                                  const char *diff)                                                \
    {                                                                                              \
        uint8_t buf[F##_BYTES], want[F##_BYTES];                                                   \
        F a, b, x;                                                                                 \
        pattern_bytes(buf, F##_BYTES, 37, 11);                                                     \
        assert_int_equal(F##_from_bytes_be(&a, buf), 1);                                           \
        pattern_bytes(buf, F##_BYTES, 101, 7);                                                     \
        assert_int_equal(F##_from_bytes_be(&b, buf), 1);                                           \
        const char *hex[4] = {prod, inv, sum, diff};                                               \
        for (int k = 0; k < 4; k++) {                                                              \
            if (k == 0)                                                                            \
                F##_mul(&x, &a, &b);                                                               \
            else if (k == 1)                                                                       \
                F##_inv(&x, &a);                                                                   \
            else if (k == 2)                                                                       \
                F##_add(&x, &a, &b);                                                               \
            else                                                                                   \
                F##_sub(&x, &b, &a);                                                               \
            F##_to_bytes_be(buf, &x);                                                              \
            hex_to_bytes(want, hex[k], F##_BYTES);                                                 \
            assert_memory_equal(buf, want, F##_BYTES);                                             \
        }                                                                                          \
        assert_int_equal(F##_legendre(&a), 1);                                                     \
    }

FIELD_TESTS(bls12_381_fr)
FIELD_TESTS(bls12_381_fq)
FIELD_TESTS(bn254_fr)
FIELD_TESTS(bn254_fq)

/* Expected values: python3, a = pattern(37, 11), b = pattern(101, 7) as big-endian integers. */
static void prime_fields_match_python(void **state)
{
    (void)state;
    bls12_381_fr_known_answers("6be74173be3a8f0106d5d8b0cd0ed5353ce5b921fccdafe550b9c9ca1ec40cbd",
                               "57b22412bcd671a706b253a9234a170ae34152c174fc99421deb3ab0f9f5c8b0",
                               "129d26b13ac54ed862ed77018b149f28b33cc751da64ee79038d17a02ab53ec8",
                               "702a230f24d8fa042f7653c404de54c14ff91fbefc3ad7bafc3b7bbafc3c7bbd");
    bls12_381_fq_known_answers(
        "14f4506ac9062274fe397402cac7fea6b6cbee8bcf3d5c1e33304d2e7f01ab9ebf6e82e659e6a8d9d0b74745"
        "ac6b9a7a",
        "185b17e32f3e5091f3cb72564ffd9de7b1b0689d52ed9f0288de97a70cc482ca5f1a74f46953b705b71b201f"
        "22b50048",
        "129d26b13ac54ed862ed77018b149f28b33cc751da64ee79038d17a02ab53ec952dd66f07b048f19a32cb740"
        "cb54df68",
        "163d8da634bb6356475823723e88299360b2c740efc18e7b636c4e5cf2ed71e019e77cbaad8f7bbbb53b7cbb"
        "fc3b2667");
    bn254_fr_known_answers("0caf9a1915b36434ffc54db226933439ee6a614e008bc3ba147bac78ccf0aae9",
                           "2e2de1d418cdb55ea0f96d006aecdec0a06e645438fe869152ed920f722ff836",
                           "129d26b13ac54ed862ed77018b149f28b33cc751da64ee79038d17a02ab53ec8",
                           "2ca0ca2edc6d1ce5b48cc1727cbdd519246f640475f5ec4d401d714fec3c7bbd");
    bn254_fq_known_answers("23a73163f08446c5fbbe71f014d00a9e6c56db67ba74b13c8db53ead9badbaa1",
                           "294fa624dfd5ec29bf569c8e43f76297ed22075c53813160a517d9eb3a89f1db",
                           "129d26b13ac54ed862ed77018b149f28b33cc751da64ee79038d17a02ab53ec8",
                           "2ca0ca2edc6d1ce5b48cc1727cbdd51993bce64d64ae4649385c07d2d4b97903");
}

#define ROOT_OF_UNITY_TEST(F)                                                                      \
    static void F##_root_of_unity(void **state)                                                    \
    {                                                                                              \
        (void)state;                                                                               \
        F w = F##_ROOT_OF_UNITY, five, x;                                                          \
        for (int i = 0; i < F##_TWO_ADICITY - 1; i++)                                              \
            F##_sqr(&w, &w);                                                                       \
        F##_set_one(&x);                                                                           \
        F##_neg(&x, &x);                                                                           \
        assert_true(F##_eq(&w, &x)); /* w^(2^(s-1)) = -1: the order is exactly 2^s */              \
        /* w = 5^((r - 1) / 2^s) */                                                                \
        uint64_t e[F##_LIMBS];                                                                     \
        memcpy(e, F##_MODULUS, sizeof e);                                                          \
        for (int i = 0; i < F##_TWO_ADICITY; i++) {                                                \
            for (int k = 0; k < F##_LIMBS; k++)                                                    \
                e[k] = e[k] >> 1 | (k + 1 < F##_LIMBS ? e[k + 1] << 63 : 0);                       \
        }                                                                                          \
        F##_from_u64(&five, 5);                                                                    \
        F##_pow(&x, &five, e, F##_LIMBS);                                                          \
        assert_true(F##_eq(&x, &F##_ROOT_OF_UNITY));                                               \
    }

ROOT_OF_UNITY_TEST(bls12_381_fr)
ROOT_OF_UNITY_TEST(bn254_fr)

#define FIELD_CASES(F)                                                                             \
    cmocka_unit_test(F##_axioms), cmocka_unit_test(F##_edges), cmocka_unit_test(F##_inverse),      \
        cmocka_unit_test(F##_batch_inverse), cmocka_unit_test(F##_square_roots),                   \
        cmocka_unit_test(F##_encodings)

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIELD_CASES(bls12_381_fr),
        FIELD_CASES(bls12_381_fq),
        FIELD_CASES(bn254_fr),
        FIELD_CASES(bn254_fq),
        cmocka_unit_test(prime_fields_match_python),
        cmocka_unit_test(bls12_381_fr_root_of_unity),
        cmocka_unit_test(bn254_fr_root_of_unity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
