/* Multi-precision arithmetic on little-endian 64-bit limbs and the Montgomery multiplier,
 * written once for every limb count. Each field instantiates these with a constant `n` and its
 * modulus as local constants, so the compiler unrolls the loops and folds the modulus into
 * immediates; nothing here reads global memory, which keeps it usable in device code.
 *
 * Requirement on every modulus p (checked by gen_constants.py): its top limb is below
 * 2^63 - 1. Then a sum of two reduced values fits in n limbs, and the multiplier's last carry
 * fits in the top limb (the "no-carry" variant of CIOS Montgomery multiplication). */
#ifndef ZKPIPE_FF_LIMBS_H
#define ZKPIPE_FF_LIMBS_H

#include <stddef.h>
#include <stdint.h>

#include "hd.h"

/* nvcc's host pass hands pragmas to the host compiler, which may not know them: none there. */
#if defined(__CUDA_ARCH__) || (defined(__clang__) && !defined(__CUDACC__))
#define ZKPIPE__UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__CUDACC__)
#define ZKPIPE__UNROLL _Pragma("GCC unroll 16")
#else
#define ZKPIPE__UNROLL
#endif

/* The hot helpers must inline into the per-field functions for `n` to become a constant. */
#if !defined(__CUDACC__) && defined(__GNUC__)
#define ZKPIPE__FF_INLINE ZKPIPE_HD __attribute__((always_inline))
#else
#define ZKPIPE__FF_INLINE ZKPIPE_HD
#endif

#define ZKPIPE__FF_MAX_LIMBS 6

/* On x86-64 the carry chains of additions and subtractions use the adc/sbb intrinsics (in
 * every x86-64, so no flag or dispatch): gcc 12 compiles the portable comparisons below into
 * setb/cmp sequences instead of one adc chain. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#include <x86intrin.h>
#define ZKPIPE__FF_ADC 1
#else
#define ZKPIPE__FF_ADC 0
#endif

/* Returns the low word of a * b + c + *carry and leaves the high word in *carry; the sum
 * cannot overflow 128 bits. */
ZKPIPE__FF_INLINE uint64_t zkpipe__mac(uint64_t a, uint64_t b, uint64_t c, uint64_t *carry)
{
#if defined(__CUDA_ARCH__)
    uint64_t lo = a * b, hi = __umul64hi(a, b);
    lo += c;
    hi += lo < c;
    lo += *carry;
    hi += lo < *carry;
    *carry = hi;
    return lo;
#else
    __extension__ typedef unsigned __int128 u128;
    u128 t = (u128)a * b + c + *carry;
    *carry = (uint64_t)(t >> 64);
    return (uint64_t)t;
#endif
}

/* r = a + b; returns the carry out (0 or 1). r may alias a or b. */
ZKPIPE__FF_INLINE uint64_t zkpipe__limbs_add(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                             int n)
{
#if ZKPIPE__FF_ADC
    unsigned char cf = 0;
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++) {
        unsigned long long s;
        cf = _addcarry_u64(cf, a[i], b[i], &s);
        r[i] = s;
    }
    return cf;
#else
    uint64_t c = 0;
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++) {
        uint64_t s = a[i] + c;
        c = s < c;
        r[i] = s + b[i];
        c += r[i] < s;
    }
    return c;
#endif
}

/* r = a - b; returns the borrow out (0 or 1). r may alias a or b. */
ZKPIPE__FF_INLINE uint64_t zkpipe__limbs_sub(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                             int n)
{
#if ZKPIPE__FF_ADC
    unsigned char bf = 0;
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++) {
        unsigned long long d;
        bf = _subborrow_u64(bf, a[i], b[i], &d);
        r[i] = d;
    }
    return bf;
#else
    uint64_t borrow = 0;
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++) {
        uint64_t d = a[i] - b[i];
        uint64_t bo = a[i] < b[i];
        r[i] = d - borrow;
        bo |= d < borrow;
        borrow = bo;
    }
    return borrow;
#endif
}

/* Returns 1 when a < b. */
ZKPIPE__FF_INLINE int zkpipe__limbs_lt(const uint64_t *a, const uint64_t *b, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        if (a[i] != b[i])
            return a[i] < b[i];
    }
    return 0;
}

ZKPIPE__FF_INLINE int zkpipe__limbs_is_zero(const uint64_t *a, int n)
{
    uint64_t acc = 0;
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++)
        acc |= a[i];
    return acc == 0;
}

ZKPIPE__FF_INLINE int zkpipe__limbs_eq(const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t acc = 0;
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++)
        acc |= a[i] ^ b[i];
    return acc == 0;
}

