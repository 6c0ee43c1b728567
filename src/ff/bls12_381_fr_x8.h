/* BLS12-381's scalar field Fr on eight lanes of five 52-bit limbs (fp_x8.h): bls12_381_fr_x8 and
 * its functions, with R' = 2^260 and S = 4. x86-64 hosts only (empty elsewhere). */
#ifndef ZKPIPE_FF_BLS12_381_FR_X8_H
#define ZKPIPE_FF_BLS12_381_FR_X8_H

#include "bls12_381_fr.h"
#include "fp_x8.h"

#if ZKPIPE__FF_X86
#define bls12_381_fr_X8_LIMBS 5
ZKPIPE__FP_X8_DEFINE(bls12_381_fr, ZKPIPE__BLS12_381_FR, bls12_381_fr_X8_LIMBS)
#endif

#endif
