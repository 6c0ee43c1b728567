/* The exporters' counter table and snapshot validation. */
#include <stddef.h>
#include <string.h>

#include "acct/export_internal.h"

zkpipe_status zkpipe__text_begin(zkpipe__text *t, char *buf, size_t cap, size_t *out_len,
                                 const zkpipe_snapshot *snap)
{
    if (out_len == NULL || snap == NULL || (buf == NULL && cap > 0))
        return ZKPIPE_EINVAL;
    if (snap->kind_count > ZKPIPE_KIND_MAX || snap->stage_count > ZKPIPE_STAGE_MAX)
        return ZKPIPE_EINVAL;
    for (uint32_t k = 0; k < snap->kind_count; k++)
        if (!zkpipe__acct_name_valid(snap->kind_names[k]))
            return ZKPIPE_EINVAL;
    for (uint32_t s = 0; s < snap->stage_count; s++)
        if (!zkpipe__acct_name_valid(snap->stage_names[s]))
            return ZKPIPE_EINVAL;
    return zkpipe__text_start(t, buf, cap, out_len);
}

const zkpipe__field zkpipe__stage_fields[ZKPIPE__STAGE_FIELDS] = {
    {"live_items", "stage_items", "gauge", "Items (open ledgers) now in the stage.",
     offsetof(zkpipe_snapshot_stage, live_items)},
    {"peak_items", "stage_peak_items", "gauge",
     "Most items in the stage at once since the last peak reset.",
     offsetof(zkpipe_snapshot_stage, peak_items)},
    {"entered", "stage_entered_total", "counter", "Items that entered the stage.",
     offsetof(zkpipe_snapshot_stage, entered)},
    {"left", "stage_left_total", "counter", "Items that left the stage.",
     offsetof(zkpipe_snapshot_stage, left)},
    {"live_buffers", "stage_buffers", "gauge", "Live buffers of all kinds in the stage.",
     offsetof(zkpipe_snapshot_stage, live_buffers)},
    {"live_bytes", "stage_bytes", "gauge", "Live bytes of all kinds in the stage.",
     offsetof(zkpipe_snapshot_stage, live_bytes)},
};

const zkpipe__field zkpipe__kind_fields[ZKPIPE__KIND_FIELDS] = {
    {"live_buffers", "buffers", "gauge", "Live buffers of the kind in the stage.",
     offsetof(zkpipe_snapshot_kind, live_buffers)},
    {"live_bytes", "buffer_bytes", "gauge", "Live bytes of the kind in the stage.",
     offsetof(zkpipe_snapshot_kind, live_bytes)},
    {"peak_buffers", "peak_buffers", "gauge",
     "Most live buffers of the kind in the stage at once since the last peak reset.",
     offsetof(zkpipe_snapshot_kind, peak_buffers)},
    {"peak_bytes", "peak_buffer_bytes", "gauge",
     "Most live bytes of the kind in the stage at once since the last peak reset.",
     offsetof(zkpipe_snapshot_kind, peak_bytes)},
};
