/* An LD_PRELOAD shim for the fleet's tests: a program that maps a file whose path ends in
 * $ZKPIPE_TEST_DELAY_ON_MMAP_SUFFIX first waits $ZKPIPE_TEST_DELAY_ON_MMAP_MS milliseconds.
 * A node whose witnesses are mapped this way holds each job it takes for at least that long,
 * so that a test can stop it while it holds several: without it a fast machine proves the
 * multiplier's jobs in a few milliseconds each, and a test that stops the node at intervals
 * may never find it holding more than one or two.
 * With $ZKPIPE_TEST_DELAY_ON_MMAP_UNTIL instead, it waits until that path exists: a thread stuck
 * for as long as the test wants (the readers never block in open, even on a FIFO).
 * A second rule, the same variables ending in 2, holds other files apart: two gates a test
 * opens in the order it wants (a job's witness, and another job's zkey). */
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

/* The wait of rule `tag` ("" or "2") for a mapping of `path` (n bytes). */
static void rule(const char *tag, const char *path, size_t n)
{
    char name[64];
    snprintf(name, sizeof name, "ZKPIPE_TEST_DELAY_ON_MMAP_SUFFIX%s", tag);
    const char *suffix = getenv(name);
    snprintf(name, sizeof name, "ZKPIPE_TEST_DELAY_ON_MMAP_MS%s", tag);
    const char *ms = getenv(name);
    snprintf(name, sizeof name, "ZKPIPE_TEST_DELAY_ON_MMAP_UNTIL%s", tag);
    const char *until = getenv(name);
    if (suffix == NULL || (ms == NULL && until == NULL))
        return;
    size_t slen = strlen(suffix);
    if (n < slen || memcmp(path + n - slen, suffix, slen) != 0)
        return;
    long v = ms != NULL ? strtol(ms, NULL, 10) : 0;
    struct timespec t = {v / 1000, v % 1000 * 1000000L};
    while (v > 0 && nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
    struct timespec poll = {0, 10000000L};
    while (until != NULL && access(until, F_OK) != 0)
        nanosleep(&poll, NULL);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    void *(*real)(void *, size_t, int, int, int, off_t);
    *(void **)&real = dlsym(RTLD_NEXT, "mmap");
    char link[64], path[4096];
    if (fd >= 0) {
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, path, sizeof path - 1);
        if (n > 0) {
            rule("", path, (size_t)n);
            rule("2", path, (size_t)n);
        }
    }
    return real(addr, len, prot, flags, fd, off);
}
