/* See cli_files.h. */
#include "cli_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *cli_read_file(const char *path, size_t max, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    int err = buf == NULL ? ENOMEM : 0;
    while (err == 0) {
        if (n == cap - 1) { /* full: grow, up to max + 2 bytes (max + 1 read, and the NUL) */
            size_t want = cap - 1 > max / 2 ? max + 2 : cap * 2;
            char *bigger = want > cap ? realloc(buf, want) : NULL;
            if (bigger == NULL) {
                err = want > cap ? ENOMEM : EFBIG;
                break;
            }
            buf = bigger;
            cap = want;
        }
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            err = errno;
        else if (r == 0)
            break;
        else
            n += (size_t)r;
        if (n > max)
            err = EFBIG;
    }
    close(fd);
    if (err != 0) {
        free(buf);
        errno = err;
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

int cli_stage(cli_output *o, const char *path, const char *text, size_t len)
{
    o->path = path;
    o->staged = 0;
    if (snprintf(o->tmp, sizeof o->tmp, "%s.tmp-XXXXXX", path) >= (int)sizeof o->tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkstemp(o->tmp);
    if (fd < 0)
        return -1;
    fchmod(fd, 0644); /* mkstemp's 0600 is meant for secrets; these are outputs */
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    int err = done == len ? 0 : (errno != 0 ? errno : EIO);
    if (close(fd) != 0 && err == 0)
        err = errno;
    if (err != 0) {
        unlink(o->tmp);
        errno = err;
        return -1;
    }
    o->staged = 1;
    return 0;
}

int cli_commit(cli_output *outs, size_t n, const cli_output **failed)
{
    for (size_t i = 0; i < n; i++) {
        if (rename(outs[i].tmp, outs[i].path) == 0) {
            outs[i].staged = 0;
            continue;
        }
        int err = errno;
        *failed = &outs[i];
        for (size_t k = 0; k < i; k++)
            unlink(outs[k].path);
        cli_discard(outs, n);
        errno = err;
        return -1;
    }
    return 0;
}

void cli_discard(cli_output *outs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (outs[i].staged) {
            unlink(outs[i].tmp);
            outs[i].staged = 0;
        }
}
