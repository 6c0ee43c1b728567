/* The G1 MSM of BLS12-381 on the GPU (cuda/msm_impl.cuh). */
#include "cuda/msm_impl.cuh"

ZKPIPE__CUDA_MSM_INSTANTIATE(bls12_381_g1, bls12_381_fq, bls12_381_fr)
