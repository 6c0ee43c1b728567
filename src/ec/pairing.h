/* The optimal ate pairing template, written once for BLS12-381 and BN254:
 * ZKPIPE__PAIRING_DECLARE(C, LINES) declares and ZKPIPE__PAIRING_DEFINE(C, NADD, NEG_X) defines,
 * for the curve C with groups C_g1 (over Fq) and C_g2 (the sextic twist over Fq2) and target
 * field C_fq12:
 *
 *   typedef struct C_pairing_line { C_fq2 c0, cx, cy; } C_pairing_line;
 *       a Miller-loop line through points of the twist, evaluated at P = (x, y) as
 *       c0 + cx x + cy y placed in Fq12 by the twist (see "Lines" below).
 *   typedef struct C_g2_prepared { C_pairing_line lines[LINES]; int infinity; } C_g2_prepared;
 *       every line the Miller loop needs for one fixed Q (a verifying key's β, γ, δ), so
 *       that pairing with it costs only the Fq12 side. A plain value (BLS12-381: 19.6 KB,
 *       BN254: 17 KB) the caller places where it likes; it holds no pointers.
 *
 *   void C_g2_prepare(C_g2_prepared *out, const C_g2_affine *q)
 *       : the lines of the Miller loop for q (infinity is recorded as such).
 *   void C_miller_loop(C_fq12 *out, const C_g1_affine *p, const C_g2_affine *q)
 *       : f_{loop,Q}(P) before the final exponentiation.
 *   void C_multi_miller_loop(C_fq12 *out, const C_g1_affine *p, const C_g2_affine *q, size_t n)
 *   void C_multi_miller_loop_prepared(C_fq12 *out, const C_g1_affine *p,
 *                                     const C_g2_prepared *const *q, size_t n)
 *       : the product of the Miller loops of the n pairs (p[i], q[i]), with one Fq12
 *         accumulator squared once per step for up to ZKPIPE__PAIRING_CHUNK pairs at a time.
 *   void C_final_exp(C_fq12 *out, const C_fq12 *f)
 *       : f^(m (p^12 - 1) / r) for the curve's fixed m prime to r (BLS12-381: 3, BN254:
 *         2x(6x^2 + 3x + 1)), the multiple noble (our vectors) and gnark compute, so values
 *         agree with theirs; any such m keeps the pairing bilinear and non-degenerate and
 *         leaves pairing checks unchanged.
 *   void C_pairing(C_fq12 *out, const C_g1_affine *p, const C_g2_affine *q) : e(p, q).
 *   void C_multi_pairing(C_fq12 *out, const C_g1_affine *p, const C_g2_affine *q, size_t n)
 *       : the product of e(p[i], q[i]) with a single final exponentiation.
 *   int C_pairing_check(const C_g1_affine *p, const C_g2_affine *q, size_t n)
 *   int C_pairing_check_prepared(const C_g1_affine *p, const C_g2_prepared *const *q, size_t n)
 *       : 1 when the product of e(p[i], q[i]) is 1, else 0 (what a Groth16 verifier asks of
 *         e(-A, B) e(α, β) e(IC, γ) e(C, δ)).
 *
 * Common rules: outputs first (final_exp's out may be f); pointers must not be NULL, except
 * that p and q may be NULL when n = 0 (the empty product is 1); arrays are only read during
 * the call. A point at infinity on
 * either side contributes 1. Inputs must lie in the prime-order subgroups: that is not
 * checked here (decoding checks it), and points outside them give meaningless values. Not
 * constant-time. No allocation and no global state: every function may run concurrently on
 * distinct outputs; a C_g2_prepared may be read by any number of threads at once. Stack use
 * is about 6 KB (one chunk of pair states).
 *
 * Lines. The Miller loop runs on the twist E' in homogeneous projective coordinates
 * (x = X/Z, y = Y/Z), so it needs no inversion. At P = (xp, yp) a line, scaled by an element
 * of Fq2 (which the final exponentiation removes), has three terms c0, cx xp and cy yp, which
 * the twist places in Fq12: an M-type twist (BLS12-381) gives c0 + (cx xp) v + (cy yp) v w, a
 * D-type twist (BN254) gives cy yp + (cx xp) w + c0 v w. Each curve's C__mul_line multiplies
 * that in with its tower's sparse multiplication.
 *
 * What each curve's .c provides, the loop string before expanding ZKPIPE__PAIRING_DEFINE and
 * the functions after it:
 *   static const char C__loop[]
 *       : the loop parameter's signed digits, most significant first: '+' 1, '0' 0, '-' -1.
 *   static void C__addends(C_g2_affine *a, const C_g2_affine *q)
 *       : the NADD points lines are added with: a[0] = q, a[1] = -q, then the points added
 *         once after the loop (BN254's Frobenius images of q).
 *   static void C__mul_line(C_fq12 *f, const C_pairing_line *l, const C_g1_affine *p).
 *   static void C__final_exp_hard(C_fq12 *r, const C_fq12 *f)
 *       : f^(m (p^4 - p^2 + 1) / r) for f in the cyclotomic subgroup.
 * NEG_X is 1 when the loop parameter is negative (the result is then conjugated). */
