/* The Fq2 template: ZKPIPE__FP2_DEFINE(E, F, C) defines E = F[u]/(u^2 + 1) with everything
 * quadratic.h lists (E_mul_by_fq multiplies by an F) plus the functions below. C names the
 * curve's constant macros (C##_XI_C0: the sextic non-residue is xi = XI_C0 + u). Rules as in
 * fp.h (not constant-time).
 *
 * E_mul reduces sums of double-width products once per coefficient (fp.h's F_mul_wide,
 * F_reduce): three products and two reductions, against three full multiplications and five
 * modular additions (in bench_ff a sixth faster on BN254, a tenth on BLS12-381). It needs
 * 4p < R = 2^(64 LIMBS): a sum of two reduced values is below 2p and fits in LIMBS limbs,
 * the product of two such sums is below 4p^2 < 2^(128 LIMBS), and what is reduced
 * (a0 b0 - a1 b1 + p R or a0 b1 + a1 b0, both below 2p^2 or p R) stays below p R. BN254's
 * q < 2^254 (R = 2^256) and BLS12-381's p < 2^381 (R = 2^384) leave that headroom;
 * tests/test_ff.c checks it. Squaring stays on F_mul: its two products have nothing to share
 * a reduction with, and F_mul's interleaved reduction measured faster.
 *
 *   void E_mul(r, a, b);  void E_sqr(r, a);  void E_pow(r, a, exp, nlimbs);
 *   void E_mul_by_nonresidue(E *r, const E *a) : r = xi a.
 *   void E_frobenius(E *r, const E *a, unsigned power) : r = a^(p^power) (conjugation when
 *       power is odd).
 *   void E_norm(F *r, const E *a) : r = c0^2 + c1^2 = a conj(a).
 *   int E_legendre(const E *a) : 1 for a non-zero square, -1 for a non-square, 0 for 0.
 *   int E_is_square(const E *a) : 1 when a is a square (0 included).
 *   int E_sqrt(E *r, const E *a)
 *       : when a is a square returns 1 and sets r to one of its roots (no canonical sign; G2
 *         decompression picks the sign itself); otherwise returns 0 and sets r = 0. */
#ifndef ZKPIPE_FF_FP2_H
#define ZKPIPE_FF_FP2_H

#include "quadratic.h"

