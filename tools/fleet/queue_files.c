/* A queue node's files, beneath the folders it was given (queue_files.h). */
#define _GNU_SOURCE /* memfd_create, F_ADD_SEALS */
#include "queue_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli_files.h"

#if defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HAVE_OPENAT2_H 1
#endif
#endif

#define INPUT_FLAGS (O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)

/* openat2 beneath dirfd, or -1 with errno (ENOSYS: the kernel or the headers lack it). */
static int open_beneath(int dirfd, const char *name)
{
#if defined(HAVE_OPENAT2_H) && defined(SYS_openat2)
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = INPUT_FLAGS;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    return (int)syscall(SYS_openat2, dirfd, name, &how, sizeof how);
#else
    (void)dirfd;
    (void)name;
    errno = ENOSYS;
    return -1;
#endif
}

/* The same with openat, one component at a time, none of them a link: the name has no ".."
 * and no leading '/' (queue_job.h), so each step stays beneath the folder before it. */
static int open_walk(int dirfd, const char *name)
{
    int at = dirfd;
    for (;;) {
        const char *slash = strchr(name, '/');
        char part[256];
        size_t len = slash != NULL ? (size_t)(slash - name) : strlen(name);
        if (len == 0 || len >= sizeof part) {
            errno = ENAMETOOLONG;
            break;
        }
        memcpy(part, name, len);
        part[len] = '\0';
        int fd = openat(at, part,
                        slash != NULL ? O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
                                      : INPUT_FLAGS | O_NOFOLLOW);
        int e = errno;
        if (at != dirfd)
            close(at);
        errno = e;
        if (fd < 0 || slash == NULL)
            return fd;
        at = fd;
        name = slash + 1;
    }
    if (at != dirfd)
        close(at);
    return -1;
}

int queue_input_open(int dirfd, const char *name, size_t max, char *why, size_t cap)
{
    int fd = open_beneath(dirfd, name);
    if (fd < 0 && errno == ENOSYS)
        fd = open_walk(dirfd, name);
    if (fd < 0) {
        snprintf(why, cap, "%s: cannot open beneath the node's inputs: %s", name,
                 errno == ELOOP || errno == EXDEV ? "a symbolic link or a way out of the folder"
                                                  : strerror(errno));
        return -1;
    }
    struct stat st;
    const char *bad = NULL;
    if (fstat(fd, &st) != 0)
        bad = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        bad = "not a regular file";
    else if (st.st_size == 0 || (unsigned long long)st.st_size > max)
        bad = "empty, or larger than the node's --max-wtns-mib";
    if (bad != NULL) {
        snprintf(why, cap, "%s: %s", name, bad);
        close(fd);
        errno = EINVAL; /* the file as it is: no other try would read it */
        return -1;
    }
    return fd;
}

int queue_input_memfd(const void *data, size_t len, char *why, size_t cap)
{
    int fd = memfd_create("zkpipe-wtns", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd >= 0 &&
        (cli_write_all(fd, data, len) != 0 ||
         fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)) {
        close(fd);
        fd = -1;
    }
    if (fd < 0)
        snprintf(why, cap, "cannot hold the job's witness: %s", strerror(errno));
    return fd;
}

int queue_output_write(int dirfd, const char *const *names, const char *const *data,
                       const size_t *lens, size_t n, const char *tag, char *why, size_t cap)
{
    for (size_t i = 0; i < n; i++) {
        char tmp[512];
        int len = snprintf(tmp, sizeof tmp, ".%s.%s.tmp", names[i], tag);
        if (len < 0 || (size_t)len >= sizeof tmp) {
            snprintf(why, cap, "%s: the name is too long", names[i]);
            return -1;
        }
        int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        int ok = fd >= 0 && cli_write_all(fd, data[i], lens[i]) == 0 && fsync(fd) == 0;
        int e = errno;
        if (fd >= 0 && close(fd) != 0 && ok) {
            ok = 0;
            e = errno;
        }
        if (ok && renameat(dirfd, tmp, dirfd, names[i]) != 0) {
            ok = 0;
            e = errno;
        }
        if (!ok) {
            if (fd >= 0)
                unlinkat(dirfd, tmp, 0);
            snprintf(why, cap, "%s: cannot write it in the node's --out: %s", names[i],
                     strerror(e));
            return -1;
        }
    }
    return 0;
}
