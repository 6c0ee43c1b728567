/* Prometheus text exposition (format 0.0.4): one HELP and TYPE per family, then its samples
 * labelled by stage (and kind). */
#include <inttypes.h>

#include "acct/export_internal.h"

static void put_family(zkpipe__text *t, const char *metric, const char *type, const char *help)
{
    zkpipe__text_printf(t, "# HELP %s %s\n# TYPE %s %s\n", metric, help, metric, type);
}

zkpipe_status zkpipe_snapshot_prometheus(char *buf, size_t cap, size_t *out_len,
                                         const zkpipe_snapshot *snap)
{
    zkpipe__text t;
    zkpipe_status rc = zkpipe__text_begin(&t, buf, cap, out_len, snap);
    if (rc != ZKPIPE_OK)
        return rc;
    put_family(&t, "zkpipe_inflight_items", "gauge", "Items (open ledgers) in all stages.");
    zkpipe__text_printf(&t, "zkpipe_inflight_items %" PRIu64 "\n", snap->live_items);
    put_family(&t, "zkpipe_inflight_bytes", "gauge", "Live bytes of all kinds in all stages.");
    zkpipe__text_printf(&t, "zkpipe_inflight_bytes %" PRIu64 "\n", snap->live_bytes);
    put_family(&t, "zkpipe_inflight_peak_bytes", "gauge",
               "Most live bytes at once since the last peak reset.");
    zkpipe__text_printf(&t, "zkpipe_inflight_peak_bytes %" PRIu64 "\n", snap->peak_bytes);
    for (int i = 0; i < ZKPIPE__STAGE_FIELDS; i++) {
        const zkpipe__field *f = &zkpipe__stage_fields[i];
        put_family(&t, f->metric, f->type, f->help);
        for (uint32_t s = 0; s < snap->stage_count; s++)
            zkpipe__text_printf(&t, "%s{stage=\"%s\"} %" PRIu64 "\n", f->metric,
                                snap->stage_names[s], zkpipe__field_value(f, &snap->stage[s]));
    }
    for (int i = 0; i < ZKPIPE__KIND_FIELDS; i++) {
        const zkpipe__field *f = &zkpipe__kind_fields[i];
        put_family(&t, f->metric, f->type, f->help);
        for (uint32_t s = 0; s < snap->stage_count; s++)
            for (uint32_t k = 0; k < snap->kind_count; k++)
                zkpipe__text_printf(&t, "%s{stage=\"%s\",kind=\"%s\"} %" PRIu64 "\n", f->metric,
                                    snap->stage_names[s], snap->kind_names[k],
                                    zkpipe__field_value(f, &snap->stage[s].kind[k]));
    }
    *out_len = t.len;
    return ZKPIPE_OK;
}
