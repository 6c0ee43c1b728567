/* Short names for test code written once per curve (io_tiny_impl.h): a file defines G16_C (the
 * curve's prefix, e.g. bls12_381) and includes this, then its per-curve template. */
#ifndef ZKPIPE_TESTS_CURVE_NAMES_H
#define ZKPIPE_TESTS_CURVE_NAMES_H

#define G16_CAT_(a, b) a##b
#define G16_CAT(a, b) G16_CAT_(a, b)

#define FR G16_CAT(G16_C, _fr)
#define G1 G16_CAT(G16_C, _g1)
#define G2 G16_CAT(G16_C, _g2)
#define G1A G16_CAT(G1, _affine)
#define G2A G16_CAT(G2, _affine)

#define FRF(op) G16_CAT(FR, _##op)
#define G1F(op) G16_CAT(G1, _##op)
#define G2F(op) G16_CAT(G2, _##op)
#define NTT(op) G16_CAT(G16_CAT(zkpipe__, FR), _##op)

#endif
