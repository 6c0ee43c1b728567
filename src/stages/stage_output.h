/* What the built-in stage operations share around their prover: the backend, resolved on a
 * partition's first need of it rather than by the engine (which never loads the CUDA plug-in
 * for a host's stages), and the output a proved partition leaves in its result's `host`. */
#ifndef ZKPIPE_STAGES_STAGE_OUTPUT_H
#define ZKPIPE_STAGES_STAGE_OUTPUT_H

#include "groth16/prove.h"
#include "zkpipe/stages.h"

/* A proved partition's output: allocated as it is proved, freed with its job. */
typedef struct zkpipe__stage_output {
    uint64_t magic; /* ZKPIPE__STAGE_OUTPUT_MAGIC: zkpipe_stage_proof's check */
    /* A copy of the engine's allocator, which freed the output: jobs outlive their engine. */
    zkpipe_allocator allocator;
    zkpipe_groth16_proof proof;
} zkpipe__stage_output;

/* The backend table of the call's request (zkpipe_backend_resolve's answer) and an output to
 * prove into, allocated through the call's allocator; on error nothing is allocated and
 * `detail` says why. ZKPIPE_OK, ZKPIPE_ENODEVICE, ZKPIPE_ENOMEM. */
zkpipe_status zkpipe__stage_output_begin(zkpipe__stage_output **out,
                                         const zkpipe__g16_backend **backend,
                                         const zkpipe_stage_call *call, char *detail, size_t cap);

/* The start of a built-in `prove`: zkpipe__stage_output_begin, then the blinding scalars r and s
 * (Montgomery form, for the curve `c`): from `insecure` (two canonical scalars) when it is not
 * NULL, else fresh from the operating system. On error nothing is allocated and `detail` says
 * why. ZKPIPE_OK, what zkpipe__stage_output_begin returns, ZKPIPE_EINVAL (an insecure scalar
 * not below the field order), zkpipe__fr_random's error. */
zkpipe_status zkpipe__stage_prove_begin(zkpipe__stage_output **out,
                                        const zkpipe__g16_backend **backend, uint64_t r[4],
                                        uint64_t s[4], const zkpipe__curve_ops *c,
                                        const zkpipe_scalar *insecure,
                                        const zkpipe_stage_call *call, char *detail, size_t cap);

/* Ends a proof: with ZKPIPE_OK the output becomes result->host, else it is freed (NULL: none,
 * the begin failed). Returns st. */
zkpipe_status zkpipe__stage_output_end(zkpipe__stage_output *output,
                                       zkpipe_partition_result *result, zkpipe_status st);

/* The built-in operations' result_free. */
void zkpipe__stage_output_free(void *ctx, size_t partition, void *host);

#endif
