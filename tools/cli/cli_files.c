/* See cli_files.h. */
#define _GNU_SOURCE /* O_TMPFILE */
#include "cli_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

char *cli_read_file(const char *path, size_t max, size_t *len)
{
    /* O_NONBLOCK: a FIFO opens at once even with no writer, to be refused below. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENXIO) /* a socket, or a device with nothing behind it */
            errno = ENODEV;
        return NULL;
    }
    struct stat st;
    int err = fstat(fd, &st) != 0    ? errno
              : S_ISDIR(st.st_mode)  ? EISDIR
              : !S_ISREG(st.st_mode) ? ENODEV
                                     : 0;
    size_t cap = 4096, n = 0;
    char *buf = err == 0 ? malloc(cap) : NULL;
    if (err == 0 && buf == NULL)
        err = ENOMEM;
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

/* ---- Output sets ---- */

char *cli_error_text(char *buf, size_t cap, const cli_output *outs, const cli_error *e)
{
    if (e->err != 0)
        snprintf(buf, cap, "%s: %s: %s", outs[e->index].path, e->what, strerror(e->err));
    else
        snprintf(buf, cap, "%s: %s", outs[e->index].path, e->what);
    return buf;
}

/* How one output of a set is written, decided before anything is. */
typedef struct plan {
    int fd;     /* >= 0: a descriptor the text is written to */
    int own;    /* fd was opened here */
    int file;   /* a file replaced by rename */
    int exists; /* ... which exists: `st` is its status */
    struct stat st;
    struct stat dir_st;    /* of its folder: two outputs onto one name are refused */
    char target[PATH_MAX]; /* the name renamed onto: the path, links followed */
    char dir[PATH_MAX];
    const char *base; /* in target */
    char fresh[PATH_MAX + 32], old[PATH_MAX + 32];
    int unnamed; /* the new file is open on tmp_fd without a name (O_TMPFILE) till it is linked
                    as `fresh` in the renames' step */
    int tmp_fd;
    int by_name;                  /* the new file was created as `fresh` (no O_TMPFILE there) */
    volatile sig_atomic_t staged; /* `fresh` exists */
    volatile sig_atomic_t linked; /* `old` exists */
} plan;

/* The set being written, for the signal handlers. A handler that finds the gate open (0)
 * closes it (2), removes the new files and kills the process; one that finds the writer in a
 * step that must not be cut (1) leaves the signal for the writer to act on when the step
 * ends. */
static plan *volatile active;
static volatile size_t active_n;
static atomic_int gate;
static volatile sig_atomic_t pending;

static const int fatal_signals[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGTERM,   SIGUSR1,
                                    SIGUSR2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF};
#define NFATAL (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction saved_fatal[NFATAL], saved_pipe, saved_xfsz;
static int installed[NFATAL];

/* Removes the new files of the set being written, if there is one. */
static void abandon(void)
{
    plan *p = active;
    for (size_t i = 0; p != NULL && i < active_n; i++)
        if (p[i].staged) {
            unlink(p[i].fresh);
            p[i].staged = 0;
        }
}

/* Ends the process by `sig` as its default action would. */
static void die_by(int sig)
{
    signal(sig, SIG_DFL);
    raise(sig); /* in a handler: delivered when it returns, the signal being blocked till then */
}

static void on_fatal(int sig)
{
    int open = 0;
    if (!atomic_compare_exchange_strong(&gate, &open, 2)) {
        if (open == 1)
            pending = sig; /* the writer is in a step that must not be cut */
        return;            /* 2: another thread is already cleaning up */
    }
    abandon();
    die_by(sig);
}

/* A step the handlers must not cut: they defer to its end. */
static void step_begin(void)
{
    int open = 0;
    while (!atomic_compare_exchange_weak(&gate, &open, 1)) {
        if (open == 2) /* a handler is cleaning up and about to kill the process */
            for (;;)
                pause();
        open = 0;
    }
}

static void step_end(void)
{
    atomic_store(&gate, 0);
    int sig = pending;
    if (sig != 0) {
        int open = 0;
        if (atomic_compare_exchange_strong(&gate, &open, 2)) {
            abandon();
            die_by(sig);
        }
    }
}

