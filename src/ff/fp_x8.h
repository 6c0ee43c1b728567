/* Eight field elements at once with AVX-512 IFMA (vpmadd52luq/vpmadd52huq): the prime-field
 * template for the 8-lane kernels. ZKPIPE__FP_X8_DEFINE(F, C, L) defines, for the field F of
 * fp.h (64-bit limbs, Montgomery form with R = 2^(64 F_LIMBS)), the lane type
 *
 *   typedef struct F_x8 { __m512i l[L]; } F_x8;
 *
 * eight values in L limbs of 52 bits, limb j of lane i in l[j] word i, and the functions
 * below. Every F_x8 these functions take or return has normalised limbs (each below 2^52), as
 * vpmadd52 reads only the low 52 bits of its factors; values may be redundant (above p), with
 * the bounds each function states.
 *
 * Why 52-bit limbs: vpmadd52 multiplies 52-bit words into a 104-bit product, whose halves it
 * adds into 64-bit accumulators, so a row of a Montgomery product never carries: each limb of
 * the accumulator collects at most 4 L words below 2^52 (below 2^57 for L = 8), and one pass of
 * carries at the end normalises it. The lane Montgomery product F_x8_mul uses R' = 2^(52 L), not
 * fp.h's R: with S = 52 L - 64 F_LIMBS (4 for BN254's Fq, L = 5; 32 for BLS12-381's, L = 8),
 * the product of an element in fp.h's form (x R, "R-form") and one in the lanes' form
 * (y R' = y R 2^S, "R'-form") is x y R' R / R' = (x y) R, again in R-form; two R'-form factors
 * give an R'-form product. An R-form value becomes R'-form by a shift of S bits, which fits in
 * the L limbs unreduced (p 2^S < 2^(52 L) for both fields), so the kernels convert by shifting
 * and never by multiplying, and what comes back out is fp.h's form without a conversion.
 *
 * Bounds. With kappa = p / 2^(64 F_LIMBS) (0.19 for BN254, 0.11 for BLS12-381): for a < A p and
 * b < B 2^S p, F_x8_mul(a, b) < (A B kappa + 1) p; two R'-form factors below 2^S p give one
 * below (kappa + 2^-S) 2^S p < 2^S p. The kernels keep R-form factors below 4 p and R'-form
 * ones below 2^(S+1) p (a shifted lambda, below 2 p), whose products stay below (8 kappa + 1) p
 * < 4 p; test_ff_x8 checks the products at those edges.
 *
 * Functions (all inline, compiled for avx512f,avx512ifma: call them only from functions with
 * ZKPIPE__X8_TARGET, and only when zkpipe__ff_x86_ifma is set):
 *   void F_x8_load(F_x8 *r, const F *const *e, int shift)
 *       : lane i = e[i] (8 pointers to reduced elements) times 2^(S shift), shift 0 or 1: the
 *         R-form value, or shifted into R'-form (below 2^S p).
 *   void F_x8_store(F *const *e, const F_x8 *a, unsigned count)
 *       : e[i] = lane i for i < count (e[i] for i >= count is not read); a fully reduced.
 *   void F_x8_mul(F_x8 *r, const F_x8 *a, const F_x8 *b) : r = a b / 2^(52 L) mod p, below
 *       a b / 2^(52 L) + p; r may alias a or b.
 *   void F_x8_mul2(F_x8 *r, const F_x8 *a, const F_x8 *b, const F_x8 *c, const F_x8 *d)
 *       : r = (a b + c d) / 2^(52 L) mod p, below (a b + c d) / 2^(52 L) + p, with one
 *       reduction; r may alias any factor.
 *   void F_x8_shift(F_x8 *r, const F_x8 *a) : r = a 2^S, for a < 4 p (R-form to R'-form).
 *   void F_x8_to_r(F_x8 *r, const F_x8 *a) : r = the R-form of the R'-form a < 2^S p, fully
 *       reduced (one product by R mod p and one subtraction).
 *   void F_x8_add3(F_x8 *r, const F_x8 *a) : r = 3 a, for a < 2 p.
 *   void F_x8_add(F_x8 *r, const F_x8 *a, const F_x8 *b) : r = a + b, for a + b < 2^(52 L).
 *   void F_x8_sub(F_x8 *r, const F_x8 *a, const F_x8 *b, int k) : r = a - b + k p for
 *       a, b < 2^(52 L) with a + k p > b (k 1 or 2).
 *   void F_x8_neg(F_x8 *r, const F_x8 *a) : r = p - a for a <= p.
 *   void F_x8_sub2(F_x8 *r, const F_x8 *a, const F_x8 *b, const F_x8 *c) : r = a - b - c + 2 p
 *       for a < 2^(52 L) - 2 p and b, c <= p.
 *   void F_x8_reduce4(F_x8 *r, const F_x8 *a) : r = a mod p, fully reduced, for a < 4 p.
 *   void F_x8_reduce2(F_x8 *r, const F_x8 *a) : the same for a < 2 p.
 *   void F_x8_blend(F_x8 *r, __mmask8 m, const F_x8 *a, const F_x8 *b)
 *       : lane i of b where bit i of m is set, else of a.
 *
 * The template itself, ZKPIPE__FP_LANES_DEFINE, and the helpers under it take the limbs' width
 * and the product as parameters: fp_x8f.h defines a second family on them, for AVX-512F alone.
 *
 * Only the host sees this file: ZKPIPE__FF_X86 is 0 under nvcc and off x86-64, and the .c files
 * that include it compile nothing of it then. */
