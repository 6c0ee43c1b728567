/* The engine pipelines' admission flags and progress line (cli_engine.h). */
#include "cli_engine.h"

#include <stdio.h>
#include <string.h>

#include "cli_args.h"
#include "zkpipe/trace.h"

void cli_engine_usage(FILE *f)
{
    fprintf(f, "  --synth-workers N    synthesis threads (default 2)\n"
               "  --permits N          partition permits (default 2; with --auto, where it "
               "starts:\n"
               "                       default --synth-workers)\n"
               "  --auto               the engine adjusts the permits (1..--synth-workers) to\n"
               "                       keep the provers fed; the budget defaults to half of\n"
               "                       MemAvailable\n");
}

int cli_engine_flag(cli_engine_options *o, zkpipe_engine_config *cfg, const char *name,
                    const char *value)
{
    unsigned long n;
    if (strcmp(name, "auto") == 0) {
        o->auto_permits = 1;
        return 1;
    }
    if (strcmp(name, "synth-workers") == 0) {
        if (!cli_parse_ulong(value, 1, 256, &n))
            return -1;
        cfg->synth_workers = (unsigned)n;
        return 1;
    }
    if (strcmp(name, "permits") == 0) {
        if (!cli_parse_ulong(value, 1, 1UL << 20, &n))
            return -1;
        cfg->permits = n;
        o->permits_given = 1;
        return 1;
    }
    return 0;
}

void cli_engine_options_apply(const cli_engine_options *o, zkpipe_engine_config *cfg)
{
    if (!o->auto_permits)
        return;
    cfg->concurrency = ZKPIPE_CONCURRENCY_AUTO;
    if (!o->permits_given) /* start with every synthesis worker admitted */
        cfg->permits = cfg->synth_workers;
}

int cli_engine_init(cli_engine *w, uint64_t total)
{
    memset(w, 0, sizeof *w);
    w->total = total;
    w->t0_ns = zkpipe_trace_now();
    return pthread_mutex_init(&w->lock, NULL) == 0 ? 0 : -1;
}

void cli_engine_set(cli_engine *w, zkpipe_engine *engine)
{
    pthread_mutex_lock(&w->lock);
    if (engine == NULL && w->engine != NULL)
        zkpipe_engine_stats(w->engine, &w->last);
    w->engine = engine;
    pthread_mutex_unlock(&w->lock);
}

/* The engine's counters now, or the last ones once it is gone. */
static zkpipe_status stats(cli_engine *w, zkpipe_engine_counters *c)
{
    pthread_mutex_lock(&w->lock);
    zkpipe_status st = ZKPIPE_OK;
    if (w->engine != NULL)
        st = zkpipe_engine_stats(w->engine, c);
    else
        *c = w->last;
    pthread_mutex_unlock(&w->lock);
    return st;
}

void cli_engine_free(cli_engine *w)
{
    pthread_mutex_destroy(&w->lock);
    memset(w, 0, sizeof *w);
}

int cli_engine_progress(char *buf, size_t cap, void *ctx)
{
    cli_engine *w = ctx;
    zkpipe_engine_counters c;
    if (stats(w, &c) != ZKPIPE_OK || c.submitted == 0)
        return -1;
    uint64_t done = c.proved + c.failed + c.canceled;
    double elapsed = (double)(zkpipe_trace_now() - w->t0_ns) * 1e-9;
    int n = snprintf(buf, cap,
                     "proving: %llu/%llu partitions done (%llu failed), %llu in flight (bound "
                     "%llu), %.1f s",
                     (unsigned long long)done, (unsigned long long)w->total,
                     (unsigned long long)(c.failed + c.canceled), (unsigned long long)c.in_flight,
                     (unsigned long long)c.bound, elapsed);
    if (done > 0 && done < w->total && n > 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, ", about %.0f s left",
                 elapsed / (double)done * (double)(w->total - done));
    return 1;
}

uint64_t cli_engine_learned_bytes(zkpipe_engine *engine)
{
    enum { MOST = 64 };
    zkpipe_engine_source src[MOST];
    size_t n = 0;
    if (zkpipe_engine_sources(engine, src, MOST, &n) != ZKPIPE_OK)
        return 0;
    uint64_t most = 0;
    for (size_t i = 0; i < n && i < MOST; i++)
        most = src[i].learned_bytes > most ? src[i].learned_bytes : most;
    return most;
}
