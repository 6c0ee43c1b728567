/* The one per-curve table: every field, group, pairing, NTT and MSM operation that the layers
 * above the arithmetic (circuit, groth16, io) need, for BLS12-381 and BN254.
 *
 * The arithmetic itself is written once as per-type templates in ff/, ec/, poly/ and msm/ and
 * expanded per curve there; this table is where the upper layers reach it, so that they are
 * written once, without templates, and ask for a curve only here (zkpipe__curve_ops_for).
 * Hot loops are whole-array entries (an MSM, an NTT, a vector of field products), so going
 * through a function pointer costs nothing measurable.
 *
 * Layouts (shared with the formats: a zkey's point sections are these layouts already):
 *   Fr element: 4 little-endian 64-bit limbs, Montgomery form (ff/fp.h), below r.
 *   Canonical scalar: the plain integer, 4 limbs, below r (zkpipe_scalar).
 *   G1 affine point: x, y, each fq_limbs Montgomery limbs (g1a_words in all); infinity is all
 *     zero. G2 affine: x.c0, x.c1, y.c0, y.c1 (g2a_words). Arrays of points are packed.
 *   Jacobian points (zkpipe__g1, zkpipe__g2): opaque values for the entries below.
 * Every entry is thread-safe on distinct outputs; none allocates unless it says so. */
#ifndef ZKPIPE_ARITH_CURVE_OPS_H
#define ZKPIPE_ARITH_CURVE_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "zkpipe/alloc.h"
#include "zkpipe/circuit.h"
#include "zkpipe/curve.h"
#include "zkpipe/pool.h"
#include "zkpipe/status.h"

#define ZKPIPE__FR_LIMBS 4
#define ZKPIPE__FR_BYTES 32
/* Words of the larger curve's (BLS12-381's) points: room for either curve. */
#define ZKPIPE__G1A_WORDS 12
#define ZKPIPE__G2A_WORDS 24
#define ZKPIPE__FQ12_WORDS 72
/* Bytes of either curve's prepared G2 point (every line of its Miller loop). */
#define ZKPIPE__G2_PREPARED_MAX 24576

/* Jacobian points, for either curve. */
typedef struct zkpipe__g1 {
    uint64_t w[3 * ZKPIPE__G1A_WORDS / 2];
} zkpipe__g1;
typedef struct zkpipe__g2 {
    uint64_t w[3 * ZKPIPE__G2A_WORDS / 2];
} zkpipe__g2;

/* One term of a row of a constraint matrix: `var` is a zkpipe_var (an input index, or an aux
 * index with ZKPIPE_VAR_AUX set) and `coeff` an index into the coefficient table, where ids
 * ZKPIPE__COEFF_ONE and ZKPIPE__COEFF_MINUS_ONE are always 1 and -1 (so the evaluation adds or
 * subtracts without multiplying). */
typedef struct zkpipe__term {
    uint32_t var;
    uint32_t coeff;
} zkpipe__term;
#define ZKPIPE__COEFF_ONE 0u
#define ZKPIPE__COEFF_MINUS_ONE 1u

/* Three constraint matrices (A, B, C) in compressed-row form over one assignment: row i of
 * matrix k holds terms[k][row_start[k][i] .. row_start[k][i + 1]). */
typedef struct zkpipe__lc_rows {
    const uint64_t *row_start[3];
    const zkpipe__term *terms[3];
    const uint64_t *coeffs;       /* Montgomery Fr elements */
    const uint64_t *input_values; /* Montgomery Fr elements, by input index */
    const uint64_t *aux_values;   /* by aux index */
} zkpipe__lc_rows;

/* An evaluation domain of 2^log_n points (poly/ntt.h). Opaque. */
typedef struct zkpipe__domain zkpipe__domain;

/* Bytes the ledger-charging allocator (acct/charged_alloc.h) adds to each NTT domain and MSM
 * scratch block: its header, max(16, the block's alignment), and both are 64-byte aligned
 * (poly/ntt_impl.h, msm/msm_impl.h). Exact peaks depend on it; test_engine checks them. */
#define ZKPIPE__CURVE_BLOCK_HEADER 64

/* MSM flags (msm/msm.h): scalars are Montgomery-form Fr elements instead of integers. */
#define ZKPIPE__CURVE_MSM_MONTGOMERY 1u

