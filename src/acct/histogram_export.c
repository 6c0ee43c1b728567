/* Histogram exporters: a Prometheus histogram family and a JSON object. */
#include <math.h>
#include <stdio.h>

#include "acct/export_internal.h"
#include "zkpipe/histogram.h"

static int snapshot_valid(const zkpipe_histogram_snapshot *s)
{
    if (s->bucket_count == 0 || s->bucket_count > ZKPIPE_HISTOGRAM_BUCKETS_MAX || !(s->unit > 0) ||
        isinf(s->unit) || s->count != s->cumulative[s->bucket_count])
        return 0;
    for (uint32_t i = 1; i <= s->bucket_count; i++)
        if (s->cumulative[i] < s->cumulative[i - 1] ||
            (i < s->bucket_count && s->bounds[i] <= s->bounds[i - 1]))
            return 0;
    return 1;
}

zkpipe_status zkpipe_histogram_prometheus(char *buf, size_t cap, size_t *out_len, const char *name,
                                          const char *help, const zkpipe_histogram_snapshot *snap,
                                          const zkpipe_prom_options *opts)
{
    zkpipe__text t;
    zkpipe__prom p;
    zkpipe_status rc = zkpipe__text_start(&t, buf, cap, out_len);
    if (rc == ZKPIPE_OK &&
        (snap == NULL || help == NULL || !zkpipe__prom_name_valid(name) || !snapshot_valid(snap)))
        rc = ZKPIPE_EINVAL;
    if (rc == ZKPIPE_OK)
        rc = zkpipe__prom_begin(&p, &t, opts);
    if (rc != ZKPIPE_OK)
        return rc;
    zkpipe__prom_family(&p, name, "histogram", help);
    /* le="<a double>" */
    char le[48];
    for (uint32_t i = 0; i <= snap->bucket_count; i++) {
        if (i < snap->bucket_count) {
            zkpipe__text lt = {le, sizeof le, 0};
            zkpipe__text_printf(&lt, "le=\"");
            zkpipe__text_double(&lt, (double)snap->bounds[i] * snap->unit);
            zkpipe__text_printf(&lt, "\"");
        } else {
            snprintf(le, sizeof le, "le=\"+Inf\"");
        }
        zkpipe__prom_series(&p, name, "_bucket", le);
        zkpipe__prom_u64(&p, snap->cumulative[i]);
    }
    zkpipe__prom_series(&p, name, "_sum", NULL);
    zkpipe__prom_f64(&p, (double)snap->sum * snap->unit);
    zkpipe__prom_series(&p, name, "_count", NULL);
    zkpipe__prom_u64(&p, snap->count);
    *out_len = t.len;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_histogram_json(char *buf, size_t cap, size_t *out_len,
                                    const zkpipe_histogram_snapshot *snap)
{
    zkpipe__text t;
    zkpipe_status rc = zkpipe__text_start(&t, buf, cap, out_len);
    if (rc == ZKPIPE_OK && (snap == NULL || !snapshot_valid(snap)))
        rc = ZKPIPE_EINVAL;
    if (rc != ZKPIPE_OK)
        return rc;
    zkpipe__text_printf(&t, "{\"count\":%llu,\"sum\":", (unsigned long long)snap->count);
    zkpipe__text_double(&t, (double)snap->sum * snap->unit);
    zkpipe__text_printf(&t, ",\"buckets\":[");
    for (uint32_t i = 0; i < snap->bucket_count; i++) {
        zkpipe__text_printf(&t, "%s{\"le\":", i ? "," : "");
        zkpipe__text_double(&t, (double)snap->bounds[i] * snap->unit);
        zkpipe__text_printf(&t, ",\"count\":%llu}", (unsigned long long)snap->cumulative[i]);
    }
    zkpipe__text_printf(&t, ",{\"le\":\"+Inf\",\"count\":%llu}]}", (unsigned long long)snap->count);
    *out_len = t.len;
    return ZKPIPE_OK;
}
