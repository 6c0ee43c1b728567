/* BLS12-381's Fq on eight lanes of eight 52-bit limbs (fp_x8.h): bls12_381_fq_x8 and its
 * functions, with R' = 2^416 and S = 32. x86-64 hosts only (empty elsewhere). */
#ifndef ZKPIPE_FF_BLS12_381_FQ_X8_H
#define ZKPIPE_FF_BLS12_381_FQ_X8_H

#include "bls12_381_fq.h"
#include "fp_x8.h"

#if ZKPIPE__FF_X86
#define bls12_381_fq_X8_LIMBS 8
ZKPIPE__FP_X8_DEFINE(bls12_381_fq, ZKPIPE__BLS12_381_FQ, bls12_381_fq_X8_LIMBS)
#endif

#endif
