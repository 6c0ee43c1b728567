/* The engine's counters and partition histograms for zkpipe-pipeline (cli_engine.h). */
#include "cli_engine.h"

#include <stdio.h>
#include <string.h>

#include "zkpipe/trace.h"

int cli_engine_init(cli_engine *w, uint64_t total)
{
    memset(w, 0, sizeof *w);
    w->total = total;
    w->t0_ns = zkpipe_trace_now();
    if (pthread_mutex_init(&w->lock, NULL) != 0)
        return -1;
    if (zkpipe_histogram_create(&w->synth_s, NULL, 0, 1e-9, NULL) != ZKPIPE_OK ||
        zkpipe_histogram_create(&w->wait_s, NULL, 0, 1e-9, NULL) != ZKPIPE_OK ||
        zkpipe_histogram_create(&w->prove_s, NULL, 0, 1e-9, NULL) != ZKPIPE_OK) {
        cli_engine_free(w);
        return -1;
    }
    return 0;
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
    zkpipe_histogram_destroy(w->synth_s);
    zkpipe_histogram_destroy(w->wait_s);
    zkpipe_histogram_destroy(w->prove_s);
    pthread_mutex_destroy(&w->lock);
    memset(w, 0, sizeof *w);
}

static uint64_t ns(double s)
{
    return s > 0 ? (uint64_t)(s * 1e9) : 0;
}

void cli_engine_job_done(zkpipe_job *job, void *ctx)
{
    cli_engine *w = ctx;
    for (size_t i = 0; i < zkpipe_job_partitions(job); i++) {
        zkpipe_partition_result r;
        if (zkpipe_job_result(job, i, &r) != ZKPIPE_OK || r.status == ZKPIPE_ECANCELED)
            continue;
        zkpipe_histogram_observe(w->synth_s, ns(r.synth_s));
        if (r.status == ZKPIPE_OK) {
            zkpipe_histogram_observe(w->wait_s, ns(r.wait_s));
            zkpipe_histogram_observe(w->prove_s, ns(r.prove_s));
        }
    }
}

uint64_t cli_engine_learned_bytes(zkpipe_engine *engine)
{
    zkpipe_engine_source src[16];
    size_t n = 0;
    if (zkpipe_engine_sources(engine, src, 16, &n) != ZKPIPE_OK)
        return 0;
    uint64_t most = 0;
    for (size_t i = 0; i < n && i < 16; i++)
        most = src[i].learned_bytes > most ? src[i].learned_bytes : most;
    return most;
}

/* What the engine knows of its partition sources, as Prometheus series labelled by source. */
static void source_series(zkpipe_http_out *out, zkpipe_engine *engine)
{
    zkpipe_engine_source src[16];
    size_t n = 0;
    if (engine == NULL || zkpipe_engine_sources(engine, src, 16, &n) != ZKPIPE_OK)
        return;
    static const struct {
        const char *name, *help;
        size_t offset;
    } per[] = {
        {"source_estimate_bytes", "The last estimate a source's partitions announced.",
         offsetof(zkpipe_engine_source, estimate_bytes)},
        {"source_learned_bytes", "The largest peak a source's closed ledgers reached.",
         offsetof(zkpipe_engine_source, learned_bytes)},
        {"source_reserved_bytes", "A source's last reservation of the byte budget.",
         offsetof(zkpipe_engine_source, reserved_bytes)},
    };
    for (size_t f = 0; f < sizeof per / sizeof per[0]; f++) {
        zkpipe_http_out_family(out, per[f].name, "gauge", per[f].help);
        for (size_t i = 0; i < n && i < 16; i++) {
            char labels[96];
            snprintf(labels, sizeof labels, "source=\"%.31s#%zu\"",
                     src[i].name[0] != '\0' ? src[i].name : "unnamed", i);
            zkpipe_http_out_sample(
                out, per[f].name, labels,
                (double)*(const uint64_t *)((const char *)&src[i] + per[f].offset));
        }
    }
}

static const struct {
    const char *name, *help;
} hists[3] = {
    {"partition_synth_seconds", "Seconds per partition building its circuit and synthesizing."},
    {"partition_wait_seconds", "Seconds per partition from synthesized to taken by a prover."},
    {"partition_prove_seconds", "Seconds per partition proving."},
};

