/*! zkpipe/groth16.h : Groth16 keys, proofs, setup, prover and verifier, for BLS12-381 and
 * BN254.
 *
 * Keys are opaque, curve-tagged handles: a proving key (zkpipe_groth16_pk), a verifying key
 * (zkpipe_groth16_vk) and a prepared verifying key (zkpipe_groth16_pvk) for fast verification.
 * A proving key comes from zkpipe's setup or key files (proved from a zkpipe_cs with
 * zkpipe_groth16_prove), or is a circom zkey's (zkpipe_zkey_pk in zkpipe/io.h; proved from a
 * witness with zkpipe_groth16_prove_witness). A verifying key comes from either, or from
 * snarkjs's verification_key.json (zkpipe_snarkjs_vk_parse); one verifier checks every proof.
 * A proof is a plain value holding its wire encoding:
 *   BLS12-381: 192 bytes, A (G1, 48 compressed) ‖ B (G2, 96 compressed) ‖ C (G1, 48
 *              compressed), the zcash/IETF point layout, as bellman writes proofs;
 *   BN254:     256 bytes, A (G1, 64) ‖ B (G2, 128) ‖ C (G1, 64) in the uncompressed EIP-196 /
 *              EIP-197 layout (x ‖ y big-endian; Fq2 as c1 ‖ c0; infinity as zeros).
 *
 * Variables follow zkpipe/circuit.h: the inputs come first, input 0 being the constant one.
 * The verifier takes the public inputs without that one (num_inputs - 1 of them).
 *
 * Key bytes (zkpipe_groth16_vk_encode, zkpipe_groth16_pk_encode): a 16-byte header
 *   magic "ZKG16VK\0" or "ZKG16PK\0" (8 bytes), version (u32 LE, 2), curve (u32 LE)
 * then u64 LE counts and points, each point uncompressed (BLS12-381: 96 bytes per G1, 192 per
 * G2, zcash layout; BN254: 64 / 128, EIP-196/197 layout):
 *   vk: num_inputs, alpha1, beta2, gamma2, delta2, IC[num_inputs]
 *   pk: num_inputs, num_aux, log_n, num_a, num_b, alpha1, beta1, beta2, delta1, delta2,
 *       density_a[w], density_b[w] (u64 LE words, w = ceil((num_inputs + num_aux) / 64)),
 *       A[num_a], B1[num_b], B2[num_b], L[num_aux], H[2^log_n - 1]
 * Bit v of density_a (density_b), bit v % 64 of word v / 64, is set when variable v (inputs
 * first) has a non-zero coefficient in some A (B) row of the constraint system, every input
 * counting in A; the A and B queries hold points for those variables only, in order, so
 * num_a and num_b are the bitmaps' popcounts. A witness whose constraints have another
 * density is refused by the prover (ZKPIPE_EMISMATCH).
 * Decoding validates everything (magic, version, curve, sizes, the bitmaps against num_a and
 * num_b with no bit past the variables and every input set in A, every point on the curve
 * and in the prime-order subgroup).
 *
 * Nothing here is constant-time: do not run the prover where timing may leak the witness. */
#ifndef ZKPIPE_GROTH16_H
#define ZKPIPE_GROTH16_H

#include "zkpipe/acct.h"
#include "zkpipe/alloc.h"
#include "zkpipe/backend.h"
#include "zkpipe/circuit.h"
#include "zkpipe/common.h"
#include "zkpipe/curve.h"
#include "zkpipe/pool.h"
#include "zkpipe/status.h"

ZKPIPE_EXTERN_C_BEGIN

#define ZKPIPE_GROTH16_PROOF_MAX_BYTES 256
#define ZKPIPE_GROTH16_SEED_BYTES 32

/* A proof: `size` bytes of its encoding (see above) in `bytes`, for `curve`. */
typedef struct zkpipe_groth16_proof {
    zkpipe_curve curve;
    size_t size;
    uint8_t bytes[ZKPIPE_GROTH16_PROOF_MAX_BYTES];
} zkpipe_groth16_proof;

