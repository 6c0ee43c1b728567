/* The response buffer and the zkpipe_http_out_* writers providers use. Every writer renders
 * into the room left and, when that was too little, grows the buffer and renders again: the
 * exporters' two-call convention, applied in place. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "acct/export_internal.h"
#include "core/alloc_internal.h"
#include "http/http_internal.h"

void zkpipe__http_out_reset(zkpipe_http_out *out, zkpipe_http_format format)
{
    out->len = 0;
    out->overflow = ZKPIPE_OK;
    out->format = format;
    if (out->buf != NULL)
        out->buf[0] = '\0';
}

void zkpipe__http_out_free(zkpipe_http_out *out)
{
    if (out->buf != NULL)
        zkpipe__free(out->allocator, out->buf);
    out->buf = NULL;
    out->cap = out->len = 0;
}

/* Room for `extra` more bytes and a NUL; 0 (and the overflow mark) when that passes max. */
static int reserve(zkpipe_http_out *out, size_t extra)
{
    if (out->overflow)
        return 0;
    if (extra >= out->max - out->len) {
        out->overflow = ZKPIPE_ELIMIT;
        return 0;
    }
    size_t need = out->len + extra + 1;
    if (need <= out->cap)
        return 1;
    /* Never more than max: a writer that fits the room is not checked against max again. */
    size_t cap = out->cap > 0 ? out->cap : out->max < 4096 ? out->max : 4096;
    while (cap < need)
        cap = cap > out->max / 2 ? out->max : cap * 2;
    char *buf = zkpipe__alloc(out->allocator, cap, 1);
    if (buf == NULL) {
        out->overflow = ZKPIPE_ENOMEM;
        return 0;
    }
    if (out->len > 0)
        memcpy(buf, out->buf, out->len);
    buf[out->len] = '\0';
    if (out->buf != NULL)
        zkpipe__free(out->allocator, out->buf);
    out->buf = buf;
    out->cap = cap;
    return 1;
}

/* A text builder over the room after out->len. */
static zkpipe__text room(const zkpipe_http_out *out)
{
    zkpipe__text t = {out->buf != NULL ? out->buf + out->len : NULL,
                      out->buf != NULL ? out->cap - out->len : 0, 0};
    return t;
}

/* What a writer renders: called once, or twice when the first pass did not fit. */
typedef void (*render_fn)(zkpipe__text *t, const zkpipe_http_out *out, const void *arg);

static void append(zkpipe_http_out *out, render_fn fn, const void *arg)
{
    if (out == NULL || out->overflow)
        return;
    for (int pass = 0; pass < 2; pass++) {
        zkpipe__text t = room(out);
        fn(&t, out, arg);
        if (t.len < t.cap) {
            out->len += t.len;
            return;
        }
        if (!reserve(out, t.len))
            break;
    }
    if (out->buf != NULL)
        out->buf[out->len] = '\0';
}

zkpipe_http_format zkpipe_http_out_format(const zkpipe_http_out *out)
{
    return out != NULL ? out->format : ZKPIPE_HTTP_JSON;
}

void zkpipe_http_out_write(zkpipe_http_out *out, const char *text, size_t len)
{
    if (out == NULL || text == NULL || !reserve(out, len))
        return;
    memcpy(out->buf + out->len, text, len);
    out->len += len;
    out->buf[out->len] = '\0';
}

void zkpipe_http_out_printf(zkpipe_http_out *out, const char *fmt, ...)
{
    if (out == NULL || fmt == NULL || out->overflow)
        return;
    for (int pass = 0; pass < 2; pass++) {
        zkpipe__text t = room(out);
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t.buf, t.cap, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if ((size_t)n < t.cap) {
            out->len += (size_t)n;
            return;
        }
        if (!reserve(out, (size_t)n))
            return;
    }
}

typedef struct family_arg {
    const char *name, *type, *help;
} family_arg;

static void render_family(zkpipe__text *t, const zkpipe_http_out *out, const void *arg)
{
    const family_arg *a = arg;
    zkpipe__prom p;
    if (zkpipe__prom_begin(&p, t, out->prom) == ZKPIPE_OK)
        zkpipe__prom_family(&p, a->name, a->type, a->help);
}

void zkpipe_http_out_family(zkpipe_http_out *out, const char *name, const char *type,
                            const char *help)
{
    if (name == NULL || type == NULL || help == NULL || !zkpipe__prom_name_valid(name))
        return;
    family_arg a = {name, type, help};
    append(out, render_family, &a);
}

typedef struct sample_arg {
    const char *name, *labels;
    double value;
} sample_arg;

static void render_sample(zkpipe__text *t, const zkpipe_http_out *out, const void *arg)
{
    const sample_arg *a = arg;
    zkpipe__prom p;
    if (zkpipe__prom_begin(&p, t, out->prom) == ZKPIPE_OK) {
        zkpipe__prom_series(&p, a->name, "", a->labels);
        zkpipe__prom_f64(&p, a->value);
    }
}

void zkpipe_http_out_sample(zkpipe_http_out *out, const char *name, const char *labels,
                            double value)
{
    if (name == NULL || !zkpipe__prom_name_valid(name))
        return;
    sample_arg a = {name, labels, value};
    append(out, render_sample, &a);
}

typedef struct histogram_arg {
    const char *name, *help;
    const zkpipe_histogram_snapshot *snap;
} histogram_arg;

/* The exporters write straight into the room; their full length says whether it fitted. */
static void render_histogram(zkpipe__text *t, const zkpipe_http_out *out, const void *arg)
{
    const histogram_arg *a = arg;
    size_t len = 0;
    zkpipe_status st = out->format == ZKPIPE_HTTP_PROMETHEUS
                           ? zkpipe_histogram_prometheus(t->buf, t->cap, &len, a->name, a->help,
                                                         a->snap, out->prom)
                           : zkpipe_histogram_json(t->buf, t->cap, &len, a->snap);
    t->len = st == ZKPIPE_OK ? len : 0;
}

void zkpipe_http_out_histogram(zkpipe_http_out *out, const char *name, const char *help,
                               const zkpipe_histogram_snapshot *snap)
{
    if (name == NULL || help == NULL || snap == NULL)
        return;
    histogram_arg a = {name, help, snap};
    append(out, render_histogram, &a);
}

static void render_snapshot(zkpipe__text *t, const zkpipe_http_out *out, const void *arg)
{
    size_t len = 0;
    zkpipe_status st = out->format == ZKPIPE_HTTP_PROMETHEUS
                           ? zkpipe_snapshot_prometheus_ex(t->buf, t->cap, &len, arg, out->prom)
                           : zkpipe_snapshot_json(t->buf, t->cap, &len, arg);
    /* The JSON ends in a newline that the /status object does not want. */
    if (st == ZKPIPE_OK && out->format == ZKPIPE_HTTP_JSON && len > 0) {
        if (len < t->cap)
            t->buf[len - 1] = '\0';
        len--;
    }
    t->len = st == ZKPIPE_OK ? len : 0;
}

void zkpipe__http_out_snapshot(zkpipe_http_out *out, const zkpipe_snapshot *snap)
{
    append(out, render_snapshot, snap);
}
