/* BN254 Fq2 = Fq[u]/(u^2 + 1), the field of G2 coordinates; xi = 9 + u.
 * API and rules: see fp2.h and quadratic.h (not constant-time). */
#ifndef ZKPIPE_FF_BN254_FQ2_H
#define ZKPIPE_FF_BN254_FQ2_H

#include "bn254_fq.h"
#include "fp2.h"

ZKPIPE__FP2_DEFINE(bn254_fq2, bn254_fq, ZKPIPE__BN254)

#endif