void cli_outputs_stop(void)
{
    int open = 0;
    while (!atomic_compare_exchange_weak(&gate, &open, 2)) {
        if (open == 2) /* another thread is cleaning up and about to end the process */
            for (;;)
                pause();
        if (open == 1) { /* the writer is in a step (a create or the renames): let it end */
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
        }
        open = 0;
    }
    abandon();
}

static void handlers_install(plan *p, size_t n)
{
    active = p;
    active_n = n;
    pending = 0;
    atomic_store(&gate, 0);
    struct sigaction sa, ign;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NFATAL; i++)
        sigaddset(&sa.sa_mask, fatal_signals[i]);
    for (size_t i = 0; i < NFATAL; i++) {
        installed[i] = 0;
        if (sigaction(fatal_signals[i], NULL, &saved_fatal[i]) != 0 ||
            saved_fatal[i].sa_handler == SIG_IGN) /* ignored, e.g. under nohup: left so */
            continue;
        installed[i] = sigaction(fatal_signals[i], &sa, NULL) == 0;
    }
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &saved_pipe);
    sigaction(SIGXFSZ, &ign, &saved_xfsz);
}

static void handlers_restore(void)
{
    for (size_t i = 0; i < NFATAL; i++)
        if (installed[i])
            sigaction(fatal_signals[i], &saved_fatal[i], NULL);
    sigaction(SIGPIPE, &saved_pipe, NULL);
    sigaction(SIGXFSZ, &saved_xfsz, NULL);
    step_begin();
    active = NULL;
    active_n = 0;
    step_end();
}

static int refuse(cli_error *e, size_t index, int err, const char *what)
{
    e->index = index;
    e->err = err;
    e->what = what;
    return -1;
}

/* The descriptor a path names directly, or -1. */
static int named_fd(const char *path)
{
    if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0)
        return 1;
    if (strcmp(path, "/dev/stderr") == 0)
        return 2;
    const char *num = strncmp(path, "/dev/fd/", 8) == 0          ? path + 8
                      : strncmp(path, "/proc/self/fd/", 14) == 0 ? path + 14
                                                                 : NULL;
    if (num == NULL || *num < '0' || *num > '9')
        return -1;
    char *end;
    long fd = strtol(num, &end, 10);
    return *end == '\0' && fd <= INT_MAX ? (int)fd : -1;
}

static int dir_name(char *out, size_t cap, const char *dir);

/* cli_outputs_expect_dir's folder, without its trailing slashes ("": none). */
static char expected[PATH_MAX];

void cli_outputs_expect_dir(const char *dir)
{
    expected[0] = '\0';
    if (dir != NULL && dir_name(expected, sizeof expected, dir) != 0)
        expected[0] = '\0';
}

/* `dir` is the expected folder and still missing. */
static int expected_dir(const char *dir)
{
    char name[PATH_MAX];
    struct stat st;
    return expected[0] != '\0' && dir_name(name, sizeof name, dir) == 0 &&
           strcmp(name, expected) == 0 && lstat(name, &st) != 0 && errno == ENOENT;
}

/* `path` with its final component's symbolic links followed to a name that is not one. */
static int follow(char *out, const char *path)
{
    char cur[PATH_MAX], link[PATH_MAX], next[PATH_MAX];
    if (strlen(path) >= sizeof cur) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(cur, path);
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
            strcpy(out, cur);
            return 0;
        }
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0)
            return -1;
        link[n] = '\0';
        const char *slash = strrchr(cur, '/');
        int len = link[0] == '/' || slash == NULL
                      ? snprintf(next, sizeof next, "%s", link)
                      : snprintf(next, sizeof next, "%.*s/%s", (int)(slash - cur), cur, link);
        if (len < 0 || (size_t)len >= sizeof next) {
            errno = ENAMETOOLONG;
            return -1;
        }
        strcpy(cur, next);
    }
    errno = ELOOP;
    return -1;
}

