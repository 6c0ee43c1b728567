/* The Miller-loop template shared by the pairings, host only. ZKPIPE__EC_DEFINE_MILLER_STEPS(PFX,
 * F2, F, F12) and, after the expanding file has defined the twist-specific PFX__ell(f, l, p)
 * (f = f · l(P), a sparse multiplication), ZKPIPE__EC_DEFINE_MILLER_LOOP(PFX, F2, F, F12, G1,
 * G2) define, for a curve whose G2 (points G2_affine over F2) lies on a sextic twist
 * y² = x³ + b', with G1 points G1_affine over F and pairing values in F12:
 *
 *   PFX__tpoint : a G2 point in homogeneous projective form (x = X/Z, y = Y/Z), the running
 *                 point T of the loop.
 *   PFX__line   : a line as (a, b, c), for the value a + b·xP + c·yP once the twist puts each
 *                 term in its Fq12 slot.
 *   void PFX__dbl_step(t, l, b3, half) : l = tangent at T, T = 2T; b3 = 3b', half = 1/2.
 *   void PFX__add_step(t, l, qx, qy)   : l = line through T and Q, T = T + Q (Q affine).
 *   void PFX__miller_chunk(f, t, p, q, n, loop, top)
 *       : f = the product over the n pairs (p[i], q[i]) (none at infinity, n <=
 * ZKPIPE__EC_MILLER_CHUNK) of the Miller functions for the loop count `loop` (little-endian limbs,
 * highest set bit `top`), sharing the squarings of f; leaves T_i = loop·q[i] in t[i]. void
 * PFX__miller_product(f, p, q, n, loop, top, post) : f = the product of the Miller functions over
 * all n pairs, skipping pairs with a point at infinity, in chunks; post(f_chunk, t, p, q, m), when
 * not NULL, runs on each chunk's value and T points before it joins the product. void
 * PFX__cyclotomic_pow(r, a, e) : r = a^e for a in the cyclotomic subgroup, e < 2^64.
 *
 * The step formulas are those of Costello, Lange and Naehrig, "Faster pairing computations on
 * curves with high-degree twists" (PKC 2010), for a = 0. */
#ifndef ZKPIPE_EC_MILLER_H
#define ZKPIPE_EC_MILLER_H

#include <stdint.h>

/* Pairs whose Miller loops run together (their T points live on the stack). */
#define ZKPIPE__EC_MILLER_CHUNK 8

#define ZKPIPE__EC_DEFINE_MILLER_STEPS(PFX, F2, F, F12)                                            \
    typedef struct PFX##__tpoint {                                                                 \
        F2 x, y, z;                                                                                \
    } PFX##__tpoint;                                                                               \
    typedef struct PFX##__line {                                                                   \
        F2 a, b, c;                                                                                \
    } PFX##__line;                                                                                 \
    static void PFX##__dbl_step(PFX##__tpoint *t, PFX##__line *l, const F2 *b3, const F *half)     \
    {                                                                                              \
        F2 A, B, C, E, F3, G, H, J, t0;                                                            \
        F2##_mul(&A, &t->x, &t->y); /* A = XY/2 */                                                 \
        F2##_mul_by_fq(&A, &A, half);                                                              \
        F2##_sqr(&B, &t->y);                                                                       \
        F2##_sqr(&C, &t->z);                                                                       \
        F2##_mul(&E, &C, b3); /* E = 3b' Z² */                                                    \
        F2##_dbl(&F3, &E);    /* F = 3E */                                                         \
        F2##_add(&F3, &F3, &E);                                                                    \
        F2##_add(&G, &B, &F3); /* G = (B + F)/2 */                                                 \
        F2##_mul_by_fq(&G, &G, half);                                                              \
        F2##_add(&H, &t->y, &t->z); /* H = (Y + Z)² - B - C = 2YZ */                              \
        F2##_sqr(&H, &H);                                                                          \
        F2##_sub(&H, &H, &B);                                                                      \
        F2##_sub(&H, &H, &C);                                                                      \
        F2##_sqr(&J, &t->x);                                                                       \
        F2##_sub(&l->a, &E, &B); /* tangent: (E - B) + 3X²·xP - H·yP */                         \
        F2##_dbl(&l->b, &J);                                                                       \
        F2##_add(&l->b, &l->b, &J);                                                                \
        F2##_neg(&l->c, &H);                                                                       \
        F2##_sub(&t0, &B, &F3); /* X3 = A (B - F) */                                               \
        F2##_mul(&t->x, &A, &t0);                                                                  \
        F2##_sqr(&t0, &E); /* Y3 = G² - 3E² */                                                   \
        F2##_sqr(&t->y, &G);                                                                       \
        F2##_sub(&t->y, &t->y, &t0);                                                               \
        F2##_dbl(&t0, &t0);                                                                        \
        F2##_sub(&t->y, &t->y, &t0);                                                               \
        F2##_mul(&t->z, &B, &H); /* Z3 = B H */                                                    \
    }                                                                                              \
    static void PFX##__add_step(PFX##__tpoint *t, PFX##__line *l, const F2 *qx, const F2 *qy)      \
    {                                                                                              \
        F2 theta, lambda, C, D, E, F3, G, H, t0;                                                   \
        F2##_mul(&theta, qy, &t->z); /* theta = Y - yQ Z, lambda = X - xQ Z */                     \
        F2##_sub(&theta, &t->y, &theta);                                                           \
        F2##_mul(&lambda, qx, &t->z);                                                              \
        F2##_sub(&lambda, &t->x, &lambda);                                                         \
        F2##_sqr(&C, &theta);                                                                      \
        F2##_sqr(&D, &lambda);                                                                     \
        F2##_mul(&E, &lambda, &D);                                                                 \
        F2##_mul(&F3, &t->z, &C);                                                                  \
        F2##_mul(&G, &t->x, &D);                                                                   \
        F2##_add(&H, &E, &F3); /* H = E + F - 2G */                                                \
        F2##_sub(&H, &H, &G);                                                                      \
        F2##_sub(&H, &H, &G);                                                                      \
        F2##_mul(&t->x, &lambda, &H);                                                              \
        F2##_sub(&t0, &G, &H); /* Y3 = theta (G - H) - E Y */                                      \
        F2##_mul(&t0, &theta, &t0);                                                                \
        F2##_mul(&t->y, &E, &t->y);                                                                \
        F2##_sub(&t->y, &t0, &t->y);                                                               \
        F2##_mul(&t->z, &t->z, &E);                                                                \
        F2##_mul(&l->a, &theta, qx); /* chord: (theta xQ - lambda yQ) - theta·xP + lambda·yP */  \
        F2##_mul(&t0, &lambda, qy);                                                                \
        F2##_sub(&l->a, &l->a, &t0);                                                               \
        F2##_neg(&l->b, &theta);                                                                   \
        l->c = lambda;                                                                             \
    }                                                                                              \
    static void PFX##__cyclotomic_pow(F12 *r, const F12 *a, uint64_t e)                            \
    {                                                                                              \
        F12 acc;                                                                                   \
        F12##_set_one(&acc);                                                                       \
        for (int bit = 63; bit >= 0; bit--) {                                                      \
            F12##_cyclotomic_sqr(&acc, &acc);                                                      \
            if (e >> bit & 1)                                                                      \
                F12##_mul(&acc, &acc, a);                                                          \
        }                                                                                          \
        *r = acc;                                                                                  \
    }

