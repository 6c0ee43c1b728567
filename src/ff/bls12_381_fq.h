/* BLS12-381 base field Fq, q = 0x1a0111ea...ffffaaab (381 bits, q = 3 mod 4).
 * Defines the value type bls12_381_fq (Montgomery form), bls12_381_fq_LIMBS, bls12_381_fq_BYTES,
 * bls12_381_fq_MODULUS and the functions listed in fp.h (not constant-time). */
#ifndef ZKPIPE_FF_BLS12_381_FQ_H
#define ZKPIPE_FF_BLS12_381_FQ_H

#include "bls12_381_constants.h"
#include "fp.h"

#define bls12_381_fq_LIMBS ZKPIPE__BLS12_381_FQ_LIMBS
#define bls12_381_fq_BYTES ZKPIPE__BLS12_381_FQ_BYTES

ZKPIPE__FP_DEFINE(bls12_381_fq, ZKPIPE__BLS12_381_FQ)
ZKPIPE__FP_DEFINE_SQRT_3MOD4(bls12_381_fq, ZKPIPE__BLS12_381_FQ)

#endif