static int plan_one(plan *p, size_t i, const char *path, int open_devices, cli_error *e)
{
    p->fd = -1;
    if (path == NULL || path[0] == '\0')
        return refuse(e, i, ENOENT, "has no name");
    int fd = named_fd(path);
    if (fd >= 0) {
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0)
            return refuse(e, i, errno, "is not an open descriptor");
        if ((fl & O_ACCMODE) == O_RDONLY)
            return refuse(e, i, EBADF, "is not open for writing");
        p->fd = fd;
        return 0;
    }
    if (path[strlen(path) - 1] == '/')
        return refuse(e, i, EISDIR, "cannot write there");
    if (follow(p->target, path) != 0)
        return refuse(e, i, errno, "cannot follow its links");
    if (lstat(p->target, &p->st) == 0) {
        if (S_ISDIR(p->st.st_mode))
            return refuse(e, i, EISDIR, "cannot write there");
        if (S_ISSOCK(p->st.st_mode))
            return refuse(e, i, ENXIO, "cannot write to a socket");
        if (!S_ISREG(p->st.st_mode)) { /* a device or a FIFO: written through */
            if (!open_devices)
                return access(p->target, W_OK) == 0 ? 0 : refuse(e, i, errno, "cannot open it");
            /* O_NONBLOCK: a FIFO nobody reads fails (ENXIO) instead of blocking */
            p->fd = open(p->target, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
            if (p->fd < 0)
                return refuse(e, i, errno,
                              errno == ENXIO ? "no process reads this FIFO" : "cannot open it");
            p->own = 1;
            fcntl(p->fd, F_SETFL, fcntl(p->fd, F_GETFL) & ~O_NONBLOCK);
            return 0;
        }
        p->exists = 1;
    } else if (errno != ENOENT) {
        return refuse(e, i, errno, "cannot look at it");
    }
    p->file = 1;
    char *slash = strrchr(p->target, '/');
    if (slash == NULL) {
        strcpy(p->dir, ".");
        p->base = p->target;
    } else {
        snprintf(p->dir, sizeof p->dir, "%.*s", slash == p->target ? 1 : (int)(slash - p->target),
                 p->target);
        p->base = slash + 1;
    }
    if (expected_dir(p->dir)) /* made once the checks pass: empty, and no real folder's id */
        memset(&p->dir_st, 0, sizeof p->dir_st);
    else if (stat(p->dir, &p->dir_st) != 0 || access(p->dir, W_OK | X_OK) != 0)
        return refuse(e, i, errno, "cannot create a file in its folder");
    long pid = (long)getpid();
    if (strlen(p->base) + 32 > NAME_MAX ||
        snprintf(p->fresh, sizeof p->fresh, "%s.zkpipe-new-%ld", p->target, pid) >=
            (int)sizeof p->fresh ||
        snprintf(p->old, sizeof p->old, "%s.zkpipe-old-%ld", p->target, pid) >= (int)sizeof p->old)
        return refuse(e, i, ENAMETOOLONG, "cannot create a file beside it");
    return 0;
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static void close_owned(plan *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i].own) {
            close(p[i].fd);
            p[i].own = 0;
        }
}

static int plan_all(plan *p, const cli_output *outs, size_t n, int open_devices, cli_error *e)
{
    for (size_t i = 0; i < n; i++) {
        if (plan_one(&p[i], i, outs[i].path, open_devices, e) != 0) {
            close_owned(p, i + 1);
            return -1;
        }
        /* one name, or two names of one file (hard links): it cannot hold both texts */
        for (size_t k = 0; k < i && p[i].file; k++)
            if (p[k].file &&
                ((p[k].dir_st.st_dev == p[i].dir_st.st_dev &&
                  p[k].dir_st.st_ino == p[i].dir_st.st_ino && strcmp(p[k].base, p[i].base) == 0) ||
                 (p[k].exists && p[i].exists && same_file(&p[k].st, &p[i].st)))) {
                close_owned(p, i + 1);
                return refuse(e, i, 0, "is the same file as another output");
            }
    }
    return 0;
}

int cli_outputs_check(const cli_output *outs, size_t n, cli_error *e)
{
    plan *p = calloc(n > 0 ? n : 1, sizeof *p);
    if (p == NULL)
        return refuse(e, 0, ENOMEM, "cannot check it");
    int rc = plan_all(p, outs, n, 0, e);
    free(p);
    return rc;
}

/* A file's identity, the inputs' sorted to be searched. */
typedef struct ident {
    dev_t dev;
    ino_t ino;
    size_t index;
} ident;

