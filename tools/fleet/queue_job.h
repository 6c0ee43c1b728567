/* A fleet job as it arrives: a Redis stream entry's field/value pairs, checked and bounded
 * before the node does anything with them (queue_node.h). Pure: no I/O, no Redis client, no
 * allocation, so that a fuzzer can run it alone (tests/fuzz/fuzz_job.c).
 *
 * A job's fields:
 *   id       its name, and that of its output files: 1 to QUEUE_ID_MAX bytes of
 *            [A-Za-z0-9._-], not "." or "..";
 *   circuit  the name of a circuit the node was given with --circuit NAME=FILE.zkey: 1 to
 *            QUEUE_CIRCUIT_MAX bytes of [A-Za-z0-9._-];
 *   wtns     the witness itself (a .wtns file's bytes), 1 to the node's --max-wtns-mib; or
 *   input    the name of a witness file beneath the node's --inputs folder: 1 to
 *            QUEUE_INPUT_MAX bytes, components of [A-Za-z0-9._-] separated by single '/', none
 *            "." or "..", not starting or ending with '/';
 *   sub      optional, the submission's token, copied into the result: 1 to QUEUE_SUB_MAX
 *            printable ASCII bytes without spaces;
 *   requeued optional, any value: written by a node on an entry it requeues, it only says that
 *            the entry's earlier deliveries may be counted in STREAM:deliveries (queue_node.h):
 *            the node looks there, and for an entry it did not write finds nothing.
 * Exactly one of wtns and input. A known field given twice is an error (which one would
 * count?). Fields the node writes itself (deliveries, status, error) are ignored when a job
 * carries them: the node never trusts them from the stream. zkey and out (the paths of the old
 * job form) are refused with a line that says what replaced them. Any other field is ignored
 * (a newer submitter's), up to QUEUE_FIELDS_MAX fields in all, each name at most
 * QUEUE_NAME_MAX bytes. */
#ifndef ZKPIPE_EXAMPLES_QUEUE_JOB_H
#define ZKPIPE_EXAMPLES_QUEUE_JOB_H

#include <stddef.h>

#define QUEUE_ID_MAX 128
#define QUEUE_CIRCUIT_MAX 64
#define QUEUE_INPUT_MAX 200
#define QUEUE_SUB_MAX 128
#define QUEUE_FIELDS_MAX 32
#define QUEUE_NAME_MAX 64

/* One string of a stream entry: bytes, not NUL-terminated, possibly holding NULs. */
typedef struct queue_str {
    const char *p;
    size_t len;
} queue_str;

/* A checked job. The strings are copies, NUL-terminated; wtns points into the fields given to
 * queue_job_parse (borrowed: valid while they are). */
typedef struct queue_job {
    char id[QUEUE_ID_MAX + 1];
    char circuit[QUEUE_CIRCUIT_MAX + 1];
    char input[QUEUE_INPUT_MAX + 1]; /* "" when the witness is in the job */
    char sub[QUEUE_SUB_MAX + 1];     /* "" when none */
    const unsigned char *wtns;       /* NULL when the job names an input */
    size_t wtns_len;
    int requeued; /* the field is there */
} queue_job;

/*! queue_job_parse() : checks the `n` strings of a stream entry (field, value, field, value,
 * ...) against the rules above; a witness in the job may have at most `wtns_max` bytes.
 * @return 1 with `*j` filled, or 0 with one line in `why` (at most `cap` bytes, always
 * NUL-terminated; nothing of the job's values in it but bounded quotes). Thread safety: any. */
int queue_job_parse(queue_job *j, const queue_str *fields, size_t n, size_t wtns_max, char *why,
                    size_t cap);

/*! queue_job_quote() : a bounded, printable copy of the bytes `s` for a result or a log line:
 * bytes outside printable ASCII become '?', and when `s` does not fit in `cap` (at least 32)
 * it is cut and the cut marked with "...(N bytes)". @return out. */
char *queue_job_quote(char *out, size_t cap, queue_str s);

/*! queue_job_field() : the value of the first field named `name` among the `n` strings of a
 * stream entry, or {NULL, 0}. */
queue_str queue_job_field(const queue_str *fields, size_t n, const char *name);

#endif
