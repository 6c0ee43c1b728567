/* Pippenger MSM over G1 of BN254. */
#include "ec/bn254_g1.h"

#define MSM_G bn254_g1
#define MSM_F bn254_fq
#define MSM_FR bn254_fr
#define MSM_ENDO bn254_g1_endo
#define MSM_SPLIT bn254_glv_split
#define MSM_COFACTOR 0
#if ZKPIPE__FF_X86
#include "ff/bn254_fq_x8.h"
#include "ff/bn254_fq_x8f.h"
#include "msm/batch_x8.h"
#define MSM_BATCH_X8 zkpipe__msm_bn254_g1_batch_x8
#define MSM_BATCH_X8F zkpipe__msm_bn254_g1_batch_x8f
#define MSM_BATCH_X8_LIMBS bn254_fq_X8F_LIMBS /* the larger of the two */
#endif
#include "msm/msm_impl.h"
