/* The 8-lane batch-affine kernel for G1 of BN254 on AVX-512F lanes without IFMA (x86-64 only). */
#include "ff/bn254_fq_x8f.h"

#if ZKPIPE__FF_X86
#define X8_G bn254_g1
#define X8_LANE _x8f
#define X8_F bn254_fq
#include "msm/batch_x8_impl.h"
#else
typedef int zkpipe__msm_no_x8f; /* an empty translation unit is not ISO C */
#endif