/* Expanded after PFX__ell is defined. */
#define ZKPIPE__EC_DEFINE_MILLER_LOOP(PFX, F2, F, F12, G1, G2)                                     \
    static void PFX##__miller_chunk(F12 *f, PFX##__tpoint *t, const G1##_affine *p,                \
                                    const G2##_affine *q, size_t n, const uint64_t *loop, int top) \
    {                                                                                              \
        F2 b3;                                                                                     \
        F half, small;                                                                             \
        PFX##__line l;                                                                             \
        G2##_b(&b3);                                                                               \
        F##_from_u64(&small, 3);                                                                   \
        F2##_mul_by_fq(&b3, &b3, &small);                                                          \
        F##_from_u64(&small, 2);                                                                   \
        F##_inv(&half, &small);                                                                    \
        for (size_t i = 0; i < n; i++) {                                                           \
            t[i].x = q[i].x;                                                                       \
            t[i].y = q[i].y;                                                                       \
            F2##_set_one(&t[i].z);                                                                 \
        }                                                                                          \
        F12##_set_one(f);                                                                          \
        for (int bit = top - 1; bit >= 0; bit--) {                                                 \
            F12##_sqr(f, f);                                                                       \
            for (size_t i = 0; i < n; i++) {                                                       \
                PFX##__dbl_step(&t[i], &l, &b3, &half);                                            \
                PFX##__ell(f, &l, &p[i]);                                                          \
            }                                                                                      \
            if (!(loop[bit / 64] >> (bit % 64) & 1))                                               \
                continue;                                                                          \
            for (size_t i = 0; i < n; i++) {                                                       \
                PFX##__add_step(&t[i], &l, &q[i].x, &q[i].y);                                      \
                PFX##__ell(f, &l, &p[i]);                                                          \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    /* Curve-specific steps after the loop, on f and the chunk's T points (may be NULL). */        \
    typedef void (*PFX##__post_fn)(F12 * f, PFX##__tpoint * t, const G1##_affine *p,               \
                                   const G2##_affine *q, size_t n);                                \
    static void PFX##__miller_product(F12 *f, const G1##_affine *p, const G2##_affine *q,          \
                                      size_t n, const uint64_t *loop, int top,                     \
                                      PFX##__post_fn post)                                         \
    {                                                                                              \
        G1##_affine cp[ZKPIPE__EC_MILLER_CHUNK];                                                   \
        G2##_affine cq[ZKPIPE__EC_MILLER_CHUNK];                                                   \
        PFX##__tpoint t[ZKPIPE__EC_MILLER_CHUNK];                                                  \
        F12 g;                                                                                     \
        size_t m = 0;                                                                              \
        F12##_set_one(f);                                                                          \
        for (size_t i = 0; i <= n; i++) {                                                          \
            if (i < n && !p[i].infinity && !q[i].infinity) {                                       \
                cp[m] = p[i];                                                                      \
                cq[m++] = q[i];                                                                    \
            }                                                                                      \
            if (m == ZKPIPE__EC_MILLER_CHUNK || (i == n && m > 0)) {                               \
                PFX##__miller_chunk(&g, t, cp, cq, m, loop, top);                                  \
                if (post != NULL)                                                                  \
                    post(&g, t, cp, cq, m);                                                        \
                F12##_mul(f, f, &g);                                                               \
                m = 0;                                                                             \
            }                                                                                      \
        }                                                                                          \
    }

#endif
