/*! zkpipe/testcircuit.h : zkpipe's built-in test circuit, for tests, examples and benchmarks.
 *
 * Not part of the proving API: a circuit of a known shape and cost that fills any domain
 * size exactly, so that pipelines can be exercised and measured without a circuit of one's
 * own. */
#ifndef ZKPIPE_TESTCIRCUIT_H
#define ZKPIPE_TESTCIRCUIT_H

#include "zkpipe/circuit.h"

ZKPIPE_EXTERN_C_BEGIN

/*! zkpipe_testcircuit_build() : appends the built-in test circuit to an empty system: a
 * MiMC-like hash chain x_{i+1} = (x_i + k_i + w_i)^5 (x^5 is a permutation of Fr on both
 * curves: gcd(5, r - 1) = 1), where every eighth round absorbs a private 32-bit word w_i
 * range-checked by its bit decomposition (b (1 - b) = 0 per bit), so about half the witness
 * values are 0 or 1 as in real circuits. Public inputs 1 .. num_public - 1 are messages
 * absorbed by the first round; the last public input is the chain's output. Deterministic in
 * (curve, log_rows, seed, num_public), including the shape.
 * The size is tight for the prover's domain: num_constraints + num_inputs = 2^log_rows
 * exactly, i.e. num_constraints = 2^log_rows - 1 - num_public.
 * @param log_rows 4 .. 28.  @param num_public 0 .. 2^(log_rows - 2).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (cs NULL, arguments out of range), ZKPIPE_ESTATE (cs has
 *         variables or constraints already), ZKPIPE_ENOMEM (the system keeps what was built
 *         so far: destroy it).
 * Allocates through the system's allocator: about 110 bytes per constraint with values
 * (capacity included; see zkpipe_cs_sizeof), and one scratch block of 8 (34 + num_public) bytes
 * freed before it returns. Thread safety: mutates `cs` (see zkpipe_cs). */
ZKPIPE_API zkpipe_status zkpipe_testcircuit_build(zkpipe_cs *cs, unsigned log_rows, uint64_t seed,
                                                  size_t num_public);

ZKPIPE_EXTERN_C_END

#endif