#ifndef ZKPIPE_FF_FP_X8_H
#define ZKPIPE_FF_FP_X8_H

#include <stddef.h>
#include <stdint.h>

#include "mont_x86.h"

#if ZKPIPE__FF_X86
#include <immintrin.h>

/* Nonzero when the CPU and OS support AVX-512F and IFMA, unmasked (cpu_features.c: once, before
 * main). Tests clear it, while no kernel runs, to take the scalar path on such a CPU. */
extern int zkpipe__ff_x86_ifma;

/* For the functions that use the lanes: compiled for AVX-512 whatever the build's flags, so the
 * one build runs everywhere and takes these only where zkpipe__ff_x86_ifma says. */
#define ZKPIPE__X8_TARGET __attribute__((target("avx512f,avx512ifma")))
#define ZKPIPE__X8_INLINE                                                                          \
    static inline __attribute__((always_inline, unused, target("avx512f,avx512ifma")))
/* The same for AVX-512F alone: the helpers below, which both lane families share (the radix a
 * parameter), so that they inline into either family's functions, and fp_x8f.h's family. */
#define ZKPIPE__X8F_TARGET __attribute__((target("avx512f")))
#define ZKPIPE__X8F_INLINE static inline __attribute__((always_inline, unused, target("avx512f")))
/* The same by the families' suffixes, for templates over either (msm/batch_x8_impl.h). */
#define ZKPIPE__LANES_TARGET_x8 ZKPIPE__X8_TARGET
#define ZKPIPE__LANES_INLINE_x8 ZKPIPE__X8_INLINE
#define ZKPIPE__LANES_TARGET_x8f ZKPIPE__X8F_TARGET
#define ZKPIPE__LANES_INLINE_x8f ZKPIPE__X8F_INLINE

/* zkpipe__x8_mont_mul's rows unrolled, but for the sanitizer builds (CMake's ZKPIPE_SANITIZE),
 * which check behaviour, not speed: there UBSan's check of every limb's address, unrolled
 * eightfold, made clang 14 compile the BLS12-381 G2 batch kernel in 130 s instead of 32. */
#ifdef ZKPIPE__SANITIZED
#define ZKPIPE__X8_ROWS_UNROLL
#else
#define ZKPIPE__X8_ROWS_UNROLL ZKPIPE__UNROLL
#endif

/* The largest limb count of either family (BN254's Fq in fp_x8f.h's 29-bit limbs), and of this
 * file's (BLS12-381's Fq in 52-bit limbs). */
#define ZKPIPE__X8_MAX_LIMBS 9
#define ZKPIPE__X8_IFMA_MAX_LIMBS 8

/* The low w bits. */
#define ZKPIPE__X8_MASK(w) ((UINT64_C(1) << (w)) - 1)

/* Bits [w j, w j + w) of v 2^s, v of n64 64-bit limbs, 0 <= s < w: limb j of v 2^s in radix
 * 2^w. With constant arguments it folds to a constant. */
ZKPIPE__X8F_INLINE uint64_t zkpipe__x8_limb(const uint64_t *v, int n64, int j, int s, int w)
{
    int o = w * j - s, i = o / 64, r = o % 64;
    uint64_t x;
    if (o < 0)
        return v[0] << -o & ZKPIPE__X8_MASK(w);
    if (i >= n64)
        return 0;
    x = v[i] >> r;
    if (r + w > 64 && i + 1 < n64)
        x |= v[i + 1] << (64 - r);
    return x & ZKPIPE__X8_MASK(w);
}

