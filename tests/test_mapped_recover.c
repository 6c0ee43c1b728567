/* The mapped-file contract's recovery (zkpipe_mapped_recover, zkpipe/io.h): a file truncated
 * under its mapping reads zeros past its new end instead of killing the process, and the file,
 * and only it, is reported damaged to marks taken before the damage. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "scratch_dir.h"
#include "zkpipe/io.h"

/* A file of `pages` pages of 0xA5, mapped read-only; its stat in *st. */
static const volatile unsigned char *map_file(const char *name, size_t pages, struct stat *st,
                                              int *fd)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", scratch_dir, name);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char buf[4096];
    memset(buf, 0xA5, sizeof buf);
    *fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    assert_true(*fd >= 0);
    for (size_t done = 0; done < pages * page; done += sizeof buf)
        assert_int_equal(write(*fd, buf, sizeof buf), (ssize_t)sizeof buf);
    assert_int_equal(fstat(*fd, st), 0);
    void *m = mmap(NULL, pages * page, PROT_READ, MAP_SHARED, *fd, 0);
    assert_true(m != MAP_FAILED);
    return m;
}

static void truncated_file_reads_zeros_and_is_reported(void **state)
{
    (void)state;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (page > 4096 * 4)
        skip();
    assert_int_equal(zkpipe_mapped_recover(), ZKPIPE_OK);
    assert_int_equal(zkpipe_mapped_recover(), ZKPIPE_OK); /* a second call: a no-op */
    struct stat sa, sb;
    int fa, fb;
    const volatile unsigned char *a = map_file("a", 4, &sa, &fa);
    const volatile unsigned char *b = map_file("b", 4, &sb, &fb);
    uint64_t mark = zkpipe_mapped_damage_mark();
    assert_int_equal(zkpipe_mapped_damaged(mark, sa.st_dev, sa.st_ino), 0);

    assert_int_equal(ftruncate(fa, (off_t)page), 0); /* pages 1 to 3 gone */
    assert_int_equal(a[0], 0xA5);                    /* still in the file */
    assert_int_equal(a[2 * page + 7], 0);            /* past its end: SIGBUS, recovered */
    assert_int_equal(a[3 * page], 0);                /* the rest of the mapping, too */
    assert_int_equal(b[3 * page], 0xA5);             /* another file is untouched */
    assert_int_equal(zkpipe_mapped_damaged(mark, sa.st_dev, sa.st_ino), 1);
    assert_int_equal(zkpipe_mapped_damaged(mark, sb.st_dev, sb.st_ino), 0);
    /* A mark taken after the damage does not see it. */
    uint64_t later = zkpipe_mapped_damage_mark();
    assert_true(later > mark);
    assert_int_equal(zkpipe_mapped_damaged(later, sa.st_dev, sa.st_ino), 0);

    munmap((void *)a, 4 * page);
    munmap((void *)b, 4 * page);
    close(fa);
    close(fb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(truncated_file_reads_zeros_and_is_reported),
    };
    return cmocka_run_group_tests(tests, scratch_dir_setup, scratch_dir_teardown);
}
