/* Witness generators (serve_witness.h). */
#define _GNU_SOURCE
#include "serve_witness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_files.h"

extern char **environ;

/* The witness a generator may write at most: a circuit's is a few hundred MiB at the largest. */
#define WITNESS_MAX ((off_t)4 << 30)

struct serve_witness {
    char dir[64]; /* "" once removed */
    pid_t pid;    /* 0 once reaped */
    uint64_t deadline_ns;
    int fd;
    char error[256];
};

static uint64_t monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Removes the folder and what the generator left in it (one level: it is told to write files). */
static void remove_dir(serve_witness *w)
{
    if (w->dir[0] == '\0')
        return;
    DIR *d = opendir(w->dir);
    if (d != NULL) {
        int dfd = dirfd(d);
        for (struct dirent *e; (e = readdir(d)) != NULL;)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
                unlinkat(dfd, e->d_name, 0) != 0)
                unlinkat(dfd, e->d_name, AT_REMOVEDIR);
        closedir(d);
    }
    rmdir(w->dir);
    w->dir[0] = '\0';
}

/* `arg` with each "{input}" and "{wtns}" replaced, into out: 1, or 0 when it does not fit. */
static int substitute(char *out, size_t cap, const char *arg, const char *input, const char *wtns)
{
    size_t o = 0;
    while (*arg != '\0') {
        const char *with = strncmp(arg, "{input}", 7) == 0  ? input
                           : strncmp(arg, "{wtns}", 6) == 0 ? wtns
                                                            : NULL;
        size_t n = with != NULL ? strlen(with) : 1;
        if (o + n + 1 > cap)
            return 0;
        memcpy(out + o, with != NULL ? with : arg, n);
        o += n;
        arg += with == input ? 7 : with == wtns ? 6 : 1;
    }
    out[o] = '\0';
    return 1;
}

serve_witness *serve_witness_start(const serve_witness_cmd *cmd, const void *input, size_t len,
                                   unsigned long timeout_ms, char *why, size_t cap)
{
    serve_witness *w = calloc(1, sizeof *w);
    if (w == NULL) {
        snprintf(why, cap, "out of memory");
        return NULL;
    }
    w->fd = -1;
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || tmp[0] != '/' || strlen(tmp) > 40)
        tmp = "/tmp";
    snprintf(w->dir, sizeof w->dir, "%s/zkpipe-serve.XXXXXX", tmp);
    if (mkdtemp(w->dir) == NULL) {
        snprintf(why, cap, "cannot make a private folder in %s: %s", tmp, strerror(errno));
        w->dir[0] = '\0';
        free(w);
        return NULL;
    }
    char in[96], out[96], log[96];
    snprintf(in, sizeof in, "%s/input.json", w->dir);
    snprintf(out, sizeof out, "%s/witness.wtns", w->dir);
    snprintf(log, sizeof log, "%s/stderr", w->dir);
    int fd = open(in, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int ok = fd >= 0 && cli_write_all(fd, (const char *)input, len) == 0;
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    char args[SERVE_WITNESS_ARGS_MAX][512];
    char *argv[SERVE_WITNESS_ARGS_MAX + 1];
    int n = 0;
    for (; ok && cmd->argv[n] != NULL; n++) {
        ok = substitute(args[n], sizeof args[n], cmd->argv[n], in, out);
        argv[n] = args[n];
    }
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, def;
    sigemptyset(&none);
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    int err = ok ? 0 : errno != 0 ? errno : ENAMETOOLONG;
    if (err == 0) {
        /* Its own process group (killed as one), default signals (this server blocks SIGTERM
         * and ignores SIGPIPE), no input, output to its log. */
        posix_spawn_file_actions_init(&fa);
        posix_spawnattr_init(&attr);
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
                                         0600);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                            POSIX_SPAWN_SETSIGDEF);
        posix_spawnattr_setpgroup(&attr, 0);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setsigdefault(&attr, &def);
        err = posix_spawnp(&w->pid, argv[0], &fa, &attr, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        posix_spawnattr_destroy(&attr);
    }
    if (err != 0) {
        snprintf(why, cap, "cannot run the witness generator %s: %s", cmd->argv[0], strerror(err));
        w->pid = 0;
        serve_witness_free(w);
        return NULL;
    }
    w->deadline_ns = monotonic_ns() + (uint64_t)timeout_ms * 1000000u;
    return w;
}

/* The last non-empty line of the generator's stderr into w->error, after `prefix`. */
static void last_line(serve_witness *w, const char *prefix)
{
    char log[96], buf[4096];
    snprintf(log, sizeof log, "%s/stderr", w->dir);
    snprintf(w->error, sizeof w->error, "%s", prefix);
    int fd = open(log, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    off_t size = lseek(fd, 0, SEEK_END);
    off_t from = size > (off_t)sizeof buf - 1 ? size - (off_t)sizeof buf + 1 : 0;
    ssize_t n = pread(fd, buf, sizeof buf - 1, from);
    close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = '\0';
    const char *line = strrchr(buf, '\n');
    line = line != NULL ? line + 1 : buf;
    if (line[0] != '\0')
        snprintf(w->error, sizeof w->error, "%s: %.180s", prefix, line);
}

int serve_witness_poll(serve_witness *w, uint64_t now_ns)
{
    if (w->pid == 0)
        return w->fd >= 0 ? 1 : -1;
    int status;
    pid_t got = waitpid(w->pid, &status, WNOHANG);
    if (got == 0 && now_ns < w->deadline_ns)
        return 0;
    if (got == 0) {
        kill(-w->pid, SIGKILL);
        while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
            ;
        w->pid = 0;
        snprintf(w->error, sizeof w->error, "the witness generator ran past its time limit");
        remove_dir(w);
        return -1;
    }
    w->pid = 0;
    if (got < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char what[64];
        if (got >= 0 && WIFSIGNALED(status))
            snprintf(what, sizeof what, "the witness generator was killed by signal %d",
                     WTERMSIG(status));
        else
            snprintf(what, sizeof what, "the witness generator failed (exit status %d)",
                     got >= 0 ? WEXITSTATUS(status) : -1);
        last_line(w, what);
        remove_dir(w);
        return -1;
    }
    char out[96];
    snprintf(out, sizeof out, "%s/witness.wtns", w->dir);
    int fd = open(out, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > WITNESS_MAX) {
        snprintf(w->error, sizeof w->error, "the witness generator wrote no witness file");
        if (fd >= 0)
            close(fd);
        remove_dir(w);
        return -1;
    }
    w->fd = fd; /* the file lives on, open, once its name is gone */
    remove_dir(w);
    return 1;
}

int serve_witness_take_fd(serve_witness *w)
{
    int fd = w->fd;
    w->fd = -1;
    return fd;
}

const char *serve_witness_error(const serve_witness *w)
{
    return w->error;
}

void serve_witness_free(serve_witness *w)
{
    if (w == NULL)
        return;
    if (w->pid > 0) {
        kill(-w->pid, SIGKILL);
        while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    if (w->fd >= 0)
        close(w->fd);
    remove_dir(w);
    free(w);
}
