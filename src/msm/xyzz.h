/* The bucket point template: ZKPIPE__MSM_DEFINE_XYZZ(G, F) defines, for the group G of
 * ec/jacobian.h (a curve y² = x³ + b over F), the extended-Jacobian type
 *
 *   typedef struct G_xyzz { F x, y, zz, zzz; } G_xyzz;  (x/zz, y/zzz) with zz³ = zzz²;
 *                                                        zz = 0 is the point at infinity
 *
 * Buckets receive one affine point per addition, and XYZZ makes that mixed addition
 * 8M + 2S (madd-2008-s), against 7M + 4S and more additions for Jacobian madd-2007-bl; the
 * bucket reduction's full additions are 12M + 2S (add-2008-s), against 11M + 5S. The gain
 * is in the dominant mixed additions. Formulas from the Explicit-Formulas Database
 * (Sutherland 2008, a = 0); they are not complete, so both additions branch to doubling
 * (dbl-2008-s-1 / mdbl-2008-s-1) or to infinity when the x coordinates agree.
 *
 *   void G_xyzz_set_infinity(G_xyzz *r);  int G_xyzz_is_infinity(const G_xyzz *p);
 *   void G_xyzz_add_affine(G_xyzz *r, const G_xyzz *a, const G_affine *b, int neg)
 *       : r = a + b, or a - b when neg is non-zero; b must not be the point at infinity.
 *   void G_xyzz_add(G_xyzz *r, const G_xyzz *a, const G_xyzz *b);  void G_xyzz_dbl(r, a);
 *   void G_xyzz_to_jacobian(G *r, const G_xyzz *a)
 *
 * Outputs first and may alias inputs; pointers non-NULL; not constant-time; no allocation. */
#ifndef ZKPIPE_MSM_XYZZ_H
#define ZKPIPE_MSM_XYZZ_H

#include "ff/hd.h"

