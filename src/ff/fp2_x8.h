/* Eight Fq2 elements at once on AVX-512 IFMA lanes: ZKPIPE__FP2_X8_DEFINE(E, F) defines, for
 * E = F[u]/(u^2 + 1) of fp2.h and the lanes F_x8 of fp_x8.h, the type
 *
 *   typedef struct E_x8 { F_x8 c0, c1; } E_x8;
 *
 * eight values c0 + c1 u, and the functions below. Forms and bounds are fp_x8.h's, per
 * coefficient: "a < A p" means both coefficients are; R-form factors times R'-form factors give
 * R-form products. The bounds below are for kappa = p / 2^(64 F_LIMBS) < 0.19 (BN254; 0.11 for
 * BLS12-381), and test_ff_x8 checks the products at their edges.
 *
 * Functions (all inline, for functions with ZKPIPE__X8_TARGET, where zkpipe__ff_x86_ifma is set):
 *   E_x8_load(r, const E *const *e, shift), E_x8_store(e, a, count), E_x8_shift, E_x8_add3,
 *   E_x8_sub(r, a, b, k), E_x8_neg, E_x8_sub2, E_x8_reduce4, E_x8_blend
 *       : fp_x8.h's functions on both coefficients, with their bounds.
 *   void E_x8_mul(E_x8 *r, const E_x8 *a, const E_x8 *b)
 *       : r = a b for a < 2 p (R-form) and b < B 2^S p (R'-form): below (4 B kappa + 1) p.
 *         Each coefficient is a sum of two products with one reduction (F_x8_mul2):
 *         a0 b0 + (2 p - a1) b1 and a0 b1 + a1 b0, so one and a half products each.
 *   void E_x8_mul_by_fp(E_x8 *r, const E_x8 *a, const F_x8 *b)
 *       : r = a b for b in F: F_x8_mul on each coefficient, with its bounds.
 *   void E_x8_sqr(E_x8 *r, const E_x8 *a, const E_x8 *as)
 *       : r = a^2, fully reduced, given a < 3/2 p (R-form) and as, a in R'-form (E_x8_shift):
 *         (a0 + a1)(a0 - a1 + 2 p) below (3 * 7/2 kappa + 1) p < 3 p, and 2 a0 a1 below
 *         2 (9/4 kappa + 1) p < 3 p, each then reduced: two products.
 *
 * Only the host sees this file: it is empty where fp_x8.h is (nvcc, not x86-64). */
#ifndef ZKPIPE_FF_FP2_X8_H
#define ZKPIPE_FF_FP2_X8_H

#include "fp_x8.h"

#if ZKPIPE__FF_X86

