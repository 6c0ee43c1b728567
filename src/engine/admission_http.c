/* What admission by bytes shows through the engine's HTTP provider (http_provider.c): the
 * budget's early returns, over-reservations, waits and overdrafts, and per partition source its
 * estimate, learned peak and last reservation. */
#include <stddef.h>
#include <stdio.h>

#include "engine/engine_internal.h"

/* Sources listed at most (the engine remembers ZKPIPE__SOURCES_MAX). */
#define LISTED 16

static unsigned long long ull(uint64_t v)
{
    return (unsigned long long)v;
}

/* A source's name as a JSON string or label value: [a-zA-Z0-9_ .-] kept, others '_'. */
static void clean_name(char *out, size_t cap, const zkpipe_engine_source *s)
{
    const char *in = s->name[0] != '\0' ? s->name : "unnamed";
    size_t n = 0;
    for (; in[n] != '\0' && n + 1 < cap; n++) {
        char ch = in[n];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '_' || ch == ' ' || ch == '.' || ch == '-';
        out[n] = ok ? ch : '_';
    }
    out[n] = '\0';
}

void zkpipe__admission_json(zkpipe_http_out *out, zkpipe_engine *e, const zkpipe_engine_counters *c)
{
    zkpipe_engine_source src[LISTED];
    size_t count = zkpipe__admission_sources(&e->adm, src, LISTED);
    zkpipe_http_out_printf(out,
                           ",\"admission\":{\"reservation\":\"%s\",\"returned_early_bytes\":%llu,"
                           "\"over_reservation_events\":%llu,\"over_reservation_bytes\":%llu,"
                           "\"admission_waits\":%llu,\"admission_wait_s\":%.6f,"
                           "\"growth_waits\":%llu,\"growth_wait_s\":%.6f,"
                           "\"overdrafts\":%llu,\"overdraft_peak_bytes\":%llu,\"sources\":[",
                           e->config.reservation == ZKPIPE_RESERVATION_WHOLE ? "whole" : "follow",
                           ull(c->budget_returned_early), ull(c->over_reservation_events),
                           ull(c->over_reservation_bytes), ull(c->budget_admission_waits),
                           1e-9 * (double)c->budget_admission_wait_ns, ull(c->budget_growth_waits),
                           1e-9 * (double)c->budget_growth_wait_ns, ull(c->budget_overdrafts),
                           ull(c->budget_overdraft_peak_bytes));
    for (size_t i = 0; i < count && i < LISTED; i++) {
        char name[ZKPIPE_ENGINE_SOURCE_NAME_MAX + 1];
        clean_name(name, sizeof name, &src[i]);
        zkpipe_http_out_printf(out,
                               "%s{\"name\":\"%s\",\"estimate_bytes\":%llu,\"learned_bytes\":%llu,"
                               "\"reserved_bytes\":%llu,\"partitions\":%llu,"
                               "\"over_reservation_events\":%llu,\"over_reservation_bytes\":%llu}",
                               i > 0 ? "," : "", name, ull(src[i].estimate_bytes),
                               ull(src[i].learned_bytes), ull(src[i].reserved_bytes),
                               ull(src[i].partitions), ull(src[i].over_reservation_events),
                               ull(src[i].over_reservation_bytes));
    }
    zkpipe_http_out_write(out, "]}", 2);
}

void zkpipe__admission_prometheus(zkpipe_http_out *out, zkpipe_engine *e,
                                  const zkpipe_engine_counters *c)
{
    const struct {
        const char *name, *type, *help;
        double value;
    } one[] = {
        {"budget_returned_early_bytes_total", "counter",
         "Budget bytes given back as ledgers freed them, before they closed.",
         (double)c->budget_returned_early},
        {"over_reservation_events_total", "counter",
         "Partitions whose ledger charged beyond the bytes they were admitted with.",
         (double)c->over_reservation_events},
        {"over_reservation_bytes_total", "counter",
         "The sum of those partitions' largest excesses over it.",
         (double)c->over_reservation_bytes},
        {"budget_admission_waits_total", "counter",
         "Partition admissions that waited for byte budget.", (double)c->budget_admission_waits},
        {"budget_admission_wait_seconds_total", "counter",
         "Seconds partition admissions waited for byte budget, in all.",
         1e-9 * (double)c->budget_admission_wait_ns},
        {"budget_growth_waits_total", "counter",
         "Charges beyond a partition's reservation that waited for byte budget.",
         (double)c->budget_growth_waits},
        {"budget_growth_wait_seconds_total", "counter",
         "Seconds those charges waited for byte budget, in all.",
         1e-9 * (double)c->budget_growth_wait_ns},
        {"budget_overdrafts_total", "counter",
         "Times one partition was let past the byte budget because nothing else could move.",
         (double)c->budget_overdrafts},
        {"budget_overdraft_peak_bytes", "gauge",
         "The most the reservations ever exceeded the byte budget by.",
         (double)c->budget_overdraft_peak_bytes},
    };
    for (size_t f = 0; f < sizeof one / sizeof one[0]; f++) {
        zkpipe_http_out_family(out, one[f].name, one[f].type, one[f].help);
        zkpipe_http_out_sample(out, one[f].name, NULL, one[f].value);
    }
    zkpipe_engine_source src[LISTED];
    size_t count = zkpipe__admission_sources(&e->adm, src, LISTED);
    static const struct {
        const char *name, *help;
        size_t offset;
    } per[] = {
        {"source_estimate_bytes", "The last estimate a partition source announced.",
         offsetof(zkpipe_engine_source, estimate_bytes)},
        {"source_learned_bytes", "The largest peak a partition source's ledgers reached.",
         offsetof(zkpipe_engine_source, learned_bytes)},
        {"source_reserved_bytes", "A partition source's last reservation of the byte budget.",
         offsetof(zkpipe_engine_source, reserved_bytes)},
    };
    for (size_t f = 0; f < sizeof per / sizeof per[0]; f++) {
        zkpipe_http_out_family(out, per[f].name, "gauge", per[f].help);
        for (size_t i = 0; i < count && i < LISTED; i++) {
            char name[ZKPIPE_ENGINE_SOURCE_NAME_MAX + 1], labels[96];
            clean_name(name, sizeof name, &src[i]);
            /* The rank keeps two sources of one name apart. */
            snprintf(labels, sizeof labels, "source=\"%s\",rank=\"%zu\"", name, i);
            zkpipe_http_out_sample(
                out, per[f].name, labels,
                (double)*(const uint64_t *)((const char *)&src[i] + per[f].offset));
        }
    }
}
