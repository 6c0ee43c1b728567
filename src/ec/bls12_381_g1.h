/* BLS12-381 G1: the curve y² = x³ + 4 over Fq and its subgroup of prime order r (the cofactor
 * is about 2^126, so points must be checked: G_is_in_subgroup, a fast endomorphism test).
 *
 * Defines bls12_381_g1_affine, bls12_381_g1 (Jacobian) and the header-only arithmetic of
 * ec/jacobian.h, the host functions of ec/group.h, and the zcash/IETF encodings below. */
#ifndef ZKPIPE_EC_BLS12_381_G1_H
#define ZKPIPE_EC_BLS12_381_G1_H

#include "ec/endo_constants.h"
#include "ec/group.h"
#include "ff/bls12_381_fq.h"
#include "ff/bls12_381_fr.h"
#include "zkpipe/common.h"
#include "zkpipe/status.h"

ZKPIPE__EC_DEFINE_JACOBIAN(bls12_381_g1, bls12_381_fq)

/* bls12_381_g1_endo() : r = phi(p) = (beta x, y), the endomorphism of ec/glv.h: lambda p for p in
 * the subgroup of order r. The point at infinity (0, 0) maps to itself. r may alias p. */
ZKPIPE_HD void bls12_381_g1_endo(bls12_381_g1_affine *r, const bls12_381_g1_affine *p)
{
    const bls12_381_fq beta = {{ZKPIPE__BLS12_381_G1_BETA}};
    bls12_381_fq_mul(&r->x, &p->x, &beta);
    r->y = p->y;
}

/* |x| for the curve's parameter x = -0xd201000000010000 (the curve family's seed). */
#define BLS12_381_X_ABS UINT64_C(0xd201000000010000)

#define BLS12_381_G1_COMPRESSED_BYTES 48
#define BLS12_381_G1_UNCOMPRESSED_BYTES 96

ZKPIPE_EXTERN_C_BEGIN

ZKPIPE__EC_DECLARE_GROUP(bls12_381_g1, bls12_381_fq, bls12_381_fr)
/* ec/multi_mul.h: r = sum k_i p_i for n subgroup points and canonical scalars below r. */
void bls12_381_g1_multi_mul(bls12_381_g1 *r, const bls12_381_g1_affine *p, const uint64_t *k,
                            size_t n);

/* The zcash/IETF encodings (blst, bellman, Filecoin). Flags in the top three bits of the first
 * byte: 0x80 compressed, 0x40 point at infinity, 0x20 sign (y is the larger of y and -y).
 * Compressed: x, 48 bytes; uncompressed: x ‖ y, 96 bytes; big-endian. Infinity is 0xc0 (or
 * 0x40 uncompressed) followed by zero bytes.
 *
 * bls12_381_g1_to_compressed() / _to_uncompressed() : write the encoding of `p` (any point
 * given as affine: on the curve, or infinity) to `out` (48 / 96 bytes).
 *
 * bls12_381_g1_from_compressed() / _from_uncompressed() : decode and fully validate 48 / 96
 * bytes. @return ZKPIPE_OK (then *out is the point), ZKPIPE_EFLAGS (flag bits wrong for the
 * form: compression bit not matching the length, sign bit on an uncompressed or infinity
 * encoding, non-zero bits after the infinity flag), ZKPIPE_ENONCANONICAL (a coordinate >= q),
 * ZKPIPE_ENOTONCURVE, ZKPIPE_ENOTINSUBGROUP; checked in that order; *out untouched on error.
 * Thread safety: any thread. No allocation. Pointers must not be NULL. */
void bls12_381_g1_to_compressed(uint8_t *out, const bls12_381_g1_affine *p);
void bls12_381_g1_to_uncompressed(uint8_t *out, const bls12_381_g1_affine *p);
zkpipe_status bls12_381_g1_from_compressed(bls12_381_g1_affine *out, const uint8_t *in);
zkpipe_status bls12_381_g1_from_uncompressed(bls12_381_g1_affine *out, const uint8_t *in);

ZKPIPE_EXTERN_C_END

#endif
