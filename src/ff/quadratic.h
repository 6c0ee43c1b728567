/* What every quadratic extension E = B[x]/(x^2 - beta) shares, for Fq2 (beta = -1) and Fq12
 * (beta = v): the value type `typedef struct E { B c0, c1; } E;` holding c0 + c1 x, and the
 * functions below. The multiplications, being specialised per level, live in fp2.h and fp12.h.
 * Rules as in fp.h: not constant-time, outputs first and may alias inputs, no NULL, no
 * allocation, no global state.
 *
 *   void E_set_zero(E *r);  void E_set_one(E *r);
 *   int E_is_zero(const E *a);  int E_is_one(const E *a);  int E_eq(const E *a, const E *b);
 *   void E_add(r, a, b);  E_sub(r, a, b);  E_neg(r, a);  E_dbl(r, a);
 *   void E_conjugate(E *r, const E *a) : r = c0 - c1 x.
 *   void E_mul_by_<SUFFIX>(E *r, const E *a, const B *b) : r = a b for b in the base field.
 *   int E_inv(E *r, const E *a) : r = 1/a and returns 1; for a = 0 sets r = 0, returns 0. */
#ifndef ZKPIPE_FF_QUADRATIC_H
#define ZKPIPE_FF_QUADRATIC_H

#include "fp.h"

/* The type and its additive functions; SUFFIX names the base field in E_mul_by_<SUFFIX>. */
#define ZKPIPE__QUADRATIC_DEFINE(E, B, SUFFIX)                                                     \
    typedef struct E {                                                                             \
        B c0, c1;                                                                                  \
    } E;                                                                                           \
    ZKPIPE_HD void E##_set_zero(E *r)                                                              \
    {                                                                                              \
        B##_set_zero(&r->c0);                                                                      \
        B##_set_zero(&r->c1);                                                                      \
    }                                                                                              \
    ZKPIPE_HD void E##_set_one(E *r)                                                               \
    {                                                                                              \
        B##_set_one(&r->c0);                                                                       \
        B##_set_zero(&r->c1);                                                                      \
    }                                                                                              \
    ZKPIPE_HD int E##_is_zero(const E *a)                                                          \
    {                                                                                              \
        return B##_is_zero(&a->c0) && B##_is_zero(&a->c1);                                         \
    }                                                                                              \
    ZKPIPE_HD int E##_is_one(const E *a)                                                           \
    {                                                                                              \
        return B##_is_one(&a->c0) && B##_is_zero(&a->c1);                                          \
    }                                                                                              \
    ZKPIPE_HD int E##_eq(const E *a, const E *b)                                                   \
    {                                                                                              \
        return B##_eq(&a->c0, &b->c0) && B##_eq(&a->c1, &b->c1);                                   \
    }                                                                                              \
    ZKPIPE_HD void E##_add(E *r, const E *a, const E *b)                                           \
    {                                                                                              \
        B##_add(&r->c0, &a->c0, &b->c0);                                                           \
        B##_add(&r->c1, &a->c1, &b->c1);                                                           \
    }                                                                                              \
    ZKPIPE_HD void E##_sub(E *r, const E *a, const E *b)                                           \
    {                                                                                              \
        B##_sub(&r->c0, &a->c0, &b->c0);                                                           \
        B##_sub(&r->c1, &a->c1, &b->c1);                                                           \
    }                                                                                              \
    ZKPIPE_HD void E##_neg(E *r, const E *a)                                                       \
    {                                                                                              \
        B##_neg(&r->c0, &a->c0);                                                                   \
        B##_neg(&r->c1, &a->c1);                                                                   \
    }                                                                                              \
    ZKPIPE_HD void E##_dbl(E *r, const E *a)                                                       \
    {                                                                                              \
        B##_dbl(&r->c0, &a->c0);                                                                   \
        B##_dbl(&r->c1, &a->c1);                                                                   \
    }                                                                                              \
    ZKPIPE_HD void E##_conjugate(E *r, const E *a)                                                 \
    {                                                                                              \
        r->c0 = a->c0;                                                                             \
        B##_neg(&r->c1, &a->c1);                                                                   \
    }                                                                                              \
    ZKPIPE_HD void E##_mul_by_##SUFFIX(E *r, const E *a, const B *b)                               \
    {                                                                                              \
        B t = *b; /* b may be a coefficient of r */                                                \
        B##_mul(&r->c0, &a->c0, &t);                                                               \
        B##_mul(&r->c1, &a->c1, &t);                                                               \
    }

/* E_inv, with MUL_BY_BETA(B *r, const B *a) computing beta a: 1/a = conj(a) / (c0^2 - beta c1^2).
 * Needs B_sqr, B_mul and B_inv. */
#define ZKPIPE__QUADRATIC_DEFINE_INV(E, B, MUL_BY_BETA)                                            \
    ZKPIPE_HD_OUTLINED int E##_inv(E *r, const E *a)                                               \
    {                                                                                              \
        B t0, t1;                                                                                  \
        B##_sqr(&t0, &a->c0);                                                                      \
        B##_sqr(&t1, &a->c1);                                                                      \
        MUL_BY_BETA(&t1, &t1);                                                                     \
        B##_sub(&t0, &t0, &t1);                                                                    \
        if (!B##_inv(&t0, &t0)) {                                                                  \
            E##_set_zero(r);                                                                       \
            return 0;                                                                              \
        }                                                                                          \
        B##_mul(&r->c0, &a->c0, &t0);                                                              \
        B##_mul(&r->c1, &a->c1, &t0);                                                              \
        B##_neg(&r->c1, &r->c1);                                                                   \
        return 1;                                                                                  \
    }

#endif
