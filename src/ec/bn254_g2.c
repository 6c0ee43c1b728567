#include "ec/bn254_g2.h"
#include "ec/glv.h"
#include "ec/multi_mul.h"

/* b' = 3 / (9 + u), the D-type twist: (27 - 3u) / 82. A constant, since every on-curve check
 * asks for it (an inversion each measured 8% of zkpipe-prove's CPU time, in the zkey's checks). */
void bn254_g2_b(bn254_fq2 *b)
{
    static const uint8_t coords[2][32] = {
        {
            0x2b, 0x14, 0x9d, 0x40, 0xce, 0xb8, 0xaa, 0xae, 0x81, 0xbe, 0x18,
            0x99, 0x1b, 0xe0, 0x6a, 0xc3, 0xb5, 0xb4, 0xc5, 0xe5, 0x59, 0xdb,
            0xef, 0xa3, 0x32, 0x67, 0xe6, 0xdc, 0x24, 0xa1, 0x38, 0xe5,
        },
        {
            0x00, 0x97, 0x13, 0xb0, 0x3a, 0xf0, 0xfe, 0xd4, 0xcd, 0x2c, 0xaf,
            0xad, 0xee, 0xd8, 0xfd, 0xf4, 0xa7, 0x4f, 0xa0, 0x84, 0xe5, 0x2d,
            0x18, 0x52, 0xe4, 0xa2, 0xbd, 0x06, 0x85, 0xc3, 0x15, 0xd2,
        },
    }; /* c0, c1 */
    bn254_fq_from_bytes_be(&b->c0, coords[0]);
    bn254_fq_from_bytes_be(&b->c1, coords[1]);
}

void bn254_g2_generator(bn254_g2_affine *out)
{
    static const uint8_t coords[4][32] = {
        {
            0x18, 0x00, 0xde, 0xef, 0x12, 0x1f, 0x1e, 0x76, 0x42, 0x6a, 0x00,
            0x66, 0x5e, 0x5c, 0x44, 0x79, 0x67, 0x43, 0x22, 0xd4, 0xf7, 0x5e,
            0xda, 0xdd, 0x46, 0xde, 0xbd, 0x5c, 0xd9, 0x92, 0xf6, 0xed,
        },
        {
            0x19, 0x8e, 0x93, 0x93, 0x92, 0x0d, 0x48, 0x3a, 0x72, 0x60, 0xbf,
            0xb7, 0x31, 0xfb, 0x5d, 0x25, 0xf1, 0xaa, 0x49, 0x33, 0x35, 0xa9,
            0xe7, 0x12, 0x97, 0xe4, 0x85, 0xb7, 0xae, 0xf3, 0x12, 0xc2,
        },
        {
            0x12, 0xc8, 0x5e, 0xa5, 0xdb, 0x8c, 0x6d, 0xeb, 0x4a, 0xab, 0x71,
            0x80, 0x8d, 0xcb, 0x40, 0x8f, 0xe3, 0xd1, 0xe7, 0x69, 0x0c, 0x43,
            0xd3, 0x7b, 0x4c, 0xe6, 0xcc, 0x01, 0x66, 0xfa, 0x7d, 0xaa,
        },
        {
            0x09, 0x06, 0x89, 0xd0, 0x58, 0x5f, 0xf0, 0x75, 0xec, 0x9e, 0x99,
            0xad, 0x69, 0x0c, 0x33, 0x95, 0xbc, 0x4b, 0x31, 0x33, 0x70, 0xb3,
            0x8e, 0xf3, 0x55, 0xac, 0xda, 0xdc, 0xd1, 0x22, 0x97, 0x5b,
        },
    }; /* x.c0, x.c1, y.c0, y.c1 */
    bn254_fq_from_bytes_be(&out->x.c0, coords[0]);
    bn254_fq_from_bytes_be(&out->x.c1, coords[1]);
    bn254_fq_from_bytes_be(&out->y.c0, coords[2]);
    bn254_fq_from_bytes_be(&out->y.c1, coords[3]);
}

ZKPIPE__EC_DEFINE_GROUP(bn254_g2, bn254_fq2, bn254_fr)
ZKPIPE__EC_DEFINE_MUL_U64(bn254_g2)
ZKPIPE__EC_DEFINE_MULTI_MUL(bn254_g2, bn254_glv_split, bn254_g2_endo)

/* psi(x, y) = (conj(x) cx, conj(y) cy), the untwist-Frobenius-twist endomorphism, on Jacobian
 * coordinates: conj(z) keeps z's role, as conj is a field automorphism. */
static void psi(bn254_g2 *r, const bn254_g2 *p)
{
    const bn254_fq2 cx = {ZKPIPE__BN254_PSI_X}, cy = {ZKPIPE__BN254_PSI_Y};
    bn254_fq2_conjugate(&r->x, &p->x);
    bn254_fq2_conjugate(&r->y, &p->y);
    bn254_fq2_conjugate(&r->z, &p->z);
    bn254_fq2_mul(&r->x, &r->x, &cx);
    bn254_fq2_mul(&r->y, &r->y, &cy);
}

/* Dai, Lin, Zhao and Zhou, "Fast subgroup membership testings for G1, G2 and GT on
 * pairing-friendly curves" (2022): a point on the twist is in G2 exactly when
 * [u+1]P + psi([u]P) + psi²([u]P) = psi³([2u]P), u the curve's seed, which holds for BN254 as
 * u != 4 mod 13 and u != 92 mod 97 (gen_endo.py checks both, and the relation on the
 * generator). One multiplication by the 63-bit u instead of one by the 254-bit r. */
int bn254_g2_is_in_subgroup(const bn254_g2_affine *p)
{
    bn254_g2 up, lhs, rhs, t;
    if (bn254_g2_affine_is_infinity(p))
        return 1;
    bn254_g2_affine_mul_u64(&up, p, ZKPIPE__BN254_U);
    bn254_g2_add_affine(&lhs, &up, p);
    psi(&t, &up);
    bn254_g2_add(&lhs, &lhs, &t);
    psi(&t, &t);
    bn254_g2_add(&lhs, &lhs, &t);
    bn254_g2_dbl(&rhs, &up);
    psi(&rhs, &rhs);
    psi(&rhs, &rhs);
    psi(&rhs, &rhs);
    return bn254_g2_eq(&lhs, &rhs);
}
