/* Modular inversion on the host by the binary GCD with approximations (T. Pornin, "Optimized
 * Binary GCD for Modular Inversion", 2020): 31 steps at a time run on 64-bit words that hold
 * the low 31 bits and the top 33 bits of a and b, and their matrix is then applied to the full
 * values once. zkpipe__mod_inv (limbs.h) takes a shift and an add of the whole numbers for every
 * bit, with unpredictable branches; the batch-affine MSMs invert once per batch, and there that
 * walk cost a fifth of the 8-lane kernels' time.
 *
 * Why the result is right whatever the approximations do: every outer step applies the same
 * matrix (f0 g0; f1 g1) / 2^31 to (a, b) and to (u, v) mod p, and the parities the inner steps
 * test are exact (the low 31 bits are), so 2^31 divides a f0 + b g0 exactly, and a = u y,
 * b = v y (mod p) hold throughout. Only the speed of convergence rests on the approximations (a
 * wrong guess of a < b makes a or b negative, which is flipped with its row); so the loop stops
 * at a = 0 and the result is taken only when b = gcd = 1 within a bound on the steps, else the
 * caller falls back to zkpipe__mod_inv. Not in device code (signed 128-bit products). */
#ifndef ZKPIPE_FF_MOD_INV_H
#define ZKPIPE_FF_MOD_INV_H

#include "limbs.h"

#if !defined(__CUDA_ARCH__)

#define ZKPIPE__INV_STEPS 31
#define ZKPIPE__INV_LOW ((UINT64_C(1) << ZKPIPE__INV_STEPS) - 1)

__extension__ typedef __int128 zkpipe__i128;

/* Inlined with the field's constant n, so that the loops unroll. */
#if defined(__GNUC__)
#define ZKPIPE__INV_INLINE static inline __attribute__((always_inline))
#else
#define ZKPIPE__INV_INLINE static inline
#endif

/* r[0..n] = (a f + b g) / 2^31 as an (n + 1)-limb two's complement number, for n-limb a, b,
 * |f| + |g| <= 2^31 and, when p is not NULL, plus k p (k < 2^31): the caller makes the low 31
 * bits of the sum zero. */
ZKPIPE__INV_INLINE void zkpipe__inv_combine(uint64_t *r, const uint64_t *a, int64_t f,
                                            const uint64_t *b, int64_t g, const uint64_t *p,
                                            uint64_t k, int n)
{
    uint64_t t[ZKPIPE__FF_MAX_LIMBS + 1];
    zkpipe__i128 acc = 0;
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++) {
        acc += (zkpipe__i128)a[i] * f + (zkpipe__i128)b[i] * g;
        if (p != NULL)
            acc += (zkpipe__i128)p[i] * (int64_t)k;
        t[i] = (uint64_t)acc;
        acc >>= 64; /* arithmetic: gcc and clang shift signed values so */
    }
    t[n] = (uint64_t)acc;
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++)
        r[i] = t[i] >> ZKPIPE__INV_STEPS | t[i + 1] << (64 - ZKPIPE__INV_STEPS);
    r[n] = (uint64_t)((int64_t)t[n] >> ZKPIPE__INV_STEPS);
}

/* r[0..n] = -r[0..n]. */
ZKPIPE__INV_INLINE void zkpipe__inv_negate(uint64_t *r, int n)
{
    uint64_t borrow = 1;
    ZKPIPE__UNROLL
    for (int i = 0; i <= n; i++) {
        r[i] = ~r[i] + borrow;
        borrow = borrow && r[i] == 0;
    }
}

/* 64 bits of `a` from bit `at` on (bits past the n limbs read as 0). */
ZKPIPE__INV_INLINE uint64_t zkpipe__inv_bits(const uint64_t *a, unsigned at, int n)
{
    unsigned limb = at / 64, shift = at % 64;
    uint64_t w = a[limb] >> shift;
    if (shift != 0 && (int)limb + 1 < n)
        w |= a[limb + 1] << (64 - shift);
    return w;
}

/* r = 1/y mod p for 0 < y < p, p odd with a spare top bit, pinv = -p^-1 mod 2^64; returns 1,
 * or 0 (r untouched) if the steps ran past their bound, which the caller answers with
 * zkpipe__mod_inv. */
