/* Surviving a mapped file that fails under its reader (zkpipe_mapped_recover, zkpipe/io.h).
 * The handler reads /proc/self/maps into its own stack to find the mapping that faulted, maps
 * zero pages over the rest of it and records the file in a ring of lock-free atomics, which
 * zkpipe_mapped_damaged reads. */
#define _GNU_SOURCE /* MAP_ANONYMOUS, BUS_ADRALN */
#include "zkpipe/io.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#if defined(__linux__)

#define DAMAGE_RING 64

static atomic_int installed;
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

static void on_sigbus(int sig, siginfo_t *si, void *uctx)
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

zkpipe_status zkpipe_mapped_recover(void)
{
    if (atomic_exchange(&installed, 1) != 0)
        return ZKPIPE_OK;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGBUS, &sa, NULL) != 0) {
        atomic_store(&installed, 0);
        return ZKPIPE_EUNSUPPORTED;
    }
    return ZKPIPE_OK;
}

uint64_t zkpipe_mapped_damage_mark(void)
{
    return atomic_load(&damage_count);
}

int zkpipe_mapped_damaged(uint64_t mark, uint64_t dev, uint64_t ino)
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

#else /* no /proc/self/maps to find the mapping by */

zkpipe_status zkpipe_mapped_recover(void)
{
    return ZKPIPE_EUNSUPPORTED;
}

uint64_t zkpipe_mapped_damage_mark(void)
{
    return 0;
}

int zkpipe_mapped_damaged(uint64_t mark, uint64_t dev, uint64_t ino)
{
    (void)mark;
    (void)dev;
    (void)ino;
    return 0;
}

#endif
