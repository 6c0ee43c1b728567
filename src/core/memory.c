/* Memory figures from Linux's /proc, read with plain POSIX calls into stack buffers. */
#include "core/memory.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads up to cap - 1 bytes of `path`, NUL-terminated; the length, or -1. */
static long read_small(const char *path, char *buf, size_t cap)
{
    int fd;
    do
        fd = open(path, O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return -1;
    size_t len = 0;
    while (len + 1 < cap) {
        ssize_t got = read(fd, buf + len, cap - 1 - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    buf[len] = '\0';
    return (long)len;
}

zkpipe_status zkpipe__rss_bytes(uint64_t *out)
{
    char buf[128];
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || read_small("/proc/self/statm", buf, sizeof buf) <= 0)
        return ZKPIPE_EUNSUPPORTED;
    /* "size resident shared text lib data dt", in pages. */
    char *end;
    strtoull(buf, &end, 10);
    if (end == buf || *end != ' ')
        return ZKPIPE_EUNSUPPORTED;
    const char *p = end;
    unsigned long long resident = strtoull(p, &end, 10);
    if (end == p)
        return ZKPIPE_EUNSUPPORTED;
    *out = (uint64_t)resident * (uint64_t)page;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe__mem_available_bytes(uint64_t *out)
{
    char buf[4096];
    if (read_small("/proc/meminfo", buf, sizeof buf) <= 0)
        return ZKPIPE_EUNSUPPORTED;
    static const char key[] = "MemAvailable:";
    const char *p = strstr(buf, key);
    if (p == NULL)
        return ZKPIPE_EUNSUPPORTED;
    p += sizeof key - 1;
    char *end;
    unsigned long long kib = strtoull(p, &end, 10);
    if (end == p || strncmp(end, " kB", 3) != 0)
        return ZKPIPE_EUNSUPPORTED;
    *out = (uint64_t)kib * 1024;
    return ZKPIPE_OK;
}
