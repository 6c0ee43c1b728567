/* BLS12-381 Fq2 = Fq[u]/(u^2 + 1), the field of G2 coordinates; xi = 1 + u.
 * API and rules: see fp2.h and quadratic.h (not constant-time). */
#ifndef ZKPIPE_FF_BLS12_381_FQ2_H
#define ZKPIPE_FF_BLS12_381_FQ2_H

#include "bls12_381_fq.h"
#include "fp2.h"

ZKPIPE__FP2_DEFINE(bls12_381_fq2, bls12_381_fq, ZKPIPE__BLS12_381)

#endif
