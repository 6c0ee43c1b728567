/* snarkjs's G1 subtraction of affine points (wasmcurves' g1m_subAffine) as its wasm computes
 * it on any input, reduced or not (snarkjs_sub_affine.c). */
#ifndef ZKPIPE_ARITH_SNARKJS_SUB_AFFINE_H
#define ZKPIPE_ARITH_SNARKJS_SUB_AFFINE_H

#include "arith/curve_ops.h"

/* out = p1 - p2 as snarkjs's g1m_subAffine, g1m_batchToAffine and g1m_batchLEMtoU give it, for
 * p1 any 2 fq_limbs limbs (coordinates possibly q or more: not a point) and p2 a valid affine
 * point, both little-endian Montgomery form as a ptau holds them. out is a Jacobian point whose
 * normalisation (c->g1_batch_to_affine) is snarkjs's affine result; for a valid p1 it is
 * p1 - p2. Uses the generic limb code: slow, for a point or a few. */
void zkpipe__snarkjs_sub_affine(zkpipe__g1 *out, const zkpipe__curve_ops *c, const uint64_t *p1,
                                const uint64_t *p2);

#endif
