/* A progress line on stderr for the tools: redrawn in place on a terminal, plain
 * lines otherwise (when asked for with --progress: at each change of phase and every few
 * seconds), nothing when stderr is not a terminal and nobody asked. It runs on a ticker
 * thread that may do other periodic work too (cli_observe flushes its trace there). */
#ifndef ZKPIPE_EXAMPLES_CLI_PROGRESS_H
#define ZKPIPE_EXAMPLES_CLI_PROGRESS_H

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

/* Writes the current progress line (no newline) into `buf` and returns its phase (lines of
 * one phase are drawn over each other), or -1 when there is nothing to show yet. */
typedef int (*cli_progress_fn)(char *buf, size_t cap, void *ctx);

/* Periodic work besides the line, on the ticker thread (may be NULL). */
typedef void (*cli_tick_fn)(void *ctx);

typedef struct cli_progress {
    cli_progress_fn line;
    cli_tick_fn tick;
    void *ctx;
    int on;  /* a line is drawn */
    int tty; /* redrawn in place */
    int phase;
    unsigned long since_ms; /* since the last plain line */
    int drawn;              /* something is on the terminal's line */
    pthread_mutex_t out;    /* the line and cli_progress_print take turns */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stopping;
    int started;
    int threaded; /* the ticker thread runs (the line is on, or there is a tick) */
    pthread_t thread;
} cli_progress;

/* Starts the ticker: every 250 ms `tick(ctx)`, then the line when progress is on (stderr is a
 * terminal, or `forced`, and `line` is not NULL). With neither a tick nor a line to draw no
 * thread starts. Returns 0, or -1 (no thread where one was needed). */
int cli_progress_start(cli_progress *p, cli_progress_fn line, cli_tick_fn tick, void *ctx,
                       int forced);

/* Prints `line` and a newline on `f` (stdout or stderr) so that it does not mix with the
 * progress line: on a terminal the progress line is erased first and redrawn at the next
 * tick. Any thread. */
void cli_progress_print(cli_progress *p, FILE *f, const char *line);

/* Stops the ticker and draws the final line (ended by a newline). NULL-safe when not started. */
void cli_progress_stop(cli_progress *p);

#endif