typedef struct zkpipe__curve_ops {
    zkpipe_curve curve;
    const char *snarkjs_name; /* "bls12381", "bn128" */
    size_t fq_limbs;          /* 6 or 4 */
    const uint64_t *q, *r;    /* the primes, fq_limbs and 4 little-endian limbs */
    unsigned two_adicity;     /* of r - 1: the largest domain is 2^two_adicity */
    size_t g1a_words, g2a_words;
    size_t proof_g1_bytes, proof_g2_bytes; /* zkpipe/groth16.h's proof encoding */
    size_t key_g1_bytes, key_g2_bytes;     /* the uncompressed encodings of key files */

    /* Fr. from_canonical: 1, or 0 for an integer >= r (out untouched). */
    int (*fr_from_canonical)(uint64_t *out, const uint64_t *canonical);
    void (*fr_to_canonical)(uint64_t *out, const uint64_t *a);
    void (*fr_from_u64)(uint64_t *out, uint64_t v);
    void (*fr_add)(uint64_t *out, const uint64_t *a, const uint64_t *b);
    void (*fr_sub)(uint64_t *out, const uint64_t *a, const uint64_t *b);
    void (*fr_mul)(uint64_t *out, const uint64_t *a, const uint64_t *b);
    /* out = a^-1; 0 for a = 0 (out untouched). */
    int (*fr_inv)(uint64_t *out, const uint64_t *a);
    /* out[i] = in[i]^-1 for n non-zero elements (out may be in); scratch holds n elements. */
    void (*fr_batch_inv)(uint64_t *out, const uint64_t *in, size_t n, uint64_t *scratch);
    /* out = a^e for e of `limbs` little-endian limbs. */
    void (*fr_pow)(uint64_t *out, const uint64_t *a, const uint64_t *e, size_t limbs);
    /* A primitive 2^log_n-th root of unity; ZKPIPE_ETOOBIG above two_adicity. */
    zkpipe_status (*fr_root_of_unity)(uint64_t *out, unsigned log_n);

    /* Fr vectors of n elements, on `pool` (NULL: the caller alone). */
    void (*fr_vec_to_canonical)(uint64_t *v, size_t n, zkpipe_pool *pool); /* in place */
    /* out[i] = a[i] b[i] - c[i]; out may be a. */
    void (*fr_vec_mul_sub)(uint64_t *out, const uint64_t *a, const uint64_t *b, const uint64_t *c,
                           size_t n, zkpipe_pool *pool);
    /* out[i] = a[i] b[i]. */
    void (*fr_vec_mul)(uint64_t *out, const uint64_t *a, const uint64_t *b, size_t n,
                       zkpipe_pool *pool);
    /* The first i < n with a[i] b[i] != c[i], or n: the one satisfaction check. */
    size_t (*fr_vec_first_mismatch)(const uint64_t *a, const uint64_t *b, const uint64_t *c,
                                    size_t n);
    /* <A_i, z>, <B_i, z>, <C_i, z> of rows [begin, end), written at a, b, c + 4 (i - begin). */
    void (*lc_eval_rows)(uint64_t *a, uint64_t *b, uint64_t *c, const zkpipe__lc_rows *m,
                         size_t begin, size_t end);
    /* out[row] += value * w[wire] (all Montgomery but w, canonical) for `count` entries of
     * `stride` bytes: u32 matrix (0: out_a, else out_b), u32 row, u32 wire, then the value's 4
     * limbs in Montgomery form times R (v R^2 mod r), so that one Montgomery product with the
     * canonical w[wire] is the Montgomery form of v w. (A snarkjs zkey's coefficients.)
     * Entries whose row is outside [row_lo, row_hi) or wire not below `wires` are skipped and
     * counted: the entries sit in a mapped file, checked once at open, that another process may
     * rewrite meanwhile; the count returned is how many (0 unless that happened). Only rows in
     * [row_lo, row_hi) are written, so calls over disjoint row ranges may run at once. */
    size_t (*fr_accumulate_entries)(uint64_t *out_a, uint64_t *out_b, const uint8_t *entries,
                                    size_t count, size_t stride, const uint64_t *w, size_t row_lo,
                                    size_t row_hi, size_t wires);

    /* Points. check_points: n packed points (G1, or G2 with g2) at p, any alignment: canonical
     * coordinates, on the curve, and (subgroup) in the prime-order subgroup; ZKPIPE_OK, or the
     * first problem (ZKPIPE_ENONCANONICAL, _ENOTONCURVE, _ENOTINSUBGROUP) with *bad its index.
     * With `copy` (NULL: none), the n points are also copied there, each range by the thread
     * that checks it and then checked in the copy, so that a reader's aligned copy of a section
     * costs no pass of its own over the file; on an error the copy's contents are unspecified. */
    zkpipe_status (*check_points)(size_t *bad, const uint8_t *p, uint8_t *copy, size_t n, int g2,
                                  int subgroup, zkpipe_pool *pool);
    /* *all = 1 when the packed points of the nseg arrays p[s] (n[s] points each, 8-byte aligned,
     * already checked on the curve; nseg <= ZKPIPE__MSM_SUBGROUP_SEGMENTS) are all in the
     * subgroup, else 0: msm.h's batched check (zkpipe__msm_*_subgroup_check_segments) with the
     * operating system's coins, scratch through `allocator`. ZKPIPE_OK, or ENOMEM, EIO (no
     * randomness). */
    zkpipe_status (*subgroup_batch)(int *all, const uint64_t *const *p, const size_t *n,
                                    size_t nseg, int g2, zkpipe_pool *pool,
                                    const zkpipe_allocator *allocator);
    /* An affine point from canonical coordinates (G1: x, y; G2: x.c0, x.c1, y.c0, y.c1, each
     * fq_limbs limbs), fully validated. */
    zkpipe_status (*point_from_canonical)(uint64_t *out, const uint64_t *coords, int g2);
    void (*point_to_canonical)(uint64_t *coords, const uint64_t *point, int g2);
    /* The proof encoding of one point, and back with full validation. */
    void (*proof_point_write)(uint8_t *out, const uint64_t *point, int g2);
    zkpipe_status (*proof_point_read)(uint64_t *point, const uint8_t *in, int g2);
    /* The uncompressed key-file encoding, and back with full validation. */
    void (*key_point_write)(uint8_t *out, const uint64_t *point, int g2);
    zkpipe_status (*key_point_read)(uint64_t *point, const uint8_t *in, int g2);
    int (*g1_in_subgroup)(const uint64_t *affine);
    int (*g2_in_subgroup)(const uint64_t *affine);
    void (*g1_affine_neg)(uint64_t *out, const uint64_t *affine);
    void (*g2_affine_neg)(uint64_t *out, const uint64_t *affine);

    /* Jacobian arithmetic (affine arguments in the layout above). mul: k Montgomery Fr. */
    void (*g1_from_affine)(zkpipe__g1 *out, const uint64_t *affine);
    void (*g1_to_affine)(uint64_t *affine, const zkpipe__g1 *p);
    /* affine[i] = p[i] for i < n (packed): to_affine at a fraction of the inversions. */
    void (*g1_batch_to_affine)(uint64_t *affine, const zkpipe__g1 *p, size_t n);
    void (*g1_add)(zkpipe__g1 *out, const zkpipe__g1 *a, const zkpipe__g1 *b);
    void (*g1_add_affine)(zkpipe__g1 *out, const zkpipe__g1 *a, const uint64_t *b);
    void (*g1_mul)(zkpipe__g1 *out, const zkpipe__g1 *p, const uint64_t *k);
    /* out = sum k_i p_i over n packed affine points in the subgroup (or infinity) with
     * canonical scalars k_i < r (4 limbs each): ec/multi_mul.h, for a handful of points. */
    void (*g1_multi_mul)(zkpipe__g1 *out, const uint64_t *affine, const uint64_t *k, size_t n);
    void (*g2_from_affine)(zkpipe__g2 *out, const uint64_t *affine);
    void (*g2_to_affine)(uint64_t *affine, const zkpipe__g2 *p);
    void (*g2_batch_to_affine)(uint64_t *affine, const zkpipe__g2 *p, size_t n);
    void (*g2_add)(zkpipe__g2 *out, const zkpipe__g2 *a, const zkpipe__g2 *b);
    void (*g2_add_affine)(zkpipe__g2 *out, const zkpipe__g2 *a, const uint64_t *b);
    void (*g2_mul)(zkpipe__g2 *out, const zkpipe__g2 *p, const uint64_t *k);
    /* g1_multi_mul over G2 (the same split: phi acts on G2 by the same lambda). */
    void (*g2_multi_mul)(zkpipe__g2 *out, const uint64_t *affine, const uint64_t *k, size_t n);

    /* Fixed-base batch multiplication of the generator (the setup's): out[i] = k[i] G for n
     * Montgomery scalars, packed affine points, on `pool`. Allocates its window table, sized by
     * n (arith/fixed_base_impl.h: up to 8,160 points), and scratch through `allocator`;
     * ZKPIPE_OK or ZKPIPE_ENOMEM. */
    zkpipe_status (*g1_generator_mul)(uint64_t *out, const uint64_t *k, size_t n, zkpipe_pool *pool,
                                      const zkpipe_allocator *allocator);
    zkpipe_status (*g2_generator_mul)(uint64_t *out, const uint64_t *k, size_t n, zkpipe_pool *pool,
                                      const zkpipe_allocator *allocator);

    /* Pairings. A prepared G2 point takes g2_prepared_bytes (8-byte aligned); a target-field
     * element fq12 words. */
    size_t g2_prepared_bytes, fq12_words;
    void (*pairing)(uint64_t *fq12, const uint64_t *g1a, const uint64_t *g2a);
    void (*g2_prepare)(void *prepared, const uint64_t *g2a);
    /* 1 when the product of the n <= 4 pairings e(p[i], q[i]) (q prepared) is one: a single
     * multi-Miller loop and one final exponentiation. */
    int (*pairing_product_is_one)(const uint64_t *const *p, const void *const *q, size_t n);

    /* NTT over Fr (poly/ntt.h), in place; the transforms fail only on a zero shift (EINVAL).
     * domain_bytes: what domain_create allocates for 2^log_n. */
    zkpipe_status (*domain_create)(zkpipe__domain **out, unsigned log_n, zkpipe_pool *pool,
                                   const zkpipe_allocator *allocator);
    void (*domain_destroy)(zkpipe__domain *d);
    size_t (*domain_bytes)(unsigned log_n);
    zkpipe_status (*intt)(uint64_t *v, const zkpipe__domain *d, zkpipe_pool *pool);
    zkpipe_status (*coset_ntt)(uint64_t *v, const zkpipe__domain *d, const uint64_t *shift,
                               zkpipe_pool *pool);
    zkpipe_status (*coset_intt)(uint64_t *v, const zkpipe__domain *d, const uint64_t *shift,
                                zkpipe_pool *pool);
    zkpipe_status (*divide_by_vanishing_on_coset)(uint64_t *v, const zkpipe__domain *d,
                                                  const uint64_t *shift, zkpipe_pool *pool);

    /* MSMs on the CPU (msm/msm.h's zkpipe__msm_*_ex with the default plan): *out = the sum over
     * the nvars variables whose density bit is set (density NULL: all) of scalar * base, bases
     * packed (one per dense variable), scalars canonical integers unless `flags` says
     * ZKPIPE__CURVE_MSM_MONTGOMERY. Scratch through `allocator`: msm_g*_scratch_bytes(nvars,
     * nbases, flags, threads) at most. Errors as zkpipe__msm_*_ex. */
    zkpipe_status (*msm_g1)(zkpipe__g1 *out, const uint64_t *bases, const uint64_t *scalars,
                            const uint64_t *density, size_t nvars, unsigned flags,
                            zkpipe_pool *pool, const zkpipe_allocator *allocator);
    zkpipe_status (*msm_g2)(zkpipe__g2 *out, const uint64_t *bases, const uint64_t *scalars,
                            const uint64_t *density, size_t nvars, unsigned flags,
                            zkpipe_pool *pool, const zkpipe_allocator *allocator);
    size_t (*msm_g1_scratch_bytes)(size_t nvars, size_t nbases, unsigned flags, unsigned threads);
    size_t (*msm_g2_scratch_bytes)(size_t nvars, size_t nbases, unsigned flags, unsigned threads);
} zkpipe__curve_ops;

/* The table of `curve`, or NULL for a value that is not a zkpipe_curve. */
const zkpipe__curve_ops *zkpipe__curve_ops_for(zkpipe_curve curve);

/* The table whose r (fr) or q (!fr) is the n8-byte little-endian integer at `prime`, or NULL:
 * how the formats name their curve. */
const zkpipe__curve_ops *zkpipe__curve_ops_by_prime(const uint8_t *prime, size_t n8, int fr);

/* 1 when the `nlimbs`-limb integer a is below b. */
int zkpipe__limbs_below(const uint64_t *a, const uint64_t *b, size_t nlimbs);

/* A uniform non-zero Fr element (Montgomery form) from the operating system's randomness.
 * ZKPIPE_OK or ZKPIPE_EIO. */
zkpipe_status zkpipe__fr_random(uint64_t *out, const zkpipe__curve_ops *c);

/* The setup's INSECURE seeded toxic waste (zkpipe_groth16_setup_insecure documents the
 * expansion): tau, alpha, beta, gamma, delta (Montgomery), tau outside the domain of 2^log_n. */
void zkpipe__fr_toxic_from_seed(uint64_t *toxic, const zkpipe__curve_ops *c, const uint8_t *seed,
                                unsigned log_n);

#endif