/* Keys. Opaque and immutable once made: any number of threads may use one key at once. */
typedef struct zkpipe_groth16_pk zkpipe_groth16_pk;
typedef struct zkpipe_groth16_vk zkpipe_groth16_vk;
typedef struct zkpipe_groth16_pvk zkpipe_groth16_pvk;

/* Wall-clock seconds per prover phase (zkpipe_groth16_prove, zkpipe_groth16_prove_witness). */
typedef struct zkpipe_groth16_timings {
    double synth;  /* a, b, c: synthesis of the circuit, or from the zkey's coefficients */
    double h;      /* satisfaction check, the transforms of h */
    double msm_a;  /* A = alpha + sum z_i A_i + r delta */
    double msm_b1; /* B in G1 (for C) */
    double msm_b2; /* B in G2 (on a device backend: its thread's, beside the G1 MSMs) */
    double msm_c;  /* the L (zkey: C) and H queries */
    double verify; /* the check against the verifying key (prove_witness) */
    double total;
} zkpipe_groth16_timings;

/*! zkpipe_groth16_setup_insecure() : a proving and a verifying key for the circuit `cs`
 * (either mode: only its shape is read), from toxic waste derived deterministically from
 * `seed`. INSECURE, FOR TESTS AND EXAMPLES ONLY: whoever knows the seed knows the trapdoor
 * and can forge proofs for these keys.
 * Expansion: four splitmix64 streams, stream k starting at the seed's k-th little-endian
 * 64-bit word; each candidate scalar takes limb k from stream k, its top limb masked to the
 * bit length of r, and is accepted when below r and non-zero. Accepted in turn: tau (also
 * rejected when tau^n = 1), alpha, beta, gamma, delta.
 * @param out_pk, out_vk receive the keys (caller owns; free with the destroy functions).
 * @param pool runs the scalar multiplications (NULL: the caller alone).
 * @param allocator NULL for the C library; copied into both keys and used for all memory.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (a NULL pointer, allocator incomplete), ZKPIPE_ETOOBIG
 *         (the domain is too large for the field), ZKPIPE_ENOMEM. On error nothing is
 *         returned and nothing leaks.
 * Allocates: the proving key (about 3 G1 points, 1 G1 per A-dense variable, 1 G1 and 1 G2 per
 * B-dense variable, 1 G1 per aux, n - 1 G1 for H, and 4 density bitmaps of 1 bit per variable;
 * see zkpipe_groth16_pk_sizeof), the verifying key, a domain (32 n bytes), and scratch freed
 * before returning: 32 (3 n + 3 variables) bytes of scalars, the 2 density bitmaps, and about
 * 5 MB of window tables and Jacobian points.
 * Thread safety: cs is only read. */
ZKPIPE_API zkpipe_status zkpipe_groth16_setup_insecure(zkpipe_groth16_pk **out_pk,
                                                       zkpipe_groth16_vk **out_vk,
                                                       const zkpipe_cs *cs, const uint8_t *seed,
                                                       zkpipe_pool *pool,
                                                       const zkpipe_allocator *allocator);

/*! zkpipe_groth16_setup_zkey_insecure() : as zkpipe_groth16_setup_insecure (the same seed
 * expansion, INSECURE, FOR TESTS AND BENCHMARKS ONLY), but keys in a circom zkey's layout, for
 * zkpipe_zkey_write: a point per variable in A, B1, B2, one per private variable in C, n H
 * points for h's values on the odd coset (as snarkjs's setup makes them), gamma the generator,
 * the A and B coefficients, and the contribution name "INSECURE ..." the zkey carries. The
 * variables are cs's in order (inputs, the one first, then aux): write cs with
 * zkpipe_r1cs_write for the matching r1cs.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (a NULL pointer, allocator incomplete), ZKPIPE_ETOOBIG (the
 *         domain of size 2n does not exist in Fr, or counts beyond a zkey's 32 bits),
 *         ZKPIPE_ENOMEM. On error nothing is returned and nothing leaks.
 * Allocates: the proving key (a zkey's size: 4 G1 and 1 G2 point per variable, n G1, 44 bytes
 * per A or B term), the verifying key, and scratch freed before returning: 32 (2 max(n, vars)
 * + 4 vars) bytes of scalars and about 5 MB of window tables.
 * Thread safety: cs is only read. */
