/* The io code for BN254 ("bn128" in snarkjs): proofs in zkpipe/groth16.h's encoding
 * (uncompressed EIP-196/197 points). */
#include "ec/bn254_g1.h"
#include "ec/bn254_g2.h"
#include "ec/bn254_pairing.h"

#define G16_C bn254
#define CURVE ZKPIPE_CURVE_BN254
#define SNARKJS_NAME "bn128"
#define FQ bn254_fq
#include "groth16/groth16_names.h"

#define PROOF_G1_BYTES BN254_G1_UNCOMPRESSED_BYTES
#define PROOF_G2_BYTES BN254_G2_UNCOMPRESSED_BYTES
#define proof_g1_write bn254_g1_to_uncompressed
#define proof_g1_read bn254_g1_from_uncompressed
#define proof_g2_write bn254_g2_to_uncompressed
#define proof_g2_read bn254_g2_from_uncompressed

#include "io/curve_impl.h"
