/* A fleet node's job parser and files (tools/fleet/queue_job.h, queue_files.h): what a
 * job may say, bounded; witnesses opened only beneath the node's --inputs, through openat2 and
 * through the component walk a kernel without it gets (syscall is wrapped with -Wl,--wrap so a
 * test can answer openat2 with ENOSYS); outputs that replace a planted link, never follow it. */
#define _GNU_SOURCE /* memfd seals */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "queue_files.h"
#include "queue_job.h"
#include "scratch_dir.h"

/* 1: openat2 answers ENOSYS, as on a kernel before 5.6. */
static int no_openat2;

long __real_syscall(long nr, ...);
long __wrap_syscall(long nr, ...);

long __wrap_syscall(long nr, ...)
{
    va_list ap;
    va_start(ap, nr);
    long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long), d = va_arg(ap, long);
    va_end(ap);
#ifdef SYS_openat2
    if (nr == SYS_openat2 && no_openat2) {
        errno = ENOSYS;
        return -1;
    }
#endif
    return __real_syscall(nr, a, b, c, d);
}

#define STR(s)                                                                                     \
    {                                                                                              \
        s, sizeof s - 1                                                                            \
    }

static int parse(queue_job *j, const queue_str *f, size_t n, char *why)
{
    return queue_job_parse(j, f, n, 1024, why, 256);
}

static void test_job_good(void **state)
{
    (void)state;
    queue_job j;
    char why[256];
    const queue_str f[] = {STR("id"),     STR("j-1.a_b"), STR("circuit"), STR("mul"),
                           STR("wtns"),   STR("w\0x"),    STR("sub"),     STR("host-1-2"),
                           STR("future"), STR("ignored")};
    assert_int_equal(parse(&j, f, 10, why), 1);
    assert_string_equal(j.id, "j-1.a_b");
    assert_string_equal(j.circuit, "mul");
    assert_string_equal(j.sub, "host-1-2");
    assert_string_equal(j.input, "");
    assert_int_equal(j.wtns_len, 3);
    const queue_str g[] = {STR("id"), STR("x"),     STR("circuit"),
                           STR("c"),  STR("input"), STR("a/b.c/w.wtns")};
    assert_int_equal(parse(&j, g, 6, why), 1);
    assert_string_equal(j.input, "a/b.c/w.wtns");
    assert_null(j.wtns);
}

/* The fields a node writes itself, in a job, change nothing. */
static void test_job_forged_fields_ignored(void **state)
{
    (void)state;
    queue_job j;
    char why[256];
    const queue_str f[] = {STR("id"),         STR("x"),
                           STR("circuit"),    STR("c"),
                           STR("input"),      STR("w"),
                           STR("deliveries"), STR("18446744073709551615"),
                           STR("error"),      STR("dead-letter me"),
                           STR("status"),     STR("ZKPIPE_EIO")};
    assert_int_equal(parse(&j, f, 12, why), 1);
    assert_int_equal(j.requeued, 0);
    const queue_str g[] = {STR("id"),    STR("x"), STR("circuit"),  STR("c"),
                           STR("input"), STR("w"), STR("requeued"), STR("1")};
    assert_int_equal(parse(&j, g, 8, why), 1);
    assert_int_equal(j.requeued, 1);
}

static void refused(const queue_str *f, size_t n, const char *expect)
{
    queue_job j;
    char why[256];
    assert_int_equal(parse(&j, f, n, why), 0);
    if (strstr(why, expect) == NULL)
        fail_msg("'%s' does not say '%s'", why, expect);
}