#define ZKPIPE__MSM_DEFINE_XYZZ(G, F)                                                              \
    typedef struct G##_xyzz {                                                                      \
        F x, y, zz, zzz;                                                                           \
    } G##_xyzz;                                                                                    \
    ZKPIPE_HD void G##_xyzz_set_infinity(G##_xyzz *r)                                              \
    {                                                                                              \
        F##_set_one(&r->x);                                                                        \
        F##_set_one(&r->y);                                                                        \
        F##_set_zero(&r->zz);                                                                      \
        F##_set_zero(&r->zzz);                                                                     \
    }                                                                                              \
    ZKPIPE_HD int G##_xyzz_is_infinity(const G##_xyzz *p)                                          \
    {                                                                                              \
        return F##_is_zero(&p->zz);                                                                \
    }                                                                                              \
    /* The doubling tail both doublings share, from U = 2y: V = U², W = U V, S = x V,             \
     * M = 3x²; x3 = M² - 2S, y3 = M(S - x3) - W y. */                                           \
    ZKPIPE_HD void G##_xyzz__dbl_xy(G##_xyzz *out, const F *x, const F *y, F *V, F *W)             \
    {                                                                                              \
        F U, S, M, t;                                                                              \
        F##_dbl(&U, y);                                                                            \
        F##_sqr(V, &U);                                                                            \
        F##_mul(W, &U, V);                                                                         \
        F##_mul(&S, x, V);                                                                         \
        F##_sqr(&M, x);                                                                            \
        F##_dbl(&t, &M);                                                                           \
        F##_add(&M, &M, &t);                                                                       \
        F##_sqr(&out->x, &M);                                                                      \
        F##_dbl(&t, &S);                                                                           \
        F##_sub(&out->x, &out->x, &t);                                                             \
        F##_sub(&t, &S, &out->x);                                                                  \
        F##_mul(&out->y, &M, &t);                                                                  \
        F##_mul(&t, W, y);                                                                         \
        F##_sub(&out->y, &out->y, &t);                                                             \
    }                                                                                              \
    /* x3 = R² - PPP - 2Q, y3 = R(Q - x3) - s1 PPP: the tail both additions share. */             \
    ZKPIPE_HD void G##_xyzz__add_xy(G##_xyzz *out, const F *R, const F *PPP, const F *Q,           \
                                    const F *s1)                                                   \
    {                                                                                              \
        F t;                                                                                       \
        F##_sqr(&out->x, R);                                                                       \
        F##_sub(&out->x, &out->x, PPP);                                                            \
        F##_dbl(&t, Q);                                                                            \
        F##_sub(&out->x, &out->x, &t);                                                             \
        F##_sub(&t, Q, &out->x);                                                                   \
        F##_mul(&out->y, R, &t);                                                                   \
        F##_mul(&t, s1, PPP);                                                                      \
        F##_sub(&out->y, &out->y, &t);                                                             \
    }                                                                                              \
    ZKPIPE_HD void G##_xyzz_dbl(G##_xyzz *r, const G##_xyzz *a)                                    \
    {                                                                                              \
        F V, W;                                                                                    \
        G##_xyzz out;                                                                              \
        if (G##_xyzz_is_infinity(a)) {                                                             \
            *r = *a;                                                                               \
            return;                                                                                \
        }                                                                                          \
        G##_xyzz__dbl_xy(&out, &a->x, &a->y, &V, &W);                                              \
        F##_mul(&out.zz, &V, &a->zz);                                                              \
        F##_mul(&out.zzz, &W, &a->zzz);                                                            \
        *r = out;                                                                                  \
    }                                                                                              \
    ZKPIPE_HD void G##_xyzz_add_affine(G##_xyzz *r, const G##_xyzz *a, const G##_affine *b,        \
                                       int neg)                                                    \
    {                                                                                              \
        F by, u2, s2, P, R, PP, PPP, Q;                                                            \
        G##_xyzz out;                                                                              \
        by = b->y;                                                                                 \
        if (neg)                                                                                   \
            F##_neg(&by, &by);                                                                     \
        if (G##_xyzz_is_infinity(a)) {                                                             \
            r->x = b->x;                                                                           \
            r->y = by;                                                                             \
            F##_set_one(&r->zz);                                                                   \
            F##_set_one(&r->zzz);                                                                  \
            return;                                                                                \
        }                                                                                          \
        F##_mul(&u2, &b->x, &a->zz);                                                               \
        F##_mul(&s2, &by, &a->zzz);                                                                \
        F##_sub(&P, &u2, &a->x);                                                                   \
        F##_sub(&R, &s2, &a->y);                                                                   \
        if (F##_is_zero(&P)) {                                                                     \
            if (!F##_is_zero(&R)) {                                                                \
                G##_xyzz_set_infinity(r);                                                          \
                return;                                                                            \
            }                                                                                      \
            G##_xyzz__dbl_xy(&out, &b->x, &by, &out.zz, &out.zzz);                                 \
            *r = out;                                                                              \
            return;                                                                                \
        }                                                                                          \
        F##_sqr(&PP, &P);                                                                          \
        F##_mul(&PPP, &P, &PP);                                                                    \
        F##_mul(&Q, &a->x, &PP);                                                                   \
        F##_mul(&out.zz, &a->zz, &PP);                                                             \
        F##_mul(&out.zzz, &a->zzz, &PPP);                                                          \
        G##_xyzz__add_xy(&out, &R, &PPP, &Q, &a->y);                                               \
        *r = out;                                                                                  \
    }                                                                                              \
    ZKPIPE_HD void G##_xyzz_add(G##_xyzz *r, const G##_xyzz *a, const G##_xyzz *b)                 \
    {                                                                                              \
        F u1, u2, s1, s2, P, R, PP, PPP, Q;                                                        \
        G##_xyzz out;                                                                              \
        if (G##_xyzz_is_infinity(a)) {                                                             \
            *r = *b;                                                                               \
            return;                                                                                \
        }                                                                                          \
        if (G##_xyzz_is_infinity(b)) {                                                             \
            *r = *a;                                                                               \
            return;                                                                                \
        }                                                                                          \
        F##_mul(&u1, &a->x, &b->zz);                                                               \
        F##_mul(&u2, &b->x, &a->zz);                                                               \
        F##_mul(&s1, &a->y, &b->zzz);                                                              \
        F##_mul(&s2, &b->y, &a->zzz);                                                              \
        F##_sub(&P, &u2, &u1);                                                                     \
        F##_sub(&R, &s2, &s1);                                                                     \
        if (F##_is_zero(&P)) {                                                                     \
            if (!F##_is_zero(&R)) {                                                                \
                G##_xyzz_set_infinity(r);                                                          \
                return;                                                                            \
            }                                                                                      \
            G##_xyzz_dbl(r, a);                                                                    \
            return;                                                                                \
        }                                                                                          \
        F##_sqr(&PP, &P);                                                                          \
        F##_mul(&PPP, &P, &PP);                                                                    \
        F##_mul(&Q, &u1, &PP);                                                                     \
        F##_mul(&out.zz, &a->zz, &b->zz);                                                          \
        F##_mul(&out.zz, &out.zz, &PP);                                                            \
        F##_mul(&out.zzz, &a->zzz, &b->zzz);                                                       \
        F##_mul(&out.zzz, &out.zzz, &PPP);                                                         \
        G##_xyzz__add_xy(&out, &R, &PPP, &Q, &s1);                                                 \
        *r = out;                                                                                  \
    }                                                                                              \
    /* Jacobian z = zz: then X = x zz and Y = y zz³ / zzz = y zzz (as zz³ = zzz²). */           \
    ZKPIPE_HD void G##_xyzz_to_jacobian(G *r, const G##_xyzz *a)                                   \
    {                                                                                              \
        if (G##_xyzz_is_infinity(a)) {                                                             \
            G##_set_infinity(r);                                                                   \
            return;                                                                                \
        }                                                                                          \
        F##_mul(&r->x, &a->x, &a->zz);                                                             \
        F##_mul(&r->y, &a->y, &a->zzz);                                                            \
        r->z = a->zz;                                                                              \
    }

#endif
