/* The 8-lane field arithmetic of ff/fp_x8.h (AVX-512 IFMA, 52-bit limbs) and ff/fp_x8f.h
 * (AVX-512F, BN254's Fq in 29-bit limbs), each family against the scalar fields of fp.h:
 * products of random and edge inputs (0, 1, p - 1, R mod p, each redundant by up to the
 * largest multiples of p the kernels allow: R-form factors below 4 p, R'-form ones below
 * 2^(S+1) p), checked against F_mul and against the stated bound a b / 2^(W L) + p; the
 * conversions in and out of the lanes; the additions and reductions; sums of two products with
 * one reduction (F_x8_mul2). Then Fq2 on the lanes (fp2_x8.h) against fp2.h: products, products
 * by an Fq element and squares, with their factors at the largest redundancy the batch kernels
 * give them. On a CPU (or under an emulator) without AVX-512 IFMA the IFMA family's tests skip,
 * without AVX-512F every test does, as off x86-64. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ff/bls12_381_fq2_x8.h"
#include "ff/bn254_fq2_x8.h"
#include "ff/bn254_fq2_x8f.h"
#include "skips.h"

#if ZKPIPE__FF_X86

#define ITERS 500
#define MASK52 ((UINT64_C(1) << 52) - 1)
#define MAXL 9      /* a value's 52-bit limbs, with room for a carry */
#define LANES_MAX 9 /* the most limbs of a lane value (BN254's Fq in 29-bit limbs) */

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

static int big_bit(const big *a, int bit)
{
    return bit < 52 * 2 * MAXL ? (int)(a->l[bit / 52] >> (bit % 52) & 1) : 0;
}

/* r = a b / 2^bits, rounded down. */
static void big_mul_shift(big *r, const big *a, const big *b, int bits)
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
    for (int bit = 0; bit + bits < 52 * 2 * MAXL; bit++)
        r->l[bit / 52] |= (uint64_t)big_bit(&t, bit + bits) << (bit % 52);
}

/* The lanes of one F_x8 or F_x8f, as limb j of lane i at [j][i]. */
typedef uint64_t lanes[LANES_MAX][8];

static int has_ifma(void)
{
    return zkpipe__ff_x86_ifma;
}

static int has_avx512(void)
{
    return zkpipe__ff_x86_avx512;
}

/* What the tests of a field F share across the lane families. */
#define X8_FIELD(F, C)                                                                             \
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
    }

X8_FIELD(bls12_381_fq, ZKPIPE__BLS12_381_FQ)
X8_FIELD(bn254_fq, ZKPIPE__BN254_FQ)

/* Per field F and lane family X (_x8 or _x8f) with L lane limbs of W bits, the family's target
 * TGT, and HAS, whether it runs here: the wrappers that run the lanes on plain arrays, the
 * checks. */
