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
 * ZKPIPE__FP2_X8F_DEFINE(E, F) defines E_x8f the same way over fp_x8f.h's F_x8f lanes (the
 * functions for ZKPIPE__X8F_TARGET, where zkpipe__ff_x86_avx512 is set), with the same bounds.
 *
 * Only the host sees this file: it is empty where fp_x8.h is (nvcc, not x86-64). */
#ifndef ZKPIPE_FF_FP2_X8_H
#define ZKPIPE_FF_FP2_X8_H

#include "fp_x8.h"
#include "fp_x8f.h"

#if ZKPIPE__FF_X86

#define ZKPIPE__FP2_LANES_DEFINE(E, F, X, INL)                                                     \
    typedef struct E##X {                                                                          \
        F##X c0, c1;                                                                               \
    } E##X;                                                                                        \
    INL void E##X##_load(E##X *r, const E *const *e, int shift)                                    \
    {                                                                                              \
        const F *e0[8], *e1[8];                                                                    \
        for (int i = 0; i < 8; i++) {                                                              \
            e0[i] = &e[i]->c0;                                                                     \
            e1[i] = &e[i]->c1;                                                                     \
        }                                                                                          \
        F##X##_load(&r->c0, e0, shift);                                                            \
        F##X##_load(&r->c1, e1, shift);                                                            \
    }                                                                                              \
    INL void E##X##_store(E *const *e, const E##X *a, unsigned count)                              \
    {                                                                                              \
        F *e0[8], *e1[8];                                                                          \
        for (unsigned i = 0; i < 8; i++) {                                                         \
            e0[i] = i < count ? &e[i]->c0 : NULL;                                                  \
            e1[i] = i < count ? &e[i]->c1 : NULL;                                                  \
        }                                                                                          \
        F##X##_store(e0, &a->c0, count);                                                           \
        F##X##_store(e1, &a->c1, count);                                                           \
    }                                                                                              \
    INL void E##X##_shift(E##X *r, const E##X *a)                                                  \
    {                                                                                              \
        F##X##_shift(&r->c0, &a->c0);                                                              \
        F##X##_shift(&r->c1, &a->c1);                                                              \
    }                                                                                              \
    INL void E##X##_add3(E##X *r, const E##X *a)                                                   \
    {                                                                                              \
        F##X##_add3(&r->c0, &a->c0);                                                               \
        F##X##_add3(&r->c1, &a->c1);                                                               \
    }                                                                                              \
    INL void E##X##_sub(E##X *r, const E##X *a, const E##X *b, int k)                              \
    {                                                                                              \
        F##X##_sub(&r->c0, &a->c0, &b->c0, k);                                                     \
        F##X##_sub(&r->c1, &a->c1, &b->c1, k);                                                     \
    }                                                                                              \
    INL void E##X##_neg(E##X *r, const E##X *a)                                                    \
    {                                                                                              \
        F##X##_neg(&r->c0, &a->c0);                                                                \
        F##X##_neg(&r->c1, &a->c1);                                                                \
    }                                                                                              \
    INL void E##X##_sub2(E##X *r, const E##X *a, const E##X *b, const E##X *c)                     \
    {                                                                                              \
        F##X##_sub2(&r->c0, &a->c0, &b->c0, &c->c0);                                               \
        F##X##_sub2(&r->c1, &a->c1, &b->c1, &c->c1);                                               \
    }                                                                                              \
    INL void E##X##_reduce4(E##X *r, const E##X *a)                                                \
    {                                                                                              \
        F##X##_reduce4(&r->c0, &a->c0);                                                            \
        F##X##_reduce4(&r->c1, &a->c1);                                                            \
    }                                                                                              \
    INL void E##X##_blend(E##X *r, __mmask8 m, const E##X *a, const E##X *b)                       \
    {                                                                                              \
        F##X##_blend(&r->c0, m, &a->c0, &b->c0);                                                   \
        F##X##_blend(&r->c1, m, &a->c1, &b->c1);                                                   \
    }                                                                                              \
    INL void E##X##_mul(E##X *r, const E##X *a, const E##X *b)                                     \
    {                                                                                              \
        F##X z, m1; /* m1 = 2 p - a1, which is -a1 */                                              \
        for (int j = 0; j < (int)(sizeof z.l / sizeof z.l[0]); j++)                                \
            z.l[j] = _mm512_setzero_si512();                                                       \
        F##X##_sub(&m1, &z, &a->c1, 2);                                                            \
        F##X##_mul2(&z, &a->c0, &b->c0, &m1, &b->c1);                                              \
        F##X##_mul2(&r->c1, &a->c0, &b->c1, &a->c1, &b->c0);                                       \
        r->c0 = z;                                                                                 \
    }                                                                                              \
    INL void E##X##_mul_by_fp(E##X *r, const E##X *a, const F##X *b)                               \
    {                                                                                              \
        F##X##_mul(&r->c0, &a->c0, b);                                                             \
        F##X##_mul(&r->c1, &a->c1, b);                                                             \
    }                                                                                              \
    INL void E##X##_sqr(E##X *r, const E##X *a, const E##X *as)                                    \
    {                                                                                              \
        F##X s, d; /* (a0 + a1)(a0 - a1) + 2 a0 a1 u */                                            \
        F##X##_add(&s, &a->c0, &a->c1);                                                            \
        F##X##_sub(&d, &a->c0, &a->c1, 2);                                                         \
        F##X##_shift(&d, &d);                                                                      \
        F##X##_mul(&d, &s, &d);                                                                    \
        F##X##_mul(&s, &a->c0, &as->c1);                                                           \
        F##X##_add(&r->c1, &s, &s);                                                                \
        F##X##_reduce4(&r->c1, &r->c1);                                                            \
        F##X##_reduce4(&r->c0, &d);                                                                \
    }

#define ZKPIPE__FP2_X8_DEFINE(E, F) ZKPIPE__FP2_LANES_DEFINE(E, F, _x8, ZKPIPE__X8_INLINE)
#define ZKPIPE__FP2_X8F_DEFINE(E, F) ZKPIPE__FP2_LANES_DEFINE(E, F, _x8f, ZKPIPE__X8F_INLINE)

#endif /* ZKPIPE__FF_X86 */

#endif
