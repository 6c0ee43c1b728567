/* The Fq6 template: ZKPIPE__FP6_DEFINE(E, E2, C) defines E = E2[v]/(v^3 - xi), the value type
 * `typedef struct E { E2 c0, c1, c2; } E;` for c0 + c1 v + c2 v^2, and the functions below,
 * with xi from E2_mul_by_nonresidue and the Frobenius coefficients C##_FQ6_FROB_C1/C2. Rules
 * as in fp.h (not constant-time).
 *
 *   void E_set_zero(r);  E_set_one(r);  int E_is_zero(a);  E_is_one(a);  E_eq(a, b);
 *   void E_add(r, a, b);  E_sub(r, a, b);  E_neg(r, a);  E_dbl(r, a);
 *   void E_mul(r, a, b);  E_sqr(r, a);  E_pow(r, a, exp, nlimbs);
 *   int E_inv(E *r, const E *a) : r = 1/a and returns 1; for a = 0 sets r = 0, returns 0.
 *   void E_mul_by_nonresidue(E *r, const E *a) : r = v a.
 *   void E_mul_by_fq2(E *r, const E *a, const E2 *b) : r = a b for b in Fq2.
 *   void E_mul_by_01(E *r, const E *a, const E2 *b0, const E2 *b1) : r = a (b0 + b1 v).
 *   void E_mul_by_1(E *r, const E *a, const E2 *b1) : r = a (b1 v).
 *   void E_frobenius(E *r, const E *a, unsigned power) : r = a^(p^power). */
#ifndef ZKPIPE_FF_FP6_H
#define ZKPIPE_FF_FP6_H

#include "fp2.h"