/* The same on eight lanes: l[0..n) = x[0..n64) 2^s in radix 2^w (x 2^s < 2^(w n)). */
ZKPIPE__X8F_INLINE void zkpipe__x8_split(__m512i *l, const __m512i *x, int n64, int n, int s, int w)
{
    const __m512i mask = _mm512_set1_epi64((long long)ZKPIPE__X8_MASK(w));
    for (int j = 0; j < n; j++) {
        int o = w * j - s, i = o / 64, r = o % 64;
        __m512i v;
        if (o < 0) {
            v = _mm512_slli_epi64(x[0], (unsigned)-o);
        } else if (i >= n64) {
            v = _mm512_setzero_si512();
        } else {
            v = _mm512_srli_epi64(x[i], (unsigned)r);
            if (r + w > 64 && i + 1 < n64)
                v = _mm512_or_si512(v, _mm512_slli_epi64(x[i + 1], (unsigned)(64 - r)));
        }
        l[j] = _mm512_and_si512(v, mask);
    }
}

/* x[0..n64) = the n normalised w-bit limbs l as 64-bit limbs (the value below 2^(64 n64)). */
ZKPIPE__X8F_INLINE void zkpipe__x8_join(__m512i *x, const __m512i *l, int n64, int n, int w)
{
    for (int i = 0; i < n64; i++) {
        __m512i v = _mm512_setzero_si512();
        for (int j = 0; j < n; j++) {
            int d = w * j - 64 * i;
            if (d >= 0 && d < 64)
                v = _mm512_or_si512(v, _mm512_slli_epi64(l[j], (unsigned)d));
            else if (d < 0 && d > -w)
                v = _mm512_or_si512(v, _mm512_srli_epi64(l[j], (unsigned)-d));
        }
        x[i] = v;
    }
}

/* Carries each limb's bits above w into the next, signed (limbs may be negative after a
 * subtraction); the top limb keeps what is left. */
ZKPIPE__X8F_INLINE void zkpipe__x8_normalize(__m512i *t, int n, int w)
{
    const __m512i mask = _mm512_set1_epi64((long long)ZKPIPE__X8_MASK(w));
    for (int j = 0; j + 1 < n; j++) {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srai_epi64(t[j], (unsigned)w));
        t[j] = _mm512_and_si512(t[j], mask);
    }
}

/* r = (a b + c d) / 2^(52 n) mod p, below (a b + c d) / 2^(52 n) + p, for p of n64 64-bit
 * limbs, inv = -1/p mod 2^64 and w = 52 (vpmadd52's radix; the parameter is the lane families'
 * common signature); with c NULL (a constant where it is inlined) r = a b / 2^(52 n)
 * mod p, below a b / 2^(52 n) + p. Operand scanning: per limb b_i, t += a b_i 2^(52 i) (and
 * c d_i 2^(52 i)), then t += m p 2^(52 i) with m = t_i inv mod 2^52, which clears limb i; the
 * low halves of the products go into limb i + j, the high halves into limb i + j + 1, and the
 * carry out of t_i into t_(i+1), so nothing propagates until the end: each limb collects at
 * most 4 n words below 2^52 for one product, 6 n for two (below 2^58 for n = 8), and the two
 * products share one reduction (an Fq2 coefficient costs one and a half products, not two).
 * Row i's limbs are t[i..i+n]: indexing them so, rather than shifting t down a limb per row,
 * keeps every index a constant once the rows are unrolled, and the accumulators in registers
 * (clang 14 copied a shifted array through memory). The unrolling is asked for: gcc 12 kept
 * BLS12-381's eight rows a loop over t in memory, stored and reloaded every row (unrolled:
 * a BLS12-381 chain16 proof 3 % less CPU time, BN254's five rows unchanged).
 *
 * Each limb's accumulator is a chain: every vpmadd52 into it waits for the one before, up to
 * 4 n of them for one product, which bounds a product's latency more than the multipliers'
 * throughput does. For n <= 5 the reduction's words go into accumulators u of their own, added
 * into t's limb when the row reaches it: the chains are half as long (docs/SPEED.md, round
 * eleven). At n = 8 a second set of 2 n + 1 accumulators does not fit the registers beside the
 * first and the factors, and the spills cost more than the shorter chains give. */
