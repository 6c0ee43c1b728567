/* The io code for BLS12-381 ("bls12381" in snarkjs): proofs in zkpipe/groth16.h's encoding
 * (compressed zcash points). */
#include "ec/bls12_381_g1.h"
#include "ec/bls12_381_g2.h"
#include "ec/bls12_381_pairing.h"

#define G16_C bls12_381
#define CURVE ZKPIPE_CURVE_BLS12_381
#define SNARKJS_NAME "bls12381"
#define FQ bls12_381_fq
#include "groth16/groth16_names.h"

#define PROOF_G1_BYTES BLS12_381_G1_COMPRESSED_BYTES
#define PROOF_G2_BYTES BLS12_381_G2_COMPRESSED_BYTES
#define proof_g1_write bls12_381_g1_to_compressed
#define proof_g1_read bls12_381_g1_from_compressed
#define proof_g2_write bls12_381_g2_to_compressed
#define proof_g2_read bls12_381_g2_from_compressed

#include "io/curve_impl.h"
