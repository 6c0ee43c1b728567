/* What the pipeline binaries share to be watched while they run and to write their files:
 * --listen ADDR:PORT (the HTTP endpoint, zkpipe/http.h), --listen-token-file FILE (the bearer
 * token its /metrics and /status require), --linger-ms N (keep serving after the
 * run), --trace FILE (the streamed timeline), --plot FILE.svg (a picture of the run from the
 * trace's samples) and --progress (a status line on stderr), with one ticker thread that
 * flushes the trace and redraws the progress line. */
#ifndef ZKPIPE_EXAMPLES_CLI_OBSERVE_H
#define ZKPIPE_EXAMPLES_CLI_OBSERVE_H

#include <stdio.h>

#include "cli_files.h"
#include "cli_plot.h"
#include "cli_progress.h"
#include "zkpipe/http.h"
#include "zkpipe/trace.h"

typedef struct cli_observe_options {
    const char *listen;            /* ADDR:PORT, [IPv6]:PORT; NULL: no endpoint */
    const char *listen_token_file; /* its first line is the bearer token; NULL: none */
    unsigned long linger_ms;
    const char *trace_path, *plot_path;
    int progress; /* 1: --progress; 0: only when stderr is a terminal */
} cli_observe_options;

/* The usage lines of the flags above. */
void cli_observe_usage(FILE *f);

/* Takes `name` (without its leading dashes) with `value`: 1 when it is one of ours and the
 * value is good, 0 when the name is not ours, -1 for a bad value. `value` is NULL for
 * --progress, the only flag without one. */
int cli_observe_flag(cli_observe_options *o, const char *name, const char *value);

typedef struct cli_observe {
    const cli_observe_options *opt;
    zkpipe_acct *acct;
    zkpipe_http *http;
    /* What /metrics serves beyond the registry, also without --listen: --metrics holds the
     * same (cli_observe_metrics). */
    zkpipe_http_provider providers[ZKPIPE_HTTP_PROVIDERS_MAX];
    size_t provider_count;
    zkpipe_trace *trace;
    cli_plot plot;
    cli_progress_fn progress;
    void *progress_ctx;
    cli_progress ticker; /* flushes the trace, draws the progress line */
    FILE *report_to;     /* where cli_observe_report writes; stderr unless set */
} cli_observe;

/* Starts what the options ask for on registry `acct`: the endpoint (its address printed on
 * stderr; with --listen-token-file, the token read from the file's first line, which must hold
 * 1..ZKPIPE_HTTP_TOKEN_MAX characters in 0x21..0x7e; the token is never printed), the trace
 * (watching `acct`) when --trace or --plot is given, and the ticker. `progress` (may be NULL) is
 * asked for the progress line every 250 ms when progress is on. Returns 0, or -1 after printing why
 * on stderr (then nothing is left running). */
int cli_observe_start(cli_observe *obs, const cli_observe_options *opt, const char *prog,
                      zkpipe_acct *acct, cli_progress_fn progress, void *progress_ctx);

/* A zkpipe_reporter_fn (ctx: the cli_observe, started): writes the reporter's line on
 * obs->report_to without mixing it with the progress line. */
void cli_observe_report(const char *line, void *ctx);

/* Adds a provider (`name` a literal or otherwise lasting as long as obs) to what /metrics,
 * /status and cli_observe_metrics show, and attaches it to the endpoint when there is one; 0 or
 * -1 (printed). `ctx` must stay valid until cli_observe_stop_serving. */
int cli_observe_attach(cli_observe *obs, const char *prog, const char *name,
                       zkpipe_http_provider_fn fn, void *ctx);

/* After the run: lingers --linger-ms while still serving, then stops the endpoint and forgets
 * the providers (so their objects may go after it). Called by cli_observe_finish when not
 * called before. */
void cli_observe_stop_serving(cli_observe *obs);

/* Before the run: the files the options name (--trace, --plot) and the binary's own `more`
 * (e.g. --metrics, proofs), checked as one set (cli_outputs_check): a folder, a missing
 * folder, two outputs onto one file are refused before any work. Returns 0, or -1 after
 * printing why on stderr. */
int cli_observe_check(const cli_observe_options *opt, const char *prog, const cli_output *more,
                      size_t nmore);

/* For --metrics: what GET /metrics answers now (zkpipe_http_render with the endpoint's options
 * and providers, with or without --listen), in a malloc'd buffer the caller frees (*len its
 * bytes). Call it before cli_observe_stop_serving, while the providers' objects live. Returns
 * ZKPIPE_OK or zkpipe_http_render's error (*text NULL). */
zkpipe_status cli_observe_metrics(const cli_observe *obs, char **text, size_t *len);

/* After the run (and after whatever writes to the trace, such as an engine, is gone): stops
 * the ticker (a last progress line), stops serving (cli_observe_stop_serving) and closes the
 * trace. Then, unless `title` is NULL (the run did not start: nothing is written), writes the
 * plot, with `bound` items as its line (0: none), and the binary's `more` outputs (their texts
 * filled in) as one set (cli_outputs_write): all of them, or none, every file that was there
 * left as it was. Returns 0, or -1 when the trace, the plot or the set could not be written
 * (printed). */
int cli_observe_finish(cli_observe *obs, const char *prog, const char *title, uint64_t bound,
                       const cli_output *more, size_t nmore);

#endif
