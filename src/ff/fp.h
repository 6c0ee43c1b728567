/* The prime-field template: ZKPIPE__FP_DEFINE(F, C) defines the value type
 * `typedef struct F { uint64_t l[C##_LIMBS]; } F;` (a in Montgomery form, a R mod p with
 * R = 2^(64 limbs)), the host constant `F_MODULUS` (the limbs of p) and the functions below,
 * from the constant macros C##_MODULUS, _INV, _ONE, _R2, _R3 and _P_MINUS_1_HALF that
 * gen_constants.py writes. The square root comes from ZKPIPE__FP_DEFINE_SQRT_3MOD4 or
 * ZKPIPE__FP_DEFINE_TWO_ADIC, chosen by the shape of p.
 *
 * Not constant-time: branches and loop counts depend on the values (inversion, square root,
 * exponentiation, reduction). Do not use these functions where timing may leak a secret.
 *
 * Common rules: every function is ZKPIPE_HD or ZKPIPE_HD_OUTLINED (host and device, see hd.h);
 * outputs come first and may alias any input; pointers must not be NULL; inputs must be reduced
 * (every F produced by these functions is). Nothing allocates and nothing touches global state, so
 * all functions are safe to call concurrently on distinct outputs.
 *
 * Per field F:
 *   void F_set_zero(F *r);  void F_set_one(F *r);  void F_from_u64(F *r, uint64_t v);
 *   int F_is_zero(const F *a);  int F_is_one(const F *a);  int F_eq(const F *a, const F *b);
 *       : 1 when true, else 0.
 *   void F_add(r, a, b);  F_sub(r, a, b);  F_neg(r, a);  F_dbl(r, a);  F_mul(r, a, b);
 *   void F_sqr(r, a) : on x86-64 with BMI2 and ADX the dedicated squaring of mont_x86.h
 *       (fewer products than F_mul(r, a, a)); elsewhere F_mul_portable(r, a, a).
 *   void F_mul_portable(r, a, b) : F_mul in plain C, without mont_x86.h (tests compare them).
 *   void F_mul_lazy(F *r, const F *a, const F *b)
 *       : r = a b / R mod p below 2 p, for a, b below 2 p (outputs of F_mul_lazy, or reduced),
 *         where the field leaves the room (4 p < R) and the x86-64 multiplier runs: it skips
 *         the final subtraction. Elsewhere it is F_mul, whose result is reduced. For chains of
 *         products whose links are only multiplied again; F_mul and F_sqr take such a value
 *         too (their result is reduced: (a b + m p) / R < 2 p still holds), nothing else does
 *         before F_reduce_lazy.
 *   void F_reduce_lazy(F *r, const F *a) : r = a mod p for a below 2 p (F_mul_lazy's). r may
 *         alias a.
 *   void F_mul_wide(uint64_t *t, const uint64_t *a, const uint64_t *b)
 *       : t[0..2 LIMBS) = a b as integers, for any LIMBS-limb a and b (reduced or not); t must
 *         not overlap a or b. With F_reduce, for sums of products reduced once (fp2.h).
 *   void F_reduce(F *r, const uint64_t *t) : r = t / R mod p for a 2 LIMBS-limb t < p R (the
 *       second half of F_mul: F_reduce of F_mul_wide(a, b) is F_mul(a, b)).
 *   void F_sub_wide(uint64_t *t, const uint64_t *a, const uint64_t *b)
 *       : t = a - b, plus p R when that is negative, for 2 LIMBS-limb a, b < p R: stays below
 *         p R and congruent to a - b after F_reduce.
 *   F_mul_wide_portable, F_reduce_portable : the same in plain C.
 *   void F_half(F *r, const F *a) : r = a / 2.
 *   void F_mul_small(F *r, const F *a, uint64_t k) : r = k a by doubling and adding (cheaper
 *       than F_mul for small k).
 *   int F_inv(F *r, const F *a)
 *       : r = 1/a and returns 1; for a = 0 sets r = 0 and returns 0.
 *   void F_pow(F *r, const F *a, const uint64_t *exp, size_t nlimbs)
 *       : r = a^exp, exp an integer of nlimbs little-endian limbs (0^0 = 1).
 *   int F_legendre(const F *a) : 1 for a non-zero square, -1 for a non-square, 0 for 0.
 *   int F_sqrt(F *r, const F *a)
 *       : when a is a square returns 1 and sets r to one of its two roots (no canonical sign);
 *         otherwise returns 0 and sets r = 0.
 *   void F_to_canonical(uint64_t *out, const F *a) : out[0..LIMBS) = a as an integer < p.
 *   int F_from_canonical(F *r, const uint64_t *limbs)
 *       : reads LIMBS limbs; returns 0 (r untouched) when the integer is >= p, else 1.
 *   int F_from_bytes_be(F *r, const uint8_t *in);  int F_from_bytes_le(F *r, const uint8_t *in)
 *       : reads F_BYTES bytes; returns 0 (r untouched) for an integer >= p, else 1.
 *   void F_to_bytes_be(uint8_t *out, const F *a);  void F_to_bytes_le(uint8_t *out, const F *a)
 *       : writes F_BYTES bytes of the canonical integer.
 *   void F_batch_inv(F *out, const F *in, size_t n, F *scratch)
 *       : out[i] = 1/in[i] for n elements with one inversion (Montgomery's trick); a zero
 *         in[i] gives out[i] = 0 and does not disturb the others. out may equal in; scratch
 *         holds n elements and must not overlap in or out. */
