/* The 8-lane field arithmetic of ff/fp_x8.h (AVX-512 IFMA) against the scalar fields of fp.h:
 * products of random and edge inputs (0, 1, p - 1, R mod p, each redundant by up to the
 * largest multiples of p the kernels allow: R-form factors below 4 p, R'-form ones below
 * 2^(S+1) p), checked against F_mul and against the stated bound a b / 2^(52 L) + p; the
 * conversions in and out of the lanes; the additions and reductions. On a CPU (or under an
 * emulator) without AVX-512 IFMA, and off x86-64, every test skips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ff/bls12_381_fq_x8.h"
#include "ff/bn254_fq_x8.h"

#if ZKPIPE__FF_X86

#define ITERS 500
#define MASK52 ((UINT64_C(1) << 52) - 1)
#define MAXL 9 /* a value's 52-bit limbs, with room for a carry */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u); /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Plain big integers in 52-bit limbs, the reference the lanes are held against. */
typedef struct big {
    uint64_t l[2 * MAXL];
} big;

static void big_from64(big *r, const uint64_t *x, int n64, int shift)
{
    memset(r, 0, sizeof *r);
    for (int bit = 0; bit < 64 * n64; bit++)
        if (x[bit / 64] >> (bit % 64) & 1)
            r->l[(bit + shift) / 52] |= UINT64_C(1) << ((bit + shift) % 52);
}

static void big_to64(uint64_t *x, const big *a, int n64)
{
    memset(x, 0, (size_t)n64 * sizeof *x);
    for (int bit = 0; bit < 52 * 2 * MAXL; bit++)
        if (a->l[bit / 52] >> (bit % 52) & 1) {
            assert_true(bit < 64 * n64);
            x[bit / 64] |= UINT64_C(1) << (bit % 64);
        }
}

static int big_cmp(const big *a, const big *b)
{
    for (int i = 2 * MAXL; i-- > 0;)
        if (a->l[i] != b->l[i])
            return a->l[i] < b->l[i] ? -1 : 1;
    return 0;
}

/* r = a + k b for k < 2^40. */
static void big_addmul(big *r, const big *a, const big *b, uint64_t k)
{
    __extension__ typedef unsigned __int128 u128;
    u128 c = 0;
    for (int i = 0; i < 2 * MAXL; i++) {
        c += (u128)a->l[i] + (u128)b->l[i] * k;
        r->l[i] = (uint64_t)c & MASK52;
        c >>= 52;
    }
    assert_true(c == 0);
}

static void big_sub(big *r, const big *a, const big *b)
{
    int64_t c = 0;
    for (int i = 0; i < 2 * MAXL; i++) {
        int64_t v = (int64_t)a->l[i] - (int64_t)b->l[i] + c;
        r->l[i] = (uint64_t)v & MASK52;
        c = v < 0 ? -1 : 0;
    }
    assert_true(c == 0);
}

/* r = a b / 2^(52 n), rounded down. */
static void big_mul_shift(big *r, const big *a, const big *b, int n)
{
    __extension__ typedef unsigned __int128 u128;
    u128 acc[2 * MAXL + 1] = {0};
    big t;
    for (int i = 0; i < MAXL; i++)
        for (int j = 0; j < MAXL; j++)
            acc[i + j] += (u128)a->l[i] * b->l[j];
    for (int i = 0; i < 2 * MAXL; i++) {
        t.l[i] = (uint64_t)acc[i] & MASK52;
        acc[i + 1] += acc[i] >> 52;
    }
    memset(r, 0, sizeof *r);
    for (int i = n; i < 2 * MAXL; i++)
        r->l[i - n] = t.l[i];
}

/* The lanes of one F_x8, as limb j of lane i at [j][i]. */
typedef uint64_t lanes[MAXL][8];

static int has_ifma(void)
{
    return zkpipe__ff_x86_ifma;
}

