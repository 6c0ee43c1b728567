/* Prime fields and towers: algebraic properties with fixed seeds, edge values, encodings,
 * and a few answers computed independently with python3 big integers. */
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
#include "skips.h"

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

/* Ring axioms and inversion for any field type T with a T_random generator. */
#define RING_TESTS(T)                                                                              \
    static void T##_axioms(void **state)                                                           \
    {                                                                                              \
        (void)state;                                                                               \
        rng_state = 1;                                                                             \
        T zero, one;                                                                               \
        T##_set_zero(&zero);                                                                       \
        T##_set_one(&one);                                                                         \
        for (int it = 0; it < ITERS; it++) {                                                       \
            T a, b, c, x, y, z;                                                                    \
            T##_random(&a);                                                                        \
            T##_random(&b);                                                                        \
            T##_random(&c);                                                                        \
            T##_add(&x, &a, &b);                                                                   \
            T##_add(&y, &b, &a);                                                                   \
            assert_true(T##_eq(&x, &y));                                                           \
            T##_mul(&x, &a, &b);                                                                   \
            T##_mul(&y, &b, &a);                                                                   \
            assert_true(T##_eq(&x, &y));                                                           \
            T##_add(&x, &a, &b);                                                                   \
            T##_add(&x, &x, &c);                                                                   \
            T##_add(&y, &b, &c);                                                                   \
            T##_add(&y, &a, &y);                                                                   \
            assert_true(T##_eq(&x, &y));                                                           \
            T##_mul(&x, &a, &b);                                                                   \
            T##_mul(&x, &x, &c);                                                                   \
            T##_mul(&y, &b, &c);                                                                   \
            T##_mul(&y, &a, &y);                                                                   \
            assert_true(T##_eq(&x, &y));                                                           \
            T##_add(&x, &b, &c); /* a (b + c) = ab + ac */                                         \
            T##_mul(&x, &a, &x);                                                                   \
            T##_mul(&y, &a, &b);                                                                   \
            T##_mul(&z, &a, &c);                                                                   \
            T##_add(&y, &y, &z);                                                                   \
            assert_true(T##_eq(&x, &y));                                                           \
            T##_sub(&x, &a, &b); /* a - b = a + (-b) */                                            \
            T##_neg(&y, &b);                                                                       \
            T##_add(&y, &a, &y);                                                                   \
            assert_true(T##_eq(&x, &y));                                                           \
            T##_add(&x, &x, &b);                                                                   \
            assert_true(T##_eq(&x, &a));                                                           \
            T##_dbl(&x, &a);                                                                       \
            T##_add(&y, &a, &a);                                                                   \
            assert_true(T##_eq(&x, &y));                                                           \
            T##_sqr(&x, &a);                                                                       \
            T##_mul(&y, &a, &a);                                                                   \
            assert_true(T##_eq(&x, &y));                                                           \
            T##_mul(&x, &a, &one);                                                                 \
            assert_true(T##_eq(&x, &a));                                                           \
            T##_add(&x, &a, &zero);                                                                \
            assert_true(T##_eq(&x, &a));                                                           \
            T##_mul(&x, &a, &zero);                                                                \
            assert_true(T##_is_zero(&x));                                                          \
            T##_neg(&x, &a);                                                                       \
            T##_add(&x, &x, &a);                                                                   \
            assert_true(T##_is_zero(&x));                                                          \
        }                                                                                          \
    }                                                                                              \
    static void T##_inverse(void **state)                                                          \
    {                                                                                              \
        (void)state;                                                                               \
        rng_state = 3;                                                                             \
        T a, x, y;                                                                                 \
        T##_set_one(&x);                                                                           \
        assert_int_equal(T##_inv(&x, &x), 1);                                                      \
        assert_true(T##_is_one(&x));                                                               \
        T##_set_zero(&a);                                                                          \
        T##_set_one(&x);                                                                           \
        assert_int_equal(T##_inv(&x, &a), 0);                                                      \
        assert_true(T##_is_zero(&x));                                                              \
        for (int it = 0; it < ITERS / 4; it++) {                                                   \
            T##_random(&a);                                                                        \
            if (T##_is_zero(&a))                                                                   \
                continue;                                                                          \
            assert_int_equal(T##_inv(&x, &a), 1);                                                  \
            T##_mul(&y, &x, &a);                                                                   \
            assert_true(T##_is_one(&y));                                                           \
            y = a; /* output aliasing the input */                                                 \
            assert_int_equal(T##_inv(&y, &y), 1);                                                  \
            assert_true(T##_eq(&x, &y));                                                           \
        }                                                                                          \
    }

/* Square roots and the Legendre symbol for a field type T; TWEAK (a statement, may be empty)
 * adjusts each random `a` at iteration `it`. */
#define SQRT_TESTS(T, TWEAK)                                                                       \
    static void T##_square_roots(void **state)                                                     \
    {                                                                                              \
        (void)state;                                                                               \
        rng_state = 5;                                                                             \
        T a, s, x, y;                                                                              \
        int squares = 0, non_squares = 0;                                                          \
        T##_set_zero(&a);                                                                          \
        assert_int_equal(T##_legendre(&a), 0);                                                     \
        assert_int_equal(T##_sqrt(&x, &a), 1);                                                     \
        assert_true(T##_is_zero(&x));                                                              \
        for (int it = 0; it < ITERS / 4; it++) {                                                   \
            T##_random(&a);                                                                        \
            TWEAK                                                                                  \
            T##_sqr(&s, &a);                                                                       \
            assert_int_equal(T##_legendre(&s), T##_is_zero(&a) ? 0 : 1);                           \
            assert_int_equal(T##_sqrt(&x, &s), 1);                                                 \
            T##_sqr(&y, &x);                                                                       \
            assert_true(T##_eq(&y, &s));                                                           \
            int l = T##_legendre(&a);                                                              \
            int ok = T##_sqrt(&x, &a);                                                             \
            assert_int_equal(ok, l >= 0);                                                          \
            if (ok) {                                                                              \
                T##_sqr(&y, &x);                                                                   \
                assert_true(T##_eq(&y, &a));                                                       \
                squares++;                                                                         \
            } else {                                                                               \
                assert_true(T##_is_zero(&x));                                                      \
                non_squares++;                                                                     \
            }                                                                                      \
        }                                                                                          \
        assert_true(squares > 5 && non_squares > 5);                                               \
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
    RING_TESTS(F)                                                                                  \
    /* F_mul and F_sqr take mont_x86.h's multiplier and squaring where the CPU allows: they must   \
     * agree with the portable multiplier, including at the largest input (p - 1 squared). */      \
    static void F##_mul_paths(void **state)                                                        \
    {                                                                                              \
        (void)state;                                                                               \
        if (!ZKPIPE__FF_X86 || !zkpipe__ff_x86_adx)                                                \
            test_skip("no ADX on this CPU");                                                       \
        rng_state = 11;                                                                            \
        F a, b, x, y;                                                                              \
        uint64_t pm1[F##_LIMBS];                                                                   \
        memcpy(pm1, F##_MODULUS, sizeof pm1);                                                      \
        pm1[0] -= 1;                                                                               \
        memcpy(a.l, pm1, sizeof pm1); /* not Montgomery form: any value below p will do */         \
        F##_mul(&x, &a, &a);                                                                       \
        F##_mul_portable(&y, &a, &a);                                                              \
        assert_memory_equal(x.l, y.l, sizeof x.l);                                                 \
        F##_sqr(&x, &a);                                                                           \
        assert_memory_equal(x.l, y.l, sizeof x.l);                                                 \
        for (int it = 0; it < 50 * ITERS; it++) {                                                  \
            F##_random(&a);                                                                        \
            F##_random(&b);                                                                        \
            F##_mul(&x, &a, &b);                                                                   \
            F##_mul_portable(&y, &a, &b);                                                          \
            assert_memory_equal(x.l, y.l, sizeof x.l);                                             \
            F##_mul_portable(&y, &a, &a);                                                          \
            F##_sqr(&x, &a);                                                                       \
            assert_memory_equal(x.l, y.l, sizeof x.l);                                             \
            F##_mul_portable(&y, &a, &b);                                                          \
            F##_mul(&a, &a, &b); /* output aliasing an input */                                    \
            assert_memory_equal(a.l, y.l, sizeof a.l);                                             \
            F##_mul_portable(&y, &a, &a);                                                          \
            F##_sqr(&a, &a);                                                                       \
            assert_memory_equal(a.l, y.l, sizeof a.l);                                             \
        }                                                                                          \
    }                                                                                              \
    /* F_mul_lazy stays below 2 p and F_reduce_lazy of it is F_mul's product, for inputs up to     \
     * 2 p - 1 (a + p for a reduced a) and along a chain of its own outputs; F_mul and F_sqr take  \
     * such inputs too. Without the room (4 p >= R: BLS12-381's Fr) or without ADX it is F_mul.    \
     * Values below 2 p are given only where the lazy path runs: nothing else promises them. */    \
    static void F##_lazy_paths(void **state)                                                       \
    {                                                                                              \
        (void)state;                                                                               \
        rng_state = 17;                                                                            \
        const int room =                                                                           \
            ZKPIPE__FF_X86 && zkpipe__ff_x86_adx && F##_MODULUS[F##_LIMBS - 1] >> 62 == 0;         \
        uint64_t two_p[F##_LIMBS];                                                                 \
        zkpipe__limbs_add(two_p, F##_MODULUS, F##_MODULUS, F##_LIMBS);                             \
        F a, b, la, lb, x, y, ref, chain;                                                          \
        for (int it = 0; it <= 20 * ITERS; it++) {                                                 \
            F##_random(&a);                                                                        \
            F##_random(&b);                                                                        \
            if (it == 0) { /* the largest: 2 p - 1 on both sides */                                \
                memcpy(a.l, F##_MODULUS, sizeof a.l);                                              \
                a.l[0] -= 1;                                                                       \
                b = a;                                                                             \
            }                                                                                      \
            la = a;                                                                                \
            lb = b;                                                                                \
            if (room && (it == 0 || rng_next() % 2))                                               \
                zkpipe__limbs_add(la.l, a.l, F##_MODULUS, F##_LIMBS);                              \
            if (room && (it == 0 || rng_next() % 2))                                               \
                zkpipe__limbs_add(lb.l, b.l, F##_MODULUS, F##_LIMBS);                              \
            F##_mul(&ref, &a, &b);                                                                 \
            F##_mul_lazy(&x, &la, &lb);                                                            \
            assert_true(zkpipe__limbs_lt(x.l, room ? two_p : F##_MODULUS, F##_LIMBS));             \
            F##_reduce_lazy(&y, &x);                                                               \
            assert_memory_equal(y.l, ref.l, sizeof y.l);                                           \
            F##_mul(&y, &la, &lb);                                                                 \
            assert_memory_equal(y.l, ref.l, sizeof y.l);                                           \
            F##_mul(&ref, &a, &a);                                                                 \
            F##_sqr(&y, &la);                                                                      \
            assert_memory_equal(y.l, ref.l, sizeof y.l);                                           \
            F##_mul_lazy(&la, &la, &lb); /* output aliasing an input */                            \
            F##_reduce_lazy(&la, &la);                                                             \
            F##_mul(&ref, &a, &b);                                                                 \
            assert_memory_equal(la.l, ref.l, sizeof la.l);                                         \
        }                                                                                          \
        F##_random(&chain);                                                                        \
        ref = chain;                                                                               \
        for (int it = 0; it < 20 * ITERS; it++) {                                                  \
            F##_random(&b);                                                                        \
            F##_mul_lazy(&chain, &chain, &b);                                                      \
            assert_true(zkpipe__limbs_lt(chain.l, two_p, F##_LIMBS));                              \
            F##_mul(&ref, &ref, &b);                                                               \
        }                                                                                          \
        F##_reduce_lazy(&chain, &chain);                                                           \
        assert_memory_equal(chain.l, ref.l, sizeof chain.l);                                       \
    }                                                                                              \
    /* The split multiplier: F_reduce of F_mul_wide is F_mul, and its x86 and portable halves      \
     * agree, up to the largest inputs fp2.h gives them (sums below 2p, t just below p R). */      \
    static void F##_wide_paths(void **state)                                                       \
    {                                                                                              \
        (void)state;                                                                               \
        rng_state = 13;                                                                            \
        F a, b, x, y;                                                                              \
        uint64_t t[2 * F##_LIMBS], u[2 * F##_LIMBS], s[F##_LIMBS];                                 \
        for (int it = 0; it < 20 * ITERS; it++) {                                                  \
            F##_random(&a);                                                                        \
            F##_random(&b);                                                                        \
            F##_mul_wide(t, a.l, b.l);                                                             \
            F##_mul_wide_portable(u, a.l, b.l);                                                    \
            assert_memory_equal(t, u, sizeof t);                                                   \
            F##_reduce(&x, t);                                                                     \
            F##_reduce_portable(&y, t);                                                            \
            assert_memory_equal(x.l, y.l, sizeof x.l);                                             \
            F##_mul(&y, &a, &b);                                                                   \
            assert_memory_equal(x.l, y.l, sizeof x.l);                                             \
            zkpipe__limbs_add(s, a.l, b.l, F##_LIMBS); /* below 2p */                              \
            F##_mul_wide(t, s, s);                                                                 \
            F##_mul_wide_portable(u, s, s);                                                        \
            assert_memory_equal(t, u, sizeof t);                                                   \
        }                                                                                          \
        /* t = p R - 1: the largest F_reduce accepts */                                            \
        memset(t, 0xff, sizeof t);                                                                 \
        memcpy(t + F##_LIMBS, F##_MODULUS, sizeof s);                                              \
        t[F##_LIMBS] -= 1;                                                                         \
        F##_reduce(&x, t);                                                                         \
        F##_reduce_portable(&y, t);                                                                \
        assert_memory_equal(x.l, y.l, sizeof x.l);                                                 \
        assert_true(zkpipe__limbs_lt(x.l, F##_MODULUS, F##_LIMBS));                                \
        F##_sub_wide(u, t, t); /* zero, with no p R added */                                       \
        assert_true(zkpipe__limbs_is_zero(u, 2 * F##_LIMBS));                                      \
        memset(u, 0, sizeof u);                                                                    \
        u[0] = 1;                                                                                  \
        F##_sub_wide(u, u, t); /* 1 - (p R - 1) + p R = 2 */                                       \
        assert_true(u[0] == 2 && zkpipe__limbs_is_zero(u + 1, 2 * F##_LIMBS - 1));                 \
    }                                                                                              \
    /* mod_inv.h's walk against limbs.h's on plain integers: small, short, full-width and          \
     * near-p values, each taken by the fast walk (it gives up on none of them) with the same      \
     * answer. */                                                                                  \
    static void F##_inverse_walks(void **state)                                                    \
    {                                                                                              \
        (void)state;                                                                               \
        rng_state = 19;                                                                            \
        const uint64_t *p = F##_MODULUS;                                                           \
        uint64_t pinv = p[0]; /* Newton: p pinv = 1 mod 2^64, then negated */                      \
        for (int i = 0; i < 6; i++)                                                                \
            pinv *= 2 - p[0] * pinv;                                                               \
        pinv = 0 - pinv;                                                                           \
        for (int it = 0; it < 4 * ITERS; it++) {                                                   \
            uint64_t y[F##_LIMBS] = {0}, want[F##_LIMBS], got[F##_LIMBS];                          \
            if (it < 4) {                                                                          \
                memcpy(y, p, sizeof y); /* p - 1 .. p - 4 */                                       \
                y[0] -= (uint64_t)it + 1;                                                          \
            } else if (it < 70) {                                                                  \
                unsigned bit = (unsigned)it - 6; /* 3, 5, 1, 2, 4, .. 2^62, 2^64 + 1 */            \
                y[0] = it == 4 ? 3 : it == 5 ? 5 : UINT64_C(1) << bit;                             \
                if (it == 69)                                                                      \
                    y[0] = y[1] = 1;                                                               \
            } else {                                                                               \
                unsigned words = 1 + (unsigned)(rng_next() % F##_LIMBS);                           \
                for (unsigned i = 0; i < words; i++)                                               \
                    y[i] = rng_next();                                                             \
                y[words - 1] >>= rng_next() % 64; /* lengths of every kind */                      \
                while (!zkpipe__limbs_lt(y, p, F##_LIMBS))                                         \
                    zkpipe__limbs_sub(y, y, p, F##_LIMBS);                                         \
                if (zkpipe__limbs_is_zero(y, F##_LIMBS))                                           \
                    y[0] = 1;                                                                      \
            }                                                                                      \
            zkpipe__mod_inv(want, y, p, F##_LIMBS);                                                \
            assert_int_equal(zkpipe__mod_inv_fast(got, y, p, pinv, F##_LIMBS), 1);                 \
            assert_memory_equal(got, want, sizeof got);                                            \
            F fy, fg; /* and y (1/y) = 1 in the field */                                           \
            assert_true(F##_from_canonical(&fy, y) && F##_from_canonical(&fg, got));               \
            F##_mul(&fy, &fy, &fg);                                                                \
            assert_true(F##_is_one(&fy));                                                          \
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
    SQRT_TESTS(F, )                                                                                \
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

/* Tower tests for curve P. Extension elements are built from random base coefficients, so
 * they include 0, 1 and p - 1 coefficients too. */
#define TOWER_TESTS(P, C)                                                                          \
    static void P##_fq2_random(P##_fq2 *r)                                                         \
    {                                                                                              \
        P##_fq_random(&r->c0);                                                                     \
        P##_fq_random(&r->c1);                                                                     \
    }                                                                                              \
    static void P##_fq6_random(P##_fq6 *r)                                                         \
    {                                                                                              \
        P##_fq2_random(&r->c0);                                                                    \
        P##_fq2_random(&r->c1);                                                                    \
        P##_fq2_random(&r->c2);                                                                    \
    }                                                                                              \
    static void P##_fq12_random(P##_fq12 *r)                                                       \
    {                                                                                              \
        P##_fq6_random(&r->c0);                                                                    \
        P##_fq6_random(&r->c1);                                                                    \
    }                                                                                              \
    RING_TESTS(P##_fq2)                                                                            \
    RING_TESTS(P##_fq6)                                                                            \
    RING_TESTS(P##_fq12)                                                                           \
    static void P##_fq2_special(void **state)                                                      \
    {                                                                                              \
        (void)state;                                                                               \
        rng_state = 7;                                                                             \
        P##_fq2 a, b, x, y, xi;                                                                    \
        P##_fq n;                                                                                  \
        P##_fq_from_u64(&xi.c0, C##_XI_C0);                                                        \
        P##_fq_set_one(&xi.c1);                                                                    \
        for (int it = 0; it < ITERS / 8; it++) {                                                   \
            P##_fq2_random(&a);                                                                    \
            P##_fq2_random(&b);                                                                    \
            P##_fq2_mul_by_nonresidue(&x, &a);                                                     \
            P##_fq2_mul(&y, &a, &xi);                                                              \
            assert_true(P##_fq2_eq(&x, &y));                                                       \
            P##_fq2_mul_by_fq(&x, &a, &b.c0);                                                      \
            y = b;                                                                                 \
            P##_fq_set_zero(&y.c1);                                                                \
            P##_fq2_mul(&y, &a, &y);                                                               \
            assert_true(P##_fq2_eq(&x, &y));                                                       \
            P##_fq2_conjugate(&x, &a); /* a conj(a) = norm(a) */                                   \
            P##_fq2_mul(&x, &x, &a);                                                               \
            P##_fq2_norm(&n, &a);                                                                  \
            assert_true(P##_fq_eq(&x.c0, &n) && P##_fq_is_zero(&x.c1));                            \
            P##_fq2_pow(&x, &a, P##_fq_MODULUS, P##_fq_LIMBS); /* Frobenius = a^p */               \
            P##_fq2_frobenius(&y, &a, 1);                                                          \
            assert_true(P##_fq2_eq(&x, &y));                                                       \
            P##_fq2_frobenius(&y, &a, 2);                                                          \
            assert_true(P##_fq2_eq(&y, &a));                                                       \
            assert_int_equal(P##_fq2_is_square(&a), P##_fq2_legendre(&a) >= 0);                    \
            P##_fq2_sqr(&x, &a);                                                                   \
            assert_int_equal(P##_fq2_is_square(&x), 1);                                            \
        }                                                                                          \
    }                                                                                              \
    /* fp2.h's lazily reduced products against the schoolbook formula on reduced products, with    \
     * the headroom they rely on: 4p < R, i.e. p's top limb below 2^62. */                         \
    static void P##_fq2_lazy(void **state)                                                         \
    {                                                                                              \
        (void)state;                                                                               \
        rng_state = 17;                                                                            \
        assert_true(P##_fq_MODULUS[P##_fq_LIMBS - 1] < UINT64_C(1) << 62);                         \
        P##_fq2 a, b, x, y;                                                                        \
        P##_fq t;                                                                                  \
        for (int it = 0; it < 20 * ITERS; it++) {                                                  \
            P##_fq2_random(&a);                                                                    \
            P##_fq2_random(&b);                                                                    \
            P##_fq_mul(&y.c0, &a.c0, &b.c0);                                                       \
            P##_fq_mul(&t, &a.c1, &b.c1);                                                          \
            P##_fq_sub(&y.c0, &y.c0, &t);                                                          \
            P##_fq_mul(&y.c1, &a.c0, &b.c1);                                                       \
            P##_fq_mul(&t, &a.c1, &b.c0);                                                          \
            P##_fq_add(&y.c1, &y.c1, &t);                                                          \
            P##_fq2_mul(&x, &a, &b);                                                               \
            assert_true(P##_fq2_eq(&x, &y));                                                       \
            P##_fq2_mul(&a, &a, &b); /* output aliasing an input */                                \
            assert_true(P##_fq2_eq(&a, &y));                                                       \
            P##_fq_mul(&y.c0, &a.c0, &a.c0);                                                       \
            P##_fq_mul(&t, &a.c1, &a.c1);                                                          \
            P##_fq_sub(&y.c0, &y.c0, &t);                                                          \
            P##_fq_mul(&y.c1, &a.c0, &a.c1);                                                       \
            P##_fq_dbl(&y.c1, &y.c1);                                                              \
            P##_fq2_sqr(&a, &a);                                                                   \
            assert_true(P##_fq2_eq(&a, &y));                                                       \
        }                                                                                          \
    }                                                                                              \
    SQRT_TESTS(P##_fq2, if (it % 5 == 0) P##_fq_set_zero(&a.c1);)                                  \
    static void P##_fq6_special(void **state)                                                      \
    {                                                                                              \
        (void)state;                                                                               \
        rng_state = 9;                                                                             \
        P##_fq6 a, b, x, y, v;                                                                     \
        P##_fq6_set_zero(&v);                                                                      \
        P##_fq2_set_one(&v.c1);                                                                    \
        for (int it = 0; it < ITERS / 8; it++) {                                                   \
            P##_fq6_random(&a);                                                                    \
            P##_fq6_random(&b);                                                                    \
            P##_fq6_mul_by_nonresidue(&x, &a);                                                     \
            P##_fq6_mul(&y, &a, &v);                                                               \
            assert_true(P##_fq6_eq(&x, &y));                                                       \
            P##_fq6_mul_by_fq2(&x, &a, &b.c0);                                                     \
            y = b;                                                                                 \
            P##_fq2_set_zero(&y.c1);                                                               \
            P##_fq2_set_zero(&y.c2);                                                               \
            P##_fq6_mul(&y, &a, &y);                                                               \
            assert_true(P##_fq6_eq(&x, &y));                                                       \
            P##_fq6_mul_by_01(&x, &a, &b.c0, &b.c1);                                               \
            y = b;                                                                                 \
            P##_fq2_set_zero(&y.c2);                                                               \
            P##_fq6_mul(&y, &a, &y);                                                               \
            assert_true(P##_fq6_eq(&x, &y));                                                       \
            P##_fq6_mul_by_1(&x, &a, &b.c1);                                                       \
            y = b;                                                                                 \
            P##_fq2_set_zero(&y.c0);                                                               \
            P##_fq2_set_zero(&y.c2);                                                               \
            P##_fq6_mul(&y, &a, &y);                                                               \
            assert_true(P##_fq6_eq(&x, &y));                                                       \
            x = a; /* Frobenius^k = (a^p)^...^p, k = 1, 2, 3 */                                    \
            for (unsigned k = 1; k <= 3; k++) {                                                    \
                P##_fq6_pow(&x, &x, P##_fq_MODULUS, P##_fq_LIMBS);                                 \
                P##_fq6_frobenius(&y, &a, k);                                                      \
                assert_true(P##_fq6_eq(&x, &y));                                                   \
            }                                                                                      \
            for (unsigned k = 0; k <= 6; k++) { /* phi^k phi^(6-k) = identity */                   \
                P##_fq6_frobenius(&x, &a, k);                                                      \
                P##_fq6_frobenius(&x, &x, 6 - k);                                                  \
                assert_true(P##_fq6_eq(&x, &a));                                                   \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void P##_fq12_special(void **state)                                                     \
    {                                                                                              \
        (void)state;                                                                               \
        rng_state = 10;                                                                            \
        P##_fq12 a, b, x, y;                                                                       \
        for (int it = 0; it < ITERS / 25; it++) {                                                  \
            P##_fq12_random(&a);                                                                   \
            P##_fq12_random(&b);                                                                   \
            P##_fq12_mul_by_fq6(&x, &a, &b.c0);                                                    \
            y = b;                                                                                 \
            P##_fq6_set_zero(&y.c1);                                                               \
            P##_fq12_mul(&y, &a, &y);                                                              \
            assert_true(P##_fq12_eq(&x, &y));                                                      \
            P##_fq12_frobenius(&x, &a, 6); /* a^(p^6) is the conjugate */                          \
            P##_fq12_conjugate(&y, &a);                                                            \
            assert_true(P##_fq12_eq(&x, &y));                                                      \
            P##_fq12_pow(&x, &a, P##_fq_MODULUS, P##_fq_LIMBS);                                    \
            P##_fq12_frobenius(&y, &a, 1);                                                         \
            assert_true(P##_fq12_eq(&x, &y));                                                      \
            P##_fq12_pow(&x, &x, P##_fq_MODULUS, P##_fq_LIMBS);                                    \
            P##_fq12_frobenius(&y, &a, 2);                                                         \
            assert_true(P##_fq12_eq(&x, &y));                                                      \
            for (unsigned k = 0; k <= 12; k++) {                                                   \
                P##_fq12_frobenius(&x, &a, k);                                                     \
                P##_fq12_frobenius(&x, &x, 12 - k);                                                \
                assert_true(P##_fq12_eq(&x, &a));                                                  \
                P##_fq12_frobenius(&x, &a, k); /* phi^k = phi^(k-1) phi */                         \
                P##_fq12_frobenius(&y, &a, k + 11);                                                \
                P##_fq12_frobenius(&y, &y, 1);                                                     \
                assert_true(P##_fq12_eq(&x, &y));                                                  \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void P##_fq12_cyclotomic(void **state)                                                  \
    {                                                                                              \
        (void)state;                                                                               \
        rng_state = 11;                                                                            \
        P##_fq12 a, c, x, y;                                                                       \
        for (int it = 0; it < ITERS / 25; it++) {                                                  \
            P##_fq12_random(&a);                                                                   \
            /* c = a^((p^6 - 1)(p^2 + 1)) lies in the cyclotomic subgroup */                       \
            P##_fq12_conjugate(&c, &a);                                                            \
            assert_int_equal(P##_fq12_inv(&a, &a), 1);                                             \
            P##_fq12_mul(&c, &c, &a);                                                              \
            P##_fq12_frobenius(&x, &c, 2);                                                         \
            P##_fq12_mul(&c, &c, &x);                                                              \
            P##_fq12_sqr(&x, &c);                                                                  \
            P##_fq12_cyclotomic_sqr(&y, &c);                                                       \
            assert_true(P##_fq12_eq(&x, &y));                                                      \
            P##_fq12_cyclotomic_sqr(&c, &c); /* in place */                                        \
            assert_true(P##_fq12_eq(&c, &y));                                                      \
        }                                                                                          \
    }

TOWER_TESTS(bls12_381, ZKPIPE__BLS12_381)
TOWER_TESTS(bn254, ZKPIPE__BN254)

/* Sparse products against the full product with the same line element. */
static void sparse_line_products(void **state)
{
    (void)state;
    rng_state = 12;
    for (int it = 0; it < ITERS / 25; it++) {
        bls12_381_fq12 a, l, x, y;
        bls12_381_fq12_random(&a);
        bls12_381_fq12_random(&l);
        bls12_381_fq2_set_zero(&l.c0.c2);
        bls12_381_fq2_set_zero(&l.c1.c0);
        bls12_381_fq2_set_zero(&l.c1.c2);
        bls12_381_fq12_mul(&x, &a, &l);
        bls12_381_fq12_mul_by_014(&y, &a, &l.c0.c0, &l.c0.c1, &l.c1.c1);
        assert_true(bls12_381_fq12_eq(&x, &y));
        bls12_381_fq12_mul_by_014(&a, &a, &l.c0.c0, &l.c0.c1, &l.c1.c1);
        assert_true(bls12_381_fq12_eq(&x, &a));

        bn254_fq12 b, m, u, w;
        bn254_fq12_random(&b);
        bn254_fq12_random(&m);
        bn254_fq2_set_zero(&m.c0.c1);
        bn254_fq2_set_zero(&m.c0.c2);
        bn254_fq2_set_zero(&m.c1.c2);
        bn254_fq12_mul(&u, &b, &m);
        bn254_fq12_mul_by_034(&w, &b, &m.c0.c0, &m.c1.c0, &m.c1.c1);
        assert_true(bn254_fq12_eq(&u, &w));
        bn254_fq12_mul_by_034(&b, &b, &m.c0.c0, &m.c1.c0, &m.c1.c1);
        assert_true(bn254_fq12_eq(&u, &b));
    }
}

#define FIELD_CASES(F)                                                                             \
    cmocka_unit_test(F##_axioms), cmocka_unit_test(F##_mul_paths),                                 \
        cmocka_unit_test(F##_lazy_paths), cmocka_unit_test(F##_wide_paths),                        \
        cmocka_unit_test(F##_edges), cmocka_unit_test(F##_inverse),                                \
        cmocka_unit_test(F##_inverse_walks), cmocka_unit_test(F##_batch_inverse),                  \
        cmocka_unit_test(F##_square_roots), cmocka_unit_test(F##_encodings)

#define TOWER_CASES(P)                                                                             \
    cmocka_unit_test(P##_fq2_axioms), cmocka_unit_test(P##_fq2_inverse),                           \
        cmocka_unit_test(P##_fq2_special), cmocka_unit_test(P##_fq2_lazy),                         \
        cmocka_unit_test(P##_fq2_square_roots), cmocka_unit_test(P##_fq6_axioms),                  \
        cmocka_unit_test(P##_fq6_inverse), cmocka_unit_test(P##_fq6_special),                      \
        cmocka_unit_test(P##_fq12_axioms), cmocka_unit_test(P##_fq12_inverse),                     \
        cmocka_unit_test(P##_fq12_special), cmocka_unit_test(P##_fq12_cyclotomic)

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
        TOWER_CASES(bls12_381),
        TOWER_CASES(bn254),
        cmocka_unit_test(sparse_line_products),
    };
    return run_tests_or_skip(tests);
}
