/* core/pages.h: MADV_DONTNEED over the whole pages of a range of a read-only file mapping. */
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