static int ident_cmp(const void *a, const void *b)
{
    const ident *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

int cli_outputs_check_inputs(const cli_output *outs, size_t n, const char *const *inputs,
                             size_t n_inputs, char *why, size_t cap)
{
    ident *in = malloc((n_inputs > 0 ? n_inputs : 1) * sizeof *in);
    if (in == NULL) {
        snprintf(why, cap, "cannot compare the outputs with the inputs: %s", strerror(ENOMEM));
        return -1;
    }
    size_t m = 0;
    struct stat st;
    for (size_t i = 0; i < n_inputs; i++) /* (one that cannot be looked at: its reader says why) */
        if (inputs[i] != NULL && stat(inputs[i], &st) == 0)
            in[m++] = (ident){st.st_dev, st.st_ino, i};
    qsort(in, m, sizeof *in, ident_cmp);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const char *path = outs[i].path;
        int fd = path != NULL ? named_fd(path) : -1;
        /* As the write finds it: the descriptor it names, or the path with every link
         * followed. One that is not there yet replaces nothing. */
        if (path == NULL || (fd >= 0 ? fstat(fd, &st) : stat(path, &st)) != 0)
            continue;
        ident key = {st.st_dev, st.st_ino, 0};
        const ident *hit = bsearch(&key, in, m, sizeof *in, ident_cmp);
        if (hit != NULL) {
            snprintf(why, cap, "%s: is the same file as the input %s, which it would replace", path,
                     inputs[hit->index]);
            rc = -1;
        }
    }
    free(in);
    return rc;
}

int cli_write_all(int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, text, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) { /* a non-blocking stdout */
            struct pollfd pfd = {fd, POLLOUT, 0};
            poll(&pfd, 1, -1);
            continue;
        }
        if (w <= 0)
            return -1;
        text += w;
        len -= (size_t)w;
    }
    return 0;
}

/* The new file in folder `dir`, without a name (a process that dies leaves nothing), or -1
 * where the system or the file system cannot make one, or link it by /proc/self/fd later. */
static int open_unnamed(const char *dir)
{
#ifdef O_TMPFILE
    static int proc_ok = -1; /* 1: /proc/self/fd can be linked from; 0: cannot */
    if (proc_ok < 0)
        proc_ok = access("/proc/self/fd", X_OK) == 0;
    if (proc_ok)
        return open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
#else
    (void)dir;
#endif
    return -1;
}

/* Each file's text into its new file, synced when the set is to be durable. */
static int stage(plan *p, const cli_output *outs, size_t n, int durable, cli_error *e)
{
    for (size_t i = 0; i < n; i++) {
        if (!p[i].file)
            continue;
        int fd = open_unnamed(p[i].dir);
        int err = errno;
        if (fd >= 0) {
            p[i].unnamed = 1;
            p[i].tmp_fd = fd;
        } else {
            step_begin();
            unlink(p[i].fresh); /* left by an earlier process of the same id, which is gone */
            fd = open(p[i].fresh, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
            p[i].staged = p[i].by_name = fd >= 0;
            err = errno;
            step_end();
        }
        if (fd < 0)
            return refuse(e, i, err, "cannot create a file beside it");
        if (p[i].exists) { /* keep the replaced file's mode and, where allowed, its owner */
            fchmod(fd, p[i].st.st_mode & 07777);
            if (fchown(fd, p[i].st.st_uid, p[i].st.st_gid) != 0)
                fchmod(fd, p[i].st.st_mode & 0777);
        }
        int bad = cli_write_all(fd, outs[i].text, outs[i].len) != 0 || (durable && fsync(fd) != 0);
        err = errno;
        if (!p[i].unnamed && close(fd) != 0 && !bad) { /* (an unnamed one: once linked) */
            bad = 1;
            err = errno;
        }
        if (bad)
            return refuse(e, i, err, "cannot write");
    }
    return 0;
}

/* Gives each unnamed new file its name `fresh`, to be renamed from. */
static int name_unnamed(plan *p, size_t n, cli_error *e)
{
    for (size_t i = 0; i < n; i++) {
        if (!p[i].unnamed)
            continue;
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", p[i].tmp_fd);
        unlink(p[i].fresh); /* left by an earlier process of the same id, which is gone */
        int ok = linkat(AT_FDCWD, proc, AT_FDCWD, p[i].fresh, AT_SYMLINK_FOLLOW) == 0;
        p[i].staged = ok;
        int err = errno;
        int bad = close(p[i].tmp_fd) != 0;
        p[i].unnamed = 0;
        if (!ok || bad)
            return refuse(e, i, ok ? errno : err, ok ? "cannot write" : "cannot name its new file");
    }
    return 0;
}

static void close_unnamed(plan *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i].unnamed) {
            close(p[i].tmp_fd);
            p[i].unnamed = 0;
        }
}

