/* BLS12-381's Fq2 on eight lanes (fp2_x8.h) over bls12_381_fq_x8: bls12_381_fq2_x8 and its
 * functions. x86-64 hosts only (empty elsewhere). */
#ifndef ZKPIPE_FF_BLS12_381_FQ2_X8_H
#define ZKPIPE_FF_BLS12_381_FQ2_X8_H

#include "bls12_381_fq2.h"
#include "bls12_381_fq_x8.h"
#include "fp2_x8.h"

#if ZKPIPE__FF_X86
ZKPIPE__FP2_X8_DEFINE(bls12_381_fq2, bls12_381_fq)
#endif

#endif
