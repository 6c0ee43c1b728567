/* The Fq12 template: ZKPIPE__FP12_DEFINE(E, E6, E2, C) defines E = E6[w]/(w^2 - v) with
 * everything quadratic.h lists (E_mul_by_fq6 multiplies by an Fq6) plus the functions below;
 * C##_FQ12_FROB_C1 holds the Frobenius coefficients. Rules as in fp.h (not constant-time).
 *
 *   void E_mul(r, a, b);  void E_sqr(r, a);  void E_pow(r, a, exp, nlimbs);
 *   void E_frobenius(E *r, const E *a, unsigned power) : r = a^(p^power).
 *   void E_cyclotomic_sqr(E *r, const E *a)
 *       : r = a^2 for a in the cyclotomic subgroup (a^(p^6 + 1) = 1, true of everything after
 *         the easy part of the final exponentiation); garbage for other a.
 *
 * Sparse multiplication for the Miller loop. The digits name the non-zero Fq2 coefficients of
 * the line in memory order: 0 = c0.c0, 1 = c0.c1, 2 = c0.c2, 3 = c1.c0, 4 = c1.c1, 5 = c1.c2
 * (c0.c1 multiplies v, c1.c0 multiplies w, c1.c1 multiplies v w), as in blst, arkworks and gnark.
 *   void E_mul_by_014(E *r, const E *a, const E2 *o0, const E2 *o1, const E2 *o4)
 *       : BLS12-381 (M-type twist): r = a (o0 + o1 v + o4 v w).
 *   void E_mul_by_034(E *r, const E *a, const E2 *o0, const E2 *o3, const E2 *o4)
 *       : BN254 (D-type twist): r = a (o0 + o3 w + o4 v w). */
#ifndef ZKPIPE_FF_FP12_H
#define ZKPIPE_FF_FP12_H

#include "fp6.h"