#ifndef ZKPIPE_FF_FP_H
#define ZKPIPE_FF_FP_H

#include "limbs.h"
#include "mod_inv.h"
#include "mont_x86.h"

/* F_inv's walk: mod_inv.h's on the host (falling back to limbs.h's where it gives up), limbs.h's
 * in device code. */
#if defined(__CUDA_ARCH__)
#define ZKPIPE__FP_MOD_INV(r, a, p, pinv, n) zkpipe__mod_inv(r, a, p, n)
#else
#define ZKPIPE__FP_MOD_INV(r, a, p, pinv, n)                                                       \
    do {                                                                                           \
        if (!zkpipe__mod_inv_fast(r, a, p, pinv, n))                                               \
            zkpipe__mod_inv(r, a, p, n);                                                           \
    } while (0)
#endif

/* Square-and-multiply exponentiation for any type T with T_set_one, T_sqr and T_mul: defines
 * T_pow(r, a, exp, nlimbs), r = a^exp for an exponent of nlimbs little-endian limbs. */
#define ZKPIPE__FF_DEFINE_POW(T)                                                                   \
    ZKPIPE_HD_OUTLINED void T##_pow(T *r, const T *a, const uint64_t *exp, size_t nlimbs)          \
    {                                                                                              \
        T base = *a, acc;                                                                          \
        int started = 0; /* skips squaring 1 through the exponent's leading zeros */               \
        T##_set_one(&acc);                                                                         \
        for (size_t i = nlimbs; i-- > 0;) {                                                        \
            for (int bit = 63; bit >= 0; bit--) {                                                  \
                if (started)                                                                       \
                    T##_sqr(&acc, &acc);                                                           \
                if (exp[i] >> bit & 1) {                                                           \
                    T##_mul(&acc, &acc, &base);                                                    \
                    started = 1;                                                                   \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        *r = acc;                                                                                  \
    }

/* On x86-64 hosts with BMI2 and ADX, F_mul takes the mulx/adcx/adox multiplier of mont_x86.h
 * and returns; elsewhere this expands to nothing and F_mul_portable runs. Where the fast path
 * exists, the portable one stays out of line: inlined next to it, it doubled the size of the
 * curve additions, which then ran out of the instruction cache. */
#if ZKPIPE__FF_X86
#define ZKPIPE__FP_MUL_PORTABLE static __attribute__((noinline, cold, unused))
#define ZKPIPE__FP_MUL_X86(r, a, b, p, inv, n)                                                     \
    if (__builtin_expect(zkpipe__ff_x86_adx, 1)) {                                                 \
        zkpipe__mont_mul_x86(r, a, b, p, inv, n);                                                  \
        return;                                                                                    \
    }
/* F_mul_lazy's: only where p's top limb is below 2^62 (4 p < R), folded per field. */
#define ZKPIPE__FP_MUL_LAZY_X86(r, a, b, p, inv, n)                                                \
    if (__builtin_expect(zkpipe__ff_x86_adx, 1) && (p)[(n)-1] >> 62 == 0) {                        \
        zkpipe__mont_mul_x86_lazy(r, a, b, p, inv, n);                                             \
        return;                                                                                    \
    }
#define ZKPIPE__FP_MUL_WIDE_X86(t, a, b, n)                                                        \
    if (__builtin_expect(zkpipe__ff_x86_adx, 1)) {                                                 \
        if ((n) == 4)                                                                              \
            zkpipe__mul_wide4_x86(t, a, b);                                                        \
        else                                                                                       \
            zkpipe__mul_wide6_x86(t, a, b);                                                        \
        return;                                                                                    \
    }
#define ZKPIPE__FP_REDUCE_X86(r, t, p, inv, n)                                                     \
    if (__builtin_expect(zkpipe__ff_x86_adx, 1)) {                                                 \
        if ((n) == 4)                                                                              \
            zkpipe__mont_reduce4_x86(r, t, p, inv);                                                \
        else                                                                                       \
            zkpipe__mont_reduce6_x86(r, t, p, inv);                                                \
        return;                                                                                    \
    }
#define ZKPIPE__FP_SQR_X86(r, a, p, inv, n)                                                        \
    if (__builtin_expect(zkpipe__ff_x86_adx, 1)) {                                                 \
        if ((n) == 4)                                                                              \
            zkpipe__mont_sqr4_x86(r, a, p, inv);                                                   \
        else                                                                                       \
            zkpipe__mont_sqr6_x86(r, a, p, inv);                                                   \
        return;                                                                                    \
    }
#else
#define ZKPIPE__FP_MUL_PORTABLE ZKPIPE_HD
#define ZKPIPE__FP_MUL_X86(r, a, b, p, inv, n)
#define ZKPIPE__FP_MUL_LAZY_X86(r, a, b, p, inv, n)
#define ZKPIPE__FP_MUL_WIDE_X86(t, a, b, n)
#define ZKPIPE__FP_REDUCE_X86(r, t, p, inv, n)
#define ZKPIPE__FP_SQR_X86(r, a, p, inv, n)
#endif

#define ZKPIPE__FP_DEFINE(F, C)                                                                    \
    typedef struct F {                                                                             \
        uint64_t l[C##_LIMBS];                                                                     \
    } F;                                                                                           \
    /* host only: device code reads C##_MODULUS */                                                 \
    static const uint64_t F##_MODULUS[C##_LIMBS] = {C##_MODULUS};                                  \
    ZKPIPE_HD void F##_set_zero(F *r)                                                              \
    {                                                                                              \
        for (int i = 0; i < C##_LIMBS; i++)                                                        \
            r->l[i] = 0;                                                                           \
    }                                                                                              \
    ZKPIPE_HD void F##_set_one(F *r)                                                               \
    {                                                                                              \
        const uint64_t one[C##_LIMBS] = {C##_ONE};                                                 \
        for (int i = 0; i < C##_LIMBS; i++)                                                        \
            r->l[i] = one[i];                                                                      \
    }                                                                                              \
    ZKPIPE_HD int F##_is_zero(const F *a)                                                          \
    {                                                                                              \
        return zkpipe__limbs_is_zero(a->l, C##_LIMBS);                                             \
    }                                                                                              \
    ZKPIPE_HD int F##_is_one(const F *a)                                                           \
    {                                                                                              \
        const uint64_t one[C##_LIMBS] = {C##_ONE};                                                 \
        return zkpipe__limbs_eq(a->l, one, C##_LIMBS);                                             \
    }                                                                                              \
    ZKPIPE_HD int F##_eq(const F *a, const F *b)                                                   \
    {                                                                                              \
        return zkpipe__limbs_eq(a->l, b->l, C##_LIMBS);                                            \
    }                                                                                              \
    ZKPIPE_HD void F##_add(F *r, const F *a, const F *b)                                           \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        zkpipe__mod_add(r->l, a->l, b->l, p, C##_LIMBS);                                           \
    }                                                                                              \
    ZKPIPE_HD void F##_dbl(F *r, const F *a)                                                       \
    {                                                                                              \
        F##_add(r, a, a);                                                                          \
    }                                                                                              \
    ZKPIPE_HD void F##_sub(F *r, const F *a, const F *b)                                           \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        zkpipe__mod_sub(r->l, a->l, b->l, p, C##_LIMBS);                                           \
    }                                                                                              \
    ZKPIPE_HD void F##_neg(F *r, const F *a)                                                       \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        zkpipe__mod_neg(r->l, a->l, p, C##_LIMBS);                                                 \
    }                                                                                              \
    ZKPIPE__FP_MUL_PORTABLE void F##_mul_portable(F *r, const F *a, const F *b)                    \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        zkpipe__mont_mul(r->l, a->l, b->l, p, C##_INV, C##_LIMBS);                                 \
    }                                                                                              \
    ZKPIPE_HD void F##_mul(F *r, const F *a, const F *b)                                           \
    {                                                                                              \
        ZKPIPE__FP_MUL_X86(r->l, a->l, b->l, F##_MODULUS, C##_INV, C##_LIMBS)                      \
        F##_mul_portable(r, a, b);                                                                 \
    }                                                                                              \
    ZKPIPE_HD void F##_mul_lazy(F *r, const F *a, const F *b)                                      \
    {                                                                                              \
        ZKPIPE__FP_MUL_LAZY_X86(r->l, a->l, b->l, F##_MODULUS, C##_INV, C##_LIMBS)                 \
        F##_mul(r, a, b);                                                                          \
    }                                                                                              \
    ZKPIPE_HD void F##_reduce_lazy(F *r, const F *a)                                               \
    {                                                                                              \
        zkpipe__limbs_reduce_once(r->l, a->l, F##_MODULUS, C##_LIMBS);                             \
    }                                                                                              \
    ZKPIPE__FP_MUL_PORTABLE void F##_mul_wide_portable(uint64_t *t, const uint64_t *a,             \
                                                       const uint64_t *b)                          \
    {                                                                                              \
        zkpipe__limbs_mul_wide(t, a, b, C##_LIMBS);                                                \
    }                                                                                              \
    ZKPIPE_HD void F##_mul_wide(uint64_t *t, const uint64_t *a, const uint64_t *b)                 \
    {                                                                                              \
        ZKPIPE__FP_MUL_WIDE_X86(t, a, b, C##_LIMBS)                                                \
        F##_mul_wide_portable(t, a, b);                                                            \
    }                                                                                              \
    ZKPIPE__FP_MUL_PORTABLE void F##_reduce_portable(F *r, const uint64_t *t)                      \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        zkpipe__mont_reduce(r->l, t, p, C##_INV, C##_LIMBS);                                       \
    }                                                                                              \
    ZKPIPE_HD void F##_reduce(F *r, const uint64_t *t)                                             \
    {                                                                                              \
        ZKPIPE__FP_REDUCE_X86(r->l, t, F##_MODULUS, C##_INV, C##_LIMBS)                            \
        F##_reduce_portable(r, t);                                                                 \
    }                                                                                              \
    ZKPIPE_HD void F##_sub_wide(uint64_t *t, const uint64_t *a, const uint64_t *b)                 \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        if (zkpipe__limbs_sub(t, a, b, 2 * C##_LIMBS))                                             \
            zkpipe__limbs_add(t + C##_LIMBS, t + C##_LIMBS, p, C##_LIMBS);                         \
    }                                                                                              \
    ZKPIPE_HD void F##_sqr(F *r, const F *a)                                                       \
    {                                                                                              \
        ZKPIPE__FP_SQR_X86(r->l, a->l, F##_MODULUS, C##_INV, C##_LIMBS)                            \
        F##_mul_portable(r, a, a);                                                                 \
    }                                                                                              \
    ZKPIPE_HD void F##_to_canonical(uint64_t *out, const F *a)                                     \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        uint64_t one[C##_LIMBS] = {1};                                                             \
        zkpipe__mont_mul(out, a->l, one, p, C##_INV, C##_LIMBS);                                   \
    }                                                                                              \
    ZKPIPE_HD int F##_from_canonical(F *r, const uint64_t *limbs)                                  \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        const uint64_t r2[C##_LIMBS] = {C##_R2};                                                   \
        if (!zkpipe__limbs_lt(limbs, p, C##_LIMBS))                                                \
            return 0;                                                                              \
        zkpipe__mont_mul(r->l, limbs, r2, p, C##_INV, C##_LIMBS);                                  \
        return 1;                                                                                  \
    }                                                                                              \
    ZKPIPE_HD void F##_from_u64(F *r, uint64_t v)                                                  \
    {                                                                                              \
        uint64_t t[C##_LIMBS] = {v};                                                               \
        F##_from_canonical(r, t); /* every p here exceeds 2^64 */                                  \
    }                                                                                              \
    ZKPIPE__FF_DEFINE_POW(F)                                                                       \
    ZKPIPE_HD void F##_half(F *r, const F *a)                                                      \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        zkpipe__mod_half(r->l, a->l, p, C##_LIMBS);                                                \
    }                                                                                              \
    ZKPIPE_HD void F##_mul_small(F *r, const F *a, uint64_t k)                                     \
    {                                                                                              \
        F base = *a, acc;                                                                          \
        F##_set_zero(&acc);                                                                        \
        for (; k; k >>= 1) {                                                                       \
            if (k & 1)                                                                             \
                F##_add(&acc, &acc, &base);                                                        \
            F##_dbl(&base, &base);                                                                 \
        }                                                                                          \
        *r = acc;                                                                                  \
    }                                                                                              \
    ZKPIPE_HD_OUTLINED int F##_inv(F *r, const F *a)                                               \
    {                                                                                              \
        const uint64_t p[C##_LIMBS] = {C##_MODULUS};                                               \
        const uint64_t r3[C##_LIMBS] = {C##_R3};                                                   \
        uint64_t t[C##_LIMBS];                                                                     \
        if (F##_is_zero(a)) {                                                                      \
            F##_set_zero(r);                                                                       \
            return 0;                                                                              \
        }                                                                                          \
        /* a holds aR; 1/(aR) = a^-1 R^-1, and a Montgomery product with R^3 restores a^-1 R */    \
        ZKPIPE__FP_MOD_INV(t, a->l, p, C##_INV, C##_LIMBS);                                        \
        zkpipe__mont_mul(r->l, t, r3, p, C##_INV, C##_LIMBS);                                      \
        return 1;                                                                                  \
    }                                                                                              \
    ZKPIPE_HD_OUTLINED int F##_legendre(const F *a)                                                \
    {                                                                                              \
        const uint64_t e[C##_LIMBS] = {C##_P_MINUS_1_HALF};                                        \
        F t;                                                                                       \
        F##_pow(&t, a, e, C##_LIMBS);                                                              \
        return F##_is_zero(&t) ? 0 : F##_is_one(&t) ? 1 : -1;                                      \
    }                                                                                              \
    ZKPIPE_HD int F##_from_bytes_be(F *r, const uint8_t *in)                                       \
    {                                                                                              \
        uint64_t t[C##_LIMBS];                                                                     \
        zkpipe__limbs_from_bytes(t, in, C##_LIMBS, 1);                                             \
        return F##_from_canonical(r, t);                                                           \
    }                                                                                              \
    ZKPIPE_HD int F##_from_bytes_le(F *r, const uint8_t *in)                                       \
    {                                                                                              \
        uint64_t t[C##_LIMBS];                                                                     \
        zkpipe__limbs_from_bytes(t, in, C##_LIMBS, 0);                                             \
        return F##_from_canonical(r, t);                                                           \
    }                                                                                              \
    ZKPIPE_HD void F##_to_bytes_be(uint8_t *out, const F *a)                                       \
    {                                                                                              \
        uint64_t t[C##_LIMBS];                                                                     \
        F##_to_canonical(t, a);                                                                    \
        zkpipe__limbs_to_bytes(out, t, C##_LIMBS, 1);                                              \
    }                                                                                              \
    ZKPIPE_HD void F##_to_bytes_le(uint8_t *out, const F *a)                                       \
    {                                                                                              \
        uint64_t t[C##_LIMBS];                                                                     \
        F##_to_canonical(t, a);                                                                    \
        zkpipe__limbs_to_bytes(out, t, C##_LIMBS, 0);                                              \
    }                                                                                              \
    ZKPIPE_HD_OUTLINED void F##_batch_inv(F *out, const F *in, size_t n, F *scratch)               \
    {                                                                                              \
        F acc;                                                                                     \
        F##_set_one(&acc);                                                                         \
        for (size_t i = 0; i < n; i++) {                                                           \
            scratch[i] = acc; /* product of the non-zero in[0..i) */                               \
            if (!F##_is_zero(&in[i]))                                                              \
                F##_mul(&acc, &acc, &in[i]);                                                       \
        }                                                                                          \
        F##_inv(&acc, &acc);                                                                       \
        for (size_t i = n; i-- > 0;) {                                                             \
            F x = in[i];                                                                           \
            if (F##_is_zero(&x)) {                                                                 \
                F##_set_zero(&out[i]);                                                             \
                continue;                                                                          \
            }                                                                                      \
            F##_mul(&out[i], &acc, &scratch[i]);                                                   \
            F##_mul(&acc, &acc, &x);                                                               \
        }                                                                                          \
    }

/* p = 3 mod 4: a^((p+1)/4) is a root whenever one exists. */
#define ZKPIPE__FP_DEFINE_SQRT_3MOD4(F, C)                                                         \
    ZKPIPE_HD_OUTLINED int F##_sqrt(F *r, const F *a)                                              \
    {                                                                                              \
        const uint64_t e[C##_LIMBS] = {C##_P_PLUS_1_QUARTER};                                      \
        F x, check;                                                                                \
        F##_pow(&x, a, e, C##_LIMBS);                                                              \
        F##_sqr(&check, &x);                                                                       \
        if (!F##_eq(&check, a)) {                                                                  \
            F##_set_zero(r);                                                                       \
            return 0;                                                                              \
        }                                                                                          \
        *r = x;                                                                                    \
        return 1;                                                                                  \
    }

/* For p - 1 = 2^s t with large s (the scalar fields): F_ROOT_OF_UNITY (host constant, Montgomery
 * form) is w = 5^t = 5^((p - 1) / 2^s), of order exactly 2^s, the generator ffjavascript/snarkjs
 * use, so NTT domains up to 2^F_TWO_ADICITY match theirs. The square root is Tonelli-Shanks with
 * w as the correcting factor. */
#define ZKPIPE__FP_DEFINE_TWO_ADIC(F, C)                                                           \
    static const F F##_ROOT_OF_UNITY = {{C##_ROOT_OF_UNITY}};                                      \
    ZKPIPE_HD_OUTLINED int F##_sqrt(F *r, const F *a)                                              \
    {                                                                                              \
        const uint64_t e[C##_LIMBS] = {C##_T_MINUS_1_HALF};                                        \
        F w, x, b, z = {{C##_ROOT_OF_UNITY}};                                                      \
        int m = C##_TWO_ADICITY;                                                                   \
        F##_pow(&w, a, e, C##_LIMBS);                                                              \
        F##_mul(&x, a, &w);  /* a^((t+1)/2) */                                                     \
        F##_mul(&b, &x, &w); /* a^t, whose order 2^k is what is left to correct */                 \
        while (!F##_is_one(&b) && !F##_is_zero(&b)) {                                              \
            int k = 0;                                                                             \
            F t = b;                                                                               \
            while (!F##_is_one(&t)) {                                                              \
                F##_sqr(&t, &t);                                                                   \
                if (++k == m) {                                                                    \
                    F##_set_zero(r);                                                               \
                    return 0;                                                                      \
                }                                                                                  \
            }                                                                                      \
            for (int i = 0; i < m - k - 1; i++)                                                    \
                F##_sqr(&z, &z);                                                                   \
            m = k;                                                                                 \
            F##_mul(&x, &x, &z);                                                                   \
            F##_sqr(&z, &z);                                                                       \
            F##_mul(&b, &b, &z);                                                                   \
        }                                                                                          \
        *r = x;                                                                                    \
        return 1;                                                                                  \
    }

#endif