ZKPIPE__X8_INLINE void zkpipe__x8_mont_mul(__m512i *r, const __m512i *a, const __m512i *b,
                                           const __m512i *c, const __m512i *d, const uint64_t *p,
                                           uint64_t inv, int n64, int n, int w)
{
    __m512i t[2 * ZKPIPE__X8_IFMA_MAX_LIMBS + 1], u[2 * ZKPIPE__X8_IFMA_MAX_LIMBS + 1],
        pl[ZKPIPE__X8_IFMA_MAX_LIMBS];
    const __m512i vinv = _mm512_set1_epi64((long long)(inv & ZKPIPE__X8_MASK(w)));
    const __m512i zero = _mm512_setzero_si512();
    const int split = n <= 5;
    for (int j = 0; j < n; j++)
        pl[j] = _mm512_set1_epi64((long long)zkpipe__x8_limb(p, n64, j, 0, w));
    for (int j = 0; j <= 2 * n; j++)
        t[j] = u[j] = zero;
    ZKPIPE__X8_ROWS_UNROLL
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], a[j], b[i]);
            t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a[j], b[i]);
        }
        if (c)
            for (int j = 0; j < n; j++) {
                t[i + j] = _mm512_madd52lo_epu64(t[i + j], c[j], d[i]);
                t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], c[j], d[i]);
            }
        if (split) {
            __m512i ti = _mm512_add_epi64(t[i], u[i]);
            __m512i m = _mm512_madd52lo_epu64(zero, ti, vinv);
            ti = _mm512_madd52lo_epu64(ti, m, pl[0]);
            u[i + 1] = _mm512_madd52hi_epu64(u[i + 1], m, pl[0]);
            for (int j = 1; j < n; j++) {
                u[i + j] = _mm512_madd52lo_epu64(u[i + j], m, pl[j]);
                u[i + j + 1] = _mm512_madd52hi_epu64(u[i + j + 1], m, pl[j]);
            }
            u[i + 1] = _mm512_add_epi64(u[i + 1], _mm512_srli_epi64(ti, (unsigned)w));
        } else {
            __m512i m = _mm512_madd52lo_epu64(zero, t[i], vinv);
            for (int j = 0; j < n; j++) {
                t[i + j] = _mm512_madd52lo_epu64(t[i + j], m, pl[j]);
                t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], m, pl[j]);
            }
            t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], (unsigned)w));
        }
    }
    for (int j = 0; split && j < n; j++)
        t[n + j] = _mm512_add_epi64(t[n + j], u[n + j]);
    zkpipe__x8_normalize(t + n, n, w);
    for (int j = 0; j < n; j++)
        r[j] = t[n + j];
}

/* k p in n64 64-bit limbs, k 0, 1 or 2 (p's top limb is small enough for 2 p to fit). */
ZKPIPE__X8F_INLINE void zkpipe__x8_kp(uint64_t *kp, const uint64_t *p, int k, int n64)
{
    uint64_t carry = 0;
    for (int i = 0; i < n64; i++) {
        kp[i] = p[i] * (uint64_t)k + carry;
        carry = k == 2 ? p[i] >> 63 : 0;
    }
}

/* r = a - k p where that is not negative, else a (a normalised in radix 2^w, k 1 or 2). */
ZKPIPE__X8F_INLINE void zkpipe__x8_sub_if(__m512i *r, const __m512i *a, const uint64_t *p, int k,
                                          int n64, int n, int w)
{
    uint64_t kp[ZKPIPE__FF_MAX_LIMBS];
    __m512i v[ZKPIPE__X8_MAX_LIMBS];
    zkpipe__x8_kp(kp, p, k, n64);
    for (int j = 0; j < n; j++)
        v[j] =
            _mm512_sub_epi64(a[j], _mm512_set1_epi64((long long)zkpipe__x8_limb(kp, n64, j, 0, w)));
    zkpipe__x8_normalize(v, n, w);
    __mmask8 neg = _mm512_cmplt_epi64_mask(v[n - 1], _mm512_setzero_si512());
    for (int j = 0; j < n; j++)
        r[j] = _mm512_mask_blend_epi64(neg, v[j], a[j]);
}

/* r = a + c0 b + c1 c + k p limb by limb, normalised (c0, c1 in {0, 1, -1}, the sum not
 * negative). */
