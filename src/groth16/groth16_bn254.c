/* Groth16 over BN254: proofs and keys in the uncompressed EIP-196/197 point layout. */
#include "ec/bn254_g1.h"
#include "ec/bn254_g2.h"
#include "ec/bn254_pairing.h"

#define G16_C bn254
#define CURVE ZKPIPE_CURVE_BN254
#include "groth16/groth16_names.h"

#define KEY_G1_BYTES BN254_G1_UNCOMPRESSED_BYTES
#define KEY_G2_BYTES BN254_G2_UNCOMPRESSED_BYTES
#define PROOF_G1_BYTES BN254_G1_UNCOMPRESSED_BYTES
#define PROOF_G2_BYTES BN254_G2_UNCOMPRESSED_BYTES
#define key_g1_write bn254_g1_to_uncompressed
#define key_g1_read bn254_g1_from_uncompressed
#define key_g2_write bn254_g2_to_uncompressed
#define key_g2_read bn254_g2_from_uncompressed
#define proof_g1_write bn254_g1_to_uncompressed
#define proof_g1_read bn254_g1_from_uncompressed
#define proof_g2_write bn254_g2_to_uncompressed
#define proof_g2_read bn254_g2_from_uncompressed

#include "groth16/groth16_template.h"
