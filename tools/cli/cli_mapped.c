/* See cli_mapped.h. The guard's handler uses only async-signal-safe calls (stat, write, unlink,
 * nanosleep, pause, _exit) and lock-free atomics, and builds its line in a static buffer, which
 * only the first faulting thread reaches (cli_outputs_stop); the recovering one reads
 * /proc/self/maps into its own stack and records damaged files in a ring of lock-free
 * atomics. */
#define _GNU_SOURCE /* MAP_ANONYMOUS, BUS_ADRALN */
#include "cli_mapped.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli_files.h"

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

/* ---- Recovering ---- */

#define DAMAGE_RING 64

static atomic_ullong damage_count; /* files damaged so far */
static struct {
    atomic_ullong seq; /* the damage's number + 1, once dev and ino are written */
    atomic_ullong dev, ino;
} damage[DAMAGE_RING];

/* A mapping of /proc/self/maps: "lo-hi perms offset major:minor inode [path]". */
typedef struct vma {
    uintptr_t lo, hi;
    int prot;
    unsigned long long major, minor, ino;
} vma;

static const char *hex(const char *p, const char *end, unsigned long long *v)
{
    *v = 0;
    for (; p < end; p++) {
        int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
        if (d < 0)
            break;
        *v = *v * 16 + (unsigned)d;
    }
    return p;
}

/* Parses one line (without its newline); 1 when it is a mapping. */
static int vma_parse(const char *p, const char *end, vma *m)
{
    unsigned long long lo, hi, off;
    p = hex(p, end, &lo);
    if (p >= end || *p++ != '-')
        return 0;
    p = hex(p, end, &hi);
    if (end - p < 6 || *p++ != ' ')
        return 0;
    m->prot = (p[0] == 'r' ? PROT_READ : 0) | (p[1] == 'w' ? PROT_WRITE : 0) |
              (p[2] == 'x' ? PROT_EXEC : 0);
    p += 4;
    if (p >= end || *p++ != ' ')
        return 0;
    p = hex(p, end, &off);
    if (p >= end || *p++ != ' ')
        return 0;
    p = hex(p, end, &m->major);
    if (p >= end || *p++ != ':')
        return 0;
    p = hex(p, end, &m->minor);
    if (p >= end || *p++ != ' ')
        return 0;
    m->ino = 0;
    for (; p < end && *p >= '0' && *p <= '9'; p++)
        m->ino = m->ino * 10 + (unsigned)(*p - '0');
    m->lo = (uintptr_t)lo;
    m->hi = (uintptr_t)hi;
    return 1;
}

/* The mapping holding `addr`, read from /proc/self/maps a block at a time; 1 when found. */
static int vma_find(uintptr_t addr, vma *out)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[4096];
    size_t have = 0;
    int found = 0;
    for (;;) {
        ssize_t got = read(fd, buf + have, sizeof buf - have);
        if (got <= 0)
            break;
        have += (size_t)got;
        char *line = buf, *nl;
        while (!found && (nl = memchr(line, '\n', have - (size_t)(line - buf))) != NULL) {
            vma m;
            if (vma_parse(line, nl, &m) && m.lo <= addr && addr < m.hi) {
                *out = m;
                found = 1;
            }
            line = nl + 1;
        }
        if (found)
            break;
        have -= (size_t)(line - buf);
        memmove(buf, line, have);
        if (have == sizeof buf) /* a line longer than the buffer: its head is enough */
            have = 0;
    }
    close(fd);
    return found;
}

static void leave_to_default(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL); /* the faulting read runs again and dies of it */
}

static void on_sigbus_recover(int sig, siginfo_t *si, void *uctx)
{
    (void)sig;
    (void)uctx;
    int saved = errno;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t addr = (uintptr_t)si->si_addr & ~(page - 1);
    vma m;
    if (si->si_code == BUS_ADRALN || !vma_find(addr, &m) || m.ino == 0 ||
        mmap((void *)addr, m.hi - addr, m.prot, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
            MAP_FAILED) {
        leave_to_default();
        errno = saved;
        return;
    }
    unsigned long long k = atomic_fetch_add(&damage_count, 1);
    atomic_store(&damage[k % DAMAGE_RING].seq, 0);
    atomic_store(&damage[k % DAMAGE_RING].dev, (unsigned long long)makedev(m.major, m.minor));
    atomic_store(&damage[k % DAMAGE_RING].ino, m.ino);
    atomic_store(&damage[k % DAMAGE_RING].seq, k + 1);
    errno = saved;
}

int cli_mapped_recover(void)
{
    if (guard_sizes != NULL || atomic_exchange(&recovering, 1) != 0) {
        errno = EBUSY;
        return -1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus_recover;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGBUS, &sa, NULL);
}

unsigned long long cli_mapped_damage_mark(void)
{
    return atomic_load(&damage_count);
}

int cli_mapped_damaged(unsigned long long mark, unsigned long long dev, unsigned long long ino)
{
    unsigned long long end = atomic_load(&damage_count);
    if (end - mark > DAMAGE_RING)
        return 1;
    for (unsigned long long k = mark; k < end; k++) {
        unsigned long long seq = atomic_load(&damage[k % DAMAGE_RING].seq);
        if (seq != k + 1) /* being written, or already overwritten: assume the worst */
            return 1;
        if (atomic_load(&damage[k % DAMAGE_RING].dev) == dev &&
            atomic_load(&damage[k % DAMAGE_RING].ino) == ino)
            return 1;
    }
    return 0;
}
