/* Shared by the snapshot exporters: the table of exported counters, and snapshot validation. */
#ifndef ZKPIPE_ACCT_EXPORT_INTERNAL_H
#define ZKPIPE_ACCT_EXPORT_INTERNAL_H

#include <stddef.h>

#include "acct/acct_internal.h"
#include "core/text.h"

/* Checks the exporters' common arguments and starts `t`. ZKPIPE_EINVAL when out_len or snap
 * is NULL, buf is NULL with cap > 0, or the snapshot is malformed (counts out of range, names
 * unterminated or outside [a-z0-9_]). */
zkpipe_status zkpipe__text_begin(zkpipe__text *t, char *buf, size_t cap, size_t *out_len,
                                 const zkpipe_snapshot *snap);

/* One exported counter: its JSON key, Prometheus family, type and help, and where it lives in
 * a zkpipe_snapshot_stage (stage fields) or a zkpipe_snapshot_kind (kind fields). */
typedef struct zkpipe__field {
    const char *key;
    const char *metric;
    const char *type;
    const char *help;
    size_t offset;
} zkpipe__field;

#define ZKPIPE__STAGE_FIELDS 6
#define ZKPIPE__KIND_FIELDS 4
extern const zkpipe__field zkpipe__stage_fields[ZKPIPE__STAGE_FIELDS];
extern const zkpipe__field zkpipe__kind_fields[ZKPIPE__KIND_FIELDS];

static inline uint64_t zkpipe__field_value(const zkpipe__field *f, const void *counts)
{
    return *(const uint64_t *)((const char *)counts + f->offset);
}

#endif