static int write_devices(plan *p, const cli_output *outs, size_t n, cli_error *e)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i].fd < 0)
            continue;
        if (cli_write_all(p[i].fd, outs[i].text, outs[i].len) != 0)
            return refuse(e, i, errno, "cannot write");
        if (p[i].own) {
            p[i].own = 0;
            if (close(p[i].fd) != 0)
                return refuse(e, i, errno, "cannot write");
        }
    }
    return 0;
}

/* Puts back what the renames before `upto` replaced: the previous version where one was
 * kept, no file where there was none (a file replaced without a link stays new). */
static void undo(plan *p, size_t upto)
{
    for (size_t k = 0; k < upto; k++) {
        if (!p[k].file)
            continue;
        if (p[k].linked && rename(p[k].old, p[k].target) == 0)
            p[k].linked = 0;
        else if (!p[k].exists)
            unlink(p[k].target);
    }
}

static void drop_links(plan *p, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (p[k].linked && unlink(p[k].old) == 0)
            p[k].linked = 0;
}

/* Whether p[i] is a file and the first of the set in its folder. */
static int first_in_folder(const plan *p, size_t i)
{
    for (size_t k = 0; k < i && p[i].file; k++)
        if (p[k].file && same_file(&p[k].dir_st, &p[i].dir_st))
            return 0;
    return p[i].file;
}

static int commit(plan *p, size_t n, int durable, cli_error *e)
{
    /* The last file renamed is never put back (a failed rename undoes only those before it):
     * it needs no link. */
    size_t last = n;
    for (size_t i = 0; i < n; i++)
        if (p[i].file)
            last = i;
    step_begin();
    if (name_unnamed(p, n, e) != 0) {
        step_end();
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!p[i].file || !p[i].exists || i == last)
            continue;
        unlink(p[i].old);
        if (link(p[i].target, p[i].old) == 0) {
            p[i].linked = 1;
        } else if (errno != EPERM && errno != EOPNOTSUPP && errno != EXDEV && errno != EMLINK) {
            /* (those say the file system has no hard links: replaced without a way back) */
            int err = errno;
            drop_links(p, n);
            step_end();
            return refuse(e, i, err, "cannot keep its previous version");
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (!p[i].file)
            continue;
        if (rename(p[i].fresh, p[i].target) != 0) {
            int err = errno;
            undo(p, i);
            drop_links(p, n);
            step_end();
            return refuse(e, i, err, "cannot rename onto it");
        }
        p[i].staged = 0;
    }
    for (size_t i = 0; durable && i < n; i++) { /* the renames on disk: each folder once */
        int fd = first_in_folder(p, i) ? open(p[i].dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
        if (fd >= 0) {
            fsync(fd);
            close(fd);
        }
    }
    drop_links(p, n);
    step_end();
    return 0;
}

/* Whether `name` is `<base>.zkpipe-new-<pid>` or `<base>.zkpipe-old-<pid>` of a process that
 * is gone, for one of the files of the set in folder `dir` (p[at] the first). */
static int stale(const plan *p, size_t n, size_t at, const char *name)
{
    for (size_t i = at; i < n; i++) {
        if (!p[i].file || !same_file(&p[i].dir_st, &p[at].dir_st))
            continue;
        size_t blen = strlen(p[i].base);
        const char *s = name + blen;
        if (strncmp(name, p[i].base, blen) != 0 ||
            (strncmp(s, ".zkpipe-new-", 12) != 0 && strncmp(s, ".zkpipe-old-", 12) != 0))
            continue;
        char *end;
        long pid = strtol(s + 12, &end, 10);
        if (s[12] >= '0' && s[12] <= '9' && *end == '\0' && pid > 0 && pid != (long)getpid() &&
            kill((pid_t)pid, 0) != 0 && errno == ESRCH)
            return 1;
    }
    return 0;
}

/* Removes, beside each file written, the new and old files of processes that are gone: one
 * read of each folder where a new file was staged by name, however many of the set's files it
 * holds. (Where the new files were unnamed till the renames, a dead process can have left
 * files only if it died during them: not worth a read of a folder of any size each time.) */
static void sweep(const plan *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!first_in_folder(p, i))
            continue;
        int named = 0;
        for (size_t k = i; k < n && !named; k++)
            named = p[k].file && p[k].by_name && same_file(&p[k].dir_st, &p[i].dir_st);
        if (!named)
            continue;
        DIR *d = opendir(p[i].dir);
        struct dirent *de;
        while (d != NULL && (de = readdir(d)) != NULL)
            if (stale(p, n, i, de->d_name))
                unlinkat(dirfd(d), de->d_name, 0);
        if (d != NULL)
            closedir(d);
    }
}

