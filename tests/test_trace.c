/* The streamed trace: the file is valid JSON from the open on and after every flush, holds
 * nothing new between flushes, flushes itself when its buffer fills, never splits an event;
 * watching a registry samples its ledger operations at most once per interval and never
 * leaves the timeline on a stale value; a sampler trace feeds its callback without a file;
 * write errors and files that are not regular ones become ZKPIPE_EIO. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <jansson.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nap.h"
#include "sanitize.h"
#include "zkpipe/zkpipe.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* The file parsed: its traceEvents array's length; fails the test when it is not JSON. */
static int events_in(const char *path)
{
    char *text = slurp(path);
    json_error_t err;
    json_t *j = json_loads(text, 0, &err);
    if (j == NULL)
        fail_msg("not JSON (%s): %s", err.text, text);
    free(text);
    const json_t *ev = json_object_get(j, "traceEvents");
    assert_true(json_is_array(ev));
    int n = (int)json_array_size(ev);
    json_decref(j);
    return n;
}

static void temp_path(char *path)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
}

static void valid_after_every_flush(void **state)
{
    (void)state;
    char path[] = "/tmp/zkpipe-test-trace-XXXXXX";
    temp_path(path);
    zkpipe_trace *t = NULL;
    assert_int_equal(zkpipe_trace_open(&t, path, NULL), ZKPIPE_OK);
    assert_int_equal(events_in(path), 0); /* valid from the open on */
    uint64_t now = zkpipe_trace_now();
    for (int i = 0; i < 10; i++)
        assert_int_equal(zkpipe_trace_span(t, 1, "synth", now, now + 1000), ZKPIPE_OK);
    assert_int_equal(events_in(path), 0); /* buffered: the file is the last flush's */
    assert_int_equal(zkpipe_trace_flush(t), ZKPIPE_OK);
    assert_int_equal(events_in(path), 10);
    assert_int_equal(zkpipe_trace_flush(t), ZKPIPE_OK); /* nothing new: unchanged */
    assert_int_equal(events_in(path), 10);
    assert_int_equal(zkpipe_trace_track_name(t, 1, "track one"), ZKPIPE_OK);
    assert_int_equal(zkpipe_trace_flush(t), ZKPIPE_OK);
    assert_int_equal(events_in(path), 11);

    /* More than the buffer holds: it flushes itself, whole events only. */
    char name[200];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    int written = 11;
    for (int i = 0; i < 2000; i++, written++)
        assert_int_equal(zkpipe_trace_span(t, 2, name, now, now + 5), ZKPIPE_OK);
    int seen = events_in(path);
    assert_true(seen > 11 && seen < written);
    /* A name past 256 characters is cut, the event still whole. */
    char *huge = malloc(100000);
    memset(huge, '"', 99999);
    huge[99999] = '\0';
    assert_int_equal(zkpipe_trace_track_name(t, 3, huge), ZKPIPE_OK);
    free(huge);
    written++;
    assert_int_equal(zkpipe_trace_close(t), ZKPIPE_OK);
    assert_int_equal(events_in(path), written);
    remove(path);
}

