/* BN254 (alt_bn128) scalar field Fr, r = 0x30644e72...f0000001 (254 bits, 2-adicity 28).
 * Defines the value type bn254_fr (Montgomery form), bn254_fr_LIMBS, bn254_fr_BYTES,
 * bn254_fr_MODULUS, bn254_fr_TWO_ADICITY, bn254_fr_ROOT_OF_UNITY and the functions listed in fp.h
 * (not constant-time). */
#ifndef ZKPIPE_FF_BN254_FR_H
#define ZKPIPE_FF_BN254_FR_H

#include "bn254_constants.h"
#include "fp.h"

#define bn254_fr_LIMBS ZKPIPE__BN254_FR_LIMBS
#define bn254_fr_BYTES ZKPIPE__BN254_FR_BYTES
#define bn254_fr_TWO_ADICITY ZKPIPE__BN254_FR_TWO_ADICITY

ZKPIPE__FP_DEFINE(bn254_fr, ZKPIPE__BN254_FR)
ZKPIPE__FP_DEFINE_TWO_ADIC(bn254_fr, ZKPIPE__BN254_FR)

#endif
