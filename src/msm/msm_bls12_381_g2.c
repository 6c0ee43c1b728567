/* Pippenger MSM over G2 of BLS12-381. */
#include "ec/bls12_381_g2.h"

#define MSM_G bls12_381_g2
#define MSM_F bls12_381_fq2
#define MSM_FR bls12_381_fr
#include "msm/msm_impl.h"
