/* Shared by the exporters: the table of exported counters, snapshot validation, and the
 * Prometheus writer that applies a prefix and constant labels (used by src/http too). The text
 * builder is core's (core/text.h). */
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

/* One exported counter: its JSON key, Prometheus family (after the prefix), type and help, and
 * where it lives in a zkpipe_snapshot_stage (stage fields) or a zkpipe_snapshot_kind (kind fields).
 */
typedef struct zkpipe__field {
    const char *key;
    const char *metric; /* the family name after the prefix */
    const char *type;
    const char *help;
    size_t offset;
} zkpipe__field;

#define ZKPIPE__STAGE_FIELDS 6
#define ZKPIPE__KIND_FIELDS 4
extern const zkpipe__field zkpipe__stage_fields[ZKPIPE__STAGE_FIELDS];
extern const zkpipe__field zkpipe__kind_fields[ZKPIPE__KIND_FIELDS];

/* Prometheus text with the options of a zkpipe_prom_options, validated and defaulted. */
typedef struct zkpipe__prom {
    zkpipe__text *t;
    const char *prefix; /* never NULL */
    const zkpipe_prom_label *labels;
    size_t label_count;
    unsigned flags;
} zkpipe__prom;

/* Validates `opts` (NULL: the defaults) and binds the writer to `t`; ZKPIPE_EINVAL when the
 * options are invalid (zkpipe_prom_options_check). */
zkpipe_status zkpipe__prom_begin(zkpipe__prom *p, zkpipe__text *t, const zkpipe_prom_options *opts);

/* 1 when `name` may follow the prefix in a family name: 1..128 characters of [a-zA-Z0-9_:],
 * not starting with a digit. */
int zkpipe__prom_name_valid(const char *name);

/* "# HELP <prefix>_<name> <help, escaped>" and "# TYPE <prefix>_<name> <type>". */
void zkpipe__prom_family(const zkpipe__prom *p, const char *name, const char *type,
                         const char *help);

/* Starts a sample: "<prefix>_<name><suffix>" and the label set: the constant labels, then
 * `extra` (already formatted, e.g. `stage="synth"`; NULL or "" for none), in braces when there
 * are any. Finish it with zkpipe__prom_u64 or zkpipe__prom_f64. */
void zkpipe__prom_series(const zkpipe__prom *p, const char *name, const char *suffix,
                         const char *extra);
void zkpipe__prom_u64(const zkpipe__prom *p, uint64_t v);
void zkpipe__prom_f64(const zkpipe__prom *p, double v);

static inline uint64_t zkpipe__field_value(const zkpipe__field *f, const void *counts)
{
    return *(const uint64_t *)((const char *)counts + f->offset);
}

#endif
