/* The reporter thread: sinks, clean start and stop, and every failure of zkpipe_reporter_start.
 * This executable links with support/fail_pthread, so a test can fail any one of the pthread
 * calls the reporter makes (the same walk as fail_alloc, over thread resources). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fail_alloc.h"
#include "fail_pthread.h"
#include "nap.h"
#include "zkpipe/zkpipe.h"

/* Lines a callback sink received. */
typedef struct lines {
    pthread_mutex_t lock;
    pthread_cond_t more;
    int count;
    char last[1024];
} lines;

static void lines_init(lines *l)
{
    memset(l, 0, sizeof *l);
    pthread_mutex_init(&l->lock, NULL);
    pthread_cond_init(&l->more, NULL);
}

static void lines_destroy(lines *l)
{
    pthread_mutex_destroy(&l->lock);
    pthread_cond_destroy(&l->more);
}

static void on_line(const char *line, void *ctx)
{
    lines *l = ctx;
    pthread_mutex_lock(&l->lock);
    snprintf(l->last, sizeof l->last, "%s", line);
    l->count++;
    pthread_cond_broadcast(&l->more);
    pthread_mutex_unlock(&l->lock);
}

static int lines_count(lines *l)
{
    pthread_mutex_lock(&l->lock);
    int n = l->count;
    pthread_mutex_unlock(&l->lock);
    return n;
}

/* Waits for `n` lines; no deadline (ctest's timeout catches a reporter that never writes). */
static void lines_wait(lines *l, int n)
{
    pthread_mutex_lock(&l->lock);
    while (l->count < n)
        pthread_cond_wait(&l->more, &l->lock);
    pthread_mutex_unlock(&l->lock);
}

static void expected_summary(zkpipe_acct *acct, char *buf, size_t cap)
{
    zkpipe_snapshot s;
    size_t len;
    assert_int_equal(zkpipe_acct_snapshot(acct, &s), ZKPIPE_OK);
    assert_int_equal(zkpipe_snapshot_summary(buf, cap, &len, &s), ZKPIPE_OK);
    assert_true(len < cap);
}

static void start_rejects_bad_arguments(void **state)
{
    (void)state;
    zkpipe_acct *acct = zkpipe_acct_default();
    zkpipe_reporter *r = (zkpipe_reporter *)&r;
    lines l;
    zkpipe_allocator half = {NULL, NULL, NULL};
    assert_int_equal(zkpipe_reporter_start(acct, 10, stdout, NULL, NULL, NULL, NULL),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_reporter_start(NULL, 10, stdout, NULL, NULL, NULL, &r), ZKPIPE_EINVAL);
    assert_null(r);
    assert_int_equal(zkpipe_reporter_start(acct, 0, stdout, NULL, NULL, NULL, &r), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_reporter_start(acct, 10, NULL, NULL, NULL, NULL, &r), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_reporter_start(acct, 10, stdout, on_line, &l, NULL, &r), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_reporter_start(acct, 10, stdout, NULL, NULL, &half, &r), ZKPIPE_EINVAL);
    assert_null(r);
    zkpipe_reporter_stop(NULL);
}

static int start_attempt(void *arg, const zkpipe_allocator *a)
{
    return zkpipe_reporter_start(zkpipe_acct_default(), 3600000, stdout, NULL, NULL, a,
                                 (zkpipe_reporter **)arg);
}

static void stop_cleanup(void *arg)
{
    zkpipe_reporter_stop(*(zkpipe_reporter **)arg);
}

static void start_survives_allocation_failure(void **state)
{
    (void)state;
    zkpipe_reporter *r = NULL;
    assert_int_equal(fail_alloc_walk(start_attempt, stop_cleanup, &r), 1);
}

