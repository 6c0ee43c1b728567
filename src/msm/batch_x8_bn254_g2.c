/* The 8-lane batch-affine kernel for G2 of BN254 (x86-64 only). */
#include "ff/bn254_fq2_x8.h"

#if ZKPIPE__FF_X86
#define X8_G bn254_g2
#define X8_LANE _x8
#define X8_F bn254_fq
#define X8_F2 bn254_fq2
#include "msm/batch_x8_impl.h"
#else
typedef int zkpipe__msm_no_x8; /* an empty translation unit is not ISO C */
#endif
