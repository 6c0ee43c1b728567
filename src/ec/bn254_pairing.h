/* The optimal ate pairing on BN254: e : G1 × G2 → GT ⊂ Fq12* (tower of ff/bn254_fq12.h).
 *
 * Values match @noble/curves (and so tests/vectors/bn254_pairing.txt): the Miller loop value f
 * raised to m (q^12 - 1)/r with m = 2x(6x² + 3x + 1), x = 4965661367192848881, a multiple that
 * comes from the final exponentiation of Fuentes-Castañeda, Knapp and Rodríguez-Henríquez; it
 * is coprime to r, so e stays bilinear and non-degenerate.
 *
 * Not constant-time. No allocation (up to a few KiB of stack), no global state: every function
 * may run concurrently on distinct outputs. Pointers must not be NULL (arrays may be when
 * n = 0). Inputs must be valid group elements (decoded with a subgroup check, or computed). */
#ifndef ZKPIPE_EC_BN254_PAIRING_H
#define ZKPIPE_EC_BN254_PAIRING_H

#include "ec/bn254_g1.h"
#include "ec/bn254_g2.h"
#include "ff/bn254_fq12.h"

ZKPIPE_EXTERN_C_BEGIN

/*! bn254_miller_loop() : f = the product over i < n of the Miller loop values of (p[i], q[i]),
 * including the two Frobenius additions of the optimal ate loop; pairs with a point at
 * infinity contribute 1. Apply bn254_final_exp to the product of the loops to compare. */
void bn254_miller_loop(bn254_fq12 *f, const bn254_g1_affine *p, const bn254_g2_affine *q, size_t n);

/*! bn254_final_exp() : r = f^(m (q^12 - 1)/r), m as above. r may alias f. */
void bn254_final_exp(bn254_fq12 *r, const bn254_fq12 *f);

/*! bn254_pairing() : r = the product over i < n of e(p[i], q[i]): one Miller loop per pair
 * (pairs sharing the squarings) and one final exponentiation. n = 0 gives 1. */
void bn254_pairing(bn254_fq12 *r, const bn254_g1_affine *p, const bn254_g2_affine *q, size_t n);

ZKPIPE_EXTERN_C_END

#endif
