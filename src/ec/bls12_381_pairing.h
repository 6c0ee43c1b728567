/* The optimal ate pairing on BLS12-381: e : G1 × G2 → GT ⊂ Fq12* (tower of ff/bls12_381_fq12.h).
 *
 * Values match @noble/curves (and so tests/vectors/bls12_381_pairing.txt): the Miller loop
 * value f raised to 3 (q^12 - 1)/r. The factor 3 comes from the final exponentiation's
 * addition chain; it is coprime to r, so e stays bilinear and non-degenerate.
 *
 * Not constant-time. No allocation (up to a few KiB of stack), no global state: every function
 * may run concurrently on distinct outputs. Pointers must not be NULL (arrays may be when
 * n = 0). Inputs must be valid group elements (decoded with a subgroup check, or computed). */
#ifndef ZKPIPE_EC_BLS12_381_PAIRING_H
#define ZKPIPE_EC_BLS12_381_PAIRING_H

#include "ec/bls12_381_g1.h"
#include "ec/bls12_381_g2.h"
#include "ff/bls12_381_fq12.h"

ZKPIPE_EXTERN_C_BEGIN

/*! bls12_381_miller_loop() : f = the product over i < n of the Miller loop values of
 * (p[i], q[i]); pairs with a point at infinity contribute 1. Not yet a pairing value: apply
 * bls12_381_final_exp to the product of all the loops that are to be compared. */
void bls12_381_miller_loop(bls12_381_fq12 *f, const bls12_381_g1_affine *p,
                           const bls12_381_g2_affine *q, size_t n);

/*! bls12_381_final_exp() : r = f^(3 (q^12 - 1)/r). r may alias f. */
void bls12_381_final_exp(bls12_381_fq12 *r, const bls12_381_fq12 *f);

/*! bls12_381_pairing() : r = the product over i < n of e(p[i], q[i]): one Miller loop per pair
 * (pairs sharing the squarings) and one final exponentiation. n = 0 gives 1. */
void bls12_381_pairing(bls12_381_fq12 *r, const bls12_381_g1_affine *p,
                       const bls12_381_g2_affine *q, size_t n);

ZKPIPE_EXTERN_C_END

#endif
