/* BN254 Fq12 = Fq6[w]/(w^2 - v), the pairing target field; Miller-loop lines use mul_by_034.
 * API and rules: see fp12.h and quadratic.h (not constant-time). */
#ifndef ZKPIPE_FF_BN254_FQ12_H
#define ZKPIPE_FF_BN254_FQ12_H

#include "bn254_fq6.h"
#include "fp12.h"

ZKPIPE__FP12_DEFINE(bn254_fq12, bn254_fq6, bn254_fq2, ZKPIPE__BN254)
ZKPIPE__FP12_DEFINE_MUL_BY_034(bn254_fq12, bn254_fq6, bn254_fq2)

#endif
