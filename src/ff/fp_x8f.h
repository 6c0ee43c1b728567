/* Eight field elements at once with AVX-512F alone (vpmuludq): the lanes for CPUs that have
 * AVX-512 but not IFMA (Skylake-SP, Cascade Lake and Cooper Lake servers).
 * ZKPIPE__FP_X8F_DEFINE(F, C, L, W) defines, for the field F of fp.h, the lane type
 *
 *   typedef struct F_x8f { __m512i l[L]; } F_x8f;
 *
 * eight values in L limbs of W bits, and functions of the same names, contracts and bounds as
 * fp_x8.h's F_x8 ones (F_x8f_mul, F_x8f_mul2, F_x8f_load ... F_x8f_blend), with 2^W for 2^52,
 * R' = 2^(W L) and S = W L - 64 F_LIMBS: the kernels written over F_x8 run unchanged over F_x8f
 * (msm/batch_x8_impl.h), where p 2^(S+2) < 2^(W L), as those bounds need. BN254's Fq takes it
 * with L = 9, W = 29, S = 5 (bn254_fq_x8f.h).
 *
 * Why W-bit limbs: vpmuludq multiplies the low 32 bits of each 64-bit word, whole, into 64 bits.
 * With limbs below 2^W a product is below 2^(2 W), and a limb's accumulator can collect
 * 2^(64 - 2 W) of them before it overflows: 64 at W = 29. A Montgomery product puts at most 3 L
 * of them into one accumulator (two products and one reduction, F_x8f_mul2), 27 for BN254, so
 * no row carries until the end, as with IFMA. The product costs about 2 L^2 multiplications
 * against IFMA's 4 L'^2 on L' = 5 limbs, and about 0.6 of the scalar product's time per
 * element. BLS12-381's Fq would need 14 limbs of 28 bits (at 13 of 30 the accumulators
 * overflow): its kernels measured no faster than the scalar batch (docs/SPEED.md, round
 * fourteen), so BLS12-381 has no such lanes.
 *
 * All functions are inline and compiled for avx512f: call them only from functions with
 * ZKPIPE__X8F_TARGET, and only when zkpipe__ff_x86_avx512 is set. Host only, as fp_x8.h. */
#ifndef ZKPIPE_FF_FP_X8F_H
#define ZKPIPE_FF_FP_X8F_H

#include "fp_x8.h"

#if ZKPIPE__FF_X86

/* Nonzero when the CPU and OS support AVX-512F, unmasked (cpu_features.c); the batch kernels
 * take these lanes where it is set and zkpipe__ff_x86_ifma is not. Tests clear it as they do
 * zkpipe__ff_x86_ifma. */
extern int zkpipe__ff_x86_avx512;

/* r = (a b + c d) / 2^(w n) mod p, below (a b + c d) / 2^(w n) + p, with c NULL as in
 * zkpipe__x8_mont_mul, whose operand scanning it follows with whole products: row i adds a b_i
 * (and c d_i) into limbs i..i+n-1, then m p with m = t_i inv mod 2^w, which clears limb i, whose
 * carry goes into limb i + 1. vpmuludq reads t_i's low 32 bits, enough for m mod 2^w. */
ZKPIPE__X8F_INLINE void zkpipe__x8f_mont_mul(__m512i *r, const __m512i *a, const __m512i *b,
                                             const __m512i *c, const __m512i *d, const uint64_t *p,
                                             uint64_t inv, int n64, int n, int w)
{
    __m512i t[2 * ZKPIPE__X8_MAX_LIMBS], pl[ZKPIPE__X8_MAX_LIMBS];
    const __m512i mask = _mm512_set1_epi64((long long)ZKPIPE__X8_MASK(w));
    const __m512i vinv = _mm512_set1_epi64((long long)(inv & ZKPIPE__X8_MASK(w)));
    for (int j = 0; j < n; j++)
        pl[j] = _mm512_set1_epi64((long long)zkpipe__x8_limb(p, n64, j, 0, w));
    for (int j = 0; j < 2 * n; j++)
        t[j] = _mm512_setzero_si512();
    ZKPIPE__X8_ROWS_UNROLL
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            t[i + j] = _mm512_add_epi64(t[i + j], _mm512_mul_epu32(a[j], b[i]));
        if (c)
            for (int j = 0; j < n; j++)
                t[i + j] = _mm512_add_epi64(t[i + j], _mm512_mul_epu32(c[j], d[i]));
        __m512i m = _mm512_and_si512(_mm512_mul_epu32(t[i], vinv), mask);
        for (int j = 0; j < n; j++)
            t[i + j] = _mm512_add_epi64(t[i + j], _mm512_mul_epu32(m, pl[j]));
        t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], (unsigned)w));
    }
    zkpipe__x8_normalize(t + n, n, w);
    for (int j = 0; j < n; j++)
        r[j] = t[n + j];
}

#define ZKPIPE__FP_X8F_DEFINE(F, C, L, W)                                                          \
    ZKPIPE__FP_LANES_DEFINE(F, _x8f, C, L, W, zkpipe__x8f_mont_mul, ZKPIPE__X8F_INLINE)

#endif /* ZKPIPE__FF_X86 */

#endif
