/* What zkpipe-serve adds to /metrics and /status: requests by circuit and answer code, with
 * their latency (arrival to answer) as histograms, and the admission queue's state. The engine's
 * own series come from its provider (zkpipe_engine_http_provider). */
#ifndef ZKPIPE_TOOLS_SERVE_METRICS_H
#define ZKPIPE_TOOLS_SERVE_METRICS_H

#include <stdatomic.h>
#include <stdint.h>

#include "zkpipe/zkpipe.h"

/* The answer codes counted apart; any other counts as the last. */
#define SERVE_CODES 12

/* One circuit's requests (the row of index ncircuits: requests naming none). */
typedef struct serve_row {
    const char *name; /* the circuit's; "" for none */
    _Atomic uint64_t count[SERVE_CODES];
    zkpipe_histogram *seconds[SERVE_CODES];
} serve_row;

typedef struct serve_metrics {
    serve_row *rows;
    unsigned nrows;
    /* The admission queue, set by its owner. */
    _Atomic uint64_t waiting, admitted, draining, witnesses_running;
} serve_metrics;

/* Rows for `n` circuits named names[i], and one for requests naming none: 0, or -1 (memory). */
int serve_metrics_init(serve_metrics *m, const char *const *names, unsigned n);
void serve_metrics_free(serve_metrics *m);

/* Counts an answer of `code` for circuit `row` (nrows - 1: none), `ns` after its arrival. Any
 * thread. */
void serve_metrics_observe(serve_metrics *m, unsigned row, unsigned code, uint64_t ns);

/* A zkpipe_http_provider_fn (ctx: the serve_metrics). */
zkpipe_status serve_metrics_provider(zkpipe_http_out *out, zkpipe_http_format format, void *ctx);

#endif
