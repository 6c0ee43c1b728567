/* BN254 Fq6 = Fq2[v]/(v^3 - (9 + u)).
 * API and rules: see fp6.h (not constant-time). */
#ifndef ZKPIPE_FF_BN254_FQ6_H
#define ZKPIPE_FF_BN254_FQ6_H

#include "bn254_fq2.h"
#include "fp6.h"

ZKPIPE__FP6_DEFINE(bn254_fq6, bn254_fq2, ZKPIPE__BN254)

#endif
