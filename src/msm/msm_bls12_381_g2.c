/* Pippenger MSM over G2 of BLS12-381. */
#include "ec/bls12_381_g2.h"

#define MSM_G bls12_381_g2
#define MSM_F bls12_381_fq2
#define MSM_FR bls12_381_fr
#define MSM_ENDO bls12_381_g2_endo
#define MSM_SPLIT bls12_381_glv_split
#define MSM_COFACTOR 1
#define MSM_INV_F bls12_381_fq
#if ZKPIPE__FF_X86
#include "ff/bls12_381_fq2_x8.h"
#include "msm/batch_x8.h"
#define MSM_BATCH_X8 zkpipe__msm_bls12_381_g2_batch_x8
#define MSM_BATCH_X8_LIMBS bls12_381_fq_X8_LIMBS
#endif
#include "msm/msm_impl.h"
