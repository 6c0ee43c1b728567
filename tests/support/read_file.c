#include "read_file.h"

#include <stdio.h>
#include <stdlib.h>

char *read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n - 1, fp);
        if (n < cap - 1)
            break;
        char *grown = realloc(buf, cap * 2);
        if (grown == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    int failed = ferror(fp);
    fclose(fp);
    if (buf == NULL || failed) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    if (len != NULL)
        *len = n;
    return buf;
}
