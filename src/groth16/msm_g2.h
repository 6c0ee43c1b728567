/* TEMPORARY until branch msm adds G2: the Pippenger MSM of msm/msm_impl.h instantiated for G2
 * of both curves under the names msm/msm.h will declare (zkpipe__msm_<curve>_g2...). Remove
 * this file and msm_g2_*.c when msm's own G2 lands. */
#ifndef ZKPIPE_GROTH16_MSM_G2_H
#define ZKPIPE_GROTH16_MSM_G2_H

#include "ec/bls12_381_g2.h"
#include "ec/bn254_g2.h"
#include "msm/msm.h"

ZKPIPE__MSM_DECLARE(bls12_381_g2)
ZKPIPE__MSM_DECLARE(bn254_g2)

#endif
