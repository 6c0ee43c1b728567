/* The QAP evaluations both setups share (setup.c's bellman-layout keys and setup_zkey.c's
 * zkey-layout keys): Lagrange bases at tau and the variables' polynomials at tau. Scalars are
 * Montgomery Fr elements of ZKPIPE__FR_LIMBS limbs. */
#ifndef ZKPIPE_GROTH16_SETUP_INTERNAL_H
#define ZKPIPE_GROTH16_SETUP_INTERNAL_H

#include "circuit/cs_internal.h"

/* L[j] = L_j(tau) over the domain of size 2^log_n, for j < 2^log_n; scratch holds as many
 * elements. tau must not be in the domain. ZKPIPE_OK, ZKPIPE_ETOOBIG (no such domain). */
zkpipe_status zkpipe__setup_lagrange(const zkpipe__curve_ops *c, uint64_t *L, uint64_t *scratch,
                                     const uint64_t *tau, unsigned log_n);

/* uvw[k][i] += sum over the rows of matrix k (A, B, C) of the coefficient of variable i times
 * L[row], plus L[num_constraints + j] in u_j for each input j (the input-consistency rows);
 * uvw[k] holds num_inputs + num_aux elements, zeroed by the caller. */
void zkpipe__setup_qap(uint64_t *const *uvw, const zkpipe_cs *cs, const uint64_t *L);

/* out[i - begin] = (beta u_i + alpha v_i + w_i) * inv for i in [begin, end). */
void zkpipe__setup_combine(const zkpipe__curve_ops *c, uint64_t *out, uint64_t *const *uvw,
                           const uint64_t *alpha, const uint64_t *beta, const uint64_t *inv,
                           size_t begin, size_t end);

/* The domain of a zkey-layout key for cs (2^log_n >= constraints + inputs): ZKPIPE_OK, the
 * errors of zkpipe_cs_synth_bytes, or ZKPIPE_ETOOBIG (no odd coset of that size in Fr, or
 * counts beyond a zkey's 32 bits). */
zkpipe_status zkpipe__setup_zkey_shape(const zkpipe_cs *cs, unsigned *log_n);
/* A zkey's section 4 entries for cs, as snarkjs writes them, into e (room for all of them:
 * A and B terms plus one per input, ZKPIPE__G16_COEFF_BYTES each). */
void zkpipe__setup_zkey_coeffs(uint8_t *e, const zkpipe_cs *cs);

#endif
