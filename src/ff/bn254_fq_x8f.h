/* BN254's Fq on eight AVX-512F lanes of nine 29-bit limbs (fp_x8f.h): bn254_fq_x8f and its
 * functions, with R' = 2^261 and S = 5. x86-64 hosts only (empty elsewhere). */
#ifndef ZKPIPE_FF_BN254_FQ_X8F_H
#define ZKPIPE_FF_BN254_FQ_X8F_H

#include "bn254_fq.h"
#include "fp_x8f.h"

#if ZKPIPE__FF_X86
#define bn254_fq_X8F_LIMBS 9
#define bn254_fq_X8F_BITS 29
ZKPIPE__FP_X8F_DEFINE(bn254_fq, ZKPIPE__BN254_FQ, bn254_fq_X8F_LIMBS, bn254_fq_X8F_BITS)
#endif

#endif
