/* The engine as an HTTP endpoint's provider (zkpipe_engine_http_provider): its counters, the
 * budget, permits and channel, the CPU paths in use, partitions by result, the three partition
 * histograms and, in JSON, the oldest partitions in flight. Written through zkpipe/http.h's
 * public writers alone, so it is the same with or without libmicrohttpd. */
#include <stddef.h>
#include <stdio.h>

#include "zkpipe/cpu.h"

#include "engine/engine_internal.h"

static const struct {
    const char *name, *key, *help;
} hists[ZKPIPE_PHASE_COUNT] = {
    {"partition_synth_seconds", "synth_seconds",
     "Seconds per partition synthesizing, observed as each synthesis succeeds."},
    {"partition_wait_seconds", "wait_seconds",
     "Seconds per partition from synthesized to taken by a prover (pending + queued)."},
    {"partition_prove_seconds", "prove_seconds",
     "Seconds per partition proving, whatever the result, for every proof attempted."},
};

typedef struct gauge {
    const char *name, *help;
    size_t offset; /* in zkpipe_engine_counters */
} gauge;

#define COUNTER_AT(field) offsetof(zkpipe_engine_counters, field)

static const gauge gauges[] = {
    {"partitions_in_flight", "Partitions in synth + pending + queued now.", COUNTER_AT(in_flight)},
    {"partitions_peak_in_flight", "Most partitions in synth + pending + queued at once.",
     COUNTER_AT(peak_in_flight)},
    {"partitions_proving", "Partitions being proved now.", COUNTER_AT(proving)},
    {"partitions_bound", "Permits + capacity: the bound on partitions in flight.",
     COUNTER_AT(bound)},
    {"partitions_resident_bound",
     "The bound plus prover workers: the most partitions holding buffers at once.",
     COUNTER_AT(resident_bound)},
    {"permits_available", "Partition permits an acquire could take now.",
     COUNTER_AT(permits_available)},
    {"permits_admitted",
     "Partitions admitted to synthesis at once now (the controller's choice in auto mode).",
     COUNTER_AT(permits_admitted)},
    {"budget_bytes", "The byte budget over partitions in flight (0: none).",
     COUNTER_AT(budget_bytes)},
    {"budget_available_bytes", "Bytes of the budget not reserved now.",
     COUNTER_AT(budget_available)},
    {"channel_items", "Items in the channel (the narrow waist) now.", COUNTER_AT(channel_items)},
    {"channel_capacity", "The channel's slots.", COUNTER_AT(channel_capacity)},
    {"channel_waiting_senders", "Synthesis workers blocked in front of a full channel.",
     COUNTER_AT(waiting_senders)},
    {"unaccounted_bytes",
     "Estimate: resident bytes no ledger accounts for, above the engine's baseline.",
     COUNTER_AT(unaccounted_bytes)},
    {"unaccounted_peak_bytes", "The highest sample of unaccounted_bytes.",
     COUNTER_AT(unaccounted_peak_bytes)},
};

static uint64_t field_of(const zkpipe_engine_counters *c, size_t offset)
{
    return *(const uint64_t *)((const char *)c + offset);
}

static unsigned long long ull(uint64_t v)
{
    return (unsigned long long)v;
}

static void json_in_flight(zkpipe_http_out *out, zkpipe_engine *e)
{
    zkpipe_partition_info list[ZKPIPE_ENGINE_HTTP_LISTED];
    size_t count = 0;
    zkpipe_engine_in_flight(e, list, ZKPIPE_ENGINE_HTTP_LISTED, &count);
    size_t n = count < ZKPIPE_ENGINE_HTTP_LISTED ? count : ZKPIPE_ENGINE_HTTP_LISTED;
    zkpipe_http_out_printf(out, ",\"partitions\":{\"count\":%zu,\"listed\":[", count);
    for (size_t i = 0; i < n; i++) {
        const char *stage = zkpipe_acct_stage_name(e->acct, list[i].stage);
        zkpipe_http_out_printf(out,
                               "%s{\"job\":%llu,\"index\":%zu,\"stage\":\"%s\",\"age_s\":%.6f,"
                               "\"stage_age_s\":%.6f}",
                               i > 0 ? "," : "", ull(list[i].job), list[i].index,
                               stage != NULL ? stage : "", 1e-9 * (double)list[i].age_ns,
                               1e-9 * (double)list[i].stage_ns);
    }
    zkpipe_http_out_write(out, "]}", 2);
}