static void test_job_refused(void **state)
{
    (void)state;
    const queue_str old[] = {STR("id"),   STR("x"), STR("zkey"), STR("/k"),
                             STR("wtns"), STR("w"), STR("out"),  STR("/etc")};
    refused(old, 8, "names a host path");
    const queue_str twice[] = {STR("id"),      STR("a"), STR("id"),   STR("b"),
                               STR("circuit"), STR("c"), STR("wtns"), STR("w")};
    refused(twice, 8, "given twice");
    const queue_str both[] = {STR("id"),   STR("a"), STR("circuit"), STR("c"),
                              STR("wtns"), STR("w"), STR("input"),   STR("w")};
    refused(both, 8, "both wtns and input");
    const queue_str neither[] = {STR("id"), STR("a"), STR("circuit"), STR("c")};
    refused(neither, 4, "neither");
    const queue_str odd[] = {STR("id"), STR("a"), STR("circuit")};
    refused(odd, 3, "not field/value pairs");
    const char *bad_inputs[] = {"/etc/shadow", "../w",  "a/../w", "a//w", "a/",
                                ".",           "a/./w", "w\n",    "a b"};
    for (size_t i = 0; i < sizeof bad_inputs / sizeof *bad_inputs; i++) {
        const queue_str f[] = {STR("id"), STR("a"),     STR("circuit"),
                               STR("c"),  STR("input"), {bad_inputs[i], strlen(bad_inputs[i])}};
        refused(f, 6, "not a name beneath");
    }
    const char *bad_ids[] = {"", ".", "..", "a/b", "a b", "../x", "\x01"};
    for (size_t i = 0; i < sizeof bad_ids / sizeof *bad_ids; i++) {
        const queue_str f[] = {STR("id"),      {bad_ids[i], strlen(bad_ids[i])},
                               STR("circuit"), STR("c"),
                               STR("wtns"),    STR("w")};
        refused(f, 6, "the id");
    }
    const queue_str big_w[] = {STR("id"), STR("a"),    STR("circuit"),
                               STR("c"),  STR("wtns"), {"x", 1025}};
    refused(big_w, 6, "the witness has 1025 bytes");
}

/* Caps: exactly at a cap is taken, one byte over is refused, and the quote of what was
 * refused stays in its buffer, its cut marked. */
static void test_job_caps(void **state)
{
    (void)state;
    char id[QUEUE_ID_MAX + 2], why[256], q[48];
    memset(id, 'i', sizeof id);
    queue_job j;
    queue_str f[] = {STR("id"), {id, QUEUE_ID_MAX}, STR("circuit"),
                     STR("c"),  STR("wtns"),        STR("w")};
    assert_int_equal(parse(&j, f, 6, why), 1);
    assert_int_equal(strlen(j.id), QUEUE_ID_MAX);
    f[1].len = QUEUE_ID_MAX + 1;
    refused(f, 6, "(129 bytes)");
    queue_str many[2 * QUEUE_FIELDS_MAX + 2];
    for (size_t i = 0; i < 2 * QUEUE_FIELDS_MAX + 2; i++)
        many[i] = (queue_str){"x", 1};
    refused(many, 2 * QUEUE_FIELDS_MAX + 2, "at most");
    queue_str big = {id, sizeof id};
    assert_string_equal(queue_job_quote(q, sizeof q, (queue_str){"a\nb", 3}), "a?b");
    queue_job_quote(q, sizeof q, big);
    assert_true(strlen(q) < sizeof q);
    assert_non_null(strstr(q, "...(130 bytes)"));
}

/* ---- Files ---- */

static char inputs[512], outside[512];
static int inputs_fd = -1;