ZKPIPE_API zkpipe_status zkpipe_groth16_setup_zkey_insecure(zkpipe_groth16_pk **out_pk,
                                                            zkpipe_groth16_vk **out_vk,
                                                            const zkpipe_cs *cs,
                                                            const uint8_t *seed, zkpipe_pool *pool,
                                                            const zkpipe_allocator *allocator);

/* What a zkey setup takes of a phase-2-prepared powers of tau (zkpipe_ptau_points in
 * zkpipe/io.h fills it from a .ptau file, its points checked): packed affine points as the
 * file holds them (coordinates little-endian in Montgomery form, any alignment), borrowed. */
typedef struct zkpipe_groth16_ptau {
    zkpipe_curve curve;
    unsigned log_n;        /* the circuit's level: n = 2^log_n */
    const uint8_t *tau_g1; /* tau^i G1 from i = 0, tau_g1_count points readable */
    size_t tau_g1_count;
    const uint8_t *alpha_g1, *beta_g1, *beta_g2; /* alpha G1, beta G1, beta G2 */
    /* The Lagrange bases of the domain of size n at tau: n points each. */
    const uint8_t *lagrange_tau_g1, *lagrange_alpha_g1, *lagrange_beta_g1, *lagrange_tau_g2;
    const uint8_t *lagrange_tau_g1_2n; /* of the domain of size 2n: 2n points */
} zkpipe_groth16_ptau;

/*! zkpipe_groth16_setup_zkey_ptau() : the keys snarkjs's `groth16 setup` makes for cs from a
 * prepared powers of tau, in a zkey's layout with its circuit hash, so that zkpipe_zkey_write
 * writes the file snarkjs writes (before any contribution: delta = 1; not for production until
 * a contribution, as with snarkjs). Where pt's power is cs's level and the domain is 2^15 or
 * more, snarkjs's circuit hash takes a point read past the ptau's tauG1 section (pt->tau_g1
 * must then hold the file's bytes from there on, as zkpipe_ptau_points gives them), and this
 * one takes the same, computed as snarkjs computes it. cs is the r1cs loaded with
 * zkpipe_r1cs_load, terms in the file's order.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (a NULL pointer, allocator incomplete), ZKPIPE_EMISMATCH
 *         (pt is for another curve or level than cs needs, or holds too few powers),
 *         ZKPIPE_ETOOBIG (as zkpipe_groth16_setup_zkey_insecure), ZKPIPE_ENOMEM. On error
 *         nothing is returned and nothing leaks.
 * Allocates the keys (as zkpipe_groth16_setup_zkey_insecure) and scratch freed before it
 * returns: the terms by variable (12 bytes per term plus 8 per variable), and for a variable
 * with more than 512 terms its points and scalars and the MSM's scratch.
 * Thread safety: cs and pt are only read. */
ZKPIPE_API zkpipe_status zkpipe_groth16_setup_zkey_ptau(
    zkpipe_groth16_pk **out_pk, zkpipe_groth16_vk **out_vk, const zkpipe_cs *cs,
    const zkpipe_groth16_ptau *pt, zkpipe_pool *pool, const zkpipe_allocator *allocator);

/*! zkpipe_groth16_pk_destroy() / _vk_destroy() / _pvk_destroy() : free a key. NULL is a no-op.
 * Thread safety: no other call may be using the key. */
ZKPIPE_API void zkpipe_groth16_pk_destroy(zkpipe_groth16_pk *pk);
ZKPIPE_API void zkpipe_groth16_vk_destroy(zkpipe_groth16_vk *vk);
ZKPIPE_API void zkpipe_groth16_pvk_destroy(zkpipe_groth16_pvk *pvk);

/*! Key properties; NULL gives ZKPIPE_CURVE_COUNT or 0.
 * zkpipe_groth16_pk_curve() / _vk_curve() : the curve.
 * zkpipe_groth16_pk_num_inputs() / _vk_num_inputs() : inputs including the one.
 * zkpipe_groth16_pk_num_aux() : aux variables.
 * zkpipe_groth16_pk_num_a() / _num_b() : variables dense in A / B (see the key bytes above):
 *   the points of the A query / of each B query.
 * zkpipe_groth16_pk_sizeof() : bytes the proving key holds.
 * Thread safety: any thread. They do not allocate. */
