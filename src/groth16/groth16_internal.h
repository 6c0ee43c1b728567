/* The Groth16 keys' common headers and the per-curve function tables behind
 * zkpipe/groth16.h, plus the internal prover entry the engine (and the tests) use.
 *
 * Each curve's code (groth16_bls12_381.c, groth16_bn254.c, written once in the *_impl.h
 * templates) embeds these headers as the first member of its own key structs, so a public
 * handle points at the curve's struct and the public functions dispatch through `ops`. */
#ifndef ZKPIPE_GROTH16_GROTH16_INTERNAL_H
#define ZKPIPE_GROTH16_GROTH16_INTERNAL_H

#include "groth16/synth.h"
#include "zkpipe/backend.h"
#include "zkpipe/groth16.h"

typedef struct zkpipe__g16_ops zkpipe__g16_ops;

struct zkpipe_groth16_pk {
    zkpipe_allocator allocator;
    const zkpipe__g16_ops *ops;
    size_t num_inputs, num_aux;
    unsigned log_n;
    size_t num_a, num_b; /* points in the A query and in each B query: the dense variables */
    size_t bytes;        /* the whole block */
};

struct zkpipe_groth16_vk {
    zkpipe_allocator allocator;
    const zkpipe__g16_ops *ops;
    size_t num_inputs;
    size_t bytes;
};

struct zkpipe_groth16_pvk {
    zkpipe_allocator allocator;
    const zkpipe__g16_ops *ops;
    size_t num_inputs;
};

/* Scalars here are 4-limb Montgomery elements of the curve's Fr (r1cs.h's layout). */
struct zkpipe__g16_ops {
    zkpipe_curve curve;
    size_t proof_bytes;
    /* toxic: tau, alpha, beta, gamma, delta (tau not in the domain, the others non-zero). */
    zkpipe_status (*setup)(zkpipe_groth16_pk **pk, zkpipe_groth16_vk **vk, const zkpipe_cs *cs,
                           const uint64_t *toxic, zkpipe_pool *pool, const zkpipe_allocator *a);
    zkpipe_status (*prove)(uint8_t *proof, size_t *first_failing, zkpipe_groth16_timings *t,
                           const zkpipe_groth16_pk *pk, zkpipe__synth_result *res,
                           const uint64_t *r, const uint64_t *s, zkpipe_pool *pool);
    /* prove with h's NTTs and the G1 MSMs on the GPU; NULL without the CUDA backend. */
    zkpipe_status (*prove_cuda)(uint8_t *proof, size_t *first_failing, zkpipe_groth16_timings *t,
                                const zkpipe_groth16_pk *pk, zkpipe__synth_result *res,
                                const uint64_t *r, const uint64_t *s, zkpipe_pool *pool);
    zkpipe_status (*pvk_create)(zkpipe_groth16_pvk **out, const zkpipe_groth16_vk *vk,
                                const zkpipe_allocator *a);
    zkpipe_status (*verify)(const zkpipe_groth16_pvk *pvk, const zkpipe_scalar *inputs,
                            const uint8_t *proof);
    zkpipe_status (*proof_check)(const uint8_t *proof);
    size_t (*vk_encoded_bytes)(const zkpipe_groth16_vk *vk);
    void (*vk_encode)(uint8_t *out, const zkpipe_groth16_vk *vk);
    zkpipe_status (*vk_decode)(zkpipe_groth16_vk **out, const uint8_t *in, size_t len,
                               const zkpipe_allocator *a);
    size_t (*pk_encoded_bytes)(const zkpipe_groth16_pk *pk);
    void (*pk_encode)(uint8_t *out, const zkpipe_groth16_pk *pk);
    zkpipe_status (*pk_decode)(zkpipe_groth16_pk **out, const uint8_t *in, size_t len,
                               const zkpipe_allocator *a);
    /* h's n coefficients from a synthesis result's a, b, c (left in place, transformed). */
    zkpipe_status (*quotient)(uint64_t *h, zkpipe__synth_result *res, zkpipe_pool *pool);
    /* The most a proof with `pk` on pools of `threads` threads charges to the result's ledger
     * as kind WORKSPACE at once (NTT domain, MSM scratch); UINT64_MAX for absurd sizes. */
    uint64_t (*workspace_bytes)(const zkpipe_groth16_pk *pk, unsigned threads);
};

extern const zkpipe__g16_ops zkpipe__g16_bls12_381_ops;
extern const zkpipe__g16_ops zkpipe__g16_bn254_ops;

/* The table for `curve`, or NULL. */
const zkpipe__g16_ops *zkpipe__g16_ops_for(zkpipe_curve curve);

/* The key-file header: magic (8 bytes), version, curve. */
#define ZKPIPE__G16_HEADER_BYTES 16
#define ZKPIPE__G16_VERSION 2u
void zkpipe__g16_write_header(uint8_t *out, const char *magic, zkpipe_curve curve);
/* ZKPIPE_OK or ZKPIPE_EFORMAT (short, wrong magic, version or curve). */
zkpipe_status zkpipe__g16_check_header(const uint8_t *in, size_t len, const char *magic,
                                       zkpipe_curve curve);
void zkpipe__g16_put_u64(uint8_t *out, uint64_t v);
uint64_t zkpipe__g16_get_u64(const uint8_t *in);

/* Fills `out` with n bytes from getrandom. ZKPIPE_OK or ZKPIPE_EIO. */
zkpipe_status zkpipe__g16_os_random(uint8_t *out, size_t n);

/* A uniform non-zero scalar of `curve`'s Fr (Montgomery form) from OS randomness.
 * ZKPIPE_OK or ZKPIPE_EIO. */
zkpipe_status zkpipe__g16_random_scalar(uint64_t *out, zkpipe_curve curve);

/* The five toxic scalars (tau, alpha, beta, gamma, delta) from a 32-byte seed, as documented
 * at zkpipe_groth16_setup_insecure; tau^n != 1 for n = 2^log_n. */
void zkpipe__g16_toxic_from_seed(uint64_t *toxic, zkpipe_curve curve, const uint8_t *seed,
                                 unsigned log_n);

/* The prover on a synthesis result (the engine's entry): consumes *res (every buffer is freed
 * and released from res->ledger before it returns, whatever the status) and uses r and s
 * (Montgomery Fr) as the blinding factors. The ledger moves as zkpipe_groth16_prove says.
 * `backend`: ZKPIPE_BACKEND_CPU; ZKPIPE_BACKEND_CUDA where the CUDA backend is built and a
 * device is present (else ZKPIPE_ENODEVICE, res consumed), then h's NTTs and the G1 MSMs run on
 * the GPU, B (G2) on a CPU thread with the pool, and the proof's bytes are the CPU backend's
 * for the same r and s (a failing CUDA call gives ZKPIPE_EDEVICE); ZKPIPE_BACKEND_AUTO: as
 * zkpipe_backend_resolve picks.
 * Returns as zkpipe_groth16_prove. timings may be NULL; its synth field is left alone. */
zkpipe_status zkpipe__groth16_prove_synth(zkpipe_groth16_proof *out, size_t *first_failing,
                                          zkpipe_groth16_timings *timings,
                                          const zkpipe_groth16_pk *pk, zkpipe__synth_result *res,
                                          const uint64_t *r, const uint64_t *s, zkpipe_pool *pool,
                                          zkpipe_backend backend);

/* Seconds on CLOCK_MONOTONIC. */
double zkpipe__g16_now(void);

#endif
