/* Prometheus text exposition (format 0.0.4) of a snapshot: one HELP and TYPE per family, then
 * its samples labelled by stage (and kind), behind the caller's prefix and constant labels. */
#include <string.h>

#include "acct/export_internal.h"

static int kind_all_zero(const zkpipe_snapshot_kind *k)
{
    return (k->live_buffers | k->live_bytes | k->peak_buffers | k->peak_bytes) == 0;
}

/* Writes `key="value"` at buf[at] (value a registered name, at most ZKPIPE_ACCT_NAME_MAX
 * characters of [a-z0-9_]) and returns where it ends (its NUL). */
static size_t label(char *buf, size_t at, const char *key, const char *value)
{
    size_t k = strlen(key), v = strlen(value);
    memcpy(buf + at, key, k);
    memcpy(buf + at + k, "=\"", 2);
    memcpy(buf + at + k + 2, value, v);
    memcpy(buf + at + k + 2 + v, "\"", 2);
    return at + k + 3 + v;
}

zkpipe_status zkpipe_snapshot_prometheus_ex(char *buf, size_t cap, size_t *out_len,
                                            const zkpipe_snapshot *snap,
                                            const zkpipe_prom_options *opts)
{
    zkpipe__text t;
    zkpipe__prom p;
    zkpipe_status rc = zkpipe__text_begin(&t, buf, cap, out_len, snap);
    if (rc == ZKPIPE_OK)
        rc = zkpipe__prom_begin(&p, &t, opts);
    if (rc != ZKPIPE_OK)
        return rc;
    static const struct {
        const char *name, *help;
        size_t offset;
    } totals[] = {
        {"inflight_items", "Items (open ledgers) in all stages.",
         offsetof(zkpipe_snapshot, live_items)},
        {"inflight_bytes", "Live bytes of all kinds in all stages.",
         offsetof(zkpipe_snapshot, live_bytes)},
        {"inflight_peak_bytes", "Most live bytes at once since the last peak reset.",
         offsetof(zkpipe_snapshot, peak_bytes)},
    };
    for (size_t i = 0; i < sizeof totals / sizeof totals[0]; i++) {
        zkpipe__prom_family(&p, totals[i].name, "gauge", totals[i].help);
        zkpipe__prom_series(&p, totals[i].name, "", NULL);
        zkpipe__prom_u64(&p, *(const uint64_t *)((const char *)snap + totals[i].offset));
    }
    /* stage="<31 chars>",kind="<31 chars>", built by hand: this is the inner loop. */
    char labels[96];
    for (int i = 0; i < ZKPIPE__STAGE_FIELDS; i++) {
        const zkpipe__field *f = &zkpipe__stage_fields[i];
        zkpipe__prom_family(&p, f->metric, f->type, f->help);
        for (uint32_t s = 0; s < snap->stage_count; s++) {
            label(labels, 0, "stage", snap->stage_names[s]);
            zkpipe__prom_series(&p, f->metric, "", labels);
            zkpipe__prom_u64(&p, zkpipe__field_value(f, &snap->stage[s]));
        }
    }
    for (int i = 0; i < ZKPIPE__KIND_FIELDS; i++) {
        const zkpipe__field *f = &zkpipe__kind_fields[i];
        zkpipe__prom_family(&p, f->metric, f->type, f->help);
        for (uint32_t s = 0; s < snap->stage_count; s++) {
            size_t at = label(labels, 0, "stage", snap->stage_names[s]);
            for (uint32_t k = 0; k < snap->kind_count; k++) {
                const zkpipe_snapshot_kind *kc = &snap->stage[s].kind[k];
                if ((p.flags & ZKPIPE_PROM_OMIT_ZERO) && kind_all_zero(kc))
                    continue;
                labels[at] = ',';
                label(labels, at + 1, "kind", snap->kind_names[k]);
                zkpipe__prom_series(&p, f->metric, "", labels);
                zkpipe__prom_u64(&p, zkpipe__field_value(f, kc));
            }
        }
    }
    *out_len = t.len;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_snapshot_prometheus(char *buf, size_t cap, size_t *out_len,
                                         const zkpipe_snapshot *snap)
{
    return zkpipe_snapshot_prometheus_ex(buf, cap, out_len, snap, NULL);
}
