/* BN254 (alt_bn128) base field Fq, q = 0x30644e72...d87cfd47 (254 bits, q = 3 mod 4).
 * Defines the value type bn254_fq (Montgomery form), bn254_fq_LIMBS, bn254_fq_BYTES,
 * bn254_fq_MODULUS and the functions listed in fp.h (not constant-time). */
#ifndef ZKPIPE_FF_BN254_FQ_H
#define ZKPIPE_FF_BN254_FQ_H

#include "bn254_constants.h"
#include "fp.h"

#define bn254_fq_LIMBS ZKPIPE__BN254_FQ_LIMBS
#define bn254_fq_BYTES ZKPIPE__BN254_FQ_BYTES

ZKPIPE__FP_DEFINE(bn254_fq, ZKPIPE__BN254_FQ)
ZKPIPE__FP_DEFINE_SQRT_3MOD4(bn254_fq, ZKPIPE__BN254_FQ)

#endif
