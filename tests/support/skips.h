/* Skips that ctest reports as skips. cmocka's skip() ends a case as "skipped" but the program
 * still exits 0, so a test whose every case skipped (no AVX-512 IFMA, no IPv6) would show as
 * passed. A case that may skip calls test_skip() instead; main returns
 * run_tests_or_skip(tests), which exits 77 (the test's SKIP_RETURN_CODE, set by
 * zkpipe_add_test(... SKIPS)) when every case skipped and none failed. Not thread-safe: call
 * test_skip() from the case's own thread, as cmocka requires of skip() anyway. */
#ifndef ZKPIPE_TESTS_SKIPS_H
#define ZKPIPE_TESTS_SKIPS_H

#include <stddef.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

/* The exit status ctest takes for "skipped" (SKIP_RETURN_CODE). */
#define TEST_SKIPPED_EXIT 77

/* Counts one skipped case; the caller then calls skip(). */
void test_skip_counted(void);

/* Skips the current case and counts it; `why` is printed once per case. */
#define test_skip(why)                                                                             \
    do {                                                                                           \
        print_message("skipped: %s\n", (why));                                                     \
        test_skip_counted();                                                                       \
        skip();                                                                                    \
    } while (0)

/* The exit status of a program whose group of `cases` had `failed` failures: 1 after a failure,
 * 77 when every case skipped, else 0. */
int test_exit_status(int failed, size_t cases);

/* Runs the group as cmocka_run_group_tests does and returns test_exit_status's verdict. */
#define run_tests_or_skip(group)                                                                   \
    test_exit_status(cmocka_run_group_tests(group, NULL, NULL), sizeof(group) / sizeof((group)[0]))

#endif
