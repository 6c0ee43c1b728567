/* See cli_mapped.h. The handler uses only async-signal-safe calls (stat, write, unlink,
 * _exit), and builds its line in a static buffer. */
#include "cli_mapped.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_files.h"

static const char *guard_prog;
static const char *guard_paths[CLI_MAPPED_MAX];
static off_t guard_sizes[CLI_MAPPED_MAX]; /* -1: could not be read when the guard was set */
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

static void on_sigbus(int sig)
{
    (void)sig;
    int shrunk[CLI_MAPPED_MAX] = {0}, any = 0;
    for (size_t i = 0; i < guard_n; i++) {
        struct stat st;
        shrunk[i] =
            guard_sizes[i] >= 0 && (stat(guard_paths[i], &st) != 0 || st.st_size < guard_sizes[i]);
        any |= shrunk[i];
    }
    line_len = 0;
    add(guard_prog);
    add(": ");
    for (size_t i = 0, named = 0; i < guard_n; i++) {
        if (any && !shrunk[i])
            continue;
        add(named++ > 0 ? ", " : "");
        add(guard_paths[i]);
    }
    add(any ? ": I/O error: the file shrank while it was mapped (an input must stay unchanged "
              "until the program ends) (ZKPIPE_EIO)\n"
            : ": I/O error reading a mapped input: its storage failed, or it was changed "
              "(ZKPIPE_EIO)\n");
    cli_outputs_abandon();
    ssize_t w = write(2, line, line_len);
    (void)w;
    _exit(1);
}

int cli_mapped_guard(const char *prog, const char *const *paths, size_t n)
{
    guard_prog = prog;
    guard_n = 0;
    for (size_t i = 0; i < n; i++) {
        if (paths[i] == NULL)
            continue;
        if (guard_n == CLI_MAPPED_MAX) {
            errno = EINVAL;
            return -1;
        }
        struct stat st;
        guard_paths[guard_n] = paths[i];
        guard_sizes[guard_n++] = stat(paths[i], &st) == 0 ? st.st_size : -1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGBUS, &sa, NULL);
}