static void json(zkpipe_http_out *out, zkpipe_engine *e, const zkpipe_engine_counters *c,
                 const zkpipe_histogram_snapshot *h)
{
    uint64_t used = c->budget_bytes - c->budget_available;
    zkpipe_http_out_printf(
        out,
        "{\"backend\":\"%s\",\"cpu\":%s,\"submitted\":%llu,\"proved\":%llu,\"failed\":%llu,"
        "\"canceled\":%llu,\"in_flight\":%llu,\"peak_in_flight\":%llu,\"proving\":%llu,"
        "\"bound\":%llu,\"resident_bound\":%llu,"
        "\"permits\":{\"total\":%llu,\"available\":%llu,\"admitted\":%llu,"
        "\"concurrency\":\"%s\"},"
        "\"budget\":{\"total_bytes\":%llu,\"used_bytes\":%llu,\"available_bytes\":%llu},"
        "\"channel\":{\"items\":%llu,\"capacity\":%llu,\"waiting_senders\":%llu},"
        "\"prover_idle_s\":%.6f,"
        "\"unaccounted\":{\"bytes\":%llu,\"peak_bytes\":%llu}",
        zkpipe_backend_name(e->backend), zkpipe_cpu_json(), ull(c->submitted), ull(c->proved),
        ull(c->failed), ull(c->canceled), ull(c->in_flight), ull(c->peak_in_flight),
        ull(c->proving), ull(c->bound), ull(c->resident_bound),
        ull(zkpipe_sem_capacity(e->permits)), ull(c->permits_available), ull(c->permits_admitted),
        e->autotuning ? "auto" : "fixed", ull(c->budget_bytes), ull(c->budget_bytes > 0 ? used : 0),
        ull(c->budget_available), ull(c->channel_items), ull(c->channel_capacity),
        ull(c->waiting_senders), 1e-9 * (double)c->prover_idle_ns, ull(c->unaccounted_bytes),
        ull(c->unaccounted_peak_bytes));
    for (int i = 0; i < ZKPIPE_PHASE_COUNT; i++) {
        zkpipe_http_out_printf(out, ",\"%s\":", hists[i].key);
        zkpipe_http_out_histogram(out, hists[i].name, hists[i].help, &h[i]);
    }
    json_in_flight(out, e);
    zkpipe__admission_json(out, e, c);
    zkpipe__keys_json(out, e);
    zkpipe_http_out_write(out, "}", 1);
}

/* The oldest partition in flight, for alerts on one that is stuck. */
static double oldest_age_s(zkpipe_engine *e)
{
    zkpipe_partition_info first;
    size_t count = 0;
    zkpipe_engine_in_flight(e, &first, 1, &count);
    return count > 0 ? 1e-9 * (double)first.age_ns : 0.0;
}

static void prometheus(zkpipe_http_out *out, zkpipe_engine *e, const zkpipe_engine_counters *c,
                       const zkpipe_histogram_snapshot *h)
{
    zkpipe_http_out_family(out, "partitions_submitted_total", "counter", "Partitions submitted.");
    zkpipe_http_out_sample(out, "partitions_submitted_total", NULL, (double)c->submitted);
    zkpipe_http_out_family(out, "partitions_total", "counter", "Partitions ended, by result.");
    zkpipe_http_out_sample(out, "partitions_total", "result=\"proved\"", (double)c->proved);
    zkpipe_http_out_sample(out, "partitions_total", "result=\"failed\"", (double)c->failed);
    zkpipe_http_out_sample(out, "partitions_total", "result=\"canceled\"", (double)c->canceled);
    zkpipe_http_out_family(out, "permits", "gauge",
                           "Partition permits (in auto mode: the most the controller admits).");
    zkpipe_http_out_sample(out, "permits", NULL, (double)zkpipe_sem_capacity(e->permits));
    zkpipe_http_out_family(out, "prover_idle_seconds_total", "counter",
                           "Seconds the prover workers together waited for an item to prove.");
    zkpipe_http_out_sample(out, "prover_idle_seconds_total", NULL,
                           1e-9 * (double)c->prover_idle_ns);
    for (size_t i = 0; i < sizeof gauges / sizeof gauges[0]; i++) {
        zkpipe_http_out_family(out, gauges[i].name, "gauge", gauges[i].help);
        zkpipe_http_out_sample(out, gauges[i].name, NULL, (double)field_of(c, gauges[i].offset));
    }
    zkpipe_http_out_family(out, "partitions_oldest_age_seconds", "gauge",
                           "Seconds since the oldest partition in flight began synthesis.");
    zkpipe_http_out_sample(out, "partitions_oldest_age_seconds", NULL, oldest_age_s(e));
    zkpipe__admission_prometheus(out, e, c);
    zkpipe__keys_prometheus(out, e);
    for (int i = 0; i < ZKPIPE_PHASE_COUNT; i++)
        zkpipe_http_out_histogram(out, hists[i].name, hists[i].help, &h[i]);
}

zkpipe_status zkpipe_engine_http_provider(zkpipe_http_out *out, zkpipe_http_format format,
                                          void *engine)
{
    zkpipe_engine *e = engine;
    if (out == NULL || e == NULL)
        return ZKPIPE_EINVAL;
    zkpipe_engine_counters c;
    zkpipe_histogram_snapshot h[ZKPIPE_PHASE_COUNT];
    zkpipe_status st = zkpipe_engine_stats(e, &c);
    for (int i = 0; st == ZKPIPE_OK && i < ZKPIPE_PHASE_COUNT; i++)
        st = zkpipe_engine_histogram(e, (zkpipe_engine_phase)i, &h[i]);
    if (st != ZKPIPE_OK)
        return st;
    if (format == ZKPIPE_HTTP_JSON)
        json(out, e, &c, h);
    else
        prometheus(out, e, &c, h);
    return ZKPIPE_OK;
}