ZKPIPE__X8F_INLINE void zkpipe__x8_lincomb(__m512i *r, const __m512i *a, const __m512i *b, int c0,
                                           const __m512i *c, int c1, const uint64_t *p, int k,
                                           int n64, int n, int w)
{
    uint64_t kp[ZKPIPE__FF_MAX_LIMBS];
    zkpipe__x8_kp(kp, p, k, n64);
    for (int j = 0; j < n; j++) {
        __m512i v = a[j];
        if (c0 > 0)
            v = _mm512_add_epi64(v, b[j]);
        else if (c0 < 0)
            v = _mm512_sub_epi64(v, b[j]);
        if (c1 > 0)
            v = _mm512_add_epi64(v, c[j]);
        else if (c1 < 0)
            v = _mm512_sub_epi64(v, c[j]);
        if (k > 0)
            v = _mm512_add_epi64(v,
                                 _mm512_set1_epi64((long long)zkpipe__x8_limb(kp, n64, j, 0, w)));
        r[j] = v;
    }
    zkpipe__x8_normalize(r, n, w);
}

/* Eight rows of n64 <= 8 64-bit words at e[i] into columns: x[j] word i = e[i][j]. For four
 * words (BN254's Fq) each row is one 256-bit load; otherwise a masked 512-bit load. */