#define ZKPIPE__FP2_DEFINE(E, F, C)                                                                \
    ZKPIPE__QUADRATIC_DEFINE(E, F, fq)                                                             \
    ZKPIPE_HD_OUTLINED void E##_mul(E *r, const E *a, const E *b)                                  \
    {                                                                                              \
        /* Karatsuba with lazy reduction: three double-width products, two reductions */           \
        uint64_t t0[2 * F##_LIMBS], t1[2 * F##_LIMBS], t2[2 * F##_LIMBS];                          \
        F s0, s1;                                                                                  \
        F##_mul_wide(t0, a->c0.l, b->c0.l);                                                        \
        F##_mul_wide(t1, a->c1.l, b->c1.l);                                                        \
        zkpipe__limbs_add(s0.l, a->c0.l, a->c1.l, F##_LIMBS);                                      \
        zkpipe__limbs_add(s1.l, b->c0.l, b->c1.l, F##_LIMBS);                                      \
        F##_mul_wide(t2, s0.l, s1.l);                                                              \
        zkpipe__limbs_sub(t2, t2, t0, 2 * F##_LIMBS);                                              \
        zkpipe__limbs_sub(t2, t2, t1, 2 * F##_LIMBS);                                              \
        F##_sub_wide(t0, t0, t1);                                                                  \
        F##_reduce(&r->c0, t0);                                                                    \
        F##_reduce(&r->c1, t2);                                                                    \
    }                                                                                              \
    ZKPIPE_HD_OUTLINED void E##_sqr(E *r, const E *a)                                              \
    {                                                                                              \
        F s, d, m; /* (c0 + c1)(c0 - c1) + 2 c0 c1 u */                                            \
        F##_add(&s, &a->c0, &a->c1);                                                               \
        F##_sub(&d, &a->c0, &a->c1);                                                               \
        F##_mul(&m, &a->c0, &a->c1);                                                               \
        F##_mul(&r->c0, &s, &d);                                                                   \
        F##_dbl(&r->c1, &m);                                                                       \
    }                                                                                              \
    ZKPIPE__QUADRATIC_DEFINE_INV(E, F, F##_neg)                                                    \
    ZKPIPE__FF_DEFINE_POW(E)                                                                       \
    ZKPIPE_HD void E##_mul_by_nonresidue(E *r, const E *a)                                         \
    {                                                                                              \
        F k0, k1; /* (c0 + c1 u)(k + u) = (k c0 - c1) + (c0 + k c1) u */                           \
        F##_mul_small(&k0, &a->c0, C##_XI_C0);                                                     \
        F##_mul_small(&k1, &a->c1, C##_XI_C0);                                                     \
        F##_sub(&k0, &k0, &a->c1);                                                                 \
        F##_add(&r->c1, &a->c0, &k1);                                                              \
        r->c0 = k0;                                                                                \
    }                                                                                              \
    ZKPIPE_HD void E##_frobenius(E *r, const E *a, unsigned power)                                 \
    {                                                                                              \
        if (power & 1)                                                                             \
            E##_conjugate(r, a);                                                                   \
        else                                                                                       \
            *r = *a;                                                                               \
    }                                                                                              \
    ZKPIPE_HD void E##_norm(F *r, const E *a)                                                      \
    {                                                                                              \
        F t;                                                                                       \
        F##_sqr(&t, &a->c1);                                                                       \
        F##_sqr(r, &a->c0);                                                                        \
        F##_add(r, r, &t);                                                                         \
    }                                                                                              \
    ZKPIPE_HD_OUTLINED int E##_legendre(const E *a)                                                \
    {                                                                                              \
        F n; /* a is a square in Fq2 exactly when its norm is a square in Fq */                    \
        E##_norm(&n, a);                                                                           \
        return F##_legendre(&n);                                                                   \
    }                                                                                              \
    ZKPIPE_HD int E##_is_square(const E *a)                                                        \
    {                                                                                              \
        return E##_legendre(a) >= 0;                                                               \
    }                                                                                              \
    ZKPIPE_HD_OUTLINED int E##_sqrt(E *r, const E *a)                                              \
    {                                                                                              \
        F n, alpha, delta, x0, x1;                                                                 \
        if (F##_is_zero(&a->c1)) {                                                                 \
            /* c0 or -c0 is a square in Fq, since -1 is not (q = 3 mod 4) */                       \
            if (F##_sqrt(&x0, &a->c0)) {                                                           \
                F##_set_zero(&r->c1);                                                              \
                r->c0 = x0;                                                                        \
            } else {                                                                               \
                F##_neg(&x1, &a->c0);                                                              \
                F##_sqrt(&x1, &x1);                                                                \
                F##_set_zero(&r->c0);                                                              \
                r->c1 = x1;                                                                        \
            }                                                                                      \
            return 1;                                                                              \
        }                                                                                          \
        /* x0 + x1 u with x0^2 = (c0 + alpha) / 2 (or (c0 - alpha) / 2), alpha^2 = norm, and       \
         * x1 = c1 / (2 x0); x0 is non-zero because c1 is. */                                      \
        E##_norm(&n, a);                                                                           \
        if (!F##_sqrt(&alpha, &n)) {                                                               \
            E##_set_zero(r);                                                                       \
            return 0;                                                                              \
        }                                                                                          \
        F##_add(&delta, &a->c0, &alpha);                                                           \
        F##_half(&delta, &delta);                                                                  \
        if (!F##_sqrt(&x0, &delta)) {                                                              \
            F##_sub(&delta, &a->c0, &alpha);                                                       \
            F##_half(&delta, &delta);                                                              \
            F##_sqrt(&x0, &delta);                                                                 \
        }                                                                                          \
        F##_dbl(&x1, &x0);                                                                         \
        F##_inv(&x1, &x1);                                                                         \
        F##_mul(&r->c1, &a->c1, &x1);                                                              \
        r->c0 = x0;                                                                                \
        return 1;                                                                                  \
    }

#endif
