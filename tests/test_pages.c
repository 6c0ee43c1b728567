/* core/pages.h: a read-only file mapping's pages leave the resident set once dropped and read
 * back the same; memory outside the mapping is never touched. */
#define _DEFAULT_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/pages.h"
#include "scratch_dir.h"

#define PAGES 4096 /* pages in the file: 16 MiB of 4 KiB pages */

/* The resident bytes of the mapping that starts at map, from /proc/self/smaps. The kernel counts
 * them by walking that mapping's page tables, so the figure is exact; the process-wide RssFile of
 * /proc/self/status is not (since Linux 6.2 per-CPU counters, read without folding them: off by
 * up to a counter batch per CPU), and a 64-page tolerance on it failed once on a CI host. */
static uint64_t rss_of_mapping(const void *map)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    unsigned long lo, hi;
    uint64_t kib = 0;
    int in_map = 0, found = 0;
    assert_non_null(f);
    while (!found && fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
            in_map = lo == (unsigned long)(uintptr_t)map;
        else if (in_map && sscanf(line, "Rss: %lu kB", &kib) == 1)
            found = 1;
    }
    fclose(f);
    assert_true(found);
    return kib * 1024;
}

static uint64_t byte_sum(const unsigned char *p, size_t len)
{
    uint64_t s = 0;
    for (size_t i = 0; i < len; i++)
        s += p[i] * (i % 251 + 1);
    return s;
}

static void test_mapped_pages_leave_and_read_back(void **state)
{
    (void)state;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), len = PAGES * page;
    char path[320];
    snprintf(path, sizeof path, "%s/pages.bin", scratch_dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (size_t i = 0; i < len; i++)
        fputc((int)(i * 7 % 256), f);
    fclose(f);
    f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fileno(f), 0);
    fclose(f);
    assert_true(map != MAP_FAILED);
    uint64_t sum = byte_sum(map, len); /* every page resident now */
    uint64_t before = rss_of_mapping(map);
    /* A range starting mid-page: its first partial page stays, every other page leaves. */
    zkpipe__pages_drop(map, len, map + 100, len - 100);
    uint64_t after = rss_of_mapping(map);
    assert_int_equal(before, len);
    assert_int_equal(after, page);
    assert_int_equal(byte_sum(map, len), sum);
    munmap(map, len);
}

static void test_memory_outside_the_mapping_is_kept(void **state)
{
    (void)state;
    size_t page = 4096, len = 64 * page;
    unsigned char *anon =
        mmap(NULL, 2 * len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(anon != MAP_FAILED);
    memset(anon, 0x5a, 2 * len);
    /* The "mapping" is the first half; a range in the second half, and one that runs past the
     * first half's end, are outside it: dropping anonymous pages would zero them. */
    zkpipe__pages_drop(anon, len, anon + len, len);
    zkpipe__pages_drop(anon, len, anon + len / 2, len);
    zkpipe__pages_drop(NULL, 0, anon, len);
    zkpipe__pages_drop(anon + len, len, anon, len);
    for (size_t i = 0; i < 2 * len; i++)
        assert_int_equal(anon[i], 0x5a);
    munmap(anon, 2 * len);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mapped_pages_leave_and_read_back),
        cmocka_unit_test(test_memory_outside_the_mapping_is_kept),
    };
    return cmocka_run_group_tests(tests, scratch_dir_setup, scratch_dir_teardown);
}
