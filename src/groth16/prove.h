/* The one Groth16 prover, its backends, and its two sources of a, b and c.
 *
 * A proof's inputs are a zkpipe__synth_result (circuit/synth.h): a, b and c over the domain,
 * and the assignment. They come from synthesizing a zkpipe circuit (circuit/synth.h) or from a
 * zkey's coefficients and a witness (zkpipe__g16_witness_abc). The prover then
 *   1. checks the rows a_i b_i = c_i that synthesis computed independently;
 *   2. computes h on the backend, in a's buffer (b and c are freed as soon as it exists): in
 *      bellman's form the coefficients of (a b - c) / Z, from the coset 5<w>; in snarkjs's form
 *      the values a b - c on the odd coset w_2n <w> (the zkey's H points already hold the
 *      division, in that coset's Lagrange basis); the key's form decides;
 *   3. computes the MSMs with z = inputs then aux (canonical):
 *        A = sum z_i A_i, B1 = sum z_i B1_i (G1), B2 = sum z_i B2_i (G2), L = sum aux_i L_i,
 *        H = sum h_k H_k,
 *      the inputs' small parts on the CPU and the rest on the backend; on a backend without a
 *      G2 MSM, B2 runs on a CPU thread beside the device;
 *   4. blinds them, once for both forms:
 *        A = alpha + A + r delta,  B = beta + B2 + s delta (G2),  B1 = beta + B1 + s delta,
 *        C = L + H + s A + r B1 - r s delta,
 *      and, when asked, checks the proof against a prepared verifying key.
 *
 * Accounting: the ledger (res->ledger, or NULL) moves to PROVING (unless it is already there),
 * and to FINALIZE to assemble the proof; h is charged as kind H in place of a's ABC charge; the
 * NTT domain and the MSMs' scratch as WORKSPACE while they exist (the G2 thread's up front, by
 * the thread that owns the ledger). Every buffer of res is freed and released, whatever the
 * status. */
#ifndef ZKPIPE_GROTH16_PROVE_H
#define ZKPIPE_GROTH16_PROVE_H

#include "circuit/synth.h"
#include "groth16/keys.h"
#include "zkpipe/backend.h"

/* Where h and the large MSMs run. Each entry returns ZKPIPE_OK or an error (a device's:
 * ZKPIPE_EDEVICE, with zkpipe__g16_backend's last_error saying why). `work` allocates the
 * calling thread's working memory, charged to the ledger as WORKSPACE; `ledger` (or NULL) is
 * what a device charges its memory to (kind DEVICE). */
typedef struct zkpipe__g16_backend {
    zkpipe_backend id;
    const char *name;
    int device; /* 1: a device computes, so a proof that fails its check may be its fault */
    /* h from a, b, c (n = 2^log_n Montgomery elements each, on the domain): each of them
     * interpolated and evaluated on shift <w> (iNTT, coset NTT), then a b - c into a; with
     * `coefficients`, that divided by the vanishing polynomial on the coset and interpolated
     * back (coset iNTT). b and c are left garbage. */
    zkpipe_status (*h)(const zkpipe__curve_ops *c, uint64_t *a, uint64_t *b, uint64_t *cc,
                       unsigned log_n, const uint64_t *shift, int coefficients, zkpipe_pool *pool,
                       zkpipe_ledger *ledger, const zkpipe_allocator *work);
    /* As zkpipe__curve_ops's msm_g1 with canonical scalars. */
    zkpipe_status (*msm_g1)(const zkpipe__curve_ops *c, zkpipe__g1 *out, const uint64_t *bases,
                            const uint64_t *scalars, const uint64_t *density, size_t nvars,
                            zkpipe_pool *pool, zkpipe_ledger *ledger, const zkpipe_allocator *work);
    /* NULL: the backend has no G2 MSM; the prover runs the CPU's beside it. */
    zkpipe_status (*msm_g2)(const zkpipe__curve_ops *c, zkpipe__g2 *out, const uint64_t *bases,
                            const uint64_t *scalars, const uint64_t *density, size_t nvars,
                            zkpipe_pool *pool, zkpipe_ledger *ledger, const zkpipe_allocator *work);
    /* The calling thread's last failure message ("" when none), for detail lines. */
    const char *(*last_error)(void);
    /* A device's (NULL for the CPU): 1 when one is usable, else 0; *why a static line saying
     * which (no driver, no device, ...). Called once per process, by the plug-in loader
     * (groth16/backend_plugin.h). */
    int (*probe)(const char **why);
} zkpipe__g16_backend;

extern const zkpipe__g16_backend zkpipe__g16_backend_cpu;

/* The backend a request runs on (zkpipe_backend_resolve: probed once per process): *out is
 * the table (CUDA's from its plug-in, groth16/backend_plugin.h), *why (may be NULL) a reason
 * valid for the process's lifetime. ZKPIPE_OK, ZKPIPE_EINVAL,
 * ZKPIPE_ENODEVICE. */
zkpipe_status zkpipe__g16_backend_resolve(const zkpipe__g16_backend **out, zkpipe_backend requested,
                                          const char **why);

/* What prove needs besides the key and the inputs. */
typedef struct zkpipe__g16_prove_args {
    const uint64_t *r, *s; /* blinding factors, Montgomery Fr */
    zkpipe_pool *pool;     /* NULL: the caller alone */
    const zkpipe__g16_backend *backend;
    const zkpipe_groth16_pvk *check; /* NULL, or the proof must verify with it */
    zkpipe_groth16_timings *timings; /* NULL, or filled on ZKPIPE_OK (synth left alone) */
    size_t *first_failing;           /* NULL, or the failing row on ZKPIPE_EUNSATISFIED */
    char *detail;                    /* NULL, or the line describing a failure */
    size_t detail_cap;
} zkpipe__g16_prove_args;

