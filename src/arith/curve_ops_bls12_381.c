/* BLS12-381's table: proofs in bellman's layout (compressed zcash points), key files
 * uncompressed; "bls12381" in snarkjs. */
#include "ec/bls12_381_g1.h"
#include "ec/bls12_381_g2.h"
#include "ec/bls12_381_pairing.h"
#include "ff/bls12_381_fq2_x8.h"
#include "ff/bls12_381_fq_x8.h"

#define CO_C bls12_381
#define CO_CURVE ZKPIPE_CURVE_BLS12_381
#define CO_SNARKJS_NAME "bls12381"
#define CO_PROOF_G1_BYTES BLS12_381_G1_COMPRESSED_BYTES
#define CO_PROOF_G2_BYTES BLS12_381_G2_COMPRESSED_BYTES
#define CO_PROOF_G1_WRITE bls12_381_g1_to_compressed
#define CO_PROOF_G1_READ bls12_381_g1_from_compressed
#define CO_PROOF_G2_WRITE bls12_381_g2_to_compressed
#define CO_PROOF_G2_READ bls12_381_g2_from_compressed
#define CO_KEY_G1_BYTES BLS12_381_G1_UNCOMPRESSED_BYTES
#define CO_KEY_G2_BYTES BLS12_381_G2_UNCOMPRESSED_BYTES
#define CO_KEY_G1_WRITE bls12_381_g1_to_uncompressed
#define CO_KEY_G1_READ bls12_381_g1_from_uncompressed
#define CO_KEY_G2_WRITE bls12_381_g2_to_uncompressed
#define CO_KEY_G2_READ bls12_381_g2_from_uncompressed

#include "arith/curve_ops_impl.h"
