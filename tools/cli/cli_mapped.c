/* See cli_mapped.h. The guard's handler uses only async-signal-safe calls (stat, write, unlink,
 * nanosleep, pause, _exit) and lock-free atomics, and builds its line in a static buffer, which
 * only the first faulting thread reaches (cli_outputs_stop). */
#include "cli_mapped.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_files.h"
#include "zkpipe/io.h"

static atomic_int recovering; /* cli_mapped_recover was called */
static const char *guard_prog;
static const char *const *guard_paths; /* the caller's */
static off_t *guard_sizes;             /* -1: could not be read when the guard was set */
static size_t guard_n;

static char line[2048];
static size_t line_len;

static void add(const char *s)
{
    size_t n = strlen(s);
    if (n > sizeof line - 1 - line_len)
        n = sizeof line - 1 - line_len;
    memcpy(line + line_len, s, n);
    line_len += n;
}

/* Input i is smaller than when the guard was set, or gone. */
static int shrunk(size_t i)
{
    struct stat st;
    return guard_paths[i] != NULL && guard_sizes[i] >= 0 &&
           (stat(guard_paths[i], &st) != 0 || st.st_size < guard_sizes[i]);
}

static void on_sigbus(int sig)
{
    (void)sig;
    cli_outputs_stop(); /* first: one thread goes on, and no output set is mid-step */
    int any = 0;
    for (size_t i = 0; i < guard_n && !any; i++)
        any = shrunk(i);
    line_len = 0;
    add(guard_prog);
    add(": ");
    for (size_t i = 0, named = 0; i < guard_n; i++) {
        if (guard_paths[i] == NULL || (any && !shrunk(i)))
            continue;
        add(named++ > 0 ? ", " : "");
        add(guard_paths[i]);
    }
    add(any ? ": I/O error: the file shrank while it was mapped (an input must stay unchanged "
              "until the program ends) (ZKPIPE_EIO)\n"
            : ": I/O error reading a mapped input: its storage failed, or it was changed "
              "(ZKPIPE_EIO)\n");
    ssize_t w = write(2, line, line_len);
    (void)w;
    _exit(1);
}

int cli_mapped_guard(const char *prog, const char *const *paths, size_t n)
{
    if (guard_sizes != NULL || atomic_load(&recovering) != 0) {
        errno = EBUSY;
        return -1;
    }
    off_t *sizes = malloc((n > 0 ? n : 1) * sizeof *sizes);
    if (sizes == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        sizes[i] = paths[i] != NULL && stat(paths[i], &st) == 0 ? st.st_size : -1;
    }
    guard_prog = prog;
    guard_paths = paths;
    guard_sizes = sizes; /* for the rest of the process, as the handler is */
    guard_n = n;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGBUS, &sa, NULL);
}

int cli_mapped_recover(void)
{
    if (guard_sizes != NULL || atomic_exchange(&recovering, 1) != 0) {
        errno = EBUSY;
        return -1;
    }
    if (zkpipe_mapped_recover() != ZKPIPE_OK) {
        errno = ENOTSUP;
        return -1;
    }
    return 0;
}
