/* The 8-lane batch-affine kernel for G1 of BLS12-381 (x86-64 only). */
#include "ff/bls12_381_fq_x8.h"

#if ZKPIPE__FF_X86
#define X8_G bls12_381_g1
#define X8_LANE _x8
#define X8_F bls12_381_fq
#include "msm/batch_x8_impl.h"
#else
typedef int zkpipe__msm_no_x8; /* an empty translation unit is not ISO C */
#endif
