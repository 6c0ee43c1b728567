/* Pippenger MSM over G1 of BN254. */
#include "ec/bn254_g1.h"

#define MSM_G bn254_g1
#define MSM_F bn254_fq
#define MSM_FR bn254_fr
#define MSM_ENDO bn254_g1_endo
#define MSM_SPLIT bn254_glv_split
#define MSM_COFACTOR 0
#include "msm/msm_impl.h"
