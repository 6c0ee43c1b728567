#include "vectors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read_file.h"

#ifndef ZKPIPE_TEST_SOURCE_DIR
#define ZKPIPE_TEST_SOURCE_DIR "."
#endif

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

int vectors_load(vectors_file *f, const char *relpath)
{
    memset(f, 0, sizeof(*f));
    const char *dir = getenv("ZKPIPE_SOURCE_DIR");
    if (dir == NULL || dir[0] == '\0')
        dir = ZKPIPE_TEST_SOURCE_DIR;
    size_t n = strlen(dir) + strlen(relpath) + 2;
    char *path = malloc(n);
    if (path == NULL)
        return -1;
    snprintf(path, n, "%s/%s", dir, relpath);
    f->text = read_file(path, NULL);
    if (f->text == NULL) {
        fprintf(stderr, "vectors: cannot read %s\n", path);
        free(path);
        return -1;
    }
    free(path);

    /* Every token is at least one character plus a separator, so half the text length
     * bounds both the token and the record counts. */
    size_t bound = strlen(f->text) / 2 + 1;
    f->tokbuf = malloc(bound * sizeof(*f->tokbuf));
    f->records = malloc(bound * sizeof(*f->records));
    if (f->tokbuf == NULL || f->records == NULL) {
        vectors_free(f);
        return -1;
    }
    size_t ntok = 0;
    unsigned line = 0;
    for (char *p = f->text; *p != '\0';) {
        char *end = strchr(p, '\n');
        char *next = end != NULL ? end + 1 : p + strlen(p);
        if (end != NULL)
            *end = '\0';
        line++;
        char *hash = strchr(p, '#');
        if (hash != NULL)
            *hash = '\0';
        vectors_record *r = &f->records[f->count];
        r->name = NULL;
        r->tokens = &f->tokbuf[ntok];
        r->count = 0;
        r->line = line;
        for (char *t = p; *t != '\0';) {
            while (is_space(*t))
                t++;
            if (*t == '\0')
                break;
            char *s = t;
            while (*t != '\0' && !is_space(*t))
                t++;
            if (*t != '\0')
                *t++ = '\0';
            if (r->name == NULL) {
                r->name = s;
            } else {
                f->tokbuf[ntok++] = s;
                r->count++;
            }
        }
        if (r->name != NULL)
            f->count++;
        p = next;
    }
    return 0;
}

void vectors_free(vectors_file *f)
{
    free(f->records);
    free(f->tokbuf);
    free(f->text);
    memset(f, 0, sizeof(*f));
}

size_t vectors_count(const vectors_file *f, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < f->count; i++)
        n += strcmp(f->records[i].name, name) == 0;
    return n;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

size_t vectors_hex_len(const vectors_record *r, size_t i)
{
    return i < r->count ? strlen(r->tokens[i]) / 2 : 0;
}

int vectors_hex(const vectors_record *r, size_t i, unsigned char *out, size_t len)
{
    if (i >= r->count || strlen(r->tokens[i]) != 2 * len)
        return -1;
    const char *s = r->tokens[i];
    for (size_t k = 0; k < len; k++) {
        int hi = hex_digit(s[2 * k]), lo = hex_digit(s[2 * k + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[k] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}
