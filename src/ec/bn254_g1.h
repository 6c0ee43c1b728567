/* BN254 (alt_bn128) G1: the curve y² = x³ + 3 over Fq, of prime order r (cofactor 1, so every
 * point on the curve is in the group).
 *
 * Defines bn254_g1_affine, bn254_g1 (Jacobian) and the header-only arithmetic of
 * ec/jacobian.h, the host functions of ec/group.h, and the EIP-196 encoding below. */
#ifndef ZKPIPE_EC_BN254_G1_H
#define ZKPIPE_EC_BN254_G1_H

#include "ec/endo_constants.h"
#include "ec/group.h"
#include "ff/bn254_fq.h"
#include "ff/bn254_fr.h"
#include "zkpipe/common.h"
#include "zkpipe/status.h"

ZKPIPE__EC_DEFINE_JACOBIAN(bn254_g1, bn254_fq)

/* bn254_g1_endo() : r = phi(p) = (beta x, y), the endomorphism of ec/glv.h: lambda p for p in the
 * subgroup of order r. The point at infinity (0, 0) maps to itself. r may alias p. */
ZKPIPE_HD void bn254_g1_endo(bn254_g1_affine *r, const bn254_g1_affine *p)
{
    const bn254_fq beta = {{ZKPIPE__BN254_G1_BETA}};
    bn254_fq_mul(&r->x, &p->x, &beta);
    r->y = p->y;
}

#define BN254_G1_UNCOMPRESSED_BYTES 64

ZKPIPE_EXTERN_C_BEGIN

ZKPIPE__EC_DECLARE_GROUP(bn254_g1, bn254_fq, bn254_fr)
/* ec/multi_mul.h: r = sum k_i p_i for n subgroup points and canonical scalars below r. */
void bn254_g1_multi_mul(bn254_g1 *r, const bn254_g1_affine *p, const uint64_t *k, size_t n);

/* The EIP-196 encoding (Ethereum precompiles): x ‖ y, 32 bytes each, big-endian, no flags;
 * the point at infinity is 64 zero bytes ((0, 0) is not on the curve).
 *
 * bn254_g1_to_uncompressed() : writes the 64-byte encoding of `p` to `out`.
 * bn254_g1_from_uncompressed() : decodes and validates 64 bytes. @return ZKPIPE_OK,
 * ZKPIPE_ENONCANONICAL (a coordinate >= q), ZKPIPE_ENOTONCURVE; *out untouched on error.
 * Thread safety: any thread. No allocation. Pointers must not be NULL. */
void bn254_g1_to_uncompressed(uint8_t *out, const bn254_g1_affine *p);
zkpipe_status bn254_g1_from_uncompressed(bn254_g1_affine *out, const uint8_t *in);

ZKPIPE_EXTERN_C_END

#endif
