/* JSON export: one object, stages and kinds keyed by name (names need no escaping). */
#include <inttypes.h>
#include <string.h>

#include "acct/export_internal.h"

/* Plain appends, not printf: a full registry has about a thousand of these. */
static void put_fields(zkpipe__text *t, const zkpipe__field *fields, int n, const void *counts)
{
    for (int i = 0; i < n; i++) {
        zkpipe__text_put(t, i ? ",\"" : "\"", i ? 2 : 1);
        zkpipe__text_put(t, fields[i].key, strlen(fields[i].key));
        zkpipe__text_put(t, "\":", 2);
        zkpipe__text_u64(t, zkpipe__field_value(&fields[i], counts));
    }
}

/* "<sep>"<name>":{" */
static void put_key(zkpipe__text *t, int first, const char *name)
{
    zkpipe__text_put(t, first ? "\"" : ",\"", first ? 1 : 2);
    zkpipe__text_put(t, name, strlen(name));
    zkpipe__text_put(t, "\":{", 3);
}

zkpipe_status zkpipe_snapshot_json(char *buf, size_t cap, size_t *out_len,
                                   const zkpipe_snapshot *snap)
{
    zkpipe__text t;
    zkpipe_status rc = zkpipe__text_begin(&t, buf, cap, out_len, snap);
    if (rc != ZKPIPE_OK)
        return rc;
    zkpipe__text_printf(&t,
                        "{\"live_items\":%" PRIu64 ",\"live_bytes\":%" PRIu64
                        ",\"peak_bytes\":%" PRIu64 ",\"stages\":{",
                        snap->live_items, snap->live_bytes, snap->peak_bytes);
    for (uint32_t s = 0; s < snap->stage_count; s++) {
        const zkpipe_snapshot_stage *st = &snap->stage[s];
        put_key(&t, s == 0, snap->stage_names[s]);
        put_fields(&t, zkpipe__stage_fields, ZKPIPE__STAGE_FIELDS, st);
        zkpipe__text_printf(&t, ",\"kinds\":{");
        for (uint32_t k = 0; k < snap->kind_count; k++) {
            put_key(&t, k == 0, snap->kind_names[k]);
            put_fields(&t, zkpipe__kind_fields, ZKPIPE__KIND_FIELDS, &st->kind[k]);
            zkpipe__text_put(&t, "}", 1);
        }
        zkpipe__text_printf(&t, "}}");
    }
    zkpipe__text_printf(&t, "}}\n");
    *out_len = t.len;
    return ZKPIPE_OK;
}
