/* An LD_PRELOAD shim for tests/test_cli_outputs.sh: right after a program maps the file
 * named by $ZKPIPE_TEST_TRUNCATE_ON_MMAP, it truncates that file to nothing, as another
 * process could while the program uses the mapping, so that the program's next read of it
 * raises SIGBUS at a point the test does not have to race for. */
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
        if (strcmp(path, want) == 0 && truncate(want, 0) != 0)
            perror("truncate_on_mmap");
    }
    return p;
}
