/* core/pages.h: MADV_DONTNEED over the whole pages of a range of a read-only file mapping, and
 * MADV_HUGEPAGE over a fresh anonymous block. */
#define _DEFAULT_SOURCE /* madvise */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/pages.h"

void zkpipe__pages_drop(const void *map, size_t map_len, const void *p, size_t len)
{
    uintptr_t lo = (uintptr_t)map, a = (uintptr_t)p;
    if (map == NULL || p == NULL || a < lo || a - lo > map_len || len > map_len - (a - lo))
        return;
    long ps = sysconf(_SC_PAGESIZE);
    uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096;
    uintptr_t first = (a + page - 1) & ~(page - 1), end = (a + len) & ~(page - 1);
    if (end > first)
        (void)madvise((void *)first, end - first, MADV_DONTNEED);
}

void zkpipe__pages_huge(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t a = (uintptr_t)p, first = (a + huge - 1) & ~(huge - 1), end = (a + len) & ~(huge - 1);
    if (p != NULL && end > first)
        (void)madvise((void *)first, end - first, MADV_HUGEPAGE);
#else
    (void)p;
    (void)len;
#endif
}
