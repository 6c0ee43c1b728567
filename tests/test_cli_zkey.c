/* The zkey the tools open once for many witnesses (tools/cli/cli_zkey.h): whatever
 * makes it fail to open, the line names the file, since a node's results or a batch's stderr
 * may come from several zkeys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli_zkey.h"
#include "scratch_dir.h"

#ifndef ZKPIPE_TEST_SOURCE_DIR
#error "the build names the source folder"
#endif

#define FIXTURE ZKPIPE_TEST_SOURCE_DIR "/tests/interop/fixtures/bn128/multiplier/circuit.zkey"

/* Writes the first `len` bytes of `from` (NULL: `text`) to scratch_dir/name; returns the path. */
static const char *write_file(char *path, size_t cap, const char *name, const char *from,
                              size_t len, const char *text)
{
    snprintf(path, cap, "%s/%s", scratch_dir, name);
    FILE *out = fopen(path, "wb");
    assert_non_null(out);
    if (from != NULL) {
        FILE *in = fopen(from, "rb");
        assert_non_null(in);
        char buf[4096];
        assert_true(len <= sizeof buf);
        assert_int_equal(fread(buf, 1, len, in), len);
        fclose(in);
        assert_int_equal(fwrite(buf, 1, len, out), len);
    } else {
        fputs(text, out);
    }
    assert_int_equal(fclose(out), 0);
    return path;
}

/* Opening `path` fails with `want`, and the line is "PATH: " and more. */
static void fails_naming(const char *path, zkpipe_status want)
{
    cli_zkey k;
    char detail[ZKPIPE_DETAIL_MAX];
    assert_int_equal(cli_zkey_open(&k, path, 0, 1, NULL, detail, sizeof detail), want);
    print_message("%s\n", detail);
    size_t n = strlen(path);
    if (strncmp(detail, path, n) != 0 || strncmp(detail + n, ": ", 2) != 0 || detail[n + 2] == '\0')
        fail_msg("\"%s\" does not start with \"%s: \"", detail, path);
    assert_null(k.source);
    cli_zkey_close(&k); /* empty: a no-op */
}

static void a_bad_zkey_is_named(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/missing.zkey", scratch_dir);
    fails_naming(path, ZKPIPE_EIO);
    fails_naming(write_file(path, sizeof path, "text.zkey", NULL, 0, "not a zkey at all\n"),
                 ZKPIPE_EFORMAT);
    fails_naming(write_file(path, sizeof path, "truncated.zkey", FIXTURE, 200, NULL),
                 ZKPIPE_EFORMAT);
    fails_naming(scratch_dir, ZKPIPE_EIO); /* a folder */
}

static void a_good_zkey_opens(void **state)
{
    (void)state;
    cli_zkey k;
    char detail[ZKPIPE_DETAIL_MAX] = "left over";
    assert_int_equal(cli_zkey_open(&k, FIXTURE, 1, 2, NULL, detail, sizeof detail), ZKPIPE_OK);
    assert_string_equal(detail, "");
    assert_non_null(k.source);
    assert_true(k.num_public > 0);
    cli_zkey_close(&k);
    assert_null(k.source);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_bad_zkey_is_named),
        cmocka_unit_test(a_good_zkey_opens),
    };
    return cmocka_run_group_tests(tests, scratch_dir_setup, scratch_dir_teardown);
}