#define ZKPIPE__FP2_X8_DEFINE(E, F)                                                                \
    typedef struct E##_x8 {                                                                        \
        F##_x8 c0, c1;                                                                             \
    } E##_x8;                                                                                      \
    ZKPIPE__X8_INLINE void E##_x8_load(E##_x8 *r, const E *const *e, int shift)                    \
    {                                                                                              \
        const F *e0[8], *e1[8];                                                                    \
        for (int i = 0; i < 8; i++) {                                                              \
            e0[i] = &e[i]->c0;                                                                     \
            e1[i] = &e[i]->c1;                                                                     \
        }                                                                                          \
        F##_x8_load(&r->c0, e0, shift);                                                            \
        F##_x8_load(&r->c1, e1, shift);                                                            \
    }                                                                                              \
    ZKPIPE__X8_INLINE void E##_x8_store(E *const *e, const E##_x8 *a, unsigned count)              \
    {                                                                                              \
        F *e0[8], *e1[8];                                                                          \
        for (unsigned i = 0; i < 8; i++) {                                                         \
            e0[i] = i < count ? &e[i]->c0 : NULL;                                                  \
            e1[i] = i < count ? &e[i]->c1 : NULL;                                                  \
        }                                                                                          \
        F##_x8_store(e0, &a->c0, count);                                                           \
        F##_x8_store(e1, &a->c1, count);                                                           \
    }                                                                                              \
    ZKPIPE__X8_INLINE void E##_x8_shift(E##_x8 *r, const E##_x8 *a)                                \
    {                                                                                              \
        F##_x8_shift(&r->c0, &a->c0);                                                              \
        F##_x8_shift(&r->c1, &a->c1);                                                              \
    }                                                                                              \
    ZKPIPE__X8_INLINE void E##_x8_add3(E##_x8 *r, const E##_x8 *a)                                 \
    {                                                                                              \
        F##_x8_add3(&r->c0, &a->c0);                                                               \
        F##_x8_add3(&r->c1, &a->c1);                                                               \
    }                                                                                              \
    ZKPIPE__X8_INLINE void E##_x8_sub(E##_x8 *r, const E##_x8 *a, const E##_x8 *b, int k)          \
    {                                                                                              \
        F##_x8_sub(&r->c0, &a->c0, &b->c0, k);                                                     \
        F##_x8_sub(&r->c1, &a->c1, &b->c1, k);                                                     \
    }                                                                                              \
    ZKPIPE__X8_INLINE void E##_x8_neg(E##_x8 *r, const E##_x8 *a)                                  \
    {                                                                                              \
        F##_x8_neg(&r->c0, &a->c0);                                                                \
        F##_x8_neg(&r->c1, &a->c1);                                                                \
    }                                                                                              \
    ZKPIPE__X8_INLINE void E##_x8_sub2(E##_x8 *r, const E##_x8 *a, const E##_x8 *b,                \
                                       const E##_x8 *c)                                            \
    {                                                                                              \
        F##_x8_sub2(&r->c0, &a->c0, &b->c0, &c->c0);                                               \
        F##_x8_sub2(&r->c1, &a->c1, &b->c1, &c->c1);                                               \
    }                                                                                              \
    ZKPIPE__X8_INLINE void E##_x8_reduce4(E##_x8 *r, const E##_x8 *a)                              \
    {                                                                                              \
        F##_x8_reduce4(&r->c0, &a->c0);                                                            \
        F##_x8_reduce4(&r->c1, &a->c1);                                                            \
    }                                                                                              \
    ZKPIPE__X8_INLINE void E##_x8_blend(E##_x8 *r, __mmask8 m, const E##_x8 *a, const E##_x8 *b)   \
    {                                                                                              \
        F##_x8_blend(&r->c0, m, &a->c0, &b->c0);                                                   \
        F##_x8_blend(&r->c1, m, &a->c1, &b->c1);                                                   \
    }                                                                                              \
    ZKPIPE__X8_INLINE void E##_x8_mul(E##_x8 *r, const E##_x8 *a, const E##_x8 *b)                 \
    {                                                                                              \
        F##_x8 z, m1; /* m1 = 2 p - a1, which is -a1 */                                            \
        for (int j = 0; j < (int)(sizeof z.l / sizeof z.l[0]); j++)                                \
            z.l[j] = _mm512_setzero_si512();                                                       \
        F##_x8_sub(&m1, &z, &a->c1, 2);                                                            \
        F##_x8_mul2(&z, &a->c0, &b->c0, &m1, &b->c1);                                              \
        F##_x8_mul2(&r->c1, &a->c0, &b->c1, &a->c1, &b->c0);                                       \
        r->c0 = z;                                                                                 \
    }                                                                                              \
    ZKPIPE__X8_INLINE void E##_x8_mul_by_fp(E##_x8 *r, const E##_x8 *a, const F##_x8 *b)           \
    {                                                                                              \
        F##_x8_mul(&r->c0, &a->c0, b);                                                             \
        F##_x8_mul(&r->c1, &a->c1, b);                                                             \
    }                                                                                              \
    ZKPIPE__X8_INLINE void E##_x8_sqr(E##_x8 *r, const E##_x8 *a, const E##_x8 *as)                \
    {                                                                                              \
        F##_x8 s, d; /* (a0 + a1)(a0 - a1) + 2 a0 a1 u */                                          \
        F##_x8_add(&s, &a->c0, &a->c1);                                                            \
        F##_x8_sub(&d, &a->c0, &a->c1, 2);                                                         \
        F##_x8_shift(&d, &d);                                                                      \
        F##_x8_mul(&d, &s, &d);                                                                    \
        F##_x8_mul(&s, &a->c0, &as->c1);                                                           \
        F##_x8_add(&r->c1, &s, &s);                                                                \
        F##_x8_reduce4(&r->c1, &r->c1);                                                            \
        F##_x8_reduce4(&r->c0, &d);                                                                \
    }

#endif /* ZKPIPE__FF_X86 */

#endif
