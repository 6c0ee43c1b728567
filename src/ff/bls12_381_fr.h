/* BLS12-381 scalar field Fr, r = 0x73eda753...00000001 (255 bits, 2-adicity 32).
 * Defines the value type bls12_381_fr (Montgomery form), bls12_381_fr_LIMBS, bls12_381_fr_BYTES,
 * bls12_381_fr_MODULUS, bls12_381_fr_TWO_ADICITY, bls12_381_fr_ROOT_OF_UNITY and the functions
 * listed in fp.h (not constant-time). */
#ifndef ZKPIPE_FF_BLS12_381_FR_H
#define ZKPIPE_FF_BLS12_381_FR_H

#include "bls12_381_constants.h"
#include "fp.h"

#define bls12_381_fr_LIMBS ZKPIPE__BLS12_381_FR_LIMBS
#define bls12_381_fr_BYTES ZKPIPE__BLS12_381_FR_BYTES
#define bls12_381_fr_TWO_ADICITY ZKPIPE__BLS12_381_FR_TWO_ADICITY

ZKPIPE__FP_DEFINE(bls12_381_fr, ZKPIPE__BLS12_381_FR)
ZKPIPE__FP_DEFINE_TWO_ADIC(bls12_381_fr, ZKPIPE__BLS12_381_FR)

#endif