/* r = t - p when t >= p, else t; for t < 2p this is the final step of every reduction. */
ZKPIPE__FF_INLINE void zkpipe__limbs_reduce_once(uint64_t *r, const uint64_t *t, const uint64_t *p,
                                                 int n)
{
    uint64_t s[ZKPIPE__FF_MAX_LIMBS];
    uint64_t borrow = zkpipe__limbs_sub(s, t, p, n);
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++)
        r[i] = borrow ? t[i] : s[i];
}

/* r = a + b mod p, for reduced a and b. */
ZKPIPE__FF_INLINE void zkpipe__mod_add(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                       const uint64_t *p, int n)
{
    uint64_t t[ZKPIPE__FF_MAX_LIMBS];
    zkpipe__limbs_add(t, a, b, n); /* no carry out: p has a spare top bit */
    zkpipe__limbs_reduce_once(r, t, p, n);
}

/* r = a - b mod p, for reduced a and b. */
ZKPIPE__FF_INLINE void zkpipe__mod_sub(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                       const uint64_t *p, int n)
{
    uint64_t t[ZKPIPE__FF_MAX_LIMBS];
    uint64_t borrow = zkpipe__limbs_sub(t, a, b, n);
    uint64_t q[ZKPIPE__FF_MAX_LIMBS];
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++)
        q[i] = borrow ? p[i] : 0;
    zkpipe__limbs_add(r, t, q, n);
}

/* r = -a mod p (0 stays 0). */
ZKPIPE__FF_INLINE void zkpipe__mod_neg(uint64_t *r, const uint64_t *a, const uint64_t *p, int n)
{
    uint64_t t[ZKPIPE__FF_MAX_LIMBS];
    int zero = zkpipe__limbs_is_zero(a, n);
    zkpipe__limbs_sub(t, p, a, n);
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++)
        r[i] = zero ? 0 : t[i];
}

/* r = a >> 1. r may alias a. */
ZKPIPE__FF_INLINE void zkpipe__limbs_shr1(uint64_t *r, const uint64_t *a, int n)
{
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++)
        r[i] = a[i] >> 1 | (i + 1 < n ? a[i + 1] << 63 : 0);
}

/* r = a / 2 mod p: (a + p) / 2 when a is odd; a + p fits in n limbs since p has a spare bit. */
ZKPIPE__FF_INLINE void zkpipe__mod_half(uint64_t *r, const uint64_t *a, const uint64_t *p, int n)
{
    uint64_t t[ZKPIPE__FF_MAX_LIMBS], q[ZKPIPE__FF_MAX_LIMBS];
    uint64_t odd = a[0] & 1;
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++)
        q[i] = odd ? p[i] : 0;
    zkpipe__limbs_add(t, a, q, n);
    zkpipe__limbs_shr1(r, t, n);
}

/* r = 1/a mod p for 0 < a < p, on plain integers, by the binary extended Euclidean algorithm:
 * x1 a = u and x2 a = v (mod p) hold throughout while u and v shrink to 1. Several times
 * faster than a^(p-2); not constant-time. */
ZKPIPE__FF_INLINE void zkpipe__mod_inv(uint64_t *r, const uint64_t *a, const uint64_t *p, int n)
{
    uint64_t u[ZKPIPE__FF_MAX_LIMBS], v[ZKPIPE__FF_MAX_LIMBS];
    uint64_t x1[ZKPIPE__FF_MAX_LIMBS] = {1}, x2[ZKPIPE__FF_MAX_LIMBS] = {0};
    uint64_t one[ZKPIPE__FF_MAX_LIMBS] = {1};
    for (int i = 0; i < n; i++) {
        u[i] = a[i];
        v[i] = p[i];
    }
    while (!zkpipe__limbs_eq(u, one, n) && !zkpipe__limbs_eq(v, one, n)) {
        while ((u[0] & 1) == 0) {
            zkpipe__limbs_shr1(u, u, n);
            zkpipe__mod_half(x1, x1, p, n);
        }
        while ((v[0] & 1) == 0) {
            zkpipe__limbs_shr1(v, v, n);
            zkpipe__mod_half(x2, x2, p, n);
        }
        if (zkpipe__limbs_lt(u, v, n)) {
            zkpipe__limbs_sub(v, v, u, n);
            zkpipe__mod_sub(x2, x2, x1, p, n);
        } else {
            zkpipe__limbs_sub(u, u, v, n);
            zkpipe__mod_sub(x1, x1, x2, p, n);
        }
    }
    const uint64_t *x = zkpipe__limbs_eq(u, one, n) ? x1 : x2;
    for (int i = 0; i < n; i++)
        r[i] = x[i];
}

