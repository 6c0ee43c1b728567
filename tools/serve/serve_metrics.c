/* zkpipe-serve's request series (serve_metrics.h). */
#include "serve_metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned codes[SERVE_CODES] = {200, 400, 401, 404, 405, 413,
                                            415, 422, 429, 500, 503, 0};

static unsigned code_index(unsigned code)
{
    for (unsigned i = 0; i + 1 < SERVE_CODES; i++)
        if (codes[i] == code)
            return i;
    return SERVE_CODES - 1;
}

int serve_metrics_init(serve_metrics *m, const char *const *names, unsigned n)
{
    memset(m, 0, sizeof *m);
    m->rows = calloc(n + 1, sizeof *m->rows);
    if (m->rows == NULL)
        return -1;
    m->nrows = n + 1;
    for (unsigned r = 0; r <= n; r++) {
        m->rows[r].name = r < n ? names[r] : "";
        for (unsigned c = 0; c < SERVE_CODES; c++)
            if (zkpipe_histogram_create(&m->rows[r].seconds[c], NULL, 0, 1e-9, NULL) != ZKPIPE_OK)
                return -1;
    }
    return 0;
}

void serve_metrics_free(serve_metrics *m)
{
    for (unsigned r = 0; m->rows != NULL && r < m->nrows; r++)
        for (unsigned c = 0; c < SERVE_CODES; c++)
            zkpipe_histogram_destroy(m->rows[r].seconds[c]);
    free(m->rows);
    memset(m, 0, sizeof *m);
}

void serve_metrics_observe(serve_metrics *m, unsigned row, unsigned code, uint64_t ns)
{
    if (row >= m->nrows)
        row = m->nrows - 1;
    unsigned c = code_index(code);
    atomic_fetch_add_explicit(&m->rows[row].count[c], 1, memory_order_relaxed);
    zkpipe_histogram_observe(m->rows[row].seconds[c], ns);
}

static uint64_t load(_Atomic uint64_t *v)
{
    return atomic_load_explicit(v, memory_order_relaxed);
}

/* The code's label value: the number, or "other". */
static const char *code_label(unsigned i, char *buf, size_t cap)
{
    if (codes[i] == 0)
        return "other";
    snprintf(buf, cap, "%u", codes[i]);
    return buf;
}

static void prometheus(zkpipe_http_out *out, serve_metrics *m)
{
    zkpipe_http_out_family(out, "serve_requests_total", "counter",
                           "Prove requests answered, by circuit (\"\": none named) and code.");
    char labels[160], code[16];
    for (unsigned r = 0; r < m->nrows; r++)
        for (unsigned c = 0; c < SERVE_CODES; c++) {
            uint64_t n = load(&m->rows[r].count[c]);
            if (n == 0)
                continue;
            snprintf(labels, sizeof labels, "circuit=\"%s\",code=\"%s\"", m->rows[r].name,
                     code_label(c, code, sizeof code));
            zkpipe_http_out_sample(out, "serve_requests_total", labels, (double)n);
        }
    /* One histogram family, a series per (circuit, code) that has seen a request. */
    zkpipe_http_out_family(out, "serve_request_seconds", "histogram",
                           "Seconds from a request's arrival to its answer.");
    for (unsigned r = 0; r < m->nrows; r++)
        for (unsigned c = 0; c < SERVE_CODES; c++) {
            zkpipe_histogram_snapshot s;
            if (zkpipe_histogram_read(m->rows[r].seconds[c], &s) != ZKPIPE_OK || s.count == 0)
                continue;
            char base[128];
            snprintf(base, sizeof base, "circuit=\"%s\",code=\"%s\"", m->rows[r].name,
                     code_label(c, code, sizeof code));
            for (uint32_t b = 0; b <= s.bucket_count; b++) {
                if (b < s.bucket_count)
                    snprintf(labels, sizeof labels, "%s,le=\"%g\"", base,
                             (double)s.bounds[b] * s.unit);
                else
                    snprintf(labels, sizeof labels, "%s,le=\"+Inf\"", base);
                zkpipe_http_out_sample(out, "serve_request_seconds_bucket", labels,
                                       (double)s.cumulative[b]);
            }
            zkpipe_http_out_sample(out, "serve_request_seconds_sum", base, (double)s.sum * s.unit);
            zkpipe_http_out_sample(out, "serve_request_seconds_count", base, (double)s.count);
        }
    zkpipe_http_out_family(out, "serve_waiting", "gauge", "Requests waiting for admission.");
    zkpipe_http_out_sample(out, "serve_waiting", NULL, (double)load(&m->waiting));
    zkpipe_http_out_family(out, "serve_admitted", "gauge",
                           "Requests admitted to the engine and not yet answered.");
    zkpipe_http_out_sample(out, "serve_admitted", NULL, (double)load(&m->admitted));
    zkpipe_http_out_family(out, "serve_witnesses_running", "gauge",
                           "Witness generators running now.");
    zkpipe_http_out_sample(out, "serve_witnesses_running", NULL,
                           (double)load(&m->witnesses_running));
    zkpipe_http_out_family(out, "serve_draining", "gauge",
                           "1 once told to stop: new requests are refused (503).");
    zkpipe_http_out_sample(out, "serve_draining", NULL, (double)load(&m->draining));
}

static void json(zkpipe_http_out *out, serve_metrics *m)
{
    zkpipe_http_out_printf(
        out,
        "{\"draining\":%s,\"waiting\":%llu,\"admitted\":%llu,"
        "\"witnesses_running\":%llu,\"circuits\":[",
        load(&m->draining) ? "true" : "false", (unsigned long long)load(&m->waiting),
        (unsigned long long)load(&m->admitted), (unsigned long long)load(&m->witnesses_running));
    char code[16];
    for (unsigned r = 0; r < m->nrows; r++) {
        zkpipe_http_out_printf(out, "%s{\"name\":\"%s\",\"answers\":{", r > 0 ? "," : "",
                               m->rows[r].name);
        for (unsigned c = 0, k = 0; c < SERVE_CODES; c++) {
            uint64_t n = load(&m->rows[r].count[c]);
            if (n > 0)
                zkpipe_http_out_printf(out, "%s\"%s\":%llu", k++ > 0 ? "," : "",
                                       code_label(c, code, sizeof code), (unsigned long long)n);
        }
        zkpipe_http_out_printf(out, "}}");
    }
    zkpipe_http_out_printf(out, "]}");
}

zkpipe_status serve_metrics_provider(zkpipe_http_out *out, zkpipe_http_format format, void *ctx)
{
    if (format == ZKPIPE_HTTP_PROMETHEUS)
        prometheus(out, ctx);
    else
        json(out, ctx);
    return ZKPIPE_OK;
}