#define X8_TESTS(F, X, C, L, W, TGT, HAS)                                                          \
    static const int F##X##_S = ZKPIPE__X8_SHIFT(C, L, W);                                         \
    TGT static void F##X##_in(F##X *r, lanes a)                                                    \
    {                                                                                              \
        for (int j = 0; j < L; j++)                                                                \
            r->l[j] = _mm512_loadu_si512(a[j]);                                                    \
    }                                                                                              \
    TGT static void F##X##_out(lanes r, const F##X *a)                                             \
    {                                                                                              \
        for (int j = 0; j < L; j++)                                                                \
            _mm512_storeu_si512(r[j], a->l[j]);                                                    \
    }                                                                                              \
    TGT static void F##X##_lane_mul(lanes r, lanes a, lanes b)                                     \
    {                                                                                              \
        F##X x, y;                                                                                 \
        F##X##_in(&x, a);                                                                          \
        F##X##_in(&y, b);                                                                          \
        F##X##_mul(&x, &x, &y);                                                                    \
        F##X##_out(r, &x);                                                                         \
    }                                                                                              \
    /* lane i's W-bit limbs into a big (52-bit limbs), and back */                                 \
    static void F##X##_get(big *r, lanes a, int i)                                                 \
    {                                                                                              \
        memset(r, 0, sizeof *r);                                                                   \
        for (int j = 0; j < L; j++) {                                                              \
            assert_true(a[j][i] < UINT64_C(1) << (W)); /* normalised */                            \
            for (int k = 0; k < (W); k++)                                                          \
                r->l[((W)*j + k) / 52] |= (a[j][i] >> k & 1) << (((W)*j + k) % 52);                \
        }                                                                                          \
    }                                                                                              \
    static void F##X##_put(lanes r, const big *a, int i)                                           \
    {                                                                                              \
        for (int bit = (W) * (L); bit < 52 * 2 * MAXL; bit++)                                      \
            assert_true(big_bit(a, bit) == 0);                                                     \
        for (int j = 0; j < L; j++) {                                                              \
            r[j][i] = 0;                                                                           \
            for (int k = 0; k < (W); k++)                                                          \
                r[j][i] |= (uint64_t)big_bit(a, (W)*j + k) << k;                                   \
        }                                                                                          \
    }                                                                                              \
    /* r = a 2^S (shifted) or a, plus k p: k = 0 (mode 0), at random (1) or the largest (2) that   \
     * keeps den r below num p (num 2^S p when shifted); num / den >= 1, num < 2^(40 - S). */      \
    static void F##X##_bounded(big *r, const F *a, uint64_t num, uint64_t den, int shifted,        \
                               int mode)                                                           \
    {                                                                                              \
        big p, bound, zero, t, u;                                                                  \
        memset(&zero, 0, sizeof zero);                                                             \
        F##_big_p(&p);                                                                             \
        big_addmul(&bound, &zero, &p, shifted ? num << F##X##_S : num);                            \
        big_from64(r, a->l, C##_LIMBS, shifted ? F##X##_S : 0);                                    \
        /* k from the top limbs, then down to the exact largest */                                 \
        double q = (double)a->l[C##_LIMBS - 1] / (double)F##_MODULUS[C##_LIMBS - 1];               \
        double scale = shifted ? (double)(UINT64_C(1) << F##X##_S) : 1.0;                          \
        int64_t k = (int64_t)(((double)num / (double)den - q) * scale) + 2;                        \
        for (k = k < 0 ? 0 : k;; k--) {                                                            \
            assert_true(k >= 0);                                                                   \
            big_addmul(&t, r, &p, (uint64_t)k);                                                    \
            big_addmul(&u, &zero, &t, den);                                                        \
            if (big_cmp(&u, &bound) < 0)                                                           \
                break;                                                                             \
        }                                                                                          \
        if (mode == 0)                                                                             \
            k = 0;                                                                                 \
        else if (mode == 1)                                                                        \
            k = (int64_t)(rng_next() % ((uint64_t)k + 1));                                         \
        big_addmul(r, r, &p, (uint64_t)k);                                                         \
    }                                                                                              \
    /* Eight products of the given inputs against F_mul and the bound. */                          \
    static void F##X##_check_products(const big *a, const big *b, const F *ea, const F *eb)        \
    {                                                                                              \
        lanes la = {{0}}, lb = {{0}}, lr;                                                          \
        for (int i = 0; i < 8; i++) {                                                              \
            F##X##_put(la, &a[i], i);                                                              \
            F##X##_put(lb, &b[i], i);                                                              \
        }                                                                                          \
        F##X##_lane_mul(lr, la, lb);                                                               \
        for (int i = 0; i < 8; i++) {                                                              \
            big r, bound, p;                                                                       \
            F want, got;                                                                           \
            F##_big_p(&p);                                                                         \
            F##X##_get(&r, lr, i);                                                                 \
            big_mul_shift(&bound, &a[i], &b[i], (W) * (L));                                        \
            big_addmul(&bound, &bound, &p, 1);                                                     \
            assert_true(big_cmp(&r, &bound) <= 0); /* r < a b / 2^(52 L) + p: r - p <= floor */    \
            F##_big_reduce(&got, &r);                                                              \
            F##_mul(&want, &ea[i], &eb[i]);                                                        \
            assert_true(F##_eq(&got, &want));                                                      \
        }                                                                                          \
    }                                                                                              \
    static void F##X##_products(void **state)                                                      \
    {                                                                                              \
        (void)state;                                                                               \
        if (!HAS())                                                                                \
            test_skip("no such lanes on this CPU");                                                \
        rng_state = 1;                                                                             \
        for (int it = 0; it < ITERS; it++) {                                                       \
            big a[8], b[8];                                                                        \
            F ea[8], eb[8];                                                                        \
            for (int i = 0; i < 8; i++) {                                                          \
                F##_rand(&ea[i]);                                                                  \
                F##_rand(&eb[i]);                                                                  \
                /* a third exact, a third redundant at random, a third at the largest: R-form      \
                 * below 4 p, R'-form below 2^(S+1) p */                                           \
                F##X##_bounded(&a[i], &ea[i], 4, 1, 0, it % 3);                                    \
                F##X##_bounded(&b[i], &eb[i], 2, 1, 1, it % 3);                                    \
            }                                                                                      \
            F##X##_check_products(a, b, ea, eb);                                                   \
        }                                                                                          \
    }                                                                                              \
    /* 0, 1, p - 1 and R mod p (the element one) as both factors, each exact and redundant by      \
     * the largest multiple of p allowed. */                                                       \
    static void F##X##_product_edges(void **state)                                                 \
    {                                                                                              \
        F edge[4];                                                                                 \
        uint64_t pm1[C##_LIMBS];                                                                   \
        (void)state;                                                                               \
        if (!HAS())                                                                                \
            test_skip("no such lanes on this CPU");                                                \
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
                    ea[lane] = edge[x];                                                            \
                    eb[lane] = edge[y];                                                            \
                    F##X##_bounded(&a[lane], &edge[x], 4, 1, 0, red & 1 ? 2 : 0);                  \
                    F##X##_bounded(&b[lane], &edge[y], 2, 1, 1, red & 2 ? 2 : 0);                  \
                    if (++lane == 8) {                                                             \
                        F##X##_check_products(a, b, ea, eb);                                       \
                        lane = 0;                                                                  \
                    }                                                                              \
                }                                                                                  \
    }                                                                                              \
    /* Sums of two products, one reduction: against F_mul and F_add, and below                     \
     * floor(a b / 2^(52 L)) + floor(c d / 2^(52 L)) + 1 + p, with factors exact, redundant at     \
     * random and at their largest (R-form below 4 p, R'-form below 2^(S+1) p). */                 \
    TGT static void F##X##_lane_mul2(lanes r, lanes a, lanes b, lanes c, lanes d)                  \
    {                                                                                              \
        F##X x, y, z, w;                                                                           \
        F##X##_in(&x, a);                                                                          \
        F##X##_in(&y, b);                                                                          \
        F##X##_in(&z, c);                                                                          \
        F##X##_in(&w, d);                                                                          \
        F##X##_mul2(&x, &x, &y, &z, &w);                                                           \
        F##X##_out(r, &x);                                                                         \
    }                                                                                              \
    static void F##X##_products2(void **state)                                                     \
    {                                                                                              \
        (void)state;                                                                               \
        if (!HAS())                                                                                \
            test_skip("no such lanes on this CPU");                                                \
        rng_state = 3;                                                                             \
        for (int it = 0; it < ITERS; it++) {                                                       \
            lanes la = {{0}}, lb = {{0}}, lc = {{0}}, ld = {{0}}, lr;                              \
            big a[8], b[8], c[8], d[8];                                                            \
            F ea[8], eb[8], ec[8], ed[8];                                                          \
            int mode = it % 3;                                                                     \
            for (int i = 0; i < 8; i++) {                                                          \
                F##_rand(&ea[i]);                                                                  \
                F##_rand(&eb[i]);                                                                  \
                F##_rand(&ec[i]);                                                                  \
                F##_rand(&ed[i]);                                                                  \
                F##X##_bounded(&a[i], &ea[i], 4, 1, 0, mode);                                      \
                F##X##_bounded(&b[i], &eb[i], 2, 1, 1, mode);                                      \
                F##X##_bounded(&c[i], &ec[i], 4, 1, 0, mode);                                      \
                F##X##_bounded(&d[i], &ed[i], 2, 1, 1, mode);                                      \
                F##X##_put(la, &a[i], i);                                                          \
                F##X##_put(lb, &b[i], i);                                                          \
                F##X##_put(lc, &c[i], i);                                                          \
                F##X##_put(ld, &d[i], i);                                                          \
            }                                                                                      \
            F##X##_lane_mul2(lr, la, lb, lc, ld);                                                  \
            for (int i = 0; i < 8; i++) {                                                          \
                big r, bound, t, p, one = {{1}};                                                   \
                F want, got, u;                                                                    \
                F##_big_p(&p);                                                                     \
                F##X##_get(&r, lr, i);                                                             \
                big_mul_shift(&bound, &a[i], &b[i], (W) * (L));                                    \
                big_mul_shift(&t, &c[i], &d[i], (W) * (L));                                        \
                big_addmul(&bound, &bound, &t, 1);                                                 \
                big_addmul(&bound, &bound, &p, 1);                                                 \
                big_addmul(&bound, &bound, &one, 1);                                               \
                assert_true(big_cmp(&r, &bound) <= 0);                                             \
                F##_big_reduce(&got, &r);                                                          \
                F##_mul(&want, &ea[i], &eb[i]);                                                    \
                F##_mul(&u, &ec[i], &ed[i]);                                                       \
                F##_add(&want, &want, &u);                                                         \
                assert_true(F##_eq(&got, &want));                                                  \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    /* Loads, stores and the conversions: R-form in and out unchanged, shift against a shifted     \
     * load, to_r of a shifted load back to the element; the additions against fp.h's. */          \
    TGT static int F##X##_run_ops(const F *a, const F *b, const F *c, unsigned count)              \
    {                                                                                              \
        const F *pa[8], *pb[8], *pc[8];                                                            \
        F out[8];                                                                                  \
        F *po[8];                                                                                  \
        F##X x, y, z, s, t;                                                                        \
        int bad = 0;                                                                               \
        for (int i = 0; i < 8; i++) {                                                              \
            pa[i] = &a[i];                                                                         \
            pb[i] = &b[i];                                                                         \
            pc[i] = &c[i];                                                                         \
            po[i] = &out[i];                                                                       \
        }                                                                                          \
        F##X##_load(&x, pa, 0);                                                                    \
        F##X##_load(&y, pb, 0);                                                                    \
        F##X##_load(&z, pc, 0);                                                                    \
        /* store writes lanes below count only */                                                  \
        memset(out, 0xa5, sizeof out);                                                             \
        F##X##_store(po, &x, count);                                                               \
        for (unsigned i = 0; i < 8; i++) {                                                         \
            F junk;                                                                                \
            memset(&junk, 0xa5, sizeof junk);                                                      \
            bad |= i < count ? !F##_eq(&out[i], &a[i]) : memcmp(&out[i], &junk, sizeof junk) != 0; \
        }                                                                                          \
        F##X##_shift(&s, &x);                                                                      \
        F##X##_load(&t, pa, 1);                                                                    \
        for (int j = 0; j < L; j++)                                                                \
            bad |= _mm512_cmpneq_epi64_mask(s.l[j], t.l[j]) != 0;                                  \
        F##X##_to_r(&t, &t);                                                                       \
        F##X##_store(po, &t, 8);                                                                   \
        for (int i = 0; i < 8; i++)                                                                \
            bad |= !F##_eq(&out[i], &a[i]) << 1;                                                   \
        /* a - b + p, p - a, a - b - c + 2 p, 3 a, each reduced */                                 \
        F##X##_sub(&t, &x, &y, 1);                                                                 \
        F##X##_reduce4(&t, &t);                                                                    \
        F##X##_store(po, &t, 8);                                                                   \
        for (int i = 0; i < 8; i++) {                                                              \
            F w;                                                                                   \
            F##_sub(&w, &a[i], &b[i]);                                                             \
            bad |= !F##_eq(&out[i], &w) << 2;                                                      \
        }                                                                                          \
        F##X##_neg(&t, &x);                                                                        \
        F##X##_reduce2(&t, &t);                                                                    \
        F##X##_store(po, &t, 8);                                                                   \
        for (int i = 0; i < 8; i++) {                                                              \
            F w;                                                                                   \
            F##_neg(&w, &a[i]);                                                                    \
            bad |= !F##_eq(&out[i], &w) << 3;                                                      \
        }                                                                                          \
        F##X##_sub2(&t, &x, &y, &z);                                                               \
        F##X##_reduce4(&t, &t);                                                                    \
        F##X##_store(po, &t, 8);                                                                   \
        for (int i = 0; i < 8; i++) {                                                              \
            F w;                                                                                   \
            F##_sub(&w, &a[i], &b[i]);                                                             \
            F##_sub(&w, &w, &c[i]);                                                                \
            bad |= !F##_eq(&out[i], &w) << 4;                                                      \
        }                                                                                          \
        F##X##_add3(&t, &x);                                                                       \
        F##X##_reduce4(&t, &t);                                                                    \
        F##X##_blend(&t, 0x55, &t, &y); /* even lanes b, odd lanes 3 a */                          \
        F##X##_store(po, &t, 8);                                                                   \
        for (int i = 0; i < 8; i++) {                                                              \
            F w;                                                                                   \
            F##_add(&w, &a[i], &a[i]);                                                             \
            F##_add(&w, &w, &a[i]);                                                                \
            bad |= !F##_eq(&out[i], i % 2 ? &w : &b[i]) << 5;                                      \
        }                                                                                          \
        return bad;                                                                                \
    }                                                                                              \
    static void F##X##_lane_ops(void **state)                                                      \
    {                                                                                              \
        (void)state;                                                                               \
        if (!HAS())                                                                                \
            test_skip("no such lanes on this CPU");                                                \
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
            assert_int_equal(F##X##_run_ops(a, b, c, (unsigned)it % 9), 0);                        \
        }                                                                                          \
    }

X8_TESTS(bls12_381_fq, _x8, ZKPIPE__BLS12_381_FQ, bls12_381_fq_X8_LIMBS, 52, ZKPIPE__X8_TARGET,
         has_ifma)
X8_TESTS(bn254_fq, _x8, ZKPIPE__BN254_FQ, bn254_fq_X8_LIMBS, 52, ZKPIPE__X8_TARGET, has_ifma)
X8_TESTS(bn254_fq, _x8f, ZKPIPE__BN254_FQ, bn254_fq_X8F_LIMBS, bn254_fq_X8F_BITS,
         ZKPIPE__X8F_TARGET, has_avx512)

/* Fq2 on the lanes, E over F (X8_TESTS(F) above). E_x8_mul's factors: R-form below 2 p,
 * R'-form below 3/2 2^S p (the batch kernels give it x_q - x3 + p < 2 p, the numerators below
 * 2 p, the shifted lambda below 1.35 2^S p); E_x8_mul_by_fp's: R-form below 2 p and R'-form
 * below 2^S p; E_x8_sqr's: below 3/2 p. Each coefficient exact, redundant at random or at the
 * largest its bound allows; the first iterations put the edges 0, 1, p - 1 and R mod p in every
 * pair of coefficients. */
#define X8_FQ2_TESTS(E, F, X, C, L, W, TGT, HAS)                                                   \
    static void E##X##_pick(E *r, int it, int i)                                                   \
    {                                                                                              \
        F edge[4];                                                                                 \
        F##_rand(&r->c0);                                                                          \
        F##_rand(&r->c1);                                                                          \
        if (it >= 6)                                                                               \
            return;                                                                                \
        memset(edge, 0, sizeof edge);                                                              \
        edge[1].l[0] = 1;                                                                          \
        for (int j = 0; j < C##_LIMBS; j++)                                                        \
            edge[2].l[j] = F##_MODULUS[j] - (j == 0);                                              \
        F##_set_one(&edge[3]);                                                                     \
        r->c0 = edge[i % 4];                                                                       \
        r->c1 = edge[(i / 4 + 2 * (it % 2)) % 4];                                                  \
    }                                                                                              \
    /* out: a b, a f, q^2, each as two coefficients' lanes */                                      \
    TGT static void E##X##_lane_run(lanes *out, lanes *in)                                         \
    {                                                                                              \
        E##X a, b, q, qs, r;                                                                       \
        F##X f;                                                                                    \
        F##X##_in(&a.c0, in[0]);                                                                   \
        F##X##_in(&a.c1, in[1]);                                                                   \
        F##X##_in(&b.c0, in[2]);                                                                   \
        F##X##_in(&b.c1, in[3]);                                                                   \
        F##X##_in(&f, in[4]);                                                                      \
        F##X##_in(&q.c0, in[5]);                                                                   \
        F##X##_in(&q.c1, in[6]);                                                                   \
        E##X##_mul(&r, &a, &b);                                                                    \
        F##X##_out(out[0], &r.c0);                                                                 \
        F##X##_out(out[1], &r.c1);                                                                 \
        E##X##_mul_by_fp(&r, &a, &f);                                                              \
        F##X##_out(out[2], &r.c0);                                                                 \
        F##X##_out(out[3], &r.c1);                                                                 \
        E##X##_shift(&qs, &q);                                                                     \
        E##X##_sqr(&r, &q, &qs);                                                                   \
        F##X##_out(out[4], &r.c0);                                                                 \
        F##X##_out(out[5], &r.c1);                                                                 \
    }                                                                                              \
    /* floor(x y / 2^(W L)) + floor(z w / 2^(W L)) + 1 + p (z NULL: floor(x y / ..) + p) */        \
    static void E##X##_bound(big *r, const big *x, const big *y, const big *z, const big *w)       \
    {                                                                                              \
        big t, p, one = {{1}};                                                                     \
        F##_big_p(&p);                                                                             \
        big_mul_shift(r, x, y, (W) * (L));                                                         \
        if (z) {                                                                                   \
            big_mul_shift(&t, z, w, (W) * (L));                                                    \
            big_addmul(r, r, &t, 1);                                                               \
            big_addmul(r, r, &one, 1);                                                             \
        }                                                                                          \
        big_addmul(r, r, &p, 1);                                                                   \
    }                                                                                              \
    static void E##X##_products(void **state)                                                      \
    {                                                                                              \
        (void)state;                                                                               \
        if (!HAS())                                                                                \
            test_skip("no such lanes on this CPU");                                                \
        rng_state = 4;                                                                             \
        for (int it = 0; it < ITERS; it++) {                                                       \
            lanes in[7], out[6];                                                                   \
            big v[8][7]; /* a0 a1 b0 b1 f q0 q1 */                                                 \
            E ea[8], eb[8], eq[8];                                                                 \
            F ef[8];                                                                               \
            int mode = it % 3;                                                                     \
            memset(in, 0, sizeof in);                                                              \
            for (int i = 0; i < 8; i++) {                                                          \
                E##X##_pick(&ea[i], it, i);                                                        \
                E##X##_pick(&eb[i], it, i + 1);                                                    \
                E##X##_pick(&eq[i], it, i + 2);                                                    \
                F##_rand(&ef[i]);                                                                  \
                F##X##_bounded(&v[i][0], &ea[i].c0, 2, 1, 0, mode);                                \
                F##X##_bounded(&v[i][1], &ea[i].c1, 2, 1, 0, mode);                                \
                F##X##_bounded(&v[i][2], &eb[i].c0, 3, 2, 1, mode);                                \
                F##X##_bounded(&v[i][3], &eb[i].c1, 3, 2, 1, mode);                                \
                F##X##_bounded(&v[i][4], &ef[i], 1, 1, 1, mode);                                   \
                F##X##_bounded(&v[i][5], &eq[i].c0, 3, 2, 0, mode);                                \
                F##X##_bounded(&v[i][6], &eq[i].c1, 3, 2, 0, mode);                                \
                for (int k = 0; k < 7; k++)                                                        \
                    F##X##_put(in[k], &v[i][k], i);                                                \
            }                                                                                      \
            E##X##_lane_run(out, in);                                                              \
            for (int i = 0; i < 8; i++) {                                                          \
                big r, bound, p, m1, zero;                                                         \
                E want, got;                                                                       \
                F##_big_p(&p);                                                                     \
                memset(&zero, 0, sizeof zero);                                                     \
                big_addmul(&m1, &zero, &p, 2); /* 2 p - a1, as E_x8_mul takes -a1 */               \
                big_sub(&m1, &m1, &v[i][1]);                                                       \
                /* a b: c0 = a0 b0 + (2 p - a1) b1, c1 = a0 b1 + a1 b0, each reduced once */       \
                E##_mul(&want, &ea[i], &eb[i]);                                                    \
                F##X##_get(&r, out[0], i);                                                         \
                E##X##_bound(&bound, &v[i][0], &v[i][2], &m1, &v[i][3]);                           \
                assert_true(big_cmp(&r, &bound) <= 0);                                             \
                F##_big_reduce(&got.c0, &r);                                                       \
                F##X##_get(&r, out[1], i);                                                         \
                E##X##_bound(&bound, &v[i][0], &v[i][3], &v[i][1], &v[i][2]);                      \
                assert_true(big_cmp(&r, &bound) <= 0);                                             \
                F##_big_reduce(&got.c1, &r);                                                       \
                assert_true(E##_eq(&got, &want));                                                  \
                /* a f */                                                                          \
                E##_mul_by_fq(&want, &ea[i], &ef[i]);                                              \
                for (int c = 0; c < 2; c++) {                                                      \
                    F##X##_get(&r, out[2 + c], i);                                                 \
                    E##X##_bound(&bound, &v[i][c], &v[i][4], NULL, NULL);                          \
                    assert_true(big_cmp(&r, &bound) <= 0);                                         \
                    F##_big_reduce(c ? &got.c1 : &got.c0, &r);                                     \
                }                                                                                  \
                assert_true(E##_eq(&got, &want));                                                  \
                /* q^2, fully reduced */                                                           \
                E##_sqr(&want, &eq[i]);                                                            \
                for (int c = 0; c < 2; c++) {                                                      \
                    F##X##_get(&r, out[4 + c], i);                                                 \
                    assert_true(big_cmp(&r, &p) < 0);                                              \
                    F##_big_reduce(c ? &got.c1 : &got.c0, &r);                                     \
                }                                                                                  \
                assert_true(E##_eq(&got, &want));                                                  \
            }                                                                                      \
        }                                                                                          \
    }

X8_FQ2_TESTS(bls12_381_fq2, bls12_381_fq, _x8, ZKPIPE__BLS12_381_FQ, bls12_381_fq_X8_LIMBS, 52,
             ZKPIPE__X8_TARGET, has_ifma)
X8_FQ2_TESTS(bn254_fq2, bn254_fq, _x8, ZKPIPE__BN254_FQ, bn254_fq_X8_LIMBS, 52, ZKPIPE__X8_TARGET,
             has_ifma)
X8_FQ2_TESTS(bn254_fq2, bn254_fq, _x8f, ZKPIPE__BN254_FQ, bn254_fq_X8F_LIMBS, bn254_fq_X8F_BITS,
             ZKPIPE__X8F_TARGET, has_avx512)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bls12_381_fq_x8_products),
        cmocka_unit_test(bls12_381_fq_x8_product_edges),
        cmocka_unit_test(bls12_381_fq_x8_lane_ops),
        cmocka_unit_test(bls12_381_fq_x8_products2),
        cmocka_unit_test(bls12_381_fq2_x8_products),
        cmocka_unit_test(bn254_fq_x8_products),
        cmocka_unit_test(bn254_fq_x8_product_edges),
        cmocka_unit_test(bn254_fq_x8_lane_ops),
        cmocka_unit_test(bn254_fq_x8_products2),
        cmocka_unit_test(bn254_fq2_x8_products),
        cmocka_unit_test(bn254_fq_x8f_products),
        cmocka_unit_test(bn254_fq_x8f_product_edges),
        cmocka_unit_test(bn254_fq_x8f_lane_ops),
        cmocka_unit_test(bn254_fq_x8f_products2),
        cmocka_unit_test(bn254_fq2_x8f_products),
    };
    return run_tests_or_skip(tests);
}

#else /* not x86-64: nothing to test */

static void no_lanes(void **state)
{
    (void)state;
    test_skip("not x86-64");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(no_lanes)};
    return run_tests_or_skip(tests);
}

#endif
