/* The optimal ate pairing on BN254 (alt_bn128), e: G1 × G2 → μ_r ⊂ Fq12 (the functions, types
 * and rules of ec/pairing.h with C = bn254). The Miller loop runs over 6x + 2,
 * x = 4965661367192848881, in non-adjacent form on the D-type twist y² = x³ + 3/(9 + u), then
 * adds π(Q) and -π²(Q); the final exponentiation raises to 2x(6x² + 3x + 1)(p¹² - 1)/r, as
 * gnark and noble do, so values match theirs coefficient for coefficient (py_ecc's
 * exact (p¹² - 1)/r gives another generator of the same group; checks agree either way). */
#ifndef ZKPIPE_EC_BN254_PAIRING_H
#define ZKPIPE_EC_BN254_PAIRING_H

#include "ec/bn254_g1.h"
#include "ec/bn254_g2.h"
#include "ec/pairing.h"
#include "ff/bn254_fq12.h"

/* Lines per prepared point: 65 doublings, 21 additions (the non-zero digits below the top)
 * and the 2 additions of Frobenius images. */
#define BN254_PAIRING_LINES 88

ZKPIPE_EXTERN_C_BEGIN

ZKPIPE__PAIRING_DECLARE(bn254, BN254_PAIRING_LINES)

ZKPIPE_EXTERN_C_END

#endif