/* Per field F with L lane limbs: the wrappers that run the lanes on plain arrays, the checks. */
#define X8_TESTS(F, C, L)                                                                          \
    static const int F##_S = ZKPIPE__X8_SHIFT(C, L);                                               \
    ZKPIPE__X8_TARGET static void F##_in(F##_x8 *r, lanes a)                                       \
    {                                                                                              \
        for (int j = 0; j < L; j++)                                                                \
            r->l[j] = _mm512_loadu_si512(a[j]);                                                    \
    }                                                                                              \
    ZKPIPE__X8_TARGET static void F##_out(lanes r, const F##_x8 *a)                                \
    {                                                                                              \
        for (int j = 0; j < L; j++)                                                                \
            _mm512_storeu_si512(r[j], a->l[j]);                                                    \
    }                                                                                              \
    ZKPIPE__X8_TARGET static void F##_lane_mul(lanes r, lanes a, lanes b)                          \
    {                                                                                              \
        F##_x8 x, y;                                                                               \
        F##_in(&x, a);                                                                             \
        F##_in(&y, b);                                                                             \
        F##_x8_mul(&x, &x, &y);                                                                    \
        F##_out(r, &x);                                                                            \
    }                                                                                              \
    static void F##_get(big *r, lanes a, int i)                                                    \
    {                                                                                              \
        memset(r, 0, sizeof *r);                                                                   \
        for (int j = 0; j < L; j++) {                                                              \
            assert_true(a[j][i] <= MASK52); /* normalised */                                       \
            r->l[j] = a[j][i];                                                                     \
        }                                                                                          \
    }                                                                                              \
    static void F##_put(lanes r, const big *a, int i)                                              \
    {                                                                                              \
        for (int j = L; j < 2 * MAXL; j++)                                                         \
            assert_true(a->l[j] == 0);                                                             \
        for (int j = 0; j < L; j++)                                                                \
            r[j][i] = a->l[j];                                                                     \
    }                                                                                              \
    static void F##_big_p(big *p)                                                                  \
    {                                                                                              \
        big_from64(p, F##_MODULUS, C##_LIMBS, 0);                                                  \
    }                                                                                              \
    /* a mod p for a < 8 p, as an element of F (its limbs, read as fp.h's R-form). */              \
    static void F##_big_reduce(F *r, const big *a)                                                 \
    {                                                                                              \
        big p, t = *a;                                                                             \
        int k = 0;                                                                                 \
        F##_big_p(&p);                                                                             \
        while (big_cmp(&t, &p) >= 0) {                                                             \
            big_sub(&t, &t, &p);                                                                   \
            assert_true(++k < 8);                                                                  \
        }                                                                                          \
        big_to64(r->l, &t, C##_LIMBS);                                                             \
    }                                                                                              \
    static void F##_rand(F *r)                                                                     \
    {                                                                                              \
        uint64_t t[C##_LIMBS];                                                                     \
        do {                                                                                       \
            for (int i = 0; i < C##_LIMBS; i++)                                                    \
                t[i] = rng_next();                                                                 \
            t[C##_LIMBS - 1] >>= __builtin_clzll(F##_MODULUS[C##_LIMBS - 1]);                      \
        } while (!zkpipe__limbs_lt(t, F##_MODULUS, C##_LIMBS));                                    \
        memcpy(r->l, t, sizeof t); /* any limbs below p: an element in R-form */                   \
    }                                                                                              \
    /* a + k p (R-form, k <= 3) and 2^S b + j p (R'-form), the largest j below 2^(S+1) p when      \
     * j_max is set, else a random j that keeps it there. */                                       \
    static void F##_redundant(big *ra, big *rb, const F *a, const F *b, uint64_t k, int j_max)     \
    {                                                                                              \
        big p, bound, one = {{1}};                                                                 \
        uint64_t j = 0;                                                                            \
        F##_big_p(&p);                                                                             \
        big_from64(ra, a->l, C##_LIMBS, 0);                                                        \
        big_addmul(ra, ra, &p, k);                                                                 \
        big_from64(rb, b->l, C##_LIMBS, F##_S);                                                    \
        memset(&bound, 0, sizeof bound);                                                           \
        big_addmul(&bound, &bound, &p, UINT64_C(2) << F##_S); /* 2^(S+1) p */                      \
        big_sub(&bound, &bound, &one);                                                             \
        /* 2^S b / p from the top limbs, then corrected: j_max = 2^(S+1) - 1 - ceil(2^S b / p) */  \
        double q = (double)b->l[C##_LIMBS - 1] / (double)F##_MODULUS[C##_LIMBS - 1];               \
        int64_t jm =                                                                               \
            (int64_t)((double)(UINT64_C(2) << F##_S) - q * (double)(UINT64_C(1) << F##_S)) + 2;    \
        big t;                                                                                     \
        for (;; jm--) {                                                                            \
            assert_true(jm >= 0);                                                                  \
            big_addmul(&t, rb, &p, (uint64_t)jm);                                                  \
            if (big_cmp(&t, &bound) <= 0)                                                          \
                break;                                                                             \
        }                                                                                          \
        j = j_max ? (uint64_t)jm : rng_next() % ((uint64_t)jm + 1);                                \
        big_addmul(rb, rb, &p, j);                                                                 \
    }                                                                                              \
    /* Eight products of the given inputs against F_mul and the bound. */                          \
    static void F##_check_products(const big *a, const big *b, const F *ea, const F *eb)           \
    {                                                                                              \
        lanes la = {{0}}, lb = {{0}}, lr;                                                          \
        for (int i = 0; i < 8; i++) {                                                              \
            F##_put(la, &a[i], i);                                                                 \
            F##_put(lb, &b[i], i);                                                                 \
        }                                                                                          \
        F##_lane_mul(lr, la, lb);                                                                  \
        for (int i = 0; i < 8; i++) {                                                              \
            big r, bound, p;                                                                       \
            F want, got;                                                                           \
            F##_big_p(&p);                                                                         \
            F##_get(&r, lr, i);                                                                    \
            big_mul_shift(&bound, &a[i], &b[i], L);                                                \
            big_addmul(&bound, &bound, &p, 1);                                                     \
            assert_true(big_cmp(&r, &bound) <= 0); /* r < a b / 2^(52 L) + p: r - p <= floor */    \
            F##_big_reduce(&got, &r);                                                              \
            F##_mul(&want, &ea[i], &eb[i]);                                                        \
            assert_true(F##_eq(&got, &want));                                                      \
        }                                                                                          \
    }                                                                                              \
    static void F##_x8_products(void **state)                                                      \
    {                                                                                              \
        (void)state;                                                                               \
        if (!has_ifma())                                                                           \
            skip();                                                                                \
        rng_state = 1;                                                                             \
        for (int it = 0; it < ITERS; it++) {                                                       \
            big a[8], b[8];                                                                        \
            F ea[8], eb[8];                                                                        \
            for (int i = 0; i < 8; i++) {                                                          \
                F##_rand(&ea[i]);                                                                  \
                F##_rand(&eb[i]);                                                                  \
                /* a third exact, a third redundant at random, a third at the largest */           \
                uint64_t k = it % 3 == 0 ? 0 : it % 3 == 1 ? rng_next() % 4 : 3;                   \
                if (it % 3 == 0) {                                                                 \
                    big_from64(&a[i], ea[i].l, C##_LIMBS, 0);                                      \
                    big_from64(&b[i], eb[i].l, C##_LIMBS, F##_S);                                  \
                } else {                                                                           \
                    F##_redundant(&a[i], &b[i], &ea[i], &eb[i], k, it % 3 == 2);                   \
                }                                                                                  \
            }                                                                                      \
            F##_check_products(a, b, ea, eb);                                                      \
        }                                                                                          \
    }                                                                                              \
    /* 0, 1, p - 1 and R mod p (the element one) as both factors, each exact and redundant by      \
     * the largest multiple of p allowed. */                                                       \
    static void F##_x8_product_edges(void **state)                                                 \
    {                                                                                              \
        F edge[4];                                                                                 \
        uint64_t pm1[C##_LIMBS];                                                                   \
        (void)state;                                                                               \
        if (!has_ifma())                                                                           \
            skip();                                                                                \
        memcpy(pm1, F##_MODULUS, sizeof pm1);                                                      \
        pm1[0] -= 1;                                                                               \
        memset(&edge[0], 0, sizeof edge[0]);                                                       \
        memset(&edge[1], 0, sizeof edge[1]);                                                       \
        edge[1].l[0] = 1;                                                                          \
        memcpy(edge[2].l, pm1, sizeof pm1);                                                        \
        F##_set_one(&edge[3]);                                                                     \
        big a[8], b[8];                                                                            \
        F ea[8], eb[8];                                                                            \
        int lane = 0;                                                                              \
        for (int x = 0; x < 4; x++)                                                                \
            for (int y = 0; y < 4; y++)                                                            \
                for (int red = 0; red < 4; red++) { /* exact, a redundant, b redundant, both */    \
                    big ta, tb;                                                                    \
                    ea[lane] = edge[x];                                                            \
                    eb[lane] = edge[y];                                                            \
                    F##_redundant(&ta, &tb, &edge[x], &edge[y], 3, 1);                             \
                    if (red & 1)                                                                   \
                        a[lane] = ta;                                                              \
                    else                                                                           \
                        big_from64(&a[lane], edge[x].l, C##_LIMBS, 0);                             \
                    if (red & 2)                                                                   \
                        b[lane] = tb;                                                              \
                    else                                                                           \
                        big_from64(&b[lane], edge[y].l, C##_LIMBS, F##_S);                         \
                    if (++lane == 8) {                                                             \
                        F##_check_products(a, b, ea, eb);                                          \
                        lane = 0;                                                                  \
                    }                                                                              \
                }                                                                                  \
    }                                                                                              \
    /* Loads, stores and the conversions: R-form in and out unchanged, shift against a shifted     \
     * load, to_r of a shifted load back to the element; the additions against fp.h's. */          \
    ZKPIPE__X8_TARGET static int F##_lane_ops(const F *a, const F *b, const F *c, unsigned count)  \
    {                                                                                              \
        const F *pa[8], *pb[8], *pc[8];                                                            \
        F out[8];                                                                                  \
        F *po[8];                                                                                  \
        F##_x8 x, y, z, s, t;                                                                      \
        int bad = 0;                                                                               \
        for (int i = 0; i < 8; i++) {                                                              \
            pa[i] = &a[i];                                                                         \
            pb[i] = &b[i];                                                                         \
            pc[i] = &c[i];                                                                         \
            po[i] = &out[i];                                                                       \
        }                                                                                          \
        F##_x8_load(&x, pa, 0);                                                                    \
        F##_x8_load(&y, pb, 0);                                                                    \
        F##_x8_load(&z, pc, 0);                                                                    \
        /* store writes lanes below count only */                                                  \
        memset(out, 0xa5, sizeof out);                                                             \
        F##_x8_store(po, &x, count);                                                               \
        for (unsigned i = 0; i < 8; i++) {                                                         \
            F junk;                                                                                \
            memset(&junk, 0xa5, sizeof junk);                                                      \
            bad |= i < count ? !F##_eq(&out[i], &a[i]) : memcmp(&out[i], &junk, sizeof junk) != 0; \
        }                                                                                          \
        F##_x8_shift(&s, &x);                                                                      \
        F##_x8_load(&t, pa, 1);                                                                    \
        for (int j = 0; j < L; j++)                                                                \
            bad |= _mm512_cmpneq_epi64_mask(s.l[j], t.l[j]) != 0;                                  \
        F##_x8_to_r(&t, &t);                                                                       \
        F##_x8_store(po, &t, 8);                                                                   \
        for (int i = 0; i < 8; i++)                                                                \
            bad |= !F##_eq(&out[i], &a[i]) << 1;                                                   \
        /* a - b + p, p - a, a - b - c + 2 p, 3 a, each reduced */                                 \
        F##_x8_sub(&t, &x, &y, 1);                                                                 \
        F##_x8_reduce4(&t, &t);                                                                    \
        F##_x8_store(po, &t, 8);                                                                   \
        for (int i = 0; i < 8; i++) {                                                              \
            F w;                                                                                   \
            F##_sub(&w, &a[i], &b[i]);                                                             \
            bad |= !F##_eq(&out[i], &w) << 2;                                                      \
        }                                                                                          \
        F##_x8_neg(&t, &x);                                                                        \
        F##_x8_reduce2(&t, &t);                                                                    \
        F##_x8_store(po, &t, 8);                                                                   \
        for (int i = 0; i < 8; i++) {                                                              \
            F w;                                                                                   \
            F##_neg(&w, &a[i]);                                                                    \
            bad |= !F##_eq(&out[i], &w) << 3;                                                      \
        }                                                                                          \
        F##_x8_sub2(&t, &x, &y, &z);                                                               \
        F##_x8_reduce4(&t, &t);                                                                    \
        F##_x8_store(po, &t, 8);                                                                   \
        for (int i = 0; i < 8; i++) {                                                              \
            F w;                                                                                   \
            F##_sub(&w, &a[i], &b[i]);                                                             \
            F##_sub(&w, &w, &c[i]);                                                                \
            bad |= !F##_eq(&out[i], &w) << 4;                                                      \
        }                                                                                          \
        F##_x8_add3(&t, &x);                                                                       \
        F##_x8_reduce4(&t, &t);                                                                    \
        F##_x8_blend(&t, 0x55, &t, &y); /* even lanes b, odd lanes 3 a */                          \
        F##_x8_store(po, &t, 8);                                                                   \
        for (int i = 0; i < 8; i++) {                                                              \
            F w;                                                                                   \
            F##_add(&w, &a[i], &a[i]);                                                             \
            F##_add(&w, &w, &a[i]);                                                                \
            bad |= !F##_eq(&out[i], i % 2 ? &w : &b[i]) << 5;                                      \
        }                                                                                          \
        return bad;                                                                                \
    }                                                                                              \
    static void F##_x8_lane_ops(void **state)                                                      \
    {                                                                                              \
        (void)state;                                                                               \
        if (!has_ifma())                                                                           \
            skip();                                                                                \
        rng_state = 2;                                                                             \
        for (int it = 0; it < ITERS; it++) {                                                       \
            F a[8], b[8], c[8];                                                                    \
            for (int i = 0; i < 8; i++) {                                                          \
                F##_rand(&a[i]);                                                                   \
                F##_rand(&b[i]);                                                                   \
                F##_rand(&c[i]);                                                                   \
            }                                                                                      \
            if (it == 0) { /* the edges: 0, p - 1 */                                               \
                memset(&a[0], 0, sizeof a[0]);                                                     \
                memcpy(a[1].l, F##_MODULUS, sizeof a[1].l);                                        \
                a[1].l[0] -= 1;                                                                    \
                b[2] = c[2] = a[1];                                                                \
                memset(&b[3], 0, sizeof b[3]);                                                     \
            }                                                                                      \
            assert_int_equal(F##_lane_ops(a, b, c, (unsigned)it % 9), 0);                          \
        }                                                                                          \
    }

X8_TESTS(bls12_381_fq, ZKPIPE__BLS12_381_FQ, bls12_381_fq_X8_LIMBS)
X8_TESTS(bn254_fq, ZKPIPE__BN254_FQ, bn254_fq_X8_LIMBS)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bls12_381_fq_x8_products),
        cmocka_unit_test(bls12_381_fq_x8_product_edges),
        cmocka_unit_test(bls12_381_fq_x8_lane_ops),
        cmocka_unit_test(bn254_fq_x8_products),
        cmocka_unit_test(bn254_fq_x8_product_edges),
        cmocka_unit_test(bn254_fq_x8_lane_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* not x86-64: nothing to test */

static void no_lanes(void **state)
{
    (void)state;
    skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(no_lanes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
