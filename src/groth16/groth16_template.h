/* The per-curve Groth16 code, expanded once per curve by groth16_<curve>.c after it has
 * defined G16_C and its point codecs (see groth16_names.h): the templates in order, then the
 * curve's ops table. */
#include <pthread.h>
#include <string.h>

#include "acct/charged_alloc.h"
#include "core/alloc_internal.h"
#include "groth16/fixed_base_impl.h"
#include "groth16/groth16_internal.h"
#include "msm/msm.h"
#include "poly/ntt.h"

/* An indirection so that G1, G2 and FR are expanded before the template pastes them. */
#define G16_DEFINE_FIXED_BASE(G, F) ZKPIPE__G16_DEFINE_FIXED_BASE(G, F)
G16_DEFINE_FIXED_BASE(G1, FR)
G16_DEFINE_FIXED_BASE(G2, FR)

#include "groth16/keys_impl.h"
#include "groth16/qap_impl.h"
#include "groth16/setup_impl.h"
#include "groth16/quotient_impl.h"
#include "groth16/prove_impl.h"
#include "groth16/verify_impl.h"
#ifdef ZKPIPE_HAVE_CUDA
#include "groth16/gpu_prove_impl.h"
#define PROVE_CUDA prove_cuda
#else
#define PROVE_CUDA NULL
#endif

const zkpipe__g16_ops OPS = {
    .curve = CURVE,
    .proof_bytes = 2 * PROOF_G1_BYTES + PROOF_G2_BYTES,
    .setup = setup,
    .prove = prove,
    .prove_cuda = PROVE_CUDA,
    .pvk_create = pvk_create,
    .verify = verify,
    .proof_check = proof_check,
    .vk_encoded_bytes = vk_encoded_bytes,
    .vk_encode = vk_encode,
    .vk_decode = vk_decode,
    .pk_encoded_bytes = pk_encoded_bytes,
    .pk_encode = pk_encode,
    .pk_decode = pk_decode,
    .quotient = quotient,
    .workspace_bytes = workspace_bytes,
};
