/* Pippenger MSM over G1 of BLS12-381. */
#include "ec/bls12_381_g1.h"

#define MSM_G bls12_381_g1
#define MSM_F bls12_381_fq
#define MSM_FR bls12_381_fr
#include "msm/msm_impl.h"
