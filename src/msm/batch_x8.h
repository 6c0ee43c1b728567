/* Batch-affine additions eight at a time (batch_x8_impl.h), for the G1 and G2 groups, on AVX-512
 * IFMA lanes (_x8, fp_x8.h) and for BN254's also on AVX-512F ones (_x8f, fp_x8f.h):
 * batch_affine.h's batch_finish hands a batch to the first when zkpipe__ff_x86_ifma is set, else
 * to the second when zkpipe__ff_x86_avx512 is. x86-64 hosts only; nothing is declared
 * elsewhere. */
#ifndef ZKPIPE_MSM_BATCH_X8_H
#define ZKPIPE_MSM_BATCH_X8_H

#include <stddef.h>

#include "ff/mont_x86.h"
#include "ff/fp_x8.h"
#include "ff/fp_x8f.h"
#include "msm/batch_op.h"

#if ZKPIPE__FF_X86
/* The fewest additions a batch hands to the lanes: below it the fixed cost (the eight chains'
 * products brought back to fp.h's form and inverted together, partial groups of lanes) is shared
 * by too few additions. */
#define ZKPIPE__MSM_X8_MIN 32

/* Scratch for a batch of n additions on lanes of `limbs` limbs: two lane vectors per group of
 * eight (the prefix products and the group's factor); 64-byte aligned. */
#define ZKPIPE__MSM_X8_BYTES(n, limbs) (((n) + 7) / 8 * (size_t)(limbs)*128)

/* For i < n, bucket ops[i].bucket += ±ops[i].p (ZKPIPE__MSM_BATCH_NEG), or doubled
 * (ZKPIPE__MSM_BATCH_DBL: the bucket equals p), given den[i], the addition's non-zero
 * denominator (x_p - x_q, or 2 y_q), as batch_finish does: the results reduced as fp.h leaves
 * them. On G2 the kernel inverts the denominators' norms, which it makes itself (batch_affine.h
 * leaves ws->norm unset where the lanes run). The ops' buckets are distinct and no op's p lies
 * in a bucket. `lanes` holds ZKPIPE__MSM_X8_BYTES(n, Fq_X8_LIMBS) bytes (Fq the group's base
 * field; Fq_X8F_LIMBS for the _x8f kernels), 64-byte aligned. n >= 1. The _x8 kernels need
 * AVX-512F and IFMA (zkpipe__ff_x86_ifma), the _x8f ones AVX-512F (zkpipe__ff_x86_avx512). */
void zkpipe__msm_bls12_381_g1_batch_x8(bls12_381_g1_affine *buckets,
                                       const bls12_381_g1_batch_op *ops, const bls12_381_fq *den,
                                       size_t n, void *lanes);
void zkpipe__msm_bn254_g1_batch_x8(bn254_g1_affine *buckets, const bn254_g1_batch_op *ops,
                                   const bn254_fq *den, size_t n, void *lanes);
void zkpipe__msm_bls12_381_g2_batch_x8(bls12_381_g2_affine *buckets,
                                       const bls12_381_g2_batch_op *ops, const bls12_381_fq2 *den,
                                       size_t n, void *lanes);
void zkpipe__msm_bn254_g2_batch_x8(bn254_g2_affine *buckets, const bn254_g2_batch_op *ops,
                                   const bn254_fq2 *den, size_t n, void *lanes);
void zkpipe__msm_bn254_g1_batch_x8f(bn254_g1_affine *buckets, const bn254_g1_batch_op *ops,
                                    const bn254_fq *den, size_t n, void *lanes);
void zkpipe__msm_bn254_g2_batch_x8f(bn254_g2_affine *buckets, const bn254_g2_batch_op *ops,
                                    const bn254_fq2 *den, size_t n, void *lanes);
#endif

#endif
