/* What zkpipe-pipeline and zkpipe-host-pipeline share about their engine: the admission flags
 * both take alike (--synth-workers, --permits, --auto) and the progress line for --progress,
 * read from the engine's counters (zkpipe_engine_stats). What --listen serves of the engine is
 * the library's own provider (zkpipe_engine_http_provider). */
#ifndef ZKPIPE_EXAMPLES_CLI_ENGINE_H
#define ZKPIPE_EXAMPLES_CLI_ENGINE_H

#include <pthread.h>
#include <stdio.h>

#include "zkpipe/engine.h"

typedef struct cli_engine_options {
    int auto_permits;  /* --auto */
    int permits_given; /* --permits was given: with --auto, where the controller starts */
} cli_engine_options;

/* The usage lines of --synth-workers, --permits and --auto. */
void cli_engine_usage(FILE *f);

/* Takes `name` (without its leading dashes) with `value` into `o` and `cfg`: 1 when it is one
 * of ours and the value is good, 0 when the name is not ours, -1 for a bad value. `value` is
 * NULL for --auto, the only flag without one. */
int cli_engine_flag(cli_engine_options *o, zkpipe_engine_config *cfg, const char *name,
                    const char *value);

/* After the flags: --auto makes `cfg` adjust its permits, starting from every synthesis worker
 * unless --permits said where. */
void cli_engine_options_apply(const cli_engine_options *o, zkpipe_engine_config *cfg);

typedef struct cli_engine {
    pthread_mutex_t lock;        /* engine, last */
    zkpipe_engine *engine;       /* cli_engine_set */
    zkpipe_engine_counters last; /* the engine's counters when it was unset */
    uint64_t total;              /* partitions the run submits */
    uint64_t t0_ns;
} cli_engine;

/* 0, or -1 (the lock could not be made). */
int cli_engine_init(cli_engine *w, uint64_t total);
void cli_engine_free(cli_engine *w);

/* Sets the engine the progress line reads (under the lock, so the ticker never reads an
 * engine being destroyed); NULL before destroying it keeps its last counters. */
void cli_engine_set(cli_engine *w, zkpipe_engine *engine);

/* The largest peak the engine has learned over its partition sources (0: none closed yet). */
uint64_t cli_engine_learned_bytes(zkpipe_engine *engine);

/* A cli_progress_fn (ctx: the cli_engine): one phase, proving. */
int cli_engine_progress(char *buf, size_t cap, void *ctx);

#endif