static void path(char *out, size_t cap, const char *dir, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

static void put(const char *dir, const char *name, const char *text)
{
    char p[1024];
    path(p, sizeof p, dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int files_setup(void **state)
{
    if (scratch_dir_setup(state) != 0)
        return -1;
    char p[1024], q[1024];
    path(inputs, sizeof inputs, scratch_dir, "in");
    path(outside, sizeof outside, scratch_dir, "secret");
    if (mkdir(inputs, 0700) != 0 || mkdir(outside, 0700) != 0)
        return -1;
    path(p, sizeof p, inputs, "sub");
    if (mkdir(p, 0700) != 0)
        return -1;
    put(inputs, "w.wtns", "witness");
    put(inputs, "sub/deep.wtns", "deep");
    put(inputs, "empty.wtns", "");
    put(outside, "w.wtns", "secret");
    path(p, sizeof p, outside, "w.wtns");
    path(q, sizeof q, inputs, "link.wtns");
    if (symlink(p, q) != 0)
        return -1;
    path(q, sizeof q, inputs, "linkdir");
    if (symlink(outside, q) != 0)
        return -1;
    path(q, sizeof q, inputs, "fifo.wtns");
    if (mkfifo(q, 0600) != 0)
        return -1;
    inputs_fd = open(inputs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return inputs_fd >= 0 ? 0 : -1;
}

static int files_teardown(void **state)
{
    close(inputs_fd);
    return scratch_dir_teardown(state);
}

/* What the node may open beneath its inputs, and what it refuses. The error of a link differs
 * between openat2 (ELOOP, or EXDEV for a way out) and the walk (ELOOP, or ENOTDIR for a linked
 * folder): the caller only tells "may come later" (ENOENT, EIO) from the rest. */
static void inputs_checked(int without_openat2)
{
    char why[256];
    no_openat2 = without_openat2;
    int fd = queue_input_open(inputs_fd, "sub/deep.wtns", 1024, why, sizeof why);
    assert_true(fd >= 0);
    close(fd);
    const char *refused_names[] = {"link.wtns", "linkdir/w.wtns", "fifo.wtns", "empty.wtns",
                                   "missing.wtns"};
    for (size_t i = 0; i < sizeof refused_names / sizeof *refused_names; i++) {
        errno = 0;
        assert_int_equal(queue_input_open(inputs_fd, refused_names[i], 1024, why, sizeof why), -1);
        if (i < 2)
            assert_true(errno != ENOENT && errno != EIO);
        else
            assert_int_equal(errno, i < 4 ? EINVAL : ENOENT);
    }
    /* Larger than the cap. */
    assert_int_equal(queue_input_open(inputs_fd, "w.wtns", 3, why, sizeof why), -1);
    no_openat2 = 0;
}

static void test_inputs_openat2(void **state)
{
    (void)state;
    inputs_checked(0);
}

static void test_inputs_walk(void **state)
{
    (void)state;
    inputs_checked(1);
}

static void test_memfd_sealed(void **state)
{
    (void)state;
    char why[256], buf[8];
    int fd = queue_input_memfd("witness", 7, why, sizeof why);
    assert_true(fd >= 0);
    assert_int_equal(pread(fd, buf, sizeof buf, 0), 7);
    assert_memory_equal(buf, "witness", 7);
    assert_int_equal(write(fd, "x", 1), -1);
    assert_int_equal(ftruncate(fd, 1), -1);
    close(fd);
}

/* A link planted at an output name is replaced; its target keeps its bytes. */
static void test_output_link_replaced(void **state)
{
    (void)state;
    char out[512], p[1024], q[1024], why[256], buf[32];
    path(out, sizeof out, scratch_dir, "out");
    assert_int_equal(mkdir(out, 0700), 0);
    path(p, sizeof p, outside, "target");
    put(outside, "target", "precious");
    path(q, sizeof q, out, "j.proof.json");
    assert_int_equal(symlink(p, q), 0);
    int dfd = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(dfd >= 0);
    const char *names[2] = {"j.public.json", "j.proof.json"}, *data[2] = {"[]", "{}"};
    size_t lens[2] = {2, 2};
    assert_int_equal(queue_output_write(dfd, names, data, lens, 2, "t", why, sizeof why), 0);
    struct stat st;
    assert_int_equal(lstat(q, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    assert_string_equal(buf, "precious");
    /* A link planted at the temporary name: O_EXCL refuses it, nothing written through it. */
    path(q, sizeof q, out, ".k.proof.json.t.tmp");
    assert_int_equal(symlink(p, q), 0);
    const char *k[1] = {"k.proof.json"};
    assert_int_equal(queue_output_write(dfd, k, data, lens, 1, "t", why, sizeof why), -1);
    assert_non_null(strstr(why, "k.proof.json"));
    f = fopen(p, "r");
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    assert_string_equal(buf, "precious");
    close(dfd);
}

int main(void)
{
    const struct CMUnitTest job[] = {
        cmocka_unit_test(test_job_good),
        cmocka_unit_test(test_job_forged_fields_ignored),
        cmocka_unit_test(test_job_refused),
        cmocka_unit_test(test_job_caps),
    };
    const struct CMUnitTest files[] = {
        cmocka_unit_test(test_inputs_openat2),
        cmocka_unit_test(test_inputs_walk),
        cmocka_unit_test(test_memfd_sealed),
        cmocka_unit_test(test_output_link_replaced),
    };
    int failed = cmocka_run_group_tests(job, NULL, NULL);
    return failed + cmocka_run_group_tests(files, files_setup, files_teardown);
}
