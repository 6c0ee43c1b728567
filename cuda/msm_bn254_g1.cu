/* The G1 MSM of BN254 on the GPU (cuda/msm_impl.cuh). */
#include "cuda/msm_impl.cuh"

ZKPIPE__CUDA_MSM_INSTANTIATE(bn254_g1, bn254_fq, bn254_fr)
