/* BN254 (alt_bn128) G2: the D-type twist y² = x³ + 3/(9 + u) over Fq2 = Fq[u]/(u² + 1) and
 * its subgroup of prime order r (the twist has a cofactor, so points must be checked:
 * G_is_in_subgroup).
 *
 * Defines bn254_g2_affine, bn254_g2 (Jacobian) and the header-only arithmetic of
 * ec/jacobian.h, the host functions of ec/group.h, and the EIP-197 encoding below. */
#ifndef ZKPIPE_EC_BN254_G2_H
#define ZKPIPE_EC_BN254_G2_H

#include "ec/endo_constants.h"
#include "ec/group.h"
#include "ff/bn254_fq2.h"
#include "ff/bn254_fr.h"
#include "zkpipe/common.h"
#include "zkpipe/status.h"

ZKPIPE__EC_DEFINE_JACOBIAN(bn254_g2, bn254_fq2)

/* bn254_g2_endo() : r = phi(p) = (beta x, y), the endomorphism of ec/glv.h: lambda p for p in the
 * subgroup of order r. The point at infinity (0, 0) maps to itself. r may alias p. */
ZKPIPE_HD void bn254_g2_endo(bn254_g2_affine *r, const bn254_g2_affine *p)
{
    const bn254_fq beta = {{ZKPIPE__BN254_G2_BETA}};
    bn254_fq2_mul_by_fq(&r->x, &p->x, &beta);
    r->y = p->y;
}

#define BN254_G2_UNCOMPRESSED_BYTES 128

ZKPIPE_EXTERN_C_BEGIN

ZKPIPE__EC_DECLARE_GROUP(bn254_g2, bn254_fq2, bn254_fr)
/* ec/multi_mul.h: r = sum k_i p_i for n subgroup points and canonical scalars below r. */
void bn254_g2_multi_mul(bn254_g2 *r, const bn254_g2_affine *p, const uint64_t *k, size_t n);

/* The EIP-197 encoding (Ethereum pairing precompile): x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0, 32 bytes
 * each, big-endian, no flags; the point at infinity is 128 zero bytes. Decoding returns
 * ZKPIPE_OK, ZKPIPE_ENONCANONICAL, ZKPIPE_ENOTONCURVE or ZKPIPE_ENOTINSUBGROUP (checked in that
 * order; *out untouched on error). Thread safety: any thread. No allocation. Pointers must
 * not be NULL. */
void bn254_g2_to_uncompressed(uint8_t *out, const bn254_g2_affine *p);
zkpipe_status bn254_g2_from_uncompressed(bn254_g2_affine *out, const uint8_t *in);

ZKPIPE_EXTERN_C_END

#endif
