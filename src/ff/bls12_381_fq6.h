/* BLS12-381 Fq6 = Fq2[v]/(v^3 - (u + 1)).
 * API and rules: see fp6.h (not constant-time). */
#ifndef ZKPIPE_FF_BLS12_381_FQ6_H
#define ZKPIPE_FF_BLS12_381_FQ6_H

#include "bls12_381_fq2.h"
#include "fp6.h"

ZKPIPE__FP6_DEFINE(bls12_381_fq6, bls12_381_fq2, ZKPIPE__BLS12_381)

#endif