#define ZKPIPE__FP12_DEFINE(E, E6, E2, C)                                                          \
    ZKPIPE__QUADRATIC_DEFINE(E, E6, fq6)                                                           \
    ZKPIPE_HD_OUTLINED void E##_mul(E *r, const E *a, const E *b)                                  \
    {                                                                                              \
        E6 aa, bb, s, t; /* Karatsuba: three Fq6 multiplications */                                \
        E6##_mul(&aa, &a->c0, &b->c0);                                                             \
        E6##_mul(&bb, &a->c1, &b->c1);                                                             \
        E6##_add(&s, &a->c0, &a->c1);                                                              \
        E6##_add(&t, &b->c0, &b->c1);                                                              \
        E6##_mul(&s, &s, &t);                                                                      \
        E6##_sub(&s, &s, &aa);                                                                     \
        E6##_sub(&r->c1, &s, &bb);                                                                 \
        E6##_mul_by_nonresidue(&bb, &bb);                                                          \
        E6##_add(&r->c0, &aa, &bb);                                                                \
    }                                                                                              \
    ZKPIPE_HD_OUTLINED void E##_sqr(E *r, const E *a)                                              \
    {                                                                                              \
        E6 ab, s, t; /* complex squaring: (c0 + c1)(c0 + v c1) - ab - v ab, 2 ab */                \
        E6##_mul(&ab, &a->c0, &a->c1);                                                             \
        E6##_add(&s, &a->c0, &a->c1);                                                              \
        E6##_mul_by_nonresidue(&t, &a->c1);                                                        \
        E6##_add(&t, &t, &a->c0);                                                                  \
        E6##_mul(&s, &s, &t);                                                                      \
        E6##_sub(&s, &s, &ab);                                                                     \
        E6##_mul_by_nonresidue(&t, &ab);                                                           \
        E6##_sub(&r->c0, &s, &t);                                                                  \
        E6##_dbl(&r->c1, &ab);                                                                     \
    }                                                                                              \
    ZKPIPE__QUADRATIC_DEFINE_INV(E, E6, E6##_mul_by_nonresidue)                                    \
    ZKPIPE__FF_DEFINE_POW(E)                                                                       \
    ZKPIPE_HD_OUTLINED void E##_frobenius(E *r, const E *a, unsigned power)                        \
    {                                                                                              \
        /* w^(p^k) = xi^((p^k - 1) / 6) w */                                                       \
        const E2 g[12] = {C##_FQ12_FROB_C1};                                                       \
        unsigned k = power % 12;                                                                   \
        E6##_frobenius(&r->c0, &a->c0, k);                                                         \
        E6##_frobenius(&r->c1, &a->c1, k);                                                         \
        E6##_mul_by_fq2(&r->c1, &r->c1, &g[k]);                                                    \
    }                                                                                              \
    ZKPIPE_HD void E##_cyclotomic_sqr_pair(E2 *r0, E2 *r1, const E2 *z0, const E2 *z1)             \
    {                                                                                              \
        E2 m, s, t; /* (z0 + z1 t)^2 in Fq4 = Fq2[t]/(t^2 - xi), t = w^3 */                        \
        E2##_mul(&m, z0, z1);                                                                      \
        E2##_add(&s, z0, z1);                                                                      \
        E2##_mul_by_nonresidue(&t, z1);                                                            \
        E2##_add(&t, &t, z0);                                                                      \
        E2##_mul(&s, &s, &t);                                                                      \
        E2##_sub(&s, &s, &m);                                                                      \
        E2##_mul_by_nonresidue(&t, &m);                                                            \
        E2##_sub(r0, &s, &t);                                                                      \
        E2##_dbl(r1, &m);                                                                          \
    }                                                                                              \
    ZKPIPE_HD_OUTLINED void E##_cyclotomic_sqr(E *r, const E *a)                                   \
    {                                                                                              \
        /* Granger-Scott: with t = w^3, a = A0 + A1 w + A2 w^2 over Fq4 where                      \
         * A0 = c0.c0 + c1.c1 t, A1 = c1.c0 + c0.c2 t, A2 = c0.c1 + c1.c2 t, and                   \
         * a^2 = (3 A0^2 - 2 conj A0) + (3 t A2^2 + 2 conj A1) w + (3 A1^2 - 2 conj A2) w^2,       \
         * conj being t -> -t. */                                                                  \
        E2 a0, a1, b0, b1, c0, c1, x;                                                              \
        E##_cyclotomic_sqr_pair(&a0, &a1, &a->c0.c0, &a->c1.c1);                                   \
        E##_cyclotomic_sqr_pair(&b0, &b1, &a->c1.c0, &a->c0.c2);                                   \
        E##_cyclotomic_sqr_pair(&c0, &c1, &a->c0.c1, &a->c1.c2);                                   \
        /* 3 s - 2 z = 2 (s - z) + s and 3 s + 2 z = 2 (s + z) + s */                              \
        E2##_sub(&x, &a0, &a->c0.c0);                                                              \
        E2##_dbl(&x, &x);                                                                          \
        E2##_add(&r->c0.c0, &x, &a0);                                                              \
        E2##_add(&x, &a1, &a->c1.c1);                                                              \
        E2##_dbl(&x, &x);                                                                          \
        E2##_add(&r->c1.c1, &x, &a1);                                                              \
        E2##_mul_by_nonresidue(&c1, &c1);                                                          \
        E2##_add(&x, &c1, &a->c1.c0);                                                              \
        E2##_dbl(&x, &x);                                                                          \
        E2##_add(&r->c1.c0, &x, &c1);                                                              \
        E2##_sub(&x, &c0, &a->c0.c2);                                                              \
        E2##_dbl(&x, &x);                                                                          \
        E2##_add(&r->c0.c2, &x, &c0);                                                              \
        E2##_sub(&x, &b0, &a->c0.c1);                                                              \
        E2##_dbl(&x, &x);                                                                          \
        E2##_add(&r->c0.c1, &x, &b0);                                                              \
        E2##_add(&x, &b1, &a->c1.c2);                                                              \
        E2##_dbl(&x, &x);                                                                          \
        E2##_add(&r->c1.c2, &x, &b1);                                                              \
    }

/* BLS12-381's sparse line multiplication (layout in the comment at the top). */
#define ZKPIPE__FP12_DEFINE_MUL_BY_014(E, E6, E2)                                                  \
    ZKPIPE_HD_OUTLINED void E##_mul_by_014(E *r, const E *a, const E2 *o0, const E2 *o1,           \
                                           const E2 *o4)                                           \
    {                                                                                              \
        E6 aa, bb, s;                                                                              \
        E2 t;                                                                                      \
        E6##_mul_by_01(&aa, &a->c0, o0, o1);                                                       \
        E6##_mul_by_1(&bb, &a->c1, o4);                                                            \
        E2##_add(&t, o1, o4);                                                                      \
        E6##_add(&s, &a->c0, &a->c1);                                                              \
        E6##_mul_by_01(&s, &s, o0, &t);                                                            \
        E6##_sub(&s, &s, &aa);                                                                     \
        E6##_sub(&r->c1, &s, &bb);                                                                 \
        E6##_mul_by_nonresidue(&bb, &bb);                                                          \
        E6##_add(&r->c0, &aa, &bb);                                                                \
    }

/* BN254's sparse line multiplication (layout in the comment at the top). */
#define ZKPIPE__FP12_DEFINE_MUL_BY_034(E, E6, E2)                                                  \
    ZKPIPE_HD_OUTLINED void E##_mul_by_034(E *r, const E *a, const E2 *o0, const E2 *o3,           \
                                           const E2 *o4)                                           \
    {                                                                                              \
        E6 aa, bb, s;                                                                              \
        E2 t;                                                                                      \
        E6##_mul_by_fq2(&aa, &a->c0, o0);                                                          \
        E6##_mul_by_01(&bb, &a->c1, o3, o4);                                                       \
        E2##_add(&t, o0, o3);                                                                      \
        E6##_add(&s, &a->c0, &a->c1);                                                              \
        E6##_mul_by_01(&s, &s, &t, o4);                                                            \
        E6##_sub(&s, &s, &aa);                                                                     \
        E6##_sub(&r->c1, &s, &bb);                                                                 \
        E6##_mul_by_nonresidue(&bb, &bb);                                                          \
        E6##_add(&r->c0, &aa, &bb);                                                                \
    }

#endif
