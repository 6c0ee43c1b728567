/* Jobs of identical partitions through an engine, for the tests and benchmarks that drive the
 * engine with a host's stage operations: the configuration they start from, a job of `n`
 * partitions of one (ops, ctx), and that job run to its end. No cmocka: benchmarks use it. */
#ifndef ZKPIPE_TESTS_ENGINE_JOBS_H
#define ZKPIPE_TESTS_ENGINE_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "zkpipe/zkpipe.h"

/* The engine's defaults, counting in `acct`, on the CPU backend (host stages never look at
 * the backend; the CPU keeps the CUDA plug-in from being looked for). */
zkpipe_engine_config engine_jobs_config(zkpipe_acct *acct);

/* Submits one job of `n` partitions, each {ops, ctx}. Returns what zkpipe_engine_submit does
 * (ZKPIPE_ENOMEM for the partitions' array). */
zkpipe_status engine_jobs_submit(zkpipe_engine *e, zkpipe_job **job, const zkpipe_stage_ops *ops,
                                 void *ctx, size_t n);

/* Submits such a job, waits for it (at most `timeout_ms`) and destroys it. Returns ZKPIPE_OK
 * when every partition was proved; otherwise the submit's or the wait's error, or the first
 * failing partition's status. */
zkpipe_status engine_jobs_run(zkpipe_engine *e, const zkpipe_stage_ops *ops, void *ctx, size_t n,
                              long timeout_ms);

#endif
