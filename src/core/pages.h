/* Giving back the pages of a read-only file mapping once a pass over them is done: the bytes
 * stay in the page cache and come back on the next read as minor faults, but they leave the
 * process's resident set, which is what a prover's peak is measured by. And huge pages under
 * a large block written whole at once, where 4 KiB faults would cost more than the writes. */
#ifndef ZKPIPE_CORE_PAGES_H
#define ZKPIPE_CORE_PAGES_H

#include <stddef.h>

/* Drops from the resident set the whole pages of [p, p + len) that lie inside the mapping
 * [map, map + map_len) (the partial pages at both ends stay). Does nothing when map is NULL
 * or the range is not inside it, so a key whose points were copied to the heap is never
 * touched. The mapping must be a read-only file mapping (MAP_PRIVATE or MAP_SHARED, never
 * written): MADV_DONTNEED on anonymous memory would zero it. Any thread, concurrently with
 * readers of the same pages (they fault them back in). Failures are ignored: the pages then
 * merely stay resident. */
void zkpipe__pages_drop(const void *map, size_t map_len, const void *p, size_t len);

/* Asks for transparent huge pages under the 2 MiB-aligned part of a fresh anonymous block
 * [p, p + len) about to be written whole (MADV_HUGEPAGE): one fault every 2 MiB instead of
 * every 4 KiB. Advice only: ignored when the kernel or the memory (an allocator's own arena,
 * a file mapping) does not take it. */
void zkpipe__pages_huge(void *p, size_t len);

#endif
