/* zkpipe-pipeline's view of its engine for --listen and --progress, from the engine's public
 * API alone: the counters of zkpipe_engine_stats as Prometheus series and JSON, and
 * histograms of each partition's synthesis, wait and prove seconds, filled from the job
 * results as each job ends. */
#ifndef ZKPIPE_EXAMPLES_CLI_ENGINE_H
#define ZKPIPE_EXAMPLES_CLI_ENGINE_H

#include <pthread.h>

#include "zkpipe/engine.h"
#include "zkpipe/histogram.h"
#include "zkpipe/http.h"

typedef struct cli_engine {
    pthread_mutex_t lock;        /* engine, last */
    zkpipe_engine *engine;       /* cli_engine_set */
    zkpipe_engine_counters last; /* the engine's counters when it was unset */
    uint64_t total;              /* partitions the run submits */
    uint64_t t0_ns;
    zkpipe_histogram *synth_s, *wait_s, *prove_s;
} cli_engine;

/* Creates the histograms; 0, or -1 (out of memory). */
int cli_engine_init(cli_engine *w, uint64_t total);
void cli_engine_free(cli_engine *w);

/* Sets the engine the provider and progress read (under the lock, so the ticker never reads
 * an engine being destroyed); NULL before destroying it keeps its last counters. */
void cli_engine_set(cli_engine *w, zkpipe_engine *engine);

/* A zkpipe_job_done_fn (ctx: the cli_engine): observes every partition of the job. */
void cli_engine_job_done(zkpipe_job *job, void *ctx);

/* A zkpipe_http_provider_fn (ctx: the cli_engine). */
zkpipe_status cli_engine_provide(zkpipe_http_out *out, zkpipe_http_format format, void *ctx);

/* The largest peak the engine has learned over its partition sources (0: none closed yet). */
uint64_t cli_engine_learned_bytes(zkpipe_engine *engine);

/* A cli_progress_fn (ctx: the cli_engine): one phase, proving. */
int cli_engine_progress(char *buf, size_t cap, void *ctx);

#endif