#define ZKPIPE__FP6_DEFINE(E, E2, C)                                                               \
    typedef struct E {                                                                             \
        E2 c0, c1, c2;                                                                             \
    } E;                                                                                           \
    ZKPIPE_HD void E##_set_zero(E *r)                                                              \
    {                                                                                              \
        E2##_set_zero(&r->c0);                                                                     \
        E2##_set_zero(&r->c1);                                                                     \
        E2##_set_zero(&r->c2);                                                                     \
    }                                                                                              \
    ZKPIPE_HD void E##_set_one(E *r)                                                               \
    {                                                                                              \
        E2##_set_one(&r->c0);                                                                      \
        E2##_set_zero(&r->c1);                                                                     \
        E2##_set_zero(&r->c2);                                                                     \
    }                                                                                              \
    ZKPIPE_HD int E##_is_zero(const E *a)                                                          \
    {                                                                                              \
        return E2##_is_zero(&a->c0) && E2##_is_zero(&a->c1) && E2##_is_zero(&a->c2);               \
    }                                                                                              \
    ZKPIPE_HD int E##_is_one(const E *a)                                                           \
    {                                                                                              \
        return E2##_is_one(&a->c0) && E2##_is_zero(&a->c1) && E2##_is_zero(&a->c2);                \
    }                                                                                              \
    ZKPIPE_HD int E##_eq(const E *a, const E *b)                                                   \
    {                                                                                              \
        return E2##_eq(&a->c0, &b->c0) && E2##_eq(&a->c1, &b->c1) && E2##_eq(&a->c2, &b->c2);      \
    }                                                                                              \
    ZKPIPE_HD void E##_add(E *r, const E *a, const E *b)                                           \
    {                                                                                              \
        E2##_add(&r->c0, &a->c0, &b->c0);                                                          \
        E2##_add(&r->c1, &a->c1, &b->c1);                                                          \
        E2##_add(&r->c2, &a->c2, &b->c2);                                                          \
    }                                                                                              \
    ZKPIPE_HD void E##_sub(E *r, const E *a, const E *b)                                           \
    {                                                                                              \
        E2##_sub(&r->c0, &a->c0, &b->c0);                                                          \
        E2##_sub(&r->c1, &a->c1, &b->c1);                                                          \
        E2##_sub(&r->c2, &a->c2, &b->c2);                                                          \
    }                                                                                              \
    ZKPIPE_HD void E##_neg(E *r, const E *a)                                                       \
    {                                                                                              \
        E2##_neg(&r->c0, &a->c0);                                                                  \
        E2##_neg(&r->c1, &a->c1);                                                                  \
        E2##_neg(&r->c2, &a->c2);                                                                  \
    }                                                                                              \
    ZKPIPE_HD void E##_dbl(E *r, const E *a)                                                       \
    {                                                                                              \
        E##_add(r, a, a);                                                                          \
    }                                                                                              \
    ZKPIPE_HD void E##_mul_by_nonresidue(E *r, const E *a)                                         \
    {                                                                                              \
        E2 t = a->c2; /* v (c0 + c1 v + c2 v^2) = xi c2 + c0 v + c1 v^2 */                         \
        r->c2 = a->c1;                                                                             \
        r->c1 = a->c0;                                                                             \
        E2##_mul_by_nonresidue(&r->c0, &t);                                                        \
    }                                                                                              \
    ZKPIPE_HD_OUTLINED void E##_mul_by_fq2(E *r, const E *a, const E2 *b)                          \
    {                                                                                              \
        E2 t = *b;                                                                                 \
        E2##_mul(&r->c0, &a->c0, &t);                                                              \
        E2##_mul(&r->c1, &a->c1, &t);                                                              \
        E2##_mul(&r->c2, &a->c2, &t);                                                              \
    }                                                                                              \
    ZKPIPE_HD_OUTLINED void E##_mul(E *r, const E *a, const E *b)                                  \
    {                                                                                              \
        E2 v0, v1, v2, s, t, c0, c1; /* Karatsuba: six Fq2 multiplications */                      \
        E2##_mul(&v0, &a->c0, &b->c0);                                                             \
        E2##_mul(&v1, &a->c1, &b->c1);                                                             \
        E2##_mul(&v2, &a->c2, &b->c2);                                                             \
        /* c0 = v0 + xi ((a1 + a2)(b1 + b2) - v1 - v2) */                                          \
        E2##_add(&s, &a->c1, &a->c2);                                                              \
        E2##_add(&t, &b->c1, &b->c2);                                                              \
        E2##_mul(&s, &s, &t);                                                                      \
        E2##_sub(&s, &s, &v1);                                                                     \
        E2##_sub(&s, &s, &v2);                                                                     \
        E2##_mul_by_nonresidue(&s, &s);                                                            \
        E2##_add(&c0, &s, &v0);                                                                    \
        /* c1 = (a0 + a1)(b0 + b1) - v0 - v1 + xi v2 */                                            \
        E2##_add(&s, &a->c0, &a->c1);                                                              \
        E2##_add(&t, &b->c0, &b->c1);                                                              \
        E2##_mul(&s, &s, &t);                                                                      \
        E2##_sub(&s, &s, &v0);                                                                     \
        E2##_sub(&s, &s, &v1);                                                                     \
        E2##_mul_by_nonresidue(&t, &v2);                                                           \
        E2##_add(&c1, &s, &t);                                                                     \
        /* c2 = (a0 + a2)(b0 + b2) - v0 - v2 + v1 */                                               \
        E2##_add(&s, &a->c0, &a->c2);                                                              \
        E2##_add(&t, &b->c0, &b->c2);                                                              \
        E2##_mul(&s, &s, &t);                                                                      \
        E2##_sub(&s, &s, &v0);                                                                     \
        E2##_sub(&s, &s, &v2);                                                                     \
        E2##_add(&r->c2, &s, &v1);                                                                 \
        r->c0 = c0;                                                                                \
        r->c1 = c1;                                                                                \
    }                                                                                              \
    ZKPIPE_HD_OUTLINED void E##_sqr(E *r, const E *a)                                              \
    {                                                                                              \
        E2 s0, s1, s2, s3, s4, t; /* Chung-Hasan SQR2: two squarings fewer than E_mul */           \
        E2##_sqr(&s0, &a->c0);                                                                     \
        E2##_mul(&s1, &a->c0, &a->c1);                                                             \
        E2##_dbl(&s1, &s1);                                                                        \
        E2##_sub(&s2, &a->c0, &a->c1);                                                             \
        E2##_add(&s2, &s2, &a->c2);                                                                \
        E2##_sqr(&s2, &s2);                                                                        \
        E2##_mul(&s3, &a->c1, &a->c2);                                                             \
        E2##_dbl(&s3, &s3);                                                                        \
        E2##_sqr(&s4, &a->c2);                                                                     \
        /* c2 = s1 + s2 + s3 - s0 - s4 */                                                          \
        E2##_add(&t, &s1, &s2);                                                                    \
        E2##_add(&t, &t, &s3);                                                                     \
        E2##_sub(&t, &t, &s0);                                                                     \
        E2##_sub(&r->c2, &t, &s4);                                                                 \
        E2##_mul_by_nonresidue(&s3, &s3);                                                          \
        E2##_add(&r->c0, &s0, &s3);                                                                \
        E2##_mul_by_nonresidue(&s4, &s4);                                                          \
        E2##_add(&r->c1, &s1, &s4);                                                                \
    }                                                                                              \
    ZKPIPE_HD_OUTLINED int E##_inv(E *r, const E *a)                                               \
    {                                                                                              \
        E2 t0, t1, t2, s, d;                                                                       \
        /* t0 = c0^2 - xi c1 c2, t1 = xi c2^2 - c0 c1, t2 = c1^2 - c0 c2;                          \
         * 1/a = (t0 + t1 v + t2 v^2) / (c0 t0 + xi (c2 t1 + c1 t2)) */                            \
        E2##_sqr(&t0, &a->c0);                                                                     \
        E2##_mul(&s, &a->c1, &a->c2);                                                              \
        E2##_mul_by_nonresidue(&s, &s);                                                            \
        E2##_sub(&t0, &t0, &s);                                                                    \
        E2##_sqr(&t1, &a->c2);                                                                     \
        E2##_mul_by_nonresidue(&t1, &t1);                                                          \
        E2##_mul(&s, &a->c0, &a->c1);                                                              \
        E2##_sub(&t1, &t1, &s);                                                                    \
        E2##_sqr(&t2, &a->c1);                                                                     \
        E2##_mul(&s, &a->c0, &a->c2);                                                              \
        E2##_sub(&t2, &t2, &s);                                                                    \
        E2##_mul(&d, &a->c2, &t1);                                                                 \
        E2##_mul(&s, &a->c1, &t2);                                                                 \
        E2##_add(&d, &d, &s);                                                                      \
        E2##_mul_by_nonresidue(&d, &d);                                                            \
        E2##_mul(&s, &a->c0, &t0);                                                                 \
        E2##_add(&d, &d, &s);                                                                      \
        if (!E2##_inv(&d, &d)) {                                                                   \
            E##_set_zero(r);                                                                       \
            return 0;                                                                              \
        }                                                                                          \
        E2##_mul(&r->c0, &t0, &d);                                                                 \
        E2##_mul(&r->c1, &t1, &d);                                                                 \
        E2##_mul(&r->c2, &t2, &d);                                                                 \
        return 1;                                                                                  \
    }                                                                                              \
    ZKPIPE__FF_DEFINE_POW(E)                                                                       \
    ZKPIPE_HD_OUTLINED void E##_mul_by_01(E *r, const E *a, const E2 *b0, const E2 *b1)            \
    {                                                                                              \
        E2 t0, t1, s, t, c0, c1;                                                                   \
        E2##_mul(&t0, &a->c0, b0);                                                                 \
        E2##_mul(&t1, &a->c1, b1);                                                                 \
        /* c0 = xi ((a1 + a2) b1 - t1) + t0 */                                                     \
        E2##_add(&s, &a->c1, &a->c2);                                                              \
        E2##_mul(&s, &s, b1);                                                                      \
        E2##_sub(&s, &s, &t1);                                                                     \
        E2##_mul_by_nonresidue(&s, &s);                                                            \
        E2##_add(&c0, &s, &t0);                                                                    \
        /* c1 = (a0 + a1)(b0 + b1) - t0 - t1 */                                                    \
        E2##_add(&s, &a->c0, &a->c1);                                                              \
        E2##_add(&t, b0, b1);                                                                      \
        E2##_mul(&s, &s, &t);                                                                      \
        E2##_sub(&s, &s, &t0);                                                                     \
        E2##_sub(&c1, &s, &t1);                                                                    \
        /* c2 = (a0 + a2) b0 - t0 + t1 */                                                          \
        E2##_add(&s, &a->c0, &a->c2);                                                              \
        E2##_mul(&s, &s, b0);                                                                      \
        E2##_sub(&s, &s, &t0);                                                                     \
        E2##_add(&r->c2, &s, &t1);                                                                 \
        r->c0 = c0;                                                                                \
        r->c1 = c1;                                                                                \
    }                                                                                              \
    ZKPIPE_HD_OUTLINED void E##_mul_by_1(E *r, const E *a, const E2 *b1)                           \
    {                                                                                              \
        E2 t0, t1;                                                                                 \
        E2##_mul(&t0, &a->c2, b1);                                                                 \
        E2##_mul(&t1, &a->c1, b1);                                                                 \
        E2##_mul(&r->c1, &a->c0, b1);                                                              \
        E2##_mul_by_nonresidue(&r->c0, &t0);                                                       \
        r->c2 = t1;                                                                                \
    }                                                                                              \
    ZKPIPE_HD_OUTLINED void E##_frobenius(E *r, const E *a, unsigned power)                        \
    {                                                                                              \
        /* v^(p^k) = xi^((p^k - 1) / 3) v */                                                       \
        const E2 g1[6] = {C##_FQ6_FROB_C1}, g2[6] = {C##_FQ6_FROB_C2};                             \
        unsigned k = power % 6;                                                                    \
        E2##_frobenius(&r->c0, &a->c0, k);                                                         \
        E2##_frobenius(&r->c1, &a->c1, k);                                                         \
        E2##_frobenius(&r->c2, &a->c2, k);                                                         \
        E2##_mul(&r->c1, &r->c1, &g1[k]);                                                          \
        E2##_mul(&r->c2, &r->c2, &g2[k]);                                                          \
    }

#endif
