/* The optimal ate pairing on BLS12-381, e: G1 × G2 → μ_r ⊂ Fq12 (the functions, types and rules
 * of ec/pairing.h with C = bls12_381). The Miller loop runs over the loop parameter
 * x = -0xd201000000010000 on the M-type twist y² = x³ + 4(1 + u); the final exponentiation
 * raises to 3 (p¹² - 1)/r, as noble does (and zkcrypto: its well-known e(G1, G2) is our
 * vector), so values match theirs coefficient for coefficient. */
#ifndef ZKPIPE_EC_BLS12_381_PAIRING_H
#define ZKPIPE_EC_BLS12_381_PAIRING_H

#include "ec/bls12_381_g1.h"
#include "ec/bls12_381_g2.h"
#include "ec/pairing.h"
#include "ff/bls12_381_fq12.h"

/* Lines per prepared point: 63 doublings and 5 additions (the set bits of |x| below the top). */
#define BLS12_381_PAIRING_LINES 68

ZKPIPE_EXTERN_C_BEGIN

ZKPIPE__PAIRING_DECLARE(bls12_381, BLS12_381_PAIRING_LINES)

ZKPIPE_EXTERN_C_END

#endif