#ifndef ZKPIPE_EC_PAIRING_H
#define ZKPIPE_EC_PAIRING_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "ec/ec_symbols.h"

/* Pairs sharing one accumulator in a multi-Miller loop: their states take about 6 KB of stack,
 * and larger n is done in chunks, each costing one more run of squarings. */
#define ZKPIPE__PAIRING_CHUNK 8

#define ZKPIPE__PAIRING_DECLARE(C, LINES)                                                          \
    typedef struct C##_pairing_line {                                                              \
        C##_fq2 c0, cx, cy;                                                                        \
    } C##_pairing_line;                                                                            \
    typedef struct C##_g2_prepared {                                                               \
        C##_pairing_line lines[LINES];                                                             \
        int infinity;                                                                              \
    } C##_g2_prepared;                                                                             \
    void C##_g2_prepare(C##_g2_prepared *out, const C##_g2_affine *q);                             \
    void C##_miller_loop(C##_fq12 *out, const C##_g1_affine *p, const C##_g2_affine *q);           \
    void C##_multi_miller_loop(C##_fq12 *out, const C##_g1_affine *p, const C##_g2_affine *q,      \
                               size_t n);                                                          \
    void C##_multi_miller_loop_prepared(C##_fq12 *out, const C##_g1_affine *p,                     \
                                        const C##_g2_prepared *const *q, size_t n);                \
    void C##_final_exp(C##_fq12 *out, const C##_fq12 *f);                                          \
    void C##_pairing(C##_fq12 *out, const C##_g1_affine *p, const C##_g2_affine *q);               \
    void C##_multi_pairing(C##_fq12 *out, const C##_g1_affine *p, const C##_g2_affine *q,          \
                           size_t n);                                                              \
    int C##_pairing_check(const C##_g1_affine *p, const C##_g2_affine *q, size_t n);               \
    int C##_pairing_check_prepared(const C##_g1_affine *p, const C##_g2_prepared *const *q,        \
                                   size_t n);

