/* A fleet job's fields, checked (queue_job.h). */
#include "queue_job.h"

#include <stdio.h>
#include <string.h>

static int name_byte(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

static int is(queue_str s, const char *name)
{
    return s.len == strlen(name) && memcmp(s.p, name, s.len) == 0;
}

/* 1 to max bytes of [A-Za-z0-9._-], not "." or "..". */
static int plain_name(queue_str s, size_t max)
{
    if (s.len == 0 || s.len > max || is(s, ".") || is(s, ".."))
        return 0;
    for (size_t i = 0; i < s.len; i++)
        if (!name_byte((unsigned char)s.p[i]))
            return 0;
    return 1;
}

/* Plain names joined by single '/' (queue_job.h, input). */
static int relative_name(queue_str s)
{
    if (s.len == 0 || s.len > QUEUE_INPUT_MAX)
        return 0;
    for (size_t at = 0; at <= s.len;) {
        const char *slash = memchr(s.p + at, '/', s.len - at);
        size_t end = slash != NULL ? (size_t)(slash - s.p) : s.len;
        queue_str part = {s.p + at, end - at};
        if (!plain_name(part, QUEUE_INPUT_MAX))
            return 0;
        at = end + 1;
    }
    return 1;
}

static int printable_token(queue_str s)
{
    if (s.len == 0 || s.len > QUEUE_SUB_MAX)
        return 0;
    for (size_t i = 0; i < s.len; i++)
        if ((unsigned char)s.p[i] <= ' ' || (unsigned char)s.p[i] >= 0x7f)
            return 0;
    return 1;
}

char *queue_job_quote(char *out, size_t cap, queue_str s)
{
    char mark[40];
    size_t room = cap - 1, keep = s.len;
    mark[0] = '\0';
    if (s.len > room) {
        snprintf(mark, sizeof mark, "...(%zu bytes)", s.len);
        keep = room - strlen(mark);
    }
    for (size_t i = 0; i < keep; i++) {
        unsigned char c = (unsigned char)s.p[i];
        out[i] = c >= ' ' && c < 0x7f ? (char)c : '?';
    }
    snprintf(out + keep, cap - keep, "%s", mark);
    return out;
}

queue_str queue_job_field(const queue_str *fields, size_t n, const char *name)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        if (is(fields[i], name))
            return fields[i + 1];
    queue_str none = {NULL, 0};
    return none;
}

int queue_job_parse(queue_job *j, const queue_str *fields, size_t n, size_t wtns_max, char *why,
                    size_t cap)
{
    enum { ID, CIRCUIT, INPUT, WTNS, SUB, REQUEUED, KNOWN };
    static const char *const known[KNOWN] = {"id", "circuit", "input", "wtns", "sub", "requeued"};
    const queue_str *v[KNOWN] = {NULL};
    char q[80];
    memset(j, 0, sizeof *j);
    if (n % 2 != 0 || n / 2 > QUEUE_FIELDS_MAX) {
        snprintf(why, cap, "the job has %zu strings: not field/value pairs, at most %d", n,
                 QUEUE_FIELDS_MAX);
        return 0;
    }
    for (size_t i = 0; i < n; i += 2) {
        queue_str f = fields[i];
        if (f.len == 0 || f.len > QUEUE_NAME_MAX) {
            snprintf(why, cap, "a field name of %zu bytes (1 to %d)", f.len, QUEUE_NAME_MAX);
            return 0;
        }
        if (is(f, "zkey") || is(f, "out")) {
            snprintf(why, cap,
                     "the job names a host path (%s): jobs name a circuit the node was given "
                     "(circuit) and a witness (wtns: its bytes, or input: a name under the "
                     "node's --inputs); results come back in the result entry",
                     is(f, "zkey") ? "zkey" : "out");
            return 0;
        }
        for (int k = 0; k < KNOWN; k++)
            if (is(f, known[k])) {
                if (v[k] != NULL) {
                    snprintf(why, cap, "the field %s is given twice", known[k]);
                    return 0;
                }
                v[k] = &fields[i + 1];
            }
    }
    if (v[ID] == NULL || v[CIRCUIT] == NULL) {
        snprintf(why, cap, "the job has no %s", v[ID] == NULL ? "id" : "circuit");
        return 0;
    }
    if (!plain_name(*v[ID], QUEUE_ID_MAX)) {
        snprintf(why, cap, "the id '%s' is not 1 to %d bytes of [A-Za-z0-9._-] (nor . or ..)",
                 queue_job_quote(q, sizeof q, *v[ID]), QUEUE_ID_MAX);
        return 0;
    }
    if (!plain_name(*v[CIRCUIT], QUEUE_CIRCUIT_MAX)) {
        snprintf(why, cap, "the circuit name '%s' is not 1 to %d bytes of [A-Za-z0-9._-]",
                 queue_job_quote(q, sizeof q, *v[CIRCUIT]), QUEUE_CIRCUIT_MAX);
        return 0;
    }
    if ((v[INPUT] == NULL) == (v[WTNS] == NULL)) {
        snprintf(why, cap, "the job has %s: one of wtns (the witness) and input (its name)",
                 v[INPUT] == NULL ? "neither wtns nor input" : "both wtns and input");
        return 0;
    }
    if (v[INPUT] != NULL && !relative_name(*v[INPUT])) {
        snprintf(why, cap,
                 "the input '%s' is not a name beneath the node's inputs (1 to %d bytes, parts of "
                 "[A-Za-z0-9._-] joined by '/', none . or ..)",
                 queue_job_quote(q, sizeof q, *v[INPUT]), QUEUE_INPUT_MAX);
        return 0;
    }
    if (v[WTNS] != NULL && (v[WTNS]->len == 0 || v[WTNS]->len > wtns_max)) {
        snprintf(why, cap, "the witness has %zu bytes: 1 to %zu (the node's --max-wtns-mib)",
                 v[WTNS]->len, wtns_max);
        return 0;
    }
    if (v[SUB] != NULL && !printable_token(*v[SUB])) {
        snprintf(why, cap, "the sub '%s' is not 1 to %d printable bytes without spaces",
                 queue_job_quote(q, sizeof q, *v[SUB]), QUEUE_SUB_MAX);
        return 0;
    }
    memcpy(j->id, v[ID]->p, v[ID]->len);
    memcpy(j->circuit, v[CIRCUIT]->p, v[CIRCUIT]->len);
    if (v[INPUT] != NULL)
        memcpy(j->input, v[INPUT]->p, v[INPUT]->len);
    if (v[SUB] != NULL)
        memcpy(j->sub, v[SUB]->p, v[SUB]->len);
    if (v[WTNS] != NULL) {
        j->wtns = (const unsigned char *)v[WTNS]->p;
        j->wtns_len = v[WTNS]->len;
    }
    j->requeued = v[REQUEUED] != NULL;
    return 1;
}
