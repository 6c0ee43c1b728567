/* The one-line human summary: items and bytes per stage, then live and peak bytes. */
#include <inttypes.h>

#include "acct/export_internal.h"

static void put_bytes(zkpipe__text *t, uint64_t bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        zkpipe__text_printf(t, "%" PRIu64 " B", bytes);
        return;
    }
    double v = (double)bytes / 1024;
    int u = 0;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        u++;
    }
    zkpipe__text_printf(t, "%.1f %s", v, units[u]);
}

zkpipe_status zkpipe_snapshot_summary(char *buf, size_t cap, size_t *out_len,
                                      const zkpipe_snapshot *snap)
{
    zkpipe__text t;
    zkpipe_status rc = zkpipe__text_begin(&t, buf, cap, out_len, snap);
    if (rc != ZKPIPE_OK)
        return rc;
    for (uint32_t s = 0; s < snap->stage_count; s++) {
        zkpipe__text_printf(&t, "%s=%" PRIu64 " (", snap->stage_names[s],
                            snap->stage[s].live_items);
        put_bytes(&t, snap->stage[s].live_bytes);
        zkpipe__text_printf(&t, ") ");
    }
    zkpipe__text_printf(&t, "live=");
    put_bytes(&t, snap->live_bytes);
    zkpipe__text_printf(&t, " peak=");
    put_bytes(&t, snap->peak_bytes);
    *out_len = t.len;
    return ZKPIPE_OK;
}
