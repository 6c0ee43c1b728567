/* zkpipe-pipeline's and zkpipe-host-pipeline's progress line for --progress, read from the
 * engine's counters (zkpipe_engine_stats). What --listen serves of the engine is the
 * library's own provider (zkpipe_engine_http_provider). */
#ifndef ZKPIPE_EXAMPLES_CLI_ENGINE_H
#define ZKPIPE_EXAMPLES_CLI_ENGINE_H

#include <pthread.h>

#include "zkpipe/engine.h"

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
