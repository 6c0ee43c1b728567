/* The GLV scalar split of both curves: the endomorphism phi(x, y) = (beta x, y) acts on G1 and
 * on G2 as multiplication by lambda, a cube root of unity mod r (endo_constants.h, whose
 * generator gen_endo.py checks every constant and bound), so
 *
 *   k P = k1 P + k2 phi(P)   for k = k1 + k2 lambda (mod r) and P in the subgroup of order r,
 *
 * with |k1| and |k2| below 2^127: half-length scalars for twice the points. The split rounds
 * (k, 0) to the nearest point of the lattice {(a, b): a + b lambda = 0 mod r} spanned by the
 * reduced basis (a1, b1), (a2, b2): c_i = round(k g_i / 2^320) with g1 = b2 2^320 / det and
 * g2 = -b1 2^320 / det, then (k1, k2) = (k, 0) - c1 (a1, b1) - c2 (a2, b2). Each c_i is within
 * 1/2 + r / 2^320 of its exact value, so |k1| <= (1/2 + 2^-65)(|a1| + |a2|) and likewise for k2:
 * below 2^127 on both curves.
 *
 *   void C_glv_split(uint64_t *out, unsigned *neg, const uint64_t *k)
 *       : for a canonical scalar k < r (4 limbs), out[0..2) = |k1| and out[2..4) = |k2|;
 *         bit 0 of *neg is set when k1 < 0, bit 1 when k2 < 0. out may equal k.
 *
 * Not constant-time (the signs branch). No allocation, no global state. */
#ifndef ZKPIPE_EC_GLV_H
#define ZKPIPE_EC_GLV_H

#include "ec/endo_constants.h"
#include "ff/limbs.h"

/* Five limbs hold every intermediate value of the split (all below 2^257 in magnitude) as a
 * two's-complement integer. */
#define ZKPIPE__GLV_ACC 5

/* acc += sign x for a 4-limb x, sign +1 (neg 0) or -1 (neg 1). */
ZKPIPE__FF_INLINE void zkpipe__glv_acc(uint64_t *acc, const uint64_t *x, int neg)
{
    uint64_t t[ZKPIPE__GLV_ACC] = {x[0], x[1], x[2], x[3], 0};
    if (neg)
        zkpipe__limbs_sub(acc, acc, t, ZKPIPE__GLV_ACC);
    else
        zkpipe__limbs_add(acc, acc, t, ZKPIPE__GLV_ACC);
}

/* out[0..2) = |acc| (which is below 2^127), returns 1 when acc < 0. */
ZKPIPE__FF_INLINE unsigned zkpipe__glv_abs(uint64_t *out, uint64_t *acc)
{
    unsigned neg = (unsigned)(acc[ZKPIPE__GLV_ACC - 1] >> 63);
    if (neg) {
        uint64_t zero[ZKPIPE__GLV_ACC] = {0};
        zkpipe__limbs_sub(acc, zero, acc, ZKPIPE__GLV_ACC);
    }
    out[0] = acc[0];
    out[1] = acc[1];
    return neg;
}

/* c[0..2) = round(k g / 2^320) for 4-limb k and g, known to be below 2^128. */
ZKPIPE__FF_INLINE void zkpipe__glv_round(uint64_t *c, const uint64_t *k, const uint64_t *g)
{
    uint64_t t[8], half[4] = {UINT64_C(1) << 63, 0, 0, 0};
    zkpipe__limbs_mul_wide(t, k, g, 4);
    zkpipe__limbs_add(t + 4, t + 4, half, 4); /* + 2^319 */
    c[0] = t[5];
    c[1] = t[6];
}

/* acc -= sign(c) sign(v) c v for 2-limb magnitudes. */
ZKPIPE__FF_INLINE void zkpipe__glv_sub_product(uint64_t *acc, const uint64_t *c, int c_neg,
                                               const uint64_t *v, int v_neg)
{
    uint64_t p[4];
    zkpipe__limbs_mul_wide(p, c, v, 2);
    zkpipe__glv_acc(acc, p, !(c_neg ^ v_neg));
}

#define ZKPIPE__EC_DEFINE_GLV(C, PRE)                                                              \
    ZKPIPE_HD void C##_glv_split(uint64_t *out, unsigned *neg, const uint64_t *k)                  \
    {                                                                                              \
        const uint64_t g1[4] = {PRE##_GLV_G1_ABS}, g2[4] = {PRE##_GLV_G2_ABS};                     \
        const uint64_t a1[2] = {PRE##_GLV_A1_ABS}, b1[2] = {PRE##_GLV_B1_ABS};                     \
        const uint64_t a2[2] = {PRE##_GLV_A2_ABS}, b2[2] = {PRE##_GLV_B2_ABS};                     \
        uint64_t c1[2], c2[2], acc1[ZKPIPE__GLV_ACC] = {k[0], k[1], k[2], k[3], 0};                \
        uint64_t acc2[ZKPIPE__GLV_ACC] = {0};                                                      \
        zkpipe__glv_round(c1, k, g1);                                                              \
        zkpipe__glv_round(c2, k, g2);                                                              \
        zkpipe__glv_sub_product(acc1, c1, PRE##_GLV_G1_NEG, a1, PRE##_GLV_A1_NEG);                 \
        zkpipe__glv_sub_product(acc1, c2, PRE##_GLV_G2_NEG, a2, PRE##_GLV_A2_NEG);                 \
        zkpipe__glv_sub_product(acc2, c1, PRE##_GLV_G1_NEG, b1, PRE##_GLV_B1_NEG);                 \
        zkpipe__glv_sub_product(acc2, c2, PRE##_GLV_G2_NEG, b2, PRE##_GLV_B2_NEG);                 \
        unsigned n1 = zkpipe__glv_abs(out, acc1);                                                  \
        *neg = n1 | zkpipe__glv_abs(out + 2, acc2) << 1;                                           \
    }

ZKPIPE__EC_DEFINE_GLV(bls12_381, ZKPIPE__BLS12_381)
ZKPIPE__EC_DEFINE_GLV(bn254, ZKPIPE__BN254)

#endif