ZKPIPE_API zkpipe_curve zkpipe_groth16_pk_curve(const zkpipe_groth16_pk *pk);
ZKPIPE_API zkpipe_curve zkpipe_groth16_vk_curve(const zkpipe_groth16_vk *vk);
ZKPIPE_API size_t zkpipe_groth16_pk_num_inputs(const zkpipe_groth16_pk *pk);
ZKPIPE_API size_t zkpipe_groth16_pk_num_aux(const zkpipe_groth16_pk *pk);
ZKPIPE_API size_t zkpipe_groth16_pk_num_a(const zkpipe_groth16_pk *pk);
ZKPIPE_API size_t zkpipe_groth16_pk_num_b(const zkpipe_groth16_pk *pk);
ZKPIPE_API size_t zkpipe_groth16_vk_num_inputs(const zkpipe_groth16_vk *vk);
ZKPIPE_API size_t zkpipe_groth16_pk_sizeof(const zkpipe_groth16_pk *pk);

/*! zkpipe_groth16_prove() : a proof that the witness in `cs` satisfies it, under `pk`, with
 * blinding factors r and s read from the operating system (getrandom).
 * The constraints are checked on the synthesized evaluations before any proving work: an
 * unsatisfied system gives ZKPIPE_EUNSATISFIED and the index of its first failing constraint,
 * never a proof. A key from a zkey proves a zkpipe_cs too when its variables and rows are the
 * zkey's (zkpipe_r1cs_load builds such a system).
 * @param out receives the proof (untouched on error).
 * @param first_failing receives the failing constraint's index on ZKPIPE_EUNSATISFIED; may be
 *        NULL.
 * @param timings receives per-phase times on ZKPIPE_OK; may be NULL.
 * @param pool runs synthesis, the NTTs and the G1 MSMs (NULL: the caller alone).
 * @param ledger NULL, or an open ledger the call accounts its buffers in: synthesis charges
 *        a/b/c, input, aux and density; the prover moves the ledger to ZKPIPE_STAGE_PROVING,
 *        computes h in a's buffer (charged as ZKPIPE_KIND_H instead of ZKPIPE_KIND_ABC),
 *        releases b and c as soon as h exists and h as soon as its MSM is done,
 *        charges its working memory (NTT domain, MSM scratch: on the CPU one block the MSMs
 *        share from the first to the last; each block with a header of 16 bytes or its
 *        alignment) as ZKPIPE_KIND_WORKSPACE while it exists, moves to ZKPIPE_STAGE_FINALIZE
 *        to assemble the proof and releases everything before returning. The ledger stays
 *        open (in FINALIZE on success, else in the stage it had reached) and the caller closes
 *        it; everything this call charged is released.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL pk, cs or out; a closed ledger),
 *         ZKPIPE_ESTATE (shape mode), ZKPIPE_EMISMATCH (cs is over another curve or has other
 *         counts or another A/B density than the key's circuit), ZKPIPE_EUNSATISFIED,
 * ZKPIPE_ENOMEM, ZKPIPE_EIO (getrandom failed), or an error of zkpipe_ledger_charge / _move.
 * Threads: the NTTs and the MSMs run one after another on `pool` (NULL: the caller alone);
 * the call starts no thread of its own.
 * Allocates, all freed before returning: the synthesis buffers (zkpipe_cs_synth_bytes), a
 * domain (32 n bytes) and MSM scratch (buckets per thread) through cs's allocator. The scalars are
 * converted from Montgomery form in the synthesis buffers themselves, not copied. Thread safety: pk
 * and cs are only read; concurrent proofs with one key are fine. */
ZKPIPE_API zkpipe_status zkpipe_groth16_prove(zkpipe_groth16_proof *out, size_t *first_failing,
                                              zkpipe_groth16_timings *timings,
                                              const zkpipe_groth16_pk *pk, const zkpipe_cs *cs,
                                              zkpipe_pool *pool, zkpipe_ledger *ledger);

