/* libFuzzer target: a fleet job's parser (tools/fleet/queue_job.h) on arbitrary stream entries.
 * The input: one byte choosing the witness cap (2^(b % 24) bytes), then the entry's strings,
 * each ended by a 0 byte (the last by the input's end). What parses must keep every rule the
 * header states; a quote must stay within its buffer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "queue_job.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_name(const char *s, size_t max, int slashes)
{
    size_t n = strlen(s);
    if (n == 0 || n > max || strcmp(s, ".") == 0 || strcmp(s, "..") == 0 || s[0] == '/' ||
        s[n - 1] == '/' || strstr(s, "//") != NULL || strncmp(s, "../", 3) == 0 ||
        strstr(s, "/../") != NULL || strstr(s, "/./") != NULL ||
        (n >= 3 && strcmp(s + n - 3, "/..") == 0))
        abort();
    for (size_t i = 0; i < n; i++)
        if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-/", s[i]) ==
                NULL ||
            (s[i] == '/' && !slashes))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum { MAX = 2 * QUEUE_FIELDS_MAX + 2 };
    if (size == 0)
        return 0;
    size_t wtns_max = (size_t)1 << (data[0] % 24), n = 0;
    queue_str f[MAX];
    const char *p = (const char *)data + 1, *end = (const char *)data + size;
    while (n < MAX) {
        const char *z = memchr(p, 0, (size_t)(end - p));
        f[n].p = p;
        f[n].len = z != NULL ? (size_t)(z - p) : (size_t)(end - p);
        n++;
        if (z == NULL)
            break;
        p = z + 1;
    }
    queue_job j;
    char why[256], q[48];
    if (queue_job_parse(&j, f, n, wtns_max, why, sizeof why)) {
        check_name(j.id, QUEUE_ID_MAX, 0);
        check_name(j.circuit, QUEUE_CIRCUIT_MAX, 0);
        if ((j.input[0] != '\0') == (j.wtns != NULL))
            abort();
        if (j.input[0] != '\0')
            check_name(j.input, QUEUE_INPUT_MAX, 1);
        if (j.wtns != NULL && (j.wtns_len == 0 || j.wtns_len > wtns_max))
            abort();
        for (const char *s = j.sub; *s != '\0'; s++)
            if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
                abort();
    } else if (why[0] == '\0' || strlen(why) >= sizeof why) {
        abort();
    }
    for (size_t i = 0; i < n; i++)
        if (strlen(queue_job_quote(q, sizeof q, f[i])) >= sizeof q)
            abort();
    queue_job_field(f, n, "id");
    return 0;
}