static void start_survives_thread_resource_failure(void **state)
{
    (void)state;
    int walked_create = 0;
    for (long site = 0;; site++) {
        fail_alloc fa;
        fail_alloc_init(&fa, -1);
        fail_pthread_arm(site);
        zkpipe_reporter *r = NULL;
        zkpipe_status rc = (zkpipe_status)start_attempt(&r, &fa.allocator);
        const char *failed = fail_pthread_failed();
        fail_pthread_arm(-1);
        if (failed == NULL) {
            assert_int_equal(rc, ZKPIPE_OK);
            zkpipe_reporter_stop(r);
            assert_int_equal(atomic_load(&fa.live), 0);
            /* condattr_init, setclock, cond_init, mutex_init, create: all wrapped, all walked */
            assert_int_equal(site, 5);
            break;
        }
        assert_null(r);
        assert_int_equal(atomic_load(&fa.live), 0);
        if (strcmp(failed, "pthread_create") == 0) {
            assert_int_equal(rc, ZKPIPE_ETHREAD);
            walked_create = 1;
        } else if (strcmp(failed, "pthread_condattr_setclock") == 0) {
            assert_int_equal(rc, ZKPIPE_EUNSUPPORTED);
        } else {
            assert_int_equal(rc, ZKPIPE_ENOMEM);
        }
    }
    assert_true(walked_create);
}

static void callback_sink_gets_summaries(void **state)
{
    (void)state;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    zkpipe_ledger led;
    assert_int_equal(zkpipe_ledger_open(&led, acct, ZKPIPE_STAGE_QUEUED), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&led, ZKPIPE_KIND_ABC, 3u << 20), ZKPIPE_OK);
    char want[1024];
    expected_summary(acct, want, sizeof want);

    lines l;
    lines_init(&l);
    zkpipe_reporter *r = NULL;
    assert_int_equal(zkpipe_reporter_start(acct, 2, NULL, on_line, &l, NULL, &r), ZKPIPE_OK);
    lines_wait(&l, 3);
    zkpipe_reporter_stop(r);
    int at_stop = lines_count(&l);
    assert_string_equal(l.last, want);
    /* Nothing arrives after stop returned, however long we look. */
    nap_ms(30);
    assert_int_equal(lines_count(&l), at_stop);
    lines_destroy(&l);
    zkpipe_ledger_close(&led);
    zkpipe_acct_destroy(acct);
}

static void stop_does_not_wait_for_the_interval(void **state)
{
    (void)state;
    /* With an interval of an hour, a stop that waited for the tick would hang the test until
     * ctest's timeout: returning at all is the check. No line may have been written. */
    lines l;
    lines_init(&l);
    zkpipe_reporter *r = NULL;
    assert_int_equal(
        zkpipe_reporter_start(zkpipe_acct_default(), 3600000, NULL, on_line, &l, NULL, &r),
        ZKPIPE_OK);
    nap_ms(5);
    zkpipe_reporter_stop(r);
    assert_int_equal(lines_count(&l), 0);
    lines_destroy(&l);
}

static void file_sink_writes_lines(void **state)
{
    (void)state;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    char want[1024];
    expected_summary(acct, want, sizeof want);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    FILE *w = fdopen(fds[1], "w");
    FILE *rd = fdopen(fds[0], "r");
    assert_non_null(w);
    assert_non_null(rd);
    zkpipe_reporter *r = NULL;
    assert_int_equal(zkpipe_reporter_start(acct, 2, w, NULL, NULL, NULL, &r), ZKPIPE_OK);
    char line[1024];
    for (int i = 0; i < 2; i++) {
        assert_non_null(fgets(line, sizeof line, rd));
        line[strcspn(line, "\n")] = '\0';
        assert_string_equal(line, want);
    }
    zkpipe_reporter_stop(r);
    fclose(w);
    /* Whatever was written before stop returned is whole lines; then end of file. */
    while (fgets(line, sizeof line, rd) != NULL) {
        assert_non_null(strchr(line, '\n'));
        line[strcspn(line, "\n")] = '\0';
        assert_string_equal(line, want);
    }
    fclose(rd);
    zkpipe_acct_destroy(acct);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(start_rejects_bad_arguments),
        cmocka_unit_test(start_survives_allocation_failure),
        cmocka_unit_test(start_survives_thread_resource_failure),
        cmocka_unit_test(callback_sink_gets_summaries),
        cmocka_unit_test(stop_does_not_wait_for_the_interval),
        cmocka_unit_test(file_sink_writes_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
