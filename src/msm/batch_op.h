/* A scheduled batch-affine addition (batch_affine.h), shared with the 8-lane kernels
 * (batch_x8.h), which read the same batch: bucket `bucket` += ±p, where p is a base or its
 * endomorphism image (x stored apart, y the base's) and never one of the batch's buckets. */
#ifndef ZKPIPE_MSM_BATCH_OP_H
#define ZKPIPE_MSM_BATCH_OP_H

#include <stdint.h>

#include "ec/bls12_381_g1.h"
#include "ec/bls12_381_g2.h"
#include "ec/bn254_g1.h"
#include "ec/bn254_g2.h"

/* Flags: add -p; the bucket equals p (a doubling, whose denominator is 2y). */
enum { ZKPIPE__MSM_BATCH_NEG = 1, ZKPIPE__MSM_BATCH_DBL = 2 };

#define ZKPIPE__MSM_DEFINE_BATCH_OP(G, F)                                                          \
    typedef struct G##_point_ref {                                                                 \
        const F *x, *y;                                                                            \
    } G##_point_ref;                                                                               \
    typedef struct G##_batch_op {                                                                  \
        uint32_t bucket;                                                                           \
        uint32_t flags; /* ZKPIPE__MSM_BATCH_* */                                                  \
        G##_point_ref p;                                                                           \
    } G##_batch_op;

ZKPIPE__MSM_DEFINE_BATCH_OP(bls12_381_g1, bls12_381_fq)
ZKPIPE__MSM_DEFINE_BATCH_OP(bls12_381_g2, bls12_381_fq2)
ZKPIPE__MSM_DEFINE_BATCH_OP(bn254_g1, bn254_fq)
ZKPIPE__MSM_DEFINE_BATCH_OP(bn254_g2, bn254_fq2)

#endif
