/* The point template: ZKPIPE__EC_DEFINE_JACOBIAN(G, F) defines, for a curve y² = x³ + b (a = 0)
 * over the field F (any field with the ff/fp.h operations: Fq for G1, Fq2 for G2):
 *
 *   typedef struct G_affine { F x, y; } G_affine;  x = y = 0 is the point at infinity (never on
 *       the curve, as b != 0), the layout of snarkjs zkey files
 *   typedef struct G { F x, y, z; } G;  Jacobian (x/z², y/z³); z = 0 is the point at infinity
 *
 * and the header-only (ZKPIPE_HD, host and device) functions below, which the MSM kernels reuse.
 * The formulas are the a = 0 ones from the Explicit-Formulas Database: dbl-2009-l,
 * add-2007-bl, madd-2007-bl. They are not complete, so add and add_affine branch to doubling
 * or to infinity when both inputs have the same x.
 *
 * Common rules: outputs first and may alias any input; pointers must not be NULL; inputs must
 * be valid points (on the curve, or infinity).
 * Not constant-time. No allocation, no global state.
 *
 *   void G_set_infinity(G *r);  int G_is_infinity(const G *p);
 *   void G_affine_set_infinity(G_affine *r);  int G_affine_is_infinity(const G_affine *p);
 *   void G_from_affine(G *r, const G_affine *a);
 *   void G_to_affine(G_affine *r, const G *p)        : one field inversion.
 *   void G_neg(G *r, const G *p);  void G_affine_neg(G_affine *r, const G_affine *a);
 *   void G_dbl(G *r, const G *p);  void G_add(G *r, const G *a, const G *b);
 *   void G_add_affine(G *r, const G *a, const G_affine *b)   : mixed addition.
 *   int G_eq(const G *a, const G *b);  int G_affine_eq(const G_affine *a, const G_affine *b)
 *       : 1 when the points are equal, whatever their representation. */
#ifndef ZKPIPE_EC_JACOBIAN_H
#define ZKPIPE_EC_JACOBIAN_H

#include "ff/hd.h"

