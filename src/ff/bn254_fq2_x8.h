/* BN254's Fq2 on eight lanes (fp2_x8.h) over bn254_fq_x8: bn254_fq2_x8 and its functions.
 * x86-64 hosts only (empty elsewhere). */
#ifndef ZKPIPE_FF_BN254_FQ2_X8_H
#define ZKPIPE_FF_BN254_FQ2_X8_H

#include "bn254_fq2.h"
#include "bn254_fq_x8.h"
#include "fp2_x8.h"

#if ZKPIPE__FF_X86
ZKPIPE__FP2_X8_DEFINE(bn254_fq2, bn254_fq)
#endif

#endif
