/* Synthesis: a constraint system with its witness becomes what the Groth16 prover consumes,
 * in separately allocated, accounted buffers.
 *
 * Over the domain of n = 2^log_n >= m + num_inputs rows (m = num_constraints), row i < m holds
 * a_i = <A_i, z>, b_i = <B_i, z>, c_i = <C_i, z>; row m + j is bellman's input-consistency
 * row (a = input_j, b = c = 0), which makes every input appear in A and keeps the input
 * queries linearly independent; the remaining rows are zero. (snarkjs puts these rows at
 * the same place but computes h on another coset; groth16/prove.h has both forms.)
 *
 * Density: bit v of density_a (density_b) is set when variable v, in full-assignment order
 * (inputs then aux, see zkpipe__var_index), appears with a non-zero coefficient in some row
 * of A (B) including the input-consistency rows. The proving key holds A and B query points
 * for those variables only, so the prover refuses a result whose bitmaps differ from the
 * key's. Each bitmap has density_words 64-bit words; bits past the variables are 0.
 *
 * Element buffers hold 4-limb Montgomery elements of the curve's Fr (arith/curve_ops.h).
 * The same struct carries a proof's inputs from the other source of a, b and c, a zkey's
 * coefficients (groth16/prove.h), so the prover has one input whatever made it. */
#ifndef ZKPIPE_CIRCUIT_SYNTH_H
#define ZKPIPE_CIRCUIT_SYNTH_H

#include "circuit/cs_internal.h"
#include "zkpipe/acct.h"
#include "zkpipe/pool.h"

typedef struct zkpipe__synth_result {
    zkpipe_curve curve;
    unsigned log_n;
    size_t n;
    /* Rows i < num_constraints must have a_i b_i = c_i: the prover checks them first. 0 when
     * a, b and c were not computed independently (a zkey's c is a b by construction). */
    size_t num_constraints;
    size_t num_inputs, num_aux;
    uint64_t *a, *b, *c; /* n elements each (kind ABC) */
    uint64_t *input;     /* num_inputs elements, input[0] = 1 (kind INPUT); or NULL */
    uint64_t *aux;       /* num_aux elements (kind AUX); or NULL */
    /* NULL, or instead of input and aux: the whole assignment (inputs then aux) as canonical
     * integers, borrowed (a witness file's values), never written or freed. */
    const uint64_t *assignment;
    uint64_t *density; /* density_a = density, density_b = density + density_words; NULL:
                        * every variable is dense (a zkey's queries hold every variable) */
    size_t density_words;
    zkpipe_ledger *ledger; /* charged for every buffer above while it is allocated; or NULL */
    zkpipe_allocator allocator;
} zkpipe__synth_result;

/* Synthesizes `cs` (witness mode) into *out, evaluating rows on `pool` (NULL: the caller
 * alone). Buffers come from cs's allocator and are charged to `ledger` when it is not NULL
 * (which must then be open and stay valid until the result is freed), one charge per buffer
 * of exactly its size: zkpipe_cs_synth_bytes in all.
 * Returns ZKPIPE_OK, ZKPIPE_EINVAL (NULL cs or out), ZKPIPE_ESTATE (shape mode),
 * ZKPIPE_ETOOBIG (domain too large for the field), ZKPIPE_ENOMEM, or an error of
 * zkpipe_ledger_charge. On error *out holds nothing and nothing stays charged.
 * Thread safety: cs is only read; out must not be shared while this runs. */
zkpipe_status zkpipe__synth(zkpipe__synth_result *out, const zkpipe_cs *cs, zkpipe_pool *pool,
                            zkpipe_ledger *ledger);

/* zkpipe__synth with the buffers from `allocator` (copied) instead of cs's: the engine builds
 * circuits with an allocator that charges them as kind CIRCUIT, which the buffers must not
 * be. ZKPIPE_EINVAL also for a NULL allocator. */
zkpipe_status zkpipe__synth_with(zkpipe__synth_result *out, const zkpipe_cs *cs, zkpipe_pool *pool,
                                 zkpipe_ledger *ledger, const zkpipe_allocator *allocator);

/* Frees a, b and c and releases them from the ledger (the prover's step after its
 * transforms); a no-op when they are already gone. */
void zkpipe__synth_free_abc(zkpipe__synth_result *r);

/* Frees every buffer still held, releases it from the ledger and zeroes *r. A zeroed result
 * or NULL is a no-op. */
void zkpipe__synth_free(zkpipe__synth_result *r);

/* 64-bit words of one density bitmap over num_vars variables. */
size_t zkpipe__density_words(size_t num_vars);

/* Writes cs's two density bitmaps (A, then B; 2 zkpipe__density_words(num_vars) words) into
 * `density`, as synthesis does; they depend on the constraints alone, not on the witness, so
 * setup uses the same function. */
void zkpipe__density_fill(uint64_t *density, const zkpipe_cs *cs);

/* 1 when bit `v` of `bitmap` is set. */
static inline int zkpipe__density_test(const uint64_t *bitmap, size_t v)
{
    return (int)(bitmap[v / 64] >> (v % 64) & 1);
}

#endif
