/* The engine's entry to the prover as tests and benchmarks call it: the one prover on a
 * synthesis result with given r and s (Montgomery), on a backend resolved here. */
#ifndef ZKPIPE_TESTS_PROVE_SYNTH_H
#define ZKPIPE_TESTS_PROVE_SYNTH_H

#include "groth16/prove.h"

/* A uniform non-zero Fr element of `curve` (Montgomery form). */
static inline zkpipe_status random_scalar(uint64_t *out, zkpipe_curve curve)
{
    return zkpipe__fr_random(out, zkpipe__curve_ops_for(curve));
}

/* res is consumed whatever happens; ZKPIPE_ENODEVICE when the backend cannot be resolved. */
static inline zkpipe_status prove_synth(zkpipe_groth16_proof *out, size_t *first_failing,
                                        zkpipe_groth16_timings *timings,
                                        const zkpipe_groth16_pk *pk, zkpipe__synth_result *res,
                                        const uint64_t *r, const uint64_t *s, zkpipe_pool *pool,
                                        zkpipe_backend backend)
{
    const zkpipe__g16_backend *be;
    if (zkpipe__g16_backend_resolve(&be, backend, NULL) != ZKPIPE_OK) {
        zkpipe__synth_free(res);
        return ZKPIPE_ENODEVICE;
    }
    zkpipe__g16_prove_args args = {r, s, pool, be, NULL, timings, first_failing, NULL, 0};
    return zkpipe__g16_prove(out, pk, res, &args);
}

#endif
