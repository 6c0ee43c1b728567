/* BLS12-381 G2: the twist y² = x³ + 4(1 + u) over Fq2 = Fq[u]/(u² + 1) and its subgroup of
 * prime order r (the cofactor is about 2^636, so points must be checked: G_is_in_subgroup, a fast
 * endomorphism test).
 *
 * Defines bls12_381_g2_affine, bls12_381_g2 (Jacobian) and the header-only arithmetic of
 * ec/jacobian.h, the host functions of ec/group.h, and the zcash/IETF encodings below. */
#ifndef ZKPIPE_EC_BLS12_381_G2_H
#define ZKPIPE_EC_BLS12_381_G2_H

#include "ec/endo_constants.h"
#include "ec/group.h"
#include "ff/bls12_381_fq2.h"
#include "ff/bls12_381_fr.h"
#include "zkpipe/common.h"
#include "zkpipe/status.h"

ZKPIPE__EC_DEFINE_JACOBIAN(bls12_381_g2, bls12_381_fq2)

/* bls12_381_g2_endo() : r = phi(p) = (beta x, y), the endomorphism of ec/glv.h: lambda p for p in
 * the subgroup of order r. The point at infinity (0, 0) maps to itself. r may alias p. */
ZKPIPE_HD void bls12_381_g2_endo(bls12_381_g2_affine *r, const bls12_381_g2_affine *p)
{
    const bls12_381_fq beta = {{ZKPIPE__BLS12_381_G2_BETA}};
    bls12_381_fq2_mul_by_fq(&r->x, &p->x, &beta);
    r->y = p->y;
}

#define BLS12_381_G2_COMPRESSED_BYTES 96
#define BLS12_381_G2_UNCOMPRESSED_BYTES 192

ZKPIPE_EXTERN_C_BEGIN

ZKPIPE__EC_DECLARE_GROUP(bls12_381_g2, bls12_381_fq2, bls12_381_fr)
/* ec/multi_mul.h: r = sum k_i p_i for n subgroup points and canonical scalars below r. */
void bls12_381_g2_multi_mul(bls12_381_g2 *r, const bls12_381_g2_affine *p, const uint64_t *k,
                            size_t n);

/* The zcash/IETF encodings, as for G1 (bls12_381_g1.h) with each Fq2 coordinate written as
 * c1 ‖ c0 and the sign taken from y.c1, or from y.c0 when y.c1 = 0: compressed x, 96 bytes;
 * uncompressed x ‖ y, 192 bytes. Same statuses, rules and thread safety as for G1. */
void bls12_381_g2_to_compressed(uint8_t *out, const bls12_381_g2_affine *p);
void bls12_381_g2_to_uncompressed(uint8_t *out, const bls12_381_g2_affine *p);
zkpipe_status bls12_381_g2_from_compressed(bls12_381_g2_affine *out, const uint8_t *in);
zkpipe_status bls12_381_g2_from_uncompressed(bls12_381_g2_affine *out, const uint8_t *in);

ZKPIPE_EXTERN_C_END

#endif
