/* BN254's Fq2 on eight AVX-512F lanes (fp2_x8.h) over bn254_fq_x8f: bn254_fq2_x8f and its
 * functions. x86-64 hosts only (empty elsewhere). */
#ifndef ZKPIPE_FF_BN254_FQ2_X8F_H
#define ZKPIPE_FF_BN254_FQ2_X8F_H

#include "bn254_fq2.h"
#include "bn254_fq_x8f.h"
#include "fp2_x8.h"

#if ZKPIPE__FF_X86
ZKPIPE__FP2_X8F_DEFINE(bn254_fq2, bn254_fq)
#endif

#endif
