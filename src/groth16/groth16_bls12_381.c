/* Groth16 over BLS12-381: proofs in bellman's layout (compressed points), keys uncompressed. */
#include "ec/bls12_381_g1.h"
#include "ec/bls12_381_g2.h"
#include "ec/bls12_381_pairing.h"

#define G16_C bls12_381
#define CURVE ZKPIPE_CURVE_BLS12_381
#include "groth16/groth16_names.h"

#define KEY_G1_BYTES BLS12_381_G1_UNCOMPRESSED_BYTES
#define KEY_G2_BYTES BLS12_381_G2_UNCOMPRESSED_BYTES
#define PROOF_G1_BYTES BLS12_381_G1_COMPRESSED_BYTES
#define PROOF_G2_BYTES BLS12_381_G2_COMPRESSED_BYTES
#define key_g1_write bls12_381_g1_to_uncompressed
#define key_g1_read bls12_381_g1_from_uncompressed
#define key_g2_write bls12_381_g2_to_uncompressed
#define key_g2_read bls12_381_g2_from_uncompressed
#define proof_g1_write bls12_381_g1_to_compressed
#define proof_g1_read bls12_381_g1_from_compressed
#define proof_g2_write bls12_381_g2_to_compressed
#define proof_g2_read bls12_381_g2_from_compressed

#include "groth16/groth16_template.h"
