/* An LD_PRELOAD shim for the tests of mapped inputs: right after a program maps a file named
 * by $ZKPIPE_TEST_TRUNCATE_ON_MMAP (one path, or several separated by ':'), it truncates that
 * file to nothing, as another process could while the program uses the mapping, so that the
 * program's next read of it raises SIGBUS at a point the test does not have to race for. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    void *(*real)(void *, size_t, int, int, int, off_t);
    *(void **)&real = dlsym(RTLD_NEXT, "mmap");
    void *p = real(addr, len, prot, flags, fd, off);
    const char *want = getenv("ZKPIPE_TEST_TRUNCATE_ON_MMAP");
    char link[64], path[4096];
    if (p == MAP_FAILED || fd < 0 || want == NULL)
        return p;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n > 0) {
        path[n] = '\0';
        size_t len = (size_t)n;
        for (const char *w = want; *w != '\0';) {
            const char *colon = strchr(w, ':');
            size_t wlen = colon != NULL ? (size_t)(colon - w) : strlen(w);
            if (wlen == len && memcmp(w, path, len) == 0 && truncate(path, 0) != 0)
                perror("truncate_on_mmap");
            w += wlen + (colon != NULL);
        }
    }
    return p;
}
