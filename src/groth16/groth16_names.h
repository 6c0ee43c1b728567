/* Short names for the per-curve Groth16 template (keys_impl.h, qap_impl.h, setup_impl.h,
 * quotient_impl.h, prove_impl.h, verify_impl.h). A groth16_<curve>.c file defines G16_C (the
 * curve's prefix, e.g. bls12_381), includes this file, defines the point codecs the
 * templates use, then includes the templates. Every name the templates define is static,
 * except the ops table OPS that the .c file fills in. */
#ifndef ZKPIPE_GROTH16_GROTH16_NAMES_H
#define ZKPIPE_GROTH16_GROTH16_NAMES_H

#define G16_CAT_(a, b) a##b
#define G16_CAT(a, b) G16_CAT_(a, b)

#define FR G16_CAT(G16_C, _fr)
#define FR_TWO_ADICITY G16_CAT(FR, _TWO_ADICITY)
#define FQ12 G16_CAT(G16_C, _fq12)
#define G1 G16_CAT(G16_C, _g1)
#define G2 G16_CAT(G16_C, _g2)
#define G1A G16_CAT(G1, _affine)
#define G2A G16_CAT(G2, _affine)
#define G2P G16_CAT(G2, _prepared)
#define DOMAIN G16_CAT(G16_CAT(zkpipe__, FR), _domain)
#define OPS G16_CAT(G16_CAT(zkpipe__g16_, G16_C), _ops)

#define FRF(op) G16_CAT(FR, _##op)
#define FQ12F(op) G16_CAT(FQ12, _##op)
#define G1F(op) G16_CAT(G1, _##op)
#define G2F(op) G16_CAT(G2, _##op)
#define G1FB(op) G16_CAT(G1, __fb_##op)
#define G2FB(op) G16_CAT(G2, __fb_##op)
#define PAIRING(op) G16_CAT(G16_C, _##op)
#define NTT(op) G16_CAT(G16_CAT(zkpipe__, FR), _##op)
#define MSM1 G16_CAT(G16_CAT(zkpipe__msm_, G1), _ex)
#define MSM2 G16_CAT(G16_CAT(zkpipe__msm_, G2), _ex)
#define MSM1_SCRATCH G16_CAT(G16_CAT(zkpipe__msm_, G1), _scratch_bytes)
#define MSM2_SCRATCH G16_CAT(G16_CAT(zkpipe__msm_, G2), _scratch_bytes)

#endif
