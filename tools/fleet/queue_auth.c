/* The credentials of a queue's Redis (queue_auth.h). */
#define _GNU_SOURCE /* memrchr */
#include "queue_auth.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* The first line of a password file into buf (cap > QUEUE_PASSWORD_MAX): 1, or 0 with a line on
 * stderr. Opened without blocking (a FIFO would wait for a writer) and read only when it is a
 * regular file no one else may read. */
static int read_password_file(const char *path, char *buf, size_t cap, const char *prog)
{
    int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    const char *why = NULL;
    if (fd < 0 || fstat(fd, &st) != 0)
        why = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file";
    else if ((st.st_mode & (S_IRGRP | S_IROTH)) != 0)
        why = "readable by its group or by others (chmod 600 it)";
    if (why != NULL) {
        fprintf(stderr, "%s: --redis-password-file %s: %s\n", prog, path, why);
        if (fd >= 0)
            close(fd);
        return 0;
    }
    /* One byte more than a password may have, to tell a long one from one that fits. */
    size_t len = 0;
    while (len < QUEUE_PASSWORD_MAX + 1) {
        ssize_t got = read(fd, buf + len, QUEUE_PASSWORD_MAX + 1 - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            why = got < 0 ? strerror(errno) : NULL;
            break;
        }
        len += (size_t)got;
        if (memchr(buf + len - (size_t)got, '\n', (size_t)got) != NULL)
            break;
    }
    close(fd);
    const char *nl = memchr(buf, '\n', len);
    size_t line = nl != NULL ? (size_t)(nl - buf) : len;
    if (line > 0 && buf[line - 1] == '\r')
        line--;
    char longer[64];
    snprintf(longer, sizeof longer, "its first line is longer than %d bytes", QUEUE_PASSWORD_MAX);
    if (why == NULL && line > QUEUE_PASSWORD_MAX)
        why = longer;
    else if (why == NULL && line == 0)
        why = "its first line is empty";
    if (why != NULL) {
        memset(buf, 0, cap);
        fprintf(stderr, "%s: --redis-password-file %s: %s\n", prog, path, why);
        return 0;
    }
    memset(buf + line, 0, cap - line);
    return 1;
}

int queue_addr_local(const queue_addr *a)
{
    unsigned char ip[16];
    if (a->path[0] != '\0' || strcasecmp(a->host, "localhost") == 0)
        return 1;
    if (inet_pton(AF_INET, a->host, ip) == 1)
        return ip[0] == 127;
    if (inet_pton(AF_INET6, a->host, ip) != 1)
        return 0;
    static const unsigned char loopback[16] = {[15] = 1};
    static const unsigned char mapped[12] = {[10] = 0xff, [11] = 0xff};
    return memcmp(ip, loopback, 16) == 0 || (memcmp(ip, mapped, 12) == 0 && ip[12] == 127);
}

int queue_auth_finish(queue_addr *a, const char *password_file, int insecure_no_auth,
                      const char *prog)
{
    const char *env = getenv(QUEUE_PASSWORD_ENV);
    if (password_file != NULL) {
        if (!read_password_file(password_file, a->password, sizeof a->password, prog))
            return 0;
        a->has_password = 1;
    } else if (!a->has_password && env != NULL) {
        if (strlen(env) > QUEUE_PASSWORD_MAX || env[0] == '\0') {
            fprintf(stderr, "%s: $%s: 1 to %d bytes\n", prog, QUEUE_PASSWORD_ENV,
                    QUEUE_PASSWORD_MAX);
            return 0;
        }
        snprintf(a->password, sizeof a->password, "%s", env);
        a->has_password = 1;
    }
    if (a->user[0] != '\0' && !a->has_password) {
        fprintf(stderr,
                "%s: the user %s has no password (give it in $%s or --redis-password-file)\n", prog,
                a->user, QUEUE_PASSWORD_ENV);
        return 0;
    }
    if (!a->has_password && !insecure_no_auth && !queue_addr_local(a)) {
        fprintf(stderr,
                "%s: Redis at %s is not on this machine and no password was given: anyone who "
                "reaches it can read and change the jobs (give one in $%s or "
                "--redis-password-file, or --insecure-no-auth)\n",
                prog, a->host, QUEUE_PASSWORD_ENV);
        return 0;
    }
    return 1;
}

void queue_auth_hide(char *url, const char *prog, const char *what)
{
    char *scheme = url != NULL ? strstr(url, "://") : NULL;
    if (scheme == NULL)
        return;
    char *auth = scheme + 3, *slash = strchr(auth, '/');
    size_t alen = slash != NULL ? (size_t)(slash - auth) : strlen(auth);
    char *at = memrchr(auth, '@', alen), *colon = at != NULL ? memchr(auth, ':', alen) : NULL;
    if (colon == NULL || colon > at || colon + 1 == at)
        return;
    fprintf(stderr,
            "%s: warning: the password in %s was visible to other users of this machine (ps, "
            "/proc) and stays in the shell's history: give it in $%s or --redis-password-file\n",
            prog, what, QUEUE_PASSWORD_ENV);
    size_t plen = (size_t)(at - colon - 1);
    if (plen < 3) {
        memset(colon + 1, '*', plen);
        return;
    }
    /* "***" in its place, the rest moved up, the bytes freed at the end cleared. */
    size_t rest = strlen(at);
    memcpy(colon + 1, "***", 3);
    memmove(colon + 4, at, rest + 1);
    memset(colon + 4 + rest + 1, 0, plen - 3);
}