/* The prover (see the top of this file). Consumes *res. Returns ZKPIPE_OK and the proof,
 * ZKPIPE_EMISMATCH (res has another curve, counts or density than the key's),
 * ZKPIPE_EUNSATISFIED (a row fails, or the proof fails `check` with rows not computed
 * independently: a zkey's, whose witness may break a C side), ZKPIPE_EVERIFY (every row
 * checked and held, yet the proof fails `check`: the key's points do not match it, or a device
 * computed wrongly), ZKPIPE_ENOTINSUBGROUP (a
 * proof point outside the subgroup: only for a key whose queries were not checked),
 * ZKPIPE_ENOMEM, ZKPIPE_EDEVICE, or an error of the ledger calls; with the detail line. */
zkpipe_status zkpipe__g16_prove(zkpipe_groth16_proof *out, const zkpipe_groth16_pk *pk,
                                zkpipe__synth_result *res, const zkpipe__g16_prove_args *args);

/* The other source of a, b and c: a snarkjs-form key's coefficients and a witness of
 * pk->num_inputs + pk->num_aux canonical values (borrowed into res->assignment: it must
 * outlive res): a_i, b_i = sum of coefficient * w_wire over the A and B entries of row i,
 * c_i = a_i b_i, on `pool` (NULL: the caller's thread). a, b and c come from `allocator` and
 * are charged to `ledger` (kind ABC) when it is not NULL. ZKPIPE_OK, ZKPIPE_EINVAL (a key
 * without coefficients), ZKPIPE_ENOMEM, ZKPIPE_EIO (a coefficient names a row or wire outside
 * the key's: the mapped file was rewritten after it was checked), or an error of
 * zkpipe_ledger_charge; on error res holds nothing. */
zkpipe_status zkpipe__g16_witness_abc(zkpipe__synth_result *res, const zkpipe_groth16_pk *pk,
                                      const uint64_t *witness, zkpipe_pool *pool,
                                      zkpipe_ledger *ledger, const zkpipe_allocator *allocator);

/* zkpipe__g16_witness_abc's a and b: a[row], b[row] (rows values each, zeroed here) = the sums
 * of the key's coefficient entries times the witness, their entries cut into ranges of at least
 * `min_part` entries (1 for any), one per thread of `pool` at most, where the rows never
 * decrease (else on the caller alone). Returns how many entries were skipped (a row or wire
 * outside the key's). Apart from zkpipe__g16_witness_abc, for tests, which cut small keys. */
size_t zkpipe__g16_coeffs_add(uint64_t *a, uint64_t *b, const zkpipe_groth16_pk *pk,
                              const uint64_t *witness, size_t rows, size_t min_part,
                              zkpipe_pool *pool);

/* zkpipe_groth16_prove_witness with given blinding factors (canonical), for tests that compare
 * with snarkjs's proof made with the same r and s, on a backend already resolved. */
zkpipe_status zkpipe__g16_prove_witness_rs(zkpipe_groth16_proof *out, char *detail, size_t cap,
                                           const zkpipe_groth16_pk *pk,
                                           const zkpipe_scalar *witness, size_t count,
                                           const zkpipe_groth16_pvk *check, const zkpipe_scalar *r,
                                           const zkpipe_scalar *s, zkpipe_pool *pool,
                                           const zkpipe__g16_backend *backend,
                                           zkpipe_ledger *ledger);

/* The most a proof with `pk` charges as kind WORKSPACE at once on the CPU backend with pools of
 * `threads` threads: the NTT domain while h is computed, later one MSM's scratch at a time
 * (the G2 MSM's too, after the G1 ones); UINT64_MAX for absurd sizes. */
uint64_t zkpipe__g16_workspace_bytes(const zkpipe_groth16_pk *pk, unsigned threads);

/* The most the ledger holds during such a proof when it starts holding `held` bytes (a, b and c
 * among them): all of it and the NTT domain while h is computed, then b and c gone (h takes
 * a's place) beside one G1 MSM's scratch at a time, then h gone too beside the G2 MSM's.
 * Exact on the CPU backend: what a partition's estimate announces. UINT64_MAX for absurd
 * sizes. */
uint64_t zkpipe__g16_prove_peak_bytes(const zkpipe_groth16_pk *pk, unsigned threads, uint64_t held);

size_t zkpipe__g16_proof_bytes(const zkpipe__curve_ops *c);
/* The pairing check with canonical inputs (pvk->num_inputs - 1 of them). ZKPIPE_OK,
 * ZKPIPE_EVERIFY, ZKPIPE_ENONCANONICAL, or a decoding error. */
zkpipe_status zkpipe__g16_verify(const zkpipe_groth16_pvk *pvk, const uint64_t *inputs,
                                 const zkpipe_groth16_proof *proof);
/* The same check of a proof's points a, b (G2) and cc, packed affine, which must be on their
 * curves and in the prime-order subgroups (a decoded proof's are; the prover's, computed on the
 * CPU from a key's points, are once those are checked). ZKPIPE_OK, ZKPIPE_EVERIFY,
 * ZKPIPE_ENONCANONICAL. */
zkpipe_status zkpipe__g16_verify_points(const zkpipe_groth16_pvk *pvk, const uint64_t *inputs,
                                        const uint64_t *a, const uint64_t *b, const uint64_t *cc);

#endif