zkpipe_status cli_engine_provide(zkpipe_http_out *out, zkpipe_http_format format, void *ctx)
{
    cli_engine *w = ctx;
    zkpipe_engine_counters c;
    zkpipe_status st = stats(w, &c);
    if (st != ZKPIPE_OK)
        return st;
    zkpipe_histogram_snapshot h[3];
    zkpipe_histogram_read(w->synth_s, &h[0]);
    zkpipe_histogram_read(w->wait_s, &h[1]);
    zkpipe_histogram_read(w->prove_s, &h[2]);
    if (format == ZKPIPE_HTTP_JSON) {
        zkpipe_http_out_printf(
            out,
            "{\"submitted\":%llu,\"proved\":%llu,\"failed\":%llu,"
            "\"canceled\":%llu,\"in_flight\":%llu,\"peak_in_flight\":%llu,"
            "\"bound\":%llu,\"resident_bound\":%llu,\"budget_bytes\":%llu,"
            "\"budget_available\":%llu,\"budget_returned_early\":%llu,"
            "\"over_reservation_events\":%llu,"
            "\"over_reservation_bytes\":%llu",
            (unsigned long long)c.submitted, (unsigned long long)c.proved,
            (unsigned long long)c.failed, (unsigned long long)c.canceled,
            (unsigned long long)c.in_flight, (unsigned long long)c.peak_in_flight,
            (unsigned long long)c.bound, (unsigned long long)c.resident_bound,
            (unsigned long long)c.budget_bytes, (unsigned long long)c.budget_available,
            (unsigned long long)c.budget_returned_early,
            (unsigned long long)c.over_reservation_events,
            (unsigned long long)c.over_reservation_bytes);
        for (int i = 0; i < 3; i++) {
            zkpipe_http_out_printf(out, ",\"%s\":", hists[i].name + 10);
            zkpipe_http_out_histogram(out, hists[i].name, hists[i].help, &h[i]);
        }
        zkpipe_http_out_write(out, "}", 1);
        return ZKPIPE_OK;
    }
    zkpipe_http_out_family(out, "partitions_submitted_total", "counter", "Partitions submitted.");
    zkpipe_http_out_sample(out, "partitions_submitted_total", NULL, (double)c.submitted);
    zkpipe_http_out_family(out, "partitions_total", "counter", "Partitions ended, by result.");
    zkpipe_http_out_sample(out, "partitions_total", "result=\"proved\"", (double)c.proved);
    zkpipe_http_out_sample(out, "partitions_total", "result=\"failed\"", (double)c.failed);
    zkpipe_http_out_sample(out, "partitions_total", "result=\"canceled\"", (double)c.canceled);
    static const struct {
        const char *name, *help;
        size_t offset;
    } gauges[] = {
        {"partitions_in_flight", "Partitions in synth + pending + queued now.",
         offsetof(zkpipe_engine_counters, in_flight)},
        {"partitions_peak_in_flight", "Most partitions in synth + pending + queued at once.",
         offsetof(zkpipe_engine_counters, peak_in_flight)},
        {"partitions_bound", "Permits + capacity: the bound on partitions in flight.",
         offsetof(zkpipe_engine_counters, bound)},
        {"partitions_resident_bound", "The bound plus prover workers: partitions holding buffers.",
         offsetof(zkpipe_engine_counters, resident_bound)},
        {"budget_bytes", "The byte budget over in-flight partitions (0: none).",
         offsetof(zkpipe_engine_counters, budget_bytes)},
        {"budget_available_bytes", "Bytes of the budget not reserved now.",
         offsetof(zkpipe_engine_counters, budget_available)},
    };
    zkpipe_http_out_family(out, "budget_returned_early_bytes_total", "counter",
                           "Budget bytes given back as ledgers freed them, before they closed.");
    zkpipe_http_out_sample(out, "budget_returned_early_bytes_total", NULL,
                           (double)c.budget_returned_early);
    zkpipe_http_out_family(out, "over_reservation_events_total", "counter",
                           "Partitions whose ledger charged beyond their byte reservation.");
    zkpipe_http_out_sample(out, "over_reservation_events_total", NULL,
                           (double)c.over_reservation_events);
    zkpipe_http_out_family(out, "over_reservation_bytes_total", "counter",
                           "The sum of those partitions' largest excesses over it.");
    zkpipe_http_out_sample(out, "over_reservation_bytes_total", NULL,
                           (double)c.over_reservation_bytes);
    for (size_t i = 0; i < sizeof gauges / sizeof gauges[0]; i++) {
        zkpipe_http_out_family(out, gauges[i].name, "gauge", gauges[i].help);
        zkpipe_http_out_sample(out, gauges[i].name, NULL,
                               (double)*(const uint64_t *)((const char *)&c + gauges[i].offset));
    }
    pthread_mutex_lock(&w->lock);
    source_series(out, w->engine);
    pthread_mutex_unlock(&w->lock);
    for (int i = 0; i < 3; i++)
        zkpipe_http_out_histogram(out, hists[i].name, hists[i].help, &h[i]);
    return ZKPIPE_OK;
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