/* r = a * b / 2^(64 n) mod p (CIOS with the no-carry shortcut), for a, b < p. r may alias a
 * or b. `inv` is -p^-1 mod 2^64. */
ZKPIPE__FF_INLINE void zkpipe__mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                        const uint64_t *p, uint64_t inv, int n)
{
    uint64_t t[ZKPIPE__FF_MAX_LIMBS] = {0};
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++) {
        uint64_t ca = 0, cm = 0;
        t[0] = zkpipe__mac(a[0], b[i], t[0], &ca);
        uint64_t m = t[0] * inv;
        zkpipe__mac(m, p[0], t[0], &cm); /* the low word is zero by the choice of m */
        ZKPIPE__UNROLL
        for (int j = 1; j < n; j++) {
            t[j] = zkpipe__mac(a[j], b[i], t[j], &ca);
            t[j - 1] = zkpipe__mac(m, p[j], t[j], &cm);
        }
        t[n - 1] = cm + ca;
    }
    /* t < 2p. Unlike a sum, a product is rarely >= p (p is well below 2^(64 n)), so a branch
     * beats the masked select of zkpipe__limbs_reduce_once (this is not constant-time). */
    if (!zkpipe__limbs_lt(t, p, n))
        zkpipe__limbs_sub(t, t, p, n);
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++)
        r[i] = t[i];
}

/* The two halves of a Montgomery product, for lazy reduction (fp2.h): sums and differences of
 * several double-width products take one reduction instead of one each. */

/* t[0..2n) = a b, for any n-limb a and b. */
ZKPIPE__FF_INLINE void zkpipe__limbs_mul_wide(uint64_t *t, const uint64_t *a, const uint64_t *b,
                                              int n)
{
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++)
        t[n + i] = 0;
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++) {
        uint64_t c = 0;
        ZKPIPE__UNROLL
        for (int j = 0; j < n; j++)
            t[i + j] = zkpipe__mac(a[j], b[i], i == 0 ? 0 : t[i + j], &c);
        t[i + n] = c;
    }
}

/* r = t / 2^(64 n) mod p for a 2n-limb t < p 2^(64 n), by reducing the low half:
 * (t_low + m p) / 2^(64 n) < p + 1, plus t_high gives (t + m p) / 2^(64 n) < 2p, and one
 * subtraction of p finishes it (2p < 2^(64 n) by limbs.h's requirement on p). */
ZKPIPE__FF_INLINE void zkpipe__mont_reduce(uint64_t *r, const uint64_t *t, const uint64_t *p,
                                           uint64_t inv, int n)
{
    uint64_t u[ZKPIPE__FF_MAX_LIMBS];
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++)
        u[i] = t[i];
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++) {
        /* u = (u + m p) / 2^64 < 2^(64 (n - 1)) + p: still n limbs */
        uint64_t m = u[0] * inv, c = 0;
        zkpipe__mac(m, p[0], u[0], &c);
        ZKPIPE__UNROLL
        for (int j = 1; j < n; j++)
            u[j - 1] = zkpipe__mac(m, p[j], u[j], &c);
        u[n - 1] = c;
    }
    zkpipe__limbs_add(u, u, t + n, n);
    if (!zkpipe__limbs_lt(u, p, n))
        zkpipe__limbs_sub(u, u, p, n);
    ZKPIPE__UNROLL
    for (int i = 0; i < n; i++)
        r[i] = u[i];
}

/* Big-endian / little-endian byte strings of exactly 8 n bytes to and from limbs. */
ZKPIPE__FF_INLINE void zkpipe__limbs_from_bytes(uint64_t *r, const uint8_t *in, int n, int be)
{
    for (int i = 0; i < n; i++) {
        uint64_t w = 0;
        for (int k = 0; k < 8; k++) {
            int pos = 8 * i + k; /* byte pos counts from the least significant end */
            w |= (uint64_t)in[be ? 8 * n - 1 - pos : pos] << (8 * k);
        }
        r[i] = w;
    }
}

ZKPIPE__FF_INLINE void zkpipe__limbs_to_bytes(uint8_t *out, const uint64_t *a, int n, int be)
{
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 8; k++) {
            int pos = 8 * i + k;
            out[be ? 8 * n - 1 - pos : pos] = (uint8_t)(a[i] >> (8 * k));
        }
    }
}

#endif