#define ZKPIPE__EC_DEFINE_JACOBIAN(G, F)                                                           \
    typedef struct G##_affine {                                                                    \
        F x, y;                                                                                    \
    } G##_affine;                                                                                  \
    typedef struct G {                                                                             \
        F x, y, z;                                                                                 \
    } G;                                                                                           \
    ZKPIPE_HD void G##_set_infinity(G *r)                                                          \
    {                                                                                              \
        F##_set_one(&r->x);                                                                        \
        F##_set_one(&r->y);                                                                        \
        F##_set_zero(&r->z);                                                                       \
    }                                                                                              \
    ZKPIPE_HD int G##_is_infinity(const G *p)                                                      \
    {                                                                                              \
        return F##_is_zero(&p->z);                                                                 \
    }                                                                                              \
    ZKPIPE_HD void G##_affine_set_infinity(G##_affine *r)                                          \
    {                                                                                              \
        F##_set_zero(&r->x);                                                                       \
        F##_set_zero(&r->y);                                                                       \
    }                                                                                              \
    ZKPIPE_HD int G##_affine_is_infinity(const G##_affine *p)                                      \
    {                                                                                              \
        return F##_is_zero(&p->x) && F##_is_zero(&p->y);                                           \
    }                                                                                              \
    ZKPIPE_HD void G##_from_affine(G *r, const G##_affine *a)                                      \
    {                                                                                              \
        if (G##_affine_is_infinity(a)) {                                                           \
            G##_set_infinity(r);                                                                   \
            return;                                                                                \
        }                                                                                          \
        r->x = a->x;                                                                               \
        r->y = a->y;                                                                               \
        F##_set_one(&r->z);                                                                        \
    }                                                                                              \
    ZKPIPE_HD void G##_to_affine(G##_affine *r, const G *p)                                        \
    {                                                                                              \
        F zi, zi2, zi3;                                                                            \
        if (G##_is_infinity(p)) {                                                                  \
            G##_affine_set_infinity(r);                                                            \
            return;                                                                                \
        }                                                                                          \
        F##_inv(&zi, &p->z);                                                                       \
        F##_sqr(&zi2, &zi);                                                                        \
        F##_mul(&zi3, &zi2, &zi);                                                                  \
        F##_mul(&r->x, &p->x, &zi2);                                                               \
        F##_mul(&r->y, &p->y, &zi3);                                                               \
    }                                                                                              \
    ZKPIPE_HD void G##_neg(G *r, const G *p)                                                       \
    {                                                                                              \
        r->x = p->x;                                                                               \
        F##_neg(&r->y, &p->y);                                                                     \
        r->z = p->z;                                                                               \
    }                                                                                              \
    ZKPIPE_HD void G##_affine_neg(G##_affine *r, const G##_affine *a)                              \
    {                                                                                              \
        r->x = a->x;                                                                               \
        F##_neg(&r->y, &a->y);                                                                     \
    }                                                                                              \
    ZKPIPE_HD void G##_dbl(G *r, const G *p)                                                       \
    {                                                                                              \
        F A, B, C, D, E, t;                                                                        \
        G out;                                                                                     \
        F##_sqr(&A, &p->x);                                                                        \
        F##_sqr(&B, &p->y);                                                                        \
        F##_sqr(&C, &B);                                                                           \
        F##_add(&D, &p->x, &B); /* D = 2((x + B)² - A - C) */                                     \
        F##_sqr(&D, &D);                                                                           \
        F##_sub(&D, &D, &A);                                                                       \
        F##_sub(&D, &D, &C);                                                                       \
        F##_dbl(&D, &D);                                                                           \
        F##_dbl(&E, &A); /* E = 3A */                                                              \
        F##_add(&E, &E, &A);                                                                       \
        F##_sqr(&out.x, &E); /* x3 = E² - 2D */                                                   \
        F##_dbl(&t, &D);                                                                           \
        F##_sub(&out.x, &out.x, &t);                                                               \
        F##_mul(&out.z, &p->y, &p->z); /* z3 = 2yz: zero again for the point at infinity */        \
        F##_dbl(&out.z, &out.z);                                                                   \
        F##_sub(&t, &D, &out.x); /* y3 = E(D - x3) - 8C */                                         \
        F##_mul(&out.y, &E, &t);                                                                   \
        F##_dbl(&C, &C);                                                                           \
        F##_dbl(&C, &C);                                                                           \
        F##_dbl(&C, &C);                                                                           \
        F##_sub(&out.y, &out.y, &C);                                                               \
        *r = out;                                                                                  \
    }                                                                                              \
    /* Adding a point with the same x as `a`: a itself (R = 0) or -a (R != 0). */                  \
    ZKPIPE_HD void G##__same_x(G *r, const G *a, const F *R)                                       \
    {                                                                                              \
        if (F##_is_zero(R))                                                                        \
            G##_dbl(r, a);                                                                         \
        else                                                                                       \
            G##_set_infinity(r);                                                                   \
    }                                                                                              \
    /* The tail both additions share: from H = u2 - u1 and R = 2(s2 - s1), x3 and y3. */           \
    ZKPIPE_HD void G##__add_tail(G *out, const F *H, const F *I, const F *R, const F *u1,          \
                                 const F *s1)                                                      \
    {                                                                                              \
        F J, V, t;                                                                                 \
        F##_mul(&J, H, I);                                                                         \
        F##_mul(&V, u1, I);                                                                        \
        F##_sqr(&out->x, R); /* x3 = R² - J - 2V */                                               \
        F##_sub(&out->x, &out->x, &J);                                                             \
        F##_dbl(&t, &V);                                                                           \
        F##_sub(&out->x, &out->x, &t);                                                             \
        F##_sub(&t, &V, &out->x); /* y3 = R(V - x3) - 2 s1 J */                                    \
        F##_mul(&out->y, R, &t);                                                                   \
        F##_mul(&t, s1, &J);                                                                       \
        F##_dbl(&t, &t);                                                                           \
        F##_sub(&out->y, &out->y, &t);                                                             \
    }                                                                                              \
    ZKPIPE_HD void G##_add(G *r, const G *a, const G *b)                                           \
    {                                                                                              \
        F z1z1, z2z2, u1, u2, s1, s2, H, I, R;                                                     \
        G out;                                                                                     \
        if (G##_is_infinity(a)) {                                                                  \
            *r = *b;                                                                               \
            return;                                                                                \
        }                                                                                          \
        if (G##_is_infinity(b)) {                                                                  \
            *r = *a;                                                                               \
            return;                                                                                \
        }                                                                                          \
        F##_sqr(&z1z1, &a->z);                                                                     \
        F##_sqr(&z2z2, &b->z);                                                                     \
        F##_mul(&u1, &a->x, &z2z2);                                                                \
        F##_mul(&u2, &b->x, &z1z1);                                                                \
        F##_mul(&s1, &a->y, &b->z);                                                                \
        F##_mul(&s1, &s1, &z2z2);                                                                  \
        F##_mul(&s2, &b->y, &a->z);                                                                \
        F##_mul(&s2, &s2, &z1z1);                                                                  \
        F##_sub(&H, &u2, &u1);                                                                     \
        F##_sub(&R, &s2, &s1);                                                                     \
        if (F##_is_zero(&H)) {                                                                     \
            G##__same_x(r, a, &R);                                                                 \
            return;                                                                                \
        }                                                                                          \
        F##_dbl(&R, &R);                                                                           \
        F##_dbl(&I, &H); /* I = (2H)² */                                                          \
        F##_sqr(&I, &I);                                                                           \
        F##_add(&out.z, &a->z, &b->z); /* z3 = ((z1 + z2)² - z1z1 - z2z2) H */                    \
        F##_sqr(&out.z, &out.z);                                                                   \
        F##_sub(&out.z, &out.z, &z1z1);                                                            \
        F##_sub(&out.z, &out.z, &z2z2);                                                            \
        F##_mul(&out.z, &out.z, &H);                                                               \
        G##__add_tail(&out, &H, &I, &R, &u1, &s1);                                                 \
        *r = out;                                                                                  \
    }                                                                                              \
    ZKPIPE_HD void G##_add_affine(G *r, const G *a, const G##_affine *b)                           \
    {                                                                                              \
        F z1z1, u2, s2, H, HH, I, R;                                                               \
        G out;                                                                                     \
        if (G##_affine_is_infinity(b)) {                                                           \
            *r = *a;                                                                               \
            return;                                                                                \
        }                                                                                          \
        if (G##_is_infinity(a)) {                                                                  \
            G##_from_affine(r, b);                                                                 \
            return;                                                                                \
        }                                                                                          \
        F##_sqr(&z1z1, &a->z);                                                                     \
        F##_mul(&u2, &b->x, &z1z1);                                                                \
        F##_mul(&s2, &b->y, &a->z);                                                                \
        F##_mul(&s2, &s2, &z1z1);                                                                  \
        F##_sub(&H, &u2, &a->x);                                                                   \
        F##_sub(&R, &s2, &a->y);                                                                   \
        if (F##_is_zero(&H)) {                                                                     \
            G##__same_x(r, a, &R);                                                                 \
            return;                                                                                \
        }                                                                                          \
        F##_dbl(&R, &R);                                                                           \
        F##_sqr(&HH, &H); /* I = 4 H² */                                                          \
        F##_dbl(&I, &HH);                                                                          \
        F##_dbl(&I, &I);                                                                           \
        F##_add(&out.z, &a->z, &H); /* z3 = (z1 + H)² - z1z1 - H² */                             \
        F##_sqr(&out.z, &out.z);                                                                   \
        F##_sub(&out.z, &out.z, &z1z1);                                                            \
        F##_sub(&out.z, &out.z, &HH);                                                              \
        G##__add_tail(&out, &H, &I, &R, &a->x, &a->y);                                             \
        *r = out;                                                                                  \
    }                                                                                              \
    ZKPIPE_HD int G##_eq(const G *a, const G *b)                                                   \
    {                                                                                              \
        F z1z1, z2z2, l, rr;                                                                       \
        int ia = G##_is_infinity(a), ib = G##_is_infinity(b);                                      \
        if (ia || ib)                                                                              \
            return ia && ib;                                                                       \
        /* x1 z2² = x2 z1² and y1 z2³ = y2 z1³ */                                              \
        F##_sqr(&z1z1, &a->z);                                                                     \
        F##_sqr(&z2z2, &b->z);                                                                     \
        F##_mul(&l, &a->x, &z2z2);                                                                 \
        F##_mul(&rr, &b->x, &z1z1);                                                                \
        if (!F##_eq(&l, &rr))                                                                      \
            return 0;                                                                              \
        F##_mul(&l, &a->y, &z2z2);                                                                 \
        F##_mul(&l, &l, &b->z);                                                                    \
        F##_mul(&rr, &b->y, &z1z1);                                                                \
        F##_mul(&rr, &rr, &a->z);                                                                  \
        return F##_eq(&l, &rr);                                                                    \
    }                                                                                              \
    ZKPIPE_HD int G##_affine_eq(const G##_affine *a, const G##_affine *b)                          \
    {                                                                                              \
        int ia = G##_affine_is_infinity(a), ib = G##_affine_is_infinity(b);                        \
        if (ia || ib)                                                                              \
            return ia && ib;                                                                       \
        return F##_eq(&a->x, &b->x) && F##_eq(&a->y, &b->y);                                       \
    }

#endif