int cli_outputs_write(const cli_output *outs, size_t n, unsigned flags, cli_error *e)
{
    plan *p = calloc(n > 0 ? n : 1, sizeof *p);
    if (p == NULL)
        return refuse(e, 0, ENOMEM, "cannot start writing");
    int rc = plan_all(p, outs, n, 1, e);
    if (rc == 0) {
        handlers_install(p, n);
        int durable = (flags & CLI_OUTPUTS_DURABLE) != 0;
        rc = stage(p, outs, n, durable, e);
        if (rc == 0)
            rc = write_devices(p, outs, n, e);
        if (rc == 0)
            rc = commit(p, n, durable, e);
        step_begin();
        abandon(); /* the new files left after a failure */
        step_end();
        close_unnamed(p, n);
        handlers_restore();
        if (rc == 0)
            sweep(p, n);
        close_owned(p, n);
    }
    free(p);
    return rc;
}

/* `dir` without its trailing slashes (but a lone "/") into out; 0, or -1 when too long. */
static int dir_name(char *out, size_t cap, const char *dir)
{
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    if (len >= cap)
        return -1;
    memcpy(out, dir, len);
    out[len] = '\0';
    return 0;
}

int cli_out_dir_check(const char *dir, int *missing, char *why, size_t cap)
{
    struct stat st;
    *missing = 0;
    if (lstat(dir, &st) != 0) {
        if (errno != ENOENT) {
            snprintf(why, cap, "%s: %s", dir, strerror(errno));
            return -1;
        }
        char parent[PATH_MAX];
        if (dir_name(parent, sizeof parent, dir) != 0) {
            snprintf(why, cap, "%s: %s", dir, strerror(ENAMETOOLONG));
            return -1;
        }
        char *slash = strrchr(parent, '/');
        if (slash == NULL)
            strcpy(parent, ".");
        else
            slash[slash == parent] = '\0'; /* "/x": the root */
        int err = stat(parent, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
        if (err != 0) {
            snprintf(why, cap, "%s: cannot make the folder: %s%s", dir, strerror(err),
                     err == ENOENT ? " (its parent is missing, and is not made)" : "");
            return -1;
        }
        *missing = 1;
        return 0;
    }
    if (S_ISLNK(st.st_mode)) {
        snprintf(why, cap, "%s: is a symbolic link: name the folder itself", dir);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, cap, "%s: is not a folder", dir);
        return -1;
    }
    return 0;
}

int cli_out_dir_make(const char *dir, char *why, size_t cap)
{
    int missing;
    if (cli_out_dir_check(dir, &missing, why, cap) != 0 || !missing)
        return missing ? -1 : 0;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(why, cap, "%s: cannot make the folder: %s", dir, strerror(errno));
        return -1;
    }
    if (cli_out_dir_check(dir, &missing, why, cap) != 0)
        return -1;
    if (missing) { /* made, then removed at once by someone else */
        snprintf(why, cap, "%s: %s", dir, strerror(ENOENT));
        return -1;
    }
    return 0;
}