ZKPIPE__X8F_INLINE void zkpipe__x8_gather(__m512i *x, const uint64_t *const *e, int n64)
{
    const __m512i lo = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
    const __m512i hi = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    if (n64 == 4) {
        __m512i r[4];
        for (int k = 0; k < 4; k++) /* row k: elements k and k + 4 */
            r[k] = _mm512_inserti64x4(
                _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)e[k])),
                _mm256_loadu_si256((const __m256i *)e[k + 4]), 1);
        /* pairs of rows interleaved: words 0 and 2 of elements (0, 1) and (4, 5)... */
        __m512i u0 = _mm512_unpacklo_epi64(r[0], r[1]), u1 = _mm512_unpackhi_epi64(r[0], r[1]);
        __m512i u2 = _mm512_unpacklo_epi64(r[2], r[3]), u3 = _mm512_unpackhi_epi64(r[2], r[3]);
        x[0] = _mm512_permutex2var_epi64(u0, lo, u2);
        x[1] = _mm512_permutex2var_epi64(u1, lo, u3);
        x[2] = _mm512_permutex2var_epi64(u0, hi, u2);
        x[3] = _mm512_permutex2var_epi64(u1, hi, u3);
        return;
    }
    __m512i r[8], u[8], v[8];
    const __mmask8 words = (__mmask8)((1u << n64) - 1);
    for (int i = 0; i < 8; i++)
        r[i] = _mm512_maskz_loadu_epi64(words, e[i]);
    for (int i = 0; i < 8; i += 2) {
        u[i] = _mm512_unpacklo_epi64(r[i], r[i + 1]); /* words 0, 2, 4, 6 of rows i, i + 1 */
        u[i + 1] = _mm512_unpackhi_epi64(r[i], r[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {
        v[i] = _mm512_permutex2var_epi64(u[i], lo, u[i + 2]); /* words 0, 4 of rows i..i+3 */
        v[i + 1] = _mm512_permutex2var_epi64(u[i + 1], lo, u[i + 3]);
        v[i + 2] = _mm512_permutex2var_epi64(u[i], hi, u[i + 2]);
        v[i + 3] = _mm512_permutex2var_epi64(u[i + 1], hi, u[i + 3]);
    }
    for (int j = 0; j < n64; j++) { /* word j: 128-bit lanes of rows 0..3 and 4..7 */
        int s = j & 3;
        x[j] = j < 4 ? _mm512_shuffle_i64x2(v[s], v[s + 4], 0x44)
                     : _mm512_shuffle_i64x2(v[s], v[s + 4], 0xee);
    }
}

/* The inverse of zkpipe__x8_gather: e[i][j] = x[j] word i, for rows i < count. */
ZKPIPE__X8F_INLINE void zkpipe__x8_scatter(uint64_t *const *e, const __m512i *x, int n64,
                                           unsigned count)
{
    const __m512i lo = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
    const __m512i hi = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    if (n64 == 4) {
        __m512i u0 = _mm512_permutex2var_epi64(x[0], lo, x[2]);
        __m512i u2 = _mm512_permutex2var_epi64(x[0], hi, x[2]);
        __m512i u1 = _mm512_permutex2var_epi64(x[1], lo, x[3]);
        __m512i u3 = _mm512_permutex2var_epi64(x[1], hi, x[3]);
        __m512i r[4] = {_mm512_unpacklo_epi64(u0, u1), _mm512_unpackhi_epi64(u0, u1),
                        _mm512_unpacklo_epi64(u2, u3), _mm512_unpackhi_epi64(u2, u3)};
        for (unsigned k = 0; k < 4; k++) {
            if (k < count)
                _mm256_storeu_si256((__m256i *)e[k], _mm512_castsi512_si256(r[k]));
            if (k + 4 < count)
                _mm256_storeu_si256((__m256i *)e[k + 4], _mm512_extracti64x4_epi64(r[k], 1));
        }
        return;
    }
    __m512i c[8], u[8], v[8];
    const __mmask8 words = (__mmask8)((1u << n64) - 1);
    for (int j = 0; j < 8; j++)
        c[j] = j < n64 ? x[j] : _mm512_setzero_si512();
    /* word j of row i back to row i: the same three steps, as an 8 x 8 transpose is its own
     * inverse */
    for (int j = 0; j < 8; j += 2) {
        u[j] = _mm512_unpacklo_epi64(c[j], c[j + 1]);
        u[j + 1] = _mm512_unpackhi_epi64(c[j], c[j + 1]);
    }
    for (int j = 0; j < 8; j += 4) {
        v[j] = _mm512_permutex2var_epi64(u[j], lo, u[j + 2]);
        v[j + 1] = _mm512_permutex2var_epi64(u[j + 1], lo, u[j + 3]);
        v[j + 2] = _mm512_permutex2var_epi64(u[j], hi, u[j + 2]);
        v[j + 3] = _mm512_permutex2var_epi64(u[j + 1], hi, u[j + 3]);
    }
    for (unsigned i = 0; i < count && i < 8; i++) {
        unsigned s = i & 3;
        __m512i row = i < 4 ? _mm512_shuffle_i64x2(v[s], v[s + 4], 0x44)
                            : _mm512_shuffle_i64x2(v[s], v[s + 4], 0xee);
        _mm512_mask_storeu_epi64(e[i], words, row);
    }
}

/* S = W L - 64 C_LIMBS, the shift from R-form to R'-form, for L limbs of W bits. */
#define ZKPIPE__X8_SHIFT(C, L, W) ((L) * (W)-64 * C##_LIMBS)

/* The lane type F##X and its functions, for the field F (constants C), L limbs of W bits, the
 * Montgomery product MUL (zkpipe__x8_mont_mul's signature) and the functions' attributes INL:
 * ZKPIPE__FP_X8_DEFINE here, ZKPIPE__FP_X8F_DEFINE in fp_x8f.h. */
#define ZKPIPE__FP_LANES_DEFINE(F, X, C, L, W, MUL, INL)                                           \
    typedef struct F##X {                                                                          \
        __m512i l[L];                                                                              \
    } F##X;                                                                                        \
    INL void F##X##_load(F##X *r, const F *const *e, int shift)                                    \
    {                                                                                              \
        __m512i x[C##_LIMBS];                                                                      \
        const uint64_t *w[8];                                                                      \
        for (int i = 0; i < 8; i++)                                                                \
            w[i] = e[i]->l;                                                                        \
        zkpipe__x8_gather(x, w, C##_LIMBS);                                                        \
        zkpipe__x8_split(r->l, x, C##_LIMBS, L, shift ? ZKPIPE__X8_SHIFT(C, L, W) : 0, W);         \
    }                                                                                              \
    INL void F##X##_store(F *const *e, const F##X *a, unsigned count)                              \
    {                                                                                              \
        __m512i x[C##_LIMBS];                                                                      \
        uint64_t *w[8];                                                                            \
        for (unsigned i = 0; i < 8; i++)                                                           \
            w[i] = i < count ? e[i]->l : NULL;                                                     \
        zkpipe__x8_join(x, a->l, C##_LIMBS, L, W);                                                 \
        zkpipe__x8_scatter(w, x, C##_LIMBS, count);                                                \
    }                                                                                              \
    INL void F##X##_mul(F##X *r, const F##X *a, const F##X *b)                                     \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        MUL(r->l, a->l, b->l, NULL, NULL, p, C##_INV, C##_LIMBS, L, W);                            \
    }                                                                                              \
    INL void F##X##_mul2(F##X *r, const F##X *a, const F##X *b, const F##X *c, const F##X *d)      \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        MUL(r->l, a->l, b->l, c->l, d->l, p, C##_INV, C##_LIMBS, L, W);                            \
    }                                                                                              \
    INL void F##X##_shift(F##X *r, const F##X *a)                                                  \
    {                                                                                              \
        const int s = ZKPIPE__X8_SHIFT(C, L, W);                                                   \
        const __m512i mask = _mm512_set1_epi64((long long)ZKPIPE__X8_MASK(W));                     \
        for (int j = L - 1; j > 0; j--)                                                            \
            r->l[j] = _mm512_and_si512(_mm512_or_si512(_mm512_slli_epi64(a->l[j], s),              \
                                                       _mm512_srli_epi64(a->l[j - 1], (W)-s)),     \
                                       mask);                                                      \
        r->l[0] = _mm512_and_si512(_mm512_slli_epi64(a->l[0], s), mask);                           \
    }                                                                                              \
    INL void F##X##_to_r(F##X *r, const F##X *a)                                                   \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS}, one[C##_LIMBS] = {C##_ONE};                   \
        __m512i o[L];                                                                              \
        for (int j = 0; j < L; j++)                                                                \
            o[j] = _mm512_set1_epi64((long long)zkpipe__x8_limb(one, C##_LIMBS, j, 0, W));         \
        MUL(r->l, a->l, o, NULL, NULL, p, C##_INV, C##_LIMBS, L, W);                               \
        zkpipe__x8_sub_if(r->l, r->l, p, 1, C##_LIMBS, L, W);                                      \
    }                                                                                              \
    INL void F##X##_add(F##X *r, const F##X *a, const F##X *b)                                     \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        zkpipe__x8_lincomb(r->l, a->l, b->l, 1, b->l, 0, p, 0, C##_LIMBS, L, W);                   \
    }                                                                                              \
    INL void F##X##_add3(F##X *r, const F##X *a)                                                   \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        zkpipe__x8_lincomb(r->l, a->l, a->l, 1, a->l, 1, p, 0, C##_LIMBS, L, W);                   \
    }                                                                                              \
    INL void F##X##_sub(F##X *r, const F##X *a, const F##X *b, int k)                              \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        zkpipe__x8_lincomb(r->l, a->l, b->l, -1, b->l, 0, p, k, C##_LIMBS, L, W);                  \
    }                                                                                              \
    INL void F##X##_neg(F##X *r, const F##X *a)                                                    \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        __m512i z[L];                                                                              \
        for (int j = 0; j < L; j++)                                                                \
            z[j] = _mm512_setzero_si512();                                                         \
        zkpipe__x8_lincomb(r->l, z, a->l, -1, a->l, 0, p, 1, C##_LIMBS, L, W);                     \
    }                                                                                              \
    INL void F##X##_sub2(F##X *r, const F##X *a, const F##X *b, const F##X *c)                     \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        zkpipe__x8_lincomb(r->l, a->l, b->l, -1, c->l, -1, p, 2, C##_LIMBS, L, W);                 \
    }                                                                                              \
    INL void F##X##_reduce4(F##X *r, const F##X *a)                                                \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        zkpipe__x8_sub_if(r->l, a->l, p, 2, C##_LIMBS, L, W);                                      \
        zkpipe__x8_sub_if(r->l, r->l, p, 1, C##_LIMBS, L, W);                                      \
    }                                                                                              \
    INL void F##X##_reduce2(F##X *r, const F##X *a)                                                \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        zkpipe__x8_sub_if(r->l, a->l, p, 1, C##_LIMBS, L, W);                                      \
    }                                                                                              \
    INL void F##X##_blend(F##X *r, __mmask8 m, const F##X *a, const F##X *b)                       \
    {                                                                                              \
        for (int j = 0; j < L; j++)                                                                \
            r->l[j] = _mm512_mask_blend_epi64(m, a->l[j], b->l[j]);                                \
    }

#define ZKPIPE__FP_X8_DEFINE(F, C, L)                                                              \
    ZKPIPE__FP_LANES_DEFINE(F, _x8, C, L, 52, zkpipe__x8_mont_mul, ZKPIPE__X8_INLINE)

#endif /* ZKPIPE__FF_X86 */

#endif