ZKPIPE__INV_INLINE int zkpipe__mod_inv_fast(uint64_t *r, const uint64_t *y, const uint64_t *p,
                                            uint64_t pinv, int n)
{
    uint64_t a[ZKPIPE__FF_MAX_LIMBS + 1], b[ZKPIPE__FF_MAX_LIMBS + 1];
    uint64_t u[ZKPIPE__FF_MAX_LIMBS + 1] = {1}, v[ZKPIPE__FF_MAX_LIMBS + 1] = {0};
    uint64_t na[ZKPIPE__FF_MAX_LIMBS + 1], nb[ZKPIPE__FF_MAX_LIMBS + 1];
    uint64_t nu[ZKPIPE__FF_MAX_LIMBS + 1], nv[ZKPIPE__FF_MAX_LIMBS + 1];
    /* Exact binary GCD needs at most 2 len(p) - 1 steps; the approximations add a few rounds at
     * worst, which this bound leaves room for. */
    int rounds = (2 * 64 * n) / ZKPIPE__INV_STEPS + 4;
    for (int i = 0; i < n; i++) {
        a[i] = y[i];
        b[i] = p[i];
    }
    for (;;) {
        if (zkpipe__limbs_is_zero(a, n))
            break;
        if (rounds-- == 0)
            return 0;
        int top = n - 1;
        while (top > 0 && (a[top] | b[top]) == 0)
            top--;
        unsigned len = 64 * (unsigned)top + 64 - (unsigned)__builtin_clzll(a[top] | b[top] | 1);
        uint64_t abar = a[0], bbar = b[0];
        if (len > 64) {
            uint64_t mask = (UINT64_C(1) << 33) - 1;
            abar = (abar & ZKPIPE__INV_LOW) | (zkpipe__inv_bits(a, len - 33, n) & mask) << 31;
            bbar = (bbar & ZKPIPE__INV_LOW) | (zkpipe__inv_bits(b, len - 33, n) & mask) << 31;
        }
        /* (f0, g0) and (f1, g1): a 2^j = f0 a + g0 b and b 2^j = f1 a + g1 b after j steps, in
         * two's complement; branch-free, as the branches would be taken at random */
        uint64_t f0 = 1, g0 = 0, f1 = 0, g1 = 1;
        for (int j = 0; j < ZKPIPE__INV_STEPS; j++) {
            uint64_t odd = 0 - (abar & 1);
            uint64_t swap = odd & (0 - (uint64_t)(abar < bbar)), x;
            x = (abar ^ bbar) & swap;
            abar ^= x;
            bbar ^= x;
            x = (f0 ^ f1) & swap;
            f0 ^= x;
            f1 ^= x;
            x = (g0 ^ g1) & swap;
            g0 ^= x;
            g1 ^= x;
            abar = (abar - (bbar & odd)) >> 1;
            f0 -= f1 & odd;
            g0 -= g1 & odd;
            f1 += f1;
            g1 += g1;
        }
        zkpipe__inv_combine(na, a, (int64_t)f0, b, (int64_t)g0, NULL, 0, n);
        zkpipe__inv_combine(nb, a, (int64_t)f1, b, (int64_t)g1, NULL, 0, n);
        if (na[n] >> 63) {
            zkpipe__inv_negate(na, n);
            f0 = 0 - f0;
            g0 = 0 - g0;
        }
        if (nb[n] >> 63) {
            zkpipe__inv_negate(nb, n);
            f1 = 0 - f1;
            g1 = 0 - g1;
        }
        if (na[n] != 0 || nb[n] != 0)
            return 0; /* cannot happen: |a'|, |b'| <= max(a, b) */
        /* u f + v g + k p with k chosen to clear the low 31 bits, then / 2^31: in (-p, 2p) */
        uint64_t k0 = (u[0] * f0 + v[0] * g0) * pinv & ZKPIPE__INV_LOW;
        uint64_t k1 = (u[0] * f1 + v[0] * g1) * pinv & ZKPIPE__INV_LOW;
        zkpipe__inv_combine(nu, u, (int64_t)f0, v, (int64_t)g0, p, k0, n);
        zkpipe__inv_combine(nv, u, (int64_t)f1, v, (int64_t)g1, p, k1, n);
        uint64_t *fix[2] = {nu, nv};
        for (int s = 0; s < 2; s++) {
            if (fix[s][n] >> 63)
                zkpipe__limbs_add(fix[s], fix[s], p, n);
            else if (!zkpipe__limbs_lt(fix[s], p, n))
                zkpipe__limbs_sub(fix[s], fix[s], p, n);
            fix[s][n] = 0;
        }
        for (int i = 0; i < n; i++) {
            a[i] = na[i];
            b[i] = nb[i];
            u[i] = nu[i];
            v[i] = nv[i];
        }
    }
    uint64_t one[ZKPIPE__FF_MAX_LIMBS] = {1};
    if (!zkpipe__limbs_eq(b, one, n))
        return 0; /* gcd(y, p) != 1: not for a prime p and 0 < y < p */
    for (int i = 0; i < n; i++)
        r[i] = v[i];
    return 1;
}

#endif

#endif