/*! zkpipe_groth16_prove_witness() : a proof from a circom zkey's proving key (zkpipe_zkey_pk)
 * and a witness, computed as snarkjs's `groth16 prove` computes it (so snarkjs verifies it),
 * with blinding factors r and s from the operating system (getrandom).
 * Never an invalid proof: a zkey holds only the A and B coefficients (snarkjs derives c_i =
 * a_i b_i), so a witness that breaks a constraint's C side cannot be seen from these inputs;
 * the proof is therefore checked against `check` (one pairing check, a few milliseconds)
 * before it is returned, and a proof that fails gives ZKPIPE_EUNSATISFIED and no output
 * (zkpipe_r1cs_load then zkpipe_cs_check names the failing constraint; when every constraint
 * holds, the zkey's proving key does not match its verifying key: a valid point where another
 * belongs, which these inputs cannot tell from a bad witness).
 * @param out receives the proof; untouched on error.
 * @param timings receives per-phase times on ZKPIPE_OK; may be NULL.
 * @param detail, detail_cap as zkpipe/io.h's detail lines.
 * @param witness `count` canonical values (zkpipe_wtns_values), the key's variables in order.
 * @param check the prepared verifying key of the same zkey (required).
 * @param pool runs the NTTs and the MSMs on the CPU, the G2 MSM beside a device (NULL: the
 *        caller alone).
 * @param backend ZKPIPE_BACKEND_CPU, _CUDA or _AUTO (zkpipe_backend_resolve); the proof's
 *        bytes do not depend on it.
 * @param ledger NULL, or an open ledger of the caller's: the call charges a, b, c (kind ABC,
 *        3 buffers of 32 n bytes), moves the ledger to ZKPIPE_STAGE_PROVING, computes h in a's
 *        buffer (charged as ZKPIPE_KIND_H instead, b and c released as soon as it exists, h
 *        as soon as its MSM is done),
 *        charges its working memory (NTT domain, MSM scratch: on the CPU one block the MSMs
 *        share from the first to the last; each block with a header of 16 bytes or its
 *        alignment) as ZKPIPE_KIND_WORKSPACE while it exists (on CUDA, device
 *        memory as ZKPIPE_KIND_DEVICE), moves to ZKPIPE_STAGE_FINALIZE to assemble the proof
 *        and releases everything it charged before returning; the caller closes it.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (a NULL argument, a closed ledger, an unknown backend),
 *         ZKPIPE_EUNSUPPORTED (a key that is not a zkey's), ZKPIPE_ENONCANONICAL (a witness
 *         value not below r), ZKPIPE_ENODEVICE, ZKPIPE_EDEVICE,
 *         ZKPIPE_EMISMATCH (another curve, count not the key's variables), ZKPIPE_EUNSATISFIED,
 *         ZKPIPE_ENOTINSUBGROUP (a proof point outside the subgroup: only for a zkey opened
 *         with ZKPIPE_IO_DEFER_SUBGROUP whose query points are not all in it), ZKPIPE_ENOMEM,
 *         ZKPIPE_EIO (getrandom failed), or an error of the ledger calls; with the detail line.
 * Threads: on the CPU backend the MSMs run one after another on the pool; on CUDA the G2 MSM
 * runs on one extra thread the call starts and joins (on the caller after the G1 MSMs when it
 * cannot be started) while the caller drives the device.
 * Allocates, all freed before returning: a, b, c (96 n bytes for a domain of n), a domain (32 n
 * bytes) and MSM scratch (buckets per thread), through the key's allocator.
 * Thread safety: pk, witness and check are only read; concurrent proofs with one key are fine. */
ZKPIPE_API zkpipe_status zkpipe_groth16_prove_witness(
    zkpipe_groth16_proof *out, zkpipe_groth16_timings *timings, char *detail, size_t detail_cap,
    const zkpipe_groth16_pk *pk, const zkpipe_scalar *witness, size_t count,
    const zkpipe_groth16_pvk *check, zkpipe_pool *pool, zkpipe_backend backend,
    zkpipe_ledger *ledger);

