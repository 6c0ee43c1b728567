/* The group template for the host-side (.c) part of each curve group: ZKPIPE__EC_DECLARE_GROUP
 * declares and ZKPIPE__EC_DEFINE_GROUP defines, for the group G over field F (see jacobian.h)
 * with scalar field FR:
 *
 *   void G_generator(G_affine *out)       : the standard generator.
 *   void G_b(F *b)                         : the coefficient b of the curve y² = x³ + b.
 *   void G_rhs(F *r, const F *x)           : r = x³ + b, the curve equation's right-hand side.
 *   int G_is_on_curve(const G_affine *p)   : 1 when y² = x³ + b or p is the point at infinity.
 *   int G_is_in_subgroup(const G_affine *p)
 *       : for a point on the curve, 1 when it lies in the subgroup of prime order r.
 *   void G_mul_limbs(G *r, const G *p, const uint64_t *k, size_t nlimbs)
 *       : r = k·p for k an integer of nlimbs little-endian 64-bit limbs (any value).
 *   void G_mul(G *r, const G *p, const FR *k)   : r = k·p for a scalar-field element.
 *   void G_batch_to_affine(G_affine *out, const G *in, size_t n)
 *       : converts n points with one field inversion (Montgomery's trick); out must not
 *         overlap in.
 *
 * Scalar multiplication is a left-to-right sliding window over the odd multiples P..15P. None
 * of this is constant-time: timing depends on the scalar and the points, so do not use it
 * where timing may leak a secret (as for ff/fp.h). Nothing allocates and nothing touches global
 * state, so every function may run concurrently on distinct outputs. Pointers must not be NULL.
 * Each group's .c file defines G_generator and G_b itself and expands ZKPIPE__EC_DEFINE_GROUP. */
#ifndef ZKPIPE_EC_GROUP_H
#define ZKPIPE_EC_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "ec/ec_symbols.h"
#include "ec/jacobian.h"

#define ZKPIPE__EC_DECLARE_GROUP(G, F, FR)                                                         \
    void G##_generator(G##_affine *out);                                                           \
    void G##_b(F *b);                                                                              \
    void G##_rhs(F *r, const F *x);                                                                \
    int G##_is_on_curve(const G##_affine *p);                                                      \
    int G##_is_in_subgroup(const G##_affine *p);                                                   \
    void G##_mul_limbs(G *r, const G *p, const uint64_t *k, size_t nlimbs);                        \
    void G##_mul(G *r, const G *p, const FR *k);                                                   \
    void G##_batch_to_affine(G##_affine *out, const G *in, size_t n);

/* Sliding-window width: a table of 2^(W-1) odd multiples. */
#define ZKPIPE__EC_WINDOW 4

