/* BN254's table: proofs and key files in the uncompressed EIP-196/197 layout; "bn128" in
 * snarkjs. */
#include "ec/bn254_g1.h"
#include "ec/bn254_g2.h"
#include "ec/bn254_pairing.h"
#include "ff/bn254_fq2_x8.h"
#include "ff/bn254_fq_x8.h"

#define CO_C bn254
#define CO_CURVE ZKPIPE_CURVE_BN254
#define CO_SNARKJS_NAME "bn128"
#define CO_PROOF_G1_BYTES BN254_G1_UNCOMPRESSED_BYTES
#define CO_PROOF_G2_BYTES BN254_G2_UNCOMPRESSED_BYTES
#define CO_PROOF_G1_WRITE bn254_g1_to_uncompressed
#define CO_PROOF_G1_READ bn254_g1_from_uncompressed
#define CO_PROOF_G2_WRITE bn254_g2_to_uncompressed
#define CO_PROOF_G2_READ bn254_g2_from_uncompressed
#define CO_KEY_G1_BYTES BN254_G1_UNCOMPRESSED_BYTES
#define CO_KEY_G2_BYTES BN254_G2_UNCOMPRESSED_BYTES
#define CO_KEY_G1_WRITE bn254_g1_to_uncompressed
#define CO_KEY_G1_READ bn254_g1_from_uncompressed
#define CO_KEY_G2_WRITE bn254_g2_to_uncompressed
#define CO_KEY_G2_READ bn254_g2_from_uncompressed

#include "arith/curve_ops_impl.h"
