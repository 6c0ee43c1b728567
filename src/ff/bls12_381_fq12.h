/* BLS12-381 Fq12 = Fq6[w]/(w^2 - v), the pairing target field; Miller-loop lines use mul_by_014.
 * API and rules: see fp12.h and quadratic.h (not constant-time). */
#ifndef ZKPIPE_FF_BLS12_381_FQ12_H
#define ZKPIPE_FF_BLS12_381_FQ12_H

#include "bls12_381_fq6.h"
#include "fp12.h"

ZKPIPE__FP12_DEFINE(bls12_381_fq12, bls12_381_fq6, bls12_381_fq2, ZKPIPE__BLS12_381)
ZKPIPE__FP12_DEFINE_MUL_BY_014(bls12_381_fq12, bls12_381_fq6, bls12_381_fq2)

#endif
