/* An LD_PRELOAD shim for the fleet's tests: a program that maps a file whose path ends in
 * $ZKPIPE_TEST_DELAY_ON_MMAP_SUFFIX first waits $ZKPIPE_TEST_DELAY_ON_MMAP_MS milliseconds.
 * A node whose witnesses are mapped this way holds each job it takes for at least that long,
 * so that a test can stop it while it holds several: without it a fast machine proves the
 * multiplier's jobs in a few milliseconds each, and a test that stops the node at intervals
 * may never find it holding more than one or two. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    void *(*real)(void *, size_t, int, int, int, off_t);
    *(void **)&real = dlsym(RTLD_NEXT, "mmap");
    const char *suffix = getenv("ZKPIPE_TEST_DELAY_ON_MMAP_SUFFIX");
    const char *ms = getenv("ZKPIPE_TEST_DELAY_ON_MMAP_MS");
    char link[64], path[4096];
    if (fd >= 0 && suffix != NULL && ms != NULL) {
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, path, sizeof path - 1);
        size_t slen = strlen(suffix);
        if (n > 0 && (size_t)n >= slen && memcmp(path + n - slen, suffix, slen) == 0) {
            long v = strtol(ms, NULL, 10);
            struct timespec t = {v / 1000, v % 1000 * 1000000L};
            while (v > 0 && nanosleep(&t, &t) != 0 && errno == EINTR)
                ;
        }
    }
    return real(addr, len, prot, flags, fd, off);
}