#define ZKPIPE__EC_DEFINE_GROUP(G, F, FR)                                                          \
    void G##_rhs(F *r, const F *x)                                                                 \
    {                                                                                              \
        F t, b;                                                                                    \
        G##_b(&b);                                                                                 \
        F##_sqr(&t, x);                                                                            \
        F##_mul(&t, &t, x);                                                                        \
        F##_add(r, &t, &b);                                                                        \
    }                                                                                              \
    int G##_is_on_curve(const G##_affine *p)                                                       \
    {                                                                                              \
        F l, r;                                                                                    \
        if (G##_affine_is_infinity(p))                                                             \
            return 1;                                                                              \
        F##_sqr(&l, &p->y);                                                                        \
        G##_rhs(&r, &p->x);                                                                        \
        return F##_eq(&l, &r);                                                                     \
    }                                                                                              \
    void G##_mul_limbs(G *r, const G *p, const uint64_t *k, size_t nlimbs)                         \
    {                                                                                              \
        G table[1 << (ZKPIPE__EC_WINDOW - 1)], p2, acc;                                            \
        table[0] = *p;                                                                             \
        G##_dbl(&p2, p);                                                                           \
        for (int i = 1; i < (1 << (ZKPIPE__EC_WINDOW - 1)); i++)                                   \
            G##_add(&table[i], &table[i - 1], &p2);                                                \
        G##_set_infinity(&acc);                                                                    \
        for (long i = (long)(64 * nlimbs) - 1; i >= 0;) {                                          \
            if (!(k[i / 64] >> (i % 64) & 1)) {                                                    \
                G##_dbl(&acc, &acc);                                                               \
                i--;                                                                               \
                continue;                                                                          \
            }                                                                                      \
            /* The longest window of at most W bits that starts at bit i and ends on a 1. */       \
            long lo = i - (ZKPIPE__EC_WINDOW - 1) < 0 ? 0 : i - (ZKPIPE__EC_WINDOW - 1);           \
            while (!(k[lo / 64] >> (lo % 64) & 1))                                                 \
                lo++;                                                                              \
            unsigned v = 0;                                                                        \
            for (long j = i; j >= lo; j--) {                                                       \
                v = v << 1 | (unsigned)(k[j / 64] >> (j % 64) & 1);                                \
                G##_dbl(&acc, &acc);                                                               \
            }                                                                                      \
            G##_add(&acc, &acc, &table[v >> 1]);                                                   \
            i = lo - 1;                                                                            \
        }                                                                                          \
        *r = acc;                                                                                  \
    }                                                                                              \
    void G##_mul(G *r, const G *p, const FR *k)                                                    \
    {                                                                                              \
        uint64_t limbs[FR##_LIMBS];                                                                \
        FR##_to_canonical(limbs, k);                                                               \
        G##_mul_limbs(r, p, limbs, FR##_LIMBS);                                                    \
    }                                                                                              \
    void G##_batch_to_affine(G##_affine *out, const G *in, size_t n)                               \
    {                                                                                              \
        F acc, zi, zi2;                                                                            \
        F##_set_one(&acc);                                                                         \
        for (size_t i = 0; i < n; i++) {                                                           \
            out[i].x = acc; /* scratch: the product of the non-zero z before i */                  \
            if (!G##_is_infinity(&in[i]))                                                          \
                F##_mul(&acc, &acc, &in[i].z);                                                     \
        }                                                                                          \
        F##_inv(&acc, &acc);                                                                       \
        for (size_t i = n; i-- > 0;) {                                                             \
            if (G##_is_infinity(&in[i])) {                                                         \
                G##_affine_set_infinity(&out[i]);                                                  \
                continue;                                                                          \
            }                                                                                      \
            F##_mul(&zi, &acc, &out[i].x);                                                         \
            F##_mul(&acc, &acc, &in[i].z);                                                         \
            F##_sqr(&zi2, &zi);                                                                    \
            F##_mul(&out[i].x, &in[i].x, &zi2);                                                    \
            F##_mul(&zi2, &zi2, &zi);                                                              \
            F##_mul(&out[i].y, &in[i].y, &zi2);                                                    \
        }                                                                                          \
    }

/* For the subgroup checks, whose scalars are the curves' 64-bit seeds (sparse: a window table
 * would cost more than it saves): ZKPIPE__EC_DEFINE_MUL_U64(G) defines the static
 *   void G_mul_u64(G *r, const G *p, uint64_t k)
 *   void G_affine_mul_u64(G *r, const G_affine *p, uint64_t k)   (mixed additions)
 * : r = k p by double-and-add over k's non-adjacent form: 63 doublings and about 21 additions
 * of ±p for a random 64-bit k, 5 for BLS12-381's |x|. Groups use one or both (hence unused). */
#define ZKPIPE__EC_DEFINE_MUL_U64(G)                                                               \
    /* d[i] in {-1, 0, 1}, k = sum d[i] 2^i; returns the digit count (at most 65). */              \
    static inline int G##__naf64(signed char *d, uint64_t k)                                       \
    {                                                                                              \
        __extension__ typedef unsigned __int128 u128;                                              \
        u128 v = k;                                                                                \
        int n = 0;                                                                                 \
        while (v != 0) {                                                                           \
            int digit = 0;                                                                         \
            if (v & 1) {                                                                           \
                digit = (v & 3) == 1 ? 1 : -1;                                                     \
                v = digit > 0 ? v - 1 : v + 1;                                                     \
            }                                                                                      \
            d[n++] = (signed char)digit;                                                           \
            v >>= 1;                                                                               \
        }                                                                                          \
        return n;                                                                                  \
    }                                                                                              \
    static inline __attribute__((unused)) void G##_mul_u64(G *r, const G *p, uint64_t k)           \
    {                                                                                              \
        signed char d[65];                                                                         \
        G acc, neg;                                                                                \
        int n = G##__naf64(d, k);                                                                  \
        G##_neg(&neg, p);                                                                          \
        if (n == 0) {                                                                              \
            G##_set_infinity(r);                                                                   \
            return;                                                                                \
        }                                                                                          \
        acc = *p; /* the top digit is 1 */                                                         \
        for (int i = n - 1; i-- > 0;) {                                                            \
            G##_dbl(&acc, &acc);                                                                   \
            if (d[i])                                                                              \
                G##_add(&acc, &acc, d[i] > 0 ? p : &neg);                                          \
        }                                                                                          \
        *r = acc;                                                                                  \
    }                                                                                              \
    static inline                                                                                  \
        __attribute__((unused)) void G##_affine_mul_u64(G *r, const G##_affine *p, uint64_t k)     \
    {                                                                                              \
        signed char d[65];                                                                         \
        G acc;                                                                                     \
        G##_affine neg;                                                                            \
        int n = G##__naf64(d, k);                                                                  \
        G##_affine_neg(&neg, p);                                                                   \
        if (n == 0) {                                                                              \
            G##_set_infinity(r);                                                                   \
            return;                                                                                \
        }                                                                                          \
        G##_from_affine(&acc, p); /* the top digit is 1 */                                         \
        for (int i = n - 1; i-- > 0;) {                                                            \
            G##_dbl(&acc, &acc);                                                                   \
            if (d[i])                                                                              \
                G##_add_affine(&acc, &acc, d[i] > 0 ? p : &neg);                                   \
        }                                                                                          \
        *r = acc;                                                                                  \
    }

/* The plain subgroup check [r]P = O, for groups with a cofactor. */
#define ZKPIPE__EC_DEFINE_SUBGROUP_BY_ORDER(G, FR)                                                 \
    int G##_is_in_subgroup(const G##_affine *p)                                                    \
    {                                                                                              \
        G t;                                                                                       \
        G##_from_affine(&t, p);                                                                    \
        G##_mul_limbs(&t, &t, FR##_MODULUS, FR##_LIMBS);                                           \
        return G##_is_infinity(&t);                                                                \
    }

#endif