#define ZKPIPE__PAIRING_DEFINE(C, NADD, NEG_X)                                                     \
    static void C##__addends(C##_g2_affine *a, const C##_g2_affine *q);                            \
    static void C##__mul_line(C##_fq12 *f, const C##_pairing_line *l, const C##_g1_affine *p);     \
    static void C##__final_exp_hard(C##_fq12 *r, const C##_fq12 *f);                               \
                                                                                                   \
    /* 3 b' for the twist y^2 = x^3 + b', which the doubling step needs */                         \
    static void C##__twist_b3(C##_fq2 *r)                                                          \
    {                                                                                              \
        C##_fq2 b;                                                                                 \
        C##_g2_b(&b);                                                                              \
        C##_fq2_dbl(r, &b);                                                                        \
        C##_fq2_add(r, r, &b);                                                                     \
    }                                                                                              \
                                                                                                   \
    typedef struct C##__g2_proj {                                                                  \
        C##_fq2 x, y, z;                                                                           \
    } C##__g2_proj;                                                                                \
                                                                                                   \
    /* The tangent at t, and t = 2t (Costello-Lange-Naehrig 2010 for y^2 = x^3 + b', with the      \
     * point scaled by 4 so that no halving is needed). */                                         \
    static void C##__dbl_step(C##_pairing_line *l, C##__g2_proj *t, const C##_fq2 *b3)             \
    {                                                                                              \
        C##_fq2 xy, B, Z2, E, F, H, J, s;                                                          \
        C##_fq2_mul(&xy, &t->x, &t->y);                                                            \
        C##_fq2_sqr(&B, &t->y);                                                                    \
        C##_fq2_sqr(&Z2, &t->z);                                                                   \
        C##_fq2_mul(&E, &Z2, b3); /* 3 b' Z^2 */                                                   \
        C##_fq2_dbl(&F, &E);                                                                       \
        C##_fq2_add(&F, &F, &E);                                                                   \
        C##_fq2_add(&H, &t->y, &t->z); /* 2 Y Z */                                                 \
        C##_fq2_sqr(&H, &H);                                                                       \
        C##_fq2_sub(&H, &H, &B);                                                                   \
        C##_fq2_sub(&H, &H, &Z2);                                                                  \
        C##_fq2_sqr(&J, &t->x);                                                                    \
        /* (3 b' Z^2 - Y^2) + 3 X^2 xp - 2 Y Z yp */                                               \
        C##_fq2_sub(&l->c0, &E, &B);                                                               \
        C##_fq2_dbl(&l->cx, &J);                                                                   \
        C##_fq2_add(&l->cx, &l->cx, &J);                                                           \
        C##_fq2_neg(&l->cy, &H);                                                                   \
        /* 4 (2t): X = 2 X Y (B - F), Y = (B + F)^2 - 12 E^2, Z = 4 B H */                         \
        C##_fq2_sub(&s, &B, &F);                                                                   \
        C##_fq2_mul(&t->x, &xy, &s);                                                               \
        C##_fq2_dbl(&t->x, &t->x);                                                                 \
        C##_fq2_add(&s, &B, &F);                                                                   \
        C##_fq2_sqr(&s, &s);                                                                       \
        C##_fq2_sqr(&E, &E);                                                                       \
        C##_fq2_dbl(&E, &E);                                                                       \
        C##_fq2_dbl(&E, &E);                                                                       \
        C##_fq2_sub(&s, &s, &E);                                                                   \
        C##_fq2_sub(&s, &s, &E);                                                                   \
        C##_fq2_sub(&t->y, &s, &E);                                                                \
        C##_fq2_mul(&t->z, &B, &H);                                                                \
        C##_fq2_dbl(&t->z, &t->z);                                                                 \
        C##_fq2_dbl(&t->z, &t->z);                                                                 \
    }                                                                                              \
                                                                                                   \
    /* The line through t and a, and t = t + a (mixed addition, same paper). */                    \
    static void C##__add_step(C##_pairing_line *l, C##__g2_proj *t, const C##_g2_affine *a)        \
    {                                                                                              \
        C##_fq2 theta, lambda, C2, D, E, F, G, H, s;                                               \
        C##_fq2_mul(&theta, &a->y, &t->z); /* theta = Y - ya Z, lambda = X - xa Z */               \
        C##_fq2_sub(&theta, &t->y, &theta);                                                        \
        C##_fq2_mul(&lambda, &a->x, &t->z);                                                        \
        C##_fq2_sub(&lambda, &t->x, &lambda);                                                      \
        /* (theta xa - lambda ya) - theta xp + lambda yp */                                        \
        C##_fq2_mul(&l->c0, &theta, &a->x);                                                        \
        C##_fq2_mul(&s, &lambda, &a->y);                                                           \
        C##_fq2_sub(&l->c0, &l->c0, &s);                                                           \
        C##_fq2_neg(&l->cx, &theta);                                                               \
        l->cy = lambda;                                                                            \
        C##_fq2_sqr(&C2, &theta);                                                                  \
        C##_fq2_sqr(&D, &lambda);                                                                  \
        C##_fq2_mul(&E, &lambda, &D);                                                              \
        C##_fq2_mul(&F, &t->z, &C2);                                                               \
        C##_fq2_mul(&G, &t->x, &D);                                                                \
        C##_fq2_add(&H, &E, &F); /* H = E + F - 2 G */                                             \
        C##_fq2_sub(&H, &H, &G);                                                                   \
        C##_fq2_sub(&H, &H, &G);                                                                   \
        C##_fq2_mul(&t->x, &lambda, &H);                                                           \
        C##_fq2_sub(&s, &G, &H); /* Y = theta (G - H) - Y E */                                     \
        C##_fq2_mul(&s, &theta, &s);                                                               \
        C##_fq2_mul(&t->y, &t->y, &E);                                                             \
        C##_fq2_sub(&t->y, &s, &t->y);                                                             \
        C##_fq2_mul(&t->z, &t->z, &E);                                                             \
    }                                                                                              \
                                                                                                   \
    /* One pair's state in a Miller loop: its lines come from a prepared Q or from steps on t. */  \
    typedef struct C##__pair {                                                                     \
        const C##_pairing_line *lines; /* NULL: compute them */                                    \
        C##__g2_proj t;                                                                            \
        C##_g2_affine addend[NADD];                                                                \
        const C##_g1_affine *p;                                                                    \
    } C##__pair;                                                                                   \
                                                                                                   \
    static void C##__pair_init(C##__pair *s, const C##_g1_affine *p, const C##_g2_affine *q)       \
    {                                                                                              \
        s->lines = NULL;                                                                           \
        s->p = p;                                                                                  \
        s->t.x = q->x;                                                                             \
        s->t.y = q->y;                                                                             \
        C##_fq2_set_one(&s->t.z);                                                                  \
        C##__addends(s->addend, q);                                                                \
    }                                                                                              \
                                                                                                   \
    /* Line number k of the schedule for each of the n pairs (op < 0: a doubling, else an          \
     * addition of addend[op]), multiplied into f, or with `record` set (n = 1) stored there. */   \
    static void C##__lines(C##_fq12 *f, C##_pairing_line *record, C##__pair *s, size_t n,          \
                           size_t k, int op, const C##_fq2 *b3)                                    \
    {                                                                                              \
        for (size_t j = 0; j < n; j++) {                                                           \
            C##_pairing_line l;                                                                    \
            if (s[j].lines)                                                                        \
                l = s[j].lines[k];                                                                 \
            else if (op < 0)                                                                       \
                C##__dbl_step(&l, &s[j].t, b3);                                                    \
            else                                                                                   \
                C##__add_step(&l, &s[j].t, &s[j].addend[op]);                                      \
            if (record)                                                                            \
                record[k] = l;                                                                     \
            else                                                                                   \
                C##__mul_line(f, &l, s[j].p);                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* The loop's schedule: a doubling per digit after the first, an addition of q or -q per       \
     * non-zero digit, then the additions after the loop. Returns the number of lines. */          \
    static size_t C##__miller(C##_fq12 *f, C##_pairing_line *record, C##__pair *s, size_t n)       \
    {                                                                                              \
        C##_fq2 b3;                                                                                \
        size_t k = 0;                                                                              \
        C##__twist_b3(&b3);                                                                        \
        C##_fq12_set_one(f);                                                                       \
        for (size_t i = 1; i + 1 < sizeof C##__loop; i++) {                                        \
            if (i > 1 && !record)                                                                  \
                C##_fq12_sqr(f, f);                                                                \
            C##__lines(f, record, s, n, k++, -1, &b3);                                             \
            if (C##__loop[i] != '0')                                                               \
                C##__lines(f, record, s, n, k++, C##__loop[i] == '+' ? 0 : 1, &b3);                \
        }                                                                                          \
        for (int e = 2; e < (NADD); e++)                                                           \
            C##__lines(f, record, s, n, k++, e, &b3);                                              \
        if (NEG_X)                                                                                 \
            C##_fq12_conjugate(f, f);                                                              \
        return k;                                                                                  \
    }                                                                                              \
                                                                                                   \
    void C##_g2_prepare(C##_g2_prepared *out, const C##_g2_affine *q)                              \
    {                                                                                              \
        C##__pair s;                                                                               \
        C##_fq12 unused;                                                                           \
        size_t k;                                                                                  \
        out->infinity = C##_g2_affine_is_infinity(q);                                              \
        if (out->infinity)                                                                         \
            return;                                                                                \
        C##__pair_init(&s, NULL, q);                                                               \
        k = C##__miller(&unused, out->lines, &s, 1);                                               \
        assert(k == sizeof out->lines / sizeof out->lines[0]);                                     \
        (void)k;                                                                                   \
    }                                                                                              \
                                                                                                   \
    /* Multi-Miller loop over affine q or prepared qp (the other NULL), in chunks. */              \
    static void C##__multi(C##_fq12 *out, const C##_g1_affine *p, const C##_g2_affine *q,          \
                           const C##_g2_prepared *const *qp, size_t n)                             \
    {                                                                                              \
        C##__pair s[ZKPIPE__PAIRING_CHUNK];                                                        \
        C##_fq12 f;                                                                                \
        size_t m = 0;                                                                              \
        C##_fq12_set_one(out);                                                                     \
        for (size_t i = 0; i < n; i++) {                                                           \
            if (C##_g1_affine_is_infinity(&p[i]) ||                                                \
                (q ? C##_g2_affine_is_infinity(&q[i]) : qp[i]->infinity))                          \
                continue;                                                                          \
            if (q) {                                                                               \
                C##__pair_init(&s[m], &p[i], &q[i]);                                               \
            } else {                                                                               \
                s[m].lines = qp[i]->lines;                                                         \
                s[m].p = &p[i];                                                                    \
            }                                                                                      \
            if (++m == ZKPIPE__PAIRING_CHUNK) {                                                    \
                C##__miller(&f, NULL, s, m);                                                       \
                C##_fq12_mul(out, out, &f);                                                        \
                m = 0;                                                                             \
            }                                                                                      \
        }                                                                                          \
        if (m) {                                                                                   \
            C##__miller(&f, NULL, s, m);                                                           \
            C##_fq12_mul(out, out, &f);                                                            \
        }                                                                                          \
    }                                                                                              \
    void C##_multi_miller_loop(C##_fq12 *out, const C##_g1_affine *p, const C##_g2_affine *q,      \
                               size_t n)                                                           \
    {                                                                                              \
        C##__multi(out, p, q, NULL, n);                                                            \
    }                                                                                              \
    void C##_multi_miller_loop_prepared(C##_fq12 *out, const C##_g1_affine *p,                     \
                                        const C##_g2_prepared *const *q, size_t n)                 \
    {                                                                                              \
        C##__multi(out, p, NULL, q, n);                                                            \
    }                                                                                              \
    void C##_miller_loop(C##_fq12 *out, const C##_g1_affine *p, const C##_g2_affine *q)            \
    {                                                                                              \
        C##__multi(out, p, q, NULL, 1);                                                            \
    }                                                                                              \
                                                                                                   \
    /* C__cyclotomic_pow(r, a, digits): r = a^e for a in the cyclotomic subgroup and e given by    \
     * its signed binary digits, most significant first ('+' 1, '-' -1, '0' 0; the first '+'): a   \
     * negative digit multiplies by the conjugate, the inverse there, so a non-adjacent form       \
     * costs fewer products than the plain binary. r may be a (a is read until the end). */        \
    static void C##__cyclotomic_pow(C##_fq12 *r, const C##_fq12 *a, const char *digits)            \
    {                                                                                              \
        C##_fq12 acc = *a, inv;                                                                    \
        C##_fq12_conjugate(&inv, a);                                                               \
        for (const char *d = digits + 1; *d != '\0'; d++) {                                        \
            C##_fq12_cyclotomic_sqr(&acc, &acc);                                                   \
            if (*d == '+')                                                                         \
                C##_fq12_mul(&acc, &acc, a);                                                       \
            else if (*d == '-')                                                                    \
                C##_fq12_mul(&acc, &acc, &inv);                                                    \
        }                                                                                          \
        *r = acc;                                                                                  \
    }                                                                                              \
                                                                                                   \
    void C##_final_exp(C##_fq12 *out, const C##_fq12 *f)                                           \
    {                                                                                              \
        C##_fq12 t, u;                                                                             \
        /* easy part, f^((p^6 - 1)(p^2 + 1)), f^(p^6) being the conjugate; it lands in the         \
         * cyclotomic subgroup, where squaring is cheap and inversion is conjugation */            \
        C##_fq12_inv(&t, f);                                                                       \
        C##_fq12_conjugate(&u, f);                                                                 \
        C##_fq12_mul(&u, &u, &t);                                                                  \
        C##_fq12_frobenius(&t, &u, 2);                                                             \
        C##_fq12_mul(&u, &t, &u);                                                                  \
        C##__final_exp_hard(out, &u);                                                              \
    }                                                                                              \
    void C##_pairing(C##_fq12 *out, const C##_g1_affine *p, const C##_g2_affine *q)                \
    {                                                                                              \
        C##_miller_loop(out, p, q);                                                                \
        C##_final_exp(out, out);                                                                   \
    }                                                                                              \
    void C##_multi_pairing(C##_fq12 *out, const C##_g1_affine *p, const C##_g2_affine *q,          \
                           size_t n)                                                               \
    {                                                                                              \
        C##_multi_miller_loop(out, p, q, n);                                                       \
        C##_final_exp(out, out);                                                                   \
    }                                                                                              \
    int C##_pairing_check(const C##_g1_affine *p, const C##_g2_affine *q, size_t n)                \
    {                                                                                              \
        C##_fq12 f;                                                                                \
        C##_multi_pairing(&f, p, q, n);                                                            \
        return C##_fq12_is_one(&f);                                                                \
    }                                                                                              \
    int C##_pairing_check_prepared(const C##_g1_affine *p, const C##_g2_prepared *const *q,        \
                                   size_t n)                                                       \
    {                                                                                              \
        C##_fq12 f;                                                                                \
        C##_multi_miller_loop_prepared(&f, p, q, n);                                               \
        C##_final_exp(&f, &f);                                                                     \
        return C##_fq12_is_one(&f);                                                                \
    }

#endif