/*! zkpipe_groth16_pvk_create() : a verifying key prepared for zkpipe_groth16_verify: the
 * Miller-loop lines of beta, -gamma and -delta computed once, -alpha and IC copied.
 * @param allocator NULL for the C library; copied.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, allocator incomplete), ZKPIPE_ENOMEM.
 * Allocates one block of about 51 KB (BN254; BLS12-381: 59 KB) plus the IC points. Thread
 * safety: vk is only read. */
ZKPIPE_API zkpipe_status zkpipe_groth16_pvk_create(zkpipe_groth16_pvk **out,
                                                   const zkpipe_groth16_vk *vk,
                                                   const zkpipe_allocator *allocator);

/*! zkpipe_groth16_verify() : checks `proof` for the public inputs `inputs` (canonical
 * scalars, num_inputs - 1 of them: the constant one is implied).
 * @return ZKPIPE_OK (the proof verifies), ZKPIPE_EVERIFY (it does not), ZKPIPE_EINVAL (NULL
 *         pvk or proof, inputs NULL with n > 0, n not num_inputs - 1), ZKPIPE_EMISMATCH (proof
 *         for another curve), ZKPIPE_ENONCANONICAL (an input >= r), or the decoding errors of
 *         zkpipe_groth16_proof_decode for a malformed proof.
 * Thread safety: everything is only read. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_groth16_verify(const zkpipe_groth16_pvk *pvk,
                                               const zkpipe_scalar *inputs, size_t n,
                                               const zkpipe_groth16_proof *proof);

/*! zkpipe_groth16_proof_size() : the encoded size of a proof on `curve` (192 or 256), 0 for
 * an unknown curve. Thread safety: any thread. */
ZKPIPE_API size_t zkpipe_groth16_proof_size(zkpipe_curve curve);

/*! zkpipe_groth16_proof_decode() : a proof from `len` bytes, fully validated (flags,
 * canonical coordinates, on the curve, in the subgroup).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, unknown curve), ZKPIPE_EFORMAT (len is not
 *         zkpipe_groth16_proof_size(curve)), ZKPIPE_EFLAGS, ZKPIPE_ENONCANONICAL,
 *         ZKPIPE_ENOTONCURVE, ZKPIPE_ENOTINSUBGROUP. *out untouched on error.
 * Thread safety: any thread. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_groth16_proof_decode(zkpipe_groth16_proof *out, zkpipe_curve curve,
                                                     const uint8_t *in, size_t len);

/*! zkpipe_groth16_vk_encode() / zkpipe_groth16_pk_encode() : write the key's bytes (layout
 * above). Call with out NULL to learn the size in *out_len, then with a buffer of that size.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (key or out_len NULL), ZKPIPE_ELIMIT (cap too small; the
 *         needed size is in *out_len). Thread safety: the key is only read. No allocation. */
ZKPIPE_API zkpipe_status zkpipe_groth16_vk_encode(uint8_t *out, size_t cap, size_t *out_len,
                                                  const zkpipe_groth16_vk *vk);
ZKPIPE_API zkpipe_status zkpipe_groth16_pk_encode(uint8_t *out, size_t cap, size_t *out_len,
                                                  const zkpipe_groth16_pk *pk);

/*! zkpipe_groth16_vk_decode() / zkpipe_groth16_pk_decode() : a key from `len` bytes, fully
 * validated.
 * @param allocator NULL for the C library; copied into the key.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, allocator incomplete), ZKPIPE_EFORMAT (magic,
 *         version, curve, counts or length wrong), ZKPIPE_EFLAGS, ZKPIPE_ENONCANONICAL,
 *         ZKPIPE_ENOTONCURVE, ZKPIPE_ENOTINSUBGROUP (a point), ZKPIPE_ENOMEM.
 * Allocates the key (as setup does). Thread safety: any thread. Decoding a large proving
 * key is slow: every point gets a subgroup check. */
ZKPIPE_API zkpipe_status zkpipe_groth16_vk_decode(zkpipe_groth16_vk **out, const uint8_t *in,
                                                  size_t len, const zkpipe_allocator *allocator);
ZKPIPE_API zkpipe_status zkpipe_groth16_pk_decode(zkpipe_groth16_pk **out, const uint8_t *in,
                                                  size_t len, const zkpipe_allocator *allocator);

ZKPIPE_EXTERN_C_END

#endif
