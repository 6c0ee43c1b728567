/* The tools' progress ticker (tools/cli/cli_progress.c): it starts a thread only when it has
 * something to do, a line to draw (stderr a terminal, or forced) or a periodic tick; without
 * one it starts none, prints nothing, and stops cleanly. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <fcntl.h>
#include <unistd.h>

#include "cli_progress.h"
#include "scratch_dir.h"

/* pthread_create goes through this wrapper (--wrap in tests/CMakeLists.txt), which counts. */
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);

static int creates;

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    creates++;
    return __real_pthread_create(t, a, fn, arg);
}

static int line(char *buf, size_t cap, void *ctx)
{
    (void)ctx;
    snprintf(buf, cap, "phase one");
    return 0;
}

static void tick(void *ctx)
{
    (void)ctx;
}

/* Starts and stops a ticker with stderr a file (no terminal); returns the threads it started
 * and puts what it printed in `out`. */
static int run_ticker(cli_progress_fn fn, cli_tick_fn tk, int forced, char *out, size_t cap)
{
    char path[512];
    snprintf(path, sizeof path, "%s/stderr", scratch_dir);
    fflush(stderr);
    int saved = dup(2), fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    int before = creates;
    cli_progress p;
    assert_int_equal(cli_progress_start(&p, fn, tk, NULL, forced), 0);
    int started = creates - before;
    cli_progress_stop(&p);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t n = pread(fd, out, cap - 1, 0);
    assert_true(n >= 0);
    out[n] = '\0';
    close(fd);
    return started;
}

static void no_thread_without_work(void **state)
{
    (void)state;
    char out[256];
    assert_int_equal(run_ticker(line, NULL, 0, out, sizeof out), 0);
    assert_string_equal(out, "");
    assert_int_equal(run_ticker(NULL, NULL, 1, out, sizeof out), 0);
    assert_string_equal(out, "");
}

static void a_thread_for_a_line_or_a_tick(void **state)
{
    (void)state;
    char out[256];
    assert_int_equal(run_ticker(line, NULL, 1, out, sizeof out), 1);
    /* the final line, after any the thread drew meanwhile (each the same) */
    assert_int_equal(strncmp(out, "phase one\n", 10), 0);
    assert_int_equal(run_ticker(NULL, tick, 0, out, sizeof out), 1);
    assert_string_equal(out, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_thread_without_work),
        cmocka_unit_test(a_thread_for_a_line_or_a_tick),
    };
    return cmocka_run_group_tests(tests, scratch_dir_setup, scratch_dir_teardown);
}