static void watch_samples_ledger_operations(void **state)
{
    (void)state;
    char path[] = "/tmp/zkpipe-test-trace-XXXXXX";
    temp_path(path);
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    zkpipe_trace *t = NULL, *other = NULL;
    assert_int_equal(zkpipe_trace_open(&t, path, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_trace_open_sampler(&other, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_trace_watch(t, acct, 50), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_trace_watch(NULL, acct, 0), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_trace_watch(t, NULL, 0), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_trace_watch(t, acct, 100000), ZKPIPE_OK); /* 100 ms */
    assert_int_equal(zkpipe_trace_watch(t, acct, 0), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_trace_watch(other, acct, 0), ZKPIPE_ESTATE);
    zkpipe_trace_close(other);

    /* The first charge samples at once (two counter events); the ones right after it, within
     * the interval, only mark the trace dirty; the flush then samples the latest state. */
    zkpipe_ledger l;
    assert_int_equal(zkpipe_ledger_open(&l, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
    uint64_t began = zkpipe_trace_now();
    for (int i = 0; i < 1000; i++)
        assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_ABC, 1), ZKPIPE_OK);
    assert_int_equal(zkpipe_trace_flush(t), ZKPIPE_OK);
    /* A slow machine may pass intervals during the loop: each one passed adds a sample. */
    int passed = (int)((zkpipe_trace_now() - began) / 100000000);
    int n = events_in(path);
    assert_true(n >= 4 && n <= 4 + 2 * (passed + 1));
    char *text = slurp(path);
    assert_non_null(strstr(text, "\"name\":\"live bytes\",\"ph\":\"C\""));
    assert_non_null(strstr(text, "\"name\":\"live items\",\"ph\":\"C\""));
    assert_non_null(strstr(text, "\"synth\":1000,")); /* the flush's sample is current */
    free(text);
    /* Flushing again with nothing changed adds nothing. */
    assert_int_equal(zkpipe_trace_flush(t), ZKPIPE_OK);
    assert_int_equal(events_in(path), n);
    /* A release after the interval samples by itself. */
    nap_ms(150);
    assert_int_equal(zkpipe_ledger_release(&l, ZKPIPE_KIND_ABC, 1), ZKPIPE_OK);
    assert_int_equal(zkpipe_trace_flush(t), ZKPIPE_OK);
    assert_int_equal(events_in(path), n + 2);
    /* Close takes the last change. */
    zkpipe_ledger_close(&l);
    assert_int_equal(zkpipe_trace_close(t), ZKPIPE_OK);
    text = slurp(path);
    const char *last = strstr(text, "\"name\":\"live bytes\"");
    for (const char *p = last; p != NULL; p = strstr(p + 1, "\"name\":\"live bytes\""))
        last = p;
    assert_non_null(strstr(last, "\"synth\":0,"));
    free(text);
    /* The registry is free for another trace, and its ledgers no longer call the old one. */
    assert_int_equal(zkpipe_trace_open_sampler(&other, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_trace_watch(other, acct, 0), ZKPIPE_OK);
    assert_int_equal(zkpipe_trace_close(other), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_open(&l, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
    zkpipe_ledger_close(&l);
    zkpipe_acct_destroy(acct);
    remove(path);
}

typedef struct seen {
    int samples;
    uint64_t last_bytes;
    uint64_t last_t;
    int backwards;
} seen;

static void on_sample(uint64_t t, const zkpipe_snapshot *snap, void *ctx)
{
    seen *s = ctx;
    s->samples++;
    s->last_bytes = snap->live_bytes;
    s->backwards += t < s->last_t;
    s->last_t = t;
}

/* Ledgers on several threads while a sampler watches: every change ends up sampled. */
typedef struct worker {
    zkpipe_acct *acct;
    int rounds;
} worker;

static void *churn(void *arg)
{
    worker *w = arg;
    for (int i = 0; i < w->rounds; i++) {
        zkpipe_ledger l;
        if (zkpipe_ledger_open(&l, w->acct, ZKPIPE_STAGE_SYNTH) != ZKPIPE_OK)
            break;
        zkpipe_status st = zkpipe_ledger_charge(&l, ZKPIPE_KIND_AUX, 64);
        if (st == ZKPIPE_OK)
            st = zkpipe_ledger_move(&l, ZKPIPE_STAGE_QUEUED);
        zkpipe_ledger_close(&l);
        if (st != ZKPIPE_OK)
            break;
    }
    return NULL;
}

static void sampler_under_concurrent_ledgers(void **state)
{
    (void)state;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    zkpipe_trace *t = NULL;
    assert_int_equal(zkpipe_trace_open_sampler(&t, NULL), ZKPIPE_OK);
    seen s = {0, 1, 0, 0};
    assert_int_equal(zkpipe_trace_on_sample(t, on_sample, &s), ZKPIPE_OK);
    assert_int_equal(zkpipe_trace_watch(t, acct, 100), ZKPIPE_OK);
    enum { THREADS = 3 };
    pthread_t th[THREADS];
    worker w = {acct, ZKPIPE_TEST_SANITIZED ? 20000 : 200000};
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, churn, &w), 0);
    for (int i = 0; i < 20; i++) {
        assert_int_equal(zkpipe_trace_flush(t), ZKPIPE_OK);
        nap_ms(2);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(zkpipe_trace_close(t), ZKPIPE_OK);
    assert_true(s.samples > 0);
    assert_int_equal(s.last_bytes, 0); /* the last sample is the final state */
    assert_int_equal(s.backwards, 0);
    zkpipe_acct_destroy(acct);
}

static void errors(void **state)
{
    (void)state;
    zkpipe_trace *t = NULL;
    assert_int_equal(zkpipe_trace_open_sampler(NULL, NULL), ZKPIPE_EINVAL);
    zkpipe_allocator half = {NULL, NULL, NULL};
    assert_int_equal(zkpipe_trace_open_sampler(&t, &half), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_trace_flush(NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_trace_on_sample(NULL, NULL, NULL), ZKPIPE_EINVAL);
    assert_null(t);
    /* A sampler has no file: flushes succeed and write nothing. */
    assert_int_equal(zkpipe_trace_open_sampler(&t, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_trace_span(t, 1, "x", 1, 2), ZKPIPE_OK);
    assert_int_equal(zkpipe_trace_flush(t), ZKPIPE_OK);
    assert_int_equal(zkpipe_trace_close(t), ZKPIPE_OK);
    /* Not a regular file (a flush rewrites the end in place): refused at once, a FIFO without
     * a reader too, where a plain open would block (the alarm ends a test that hangs). */
    char dir[] = "/tmp/zkpipe-trace-XXXXXX", fifo[64];
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    t = NULL;
    alarm(10);
    assert_int_equal(zkpipe_trace_open(&t, fifo, NULL), ZKPIPE_EIO);
    assert_int_equal(zkpipe_trace_open(&t, "/dev/null", NULL), ZKPIPE_EIO);
    alarm(0);
    assert_null(t);
    unlink(fifo);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_after_every_flush),
        cmocka_unit_test(watch_samples_ledger_operations),
        cmocka_unit_test(sampler_under_concurrent_ledgers),
        cmocka_unit_test(errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
