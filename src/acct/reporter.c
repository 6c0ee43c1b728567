/* The reporter: one thread that writes a summary line of a registry every interval. It sleeps
 * on a condition variable against CLOCK_MONOTONIC, so wall-clock jumps do not bunch or stall
 * lines and stop wakes it at once. */
#include <errno.h>
#include <pthread.h>

#include "acct/acct_internal.h"
#include "core/alloc_internal.h"
#include "core/clock_internal.h"

/* Longest summary: 12 stages of a 31-character name, 20 digits and "1023.9 EiB" each, plus
 * the live and peak totals, is well under 1 KiB. */
#define LINE_MAX_BYTES 1024

struct zkpipe_reporter {
    zkpipe_allocator allocator;
    zkpipe_acct *acct;
    uint64_t interval_ns;
    FILE *file;
    zkpipe_reporter_fn fn;
    void *ctx;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stopping; /* under lock */
    pthread_t thread;
    zkpipe_snapshot snap; /* used by the thread only; kept here to spare its stack */
    char line[LINE_MAX_BYTES];
};

static int before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void emit(zkpipe_reporter *r)
{
    size_t len;
    zkpipe_acct_snapshot(r->acct, &r->snap);
    zkpipe_snapshot_summary(r->line, sizeof r->line, &len, &r->snap);
    if (r->fn != NULL) {
        r->fn(r->line, r->ctx);
    } else {
        fprintf(r->file, "%s\n", r->line);
        fflush(r->file);
    }
}

static void *reporter_main(void *arg)
{
    zkpipe_reporter *r = arg;
    struct timespec due = zkpipe__deadline_after(r->interval_ns);
    pthread_mutex_lock(&r->lock);
    while (!r->stopping) {
        if (pthread_cond_timedwait(&r->wake, &r->lock, &due) != ETIMEDOUT)
            continue; /* a stop, or a spurious wake-up: recheck */
        /* Lines are written without the lock, so stop only waits for one line in progress. */
        pthread_mutex_unlock(&r->lock);
        emit(r);
        due = zkpipe__timespec_add(due, r->interval_ns);
        struct timespec now = zkpipe__clock_now();
        if (before(&due, &now)) /* fell behind (a slow sink): skip, don't burst */
            due = zkpipe__timespec_add(now, r->interval_ns);
        pthread_mutex_lock(&r->lock);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

/* The lock and a condition variable on CLOCK_MONOTONIC; on failure neither is left. */
static zkpipe_status init_sync(zkpipe_reporter *r)
{
    zkpipe_status rc = zkpipe__cond_init_monotonic(&r->wake);
    if (rc == ZKPIPE_OK && pthread_mutex_init(&r->lock, NULL) != 0) {
        pthread_cond_destroy(&r->wake);
        rc = ZKPIPE_ENOMEM;
    }
    return rc;
}

zkpipe_status zkpipe_reporter_start(zkpipe_acct *acct, uint32_t interval_ms, FILE *file,
                                    zkpipe_reporter_fn fn, void *ctx,
                                    const zkpipe_allocator *allocator, zkpipe_reporter **out)
{
    if (out == NULL)
        return ZKPIPE_EINVAL;
    *out = NULL;
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (acct == NULL || interval_ms == 0 || (file == NULL) == (fn == NULL) || a == NULL)
        return ZKPIPE_EINVAL;
    zkpipe_reporter *r = zkpipe__alloc(a, sizeof *r, alignof(zkpipe_reporter));
    if (r == NULL)
        return ZKPIPE_ENOMEM;
    r->allocator = *a;
    r->acct = acct;
    r->interval_ns = (uint64_t)interval_ms * 1000000u;
    r->file = file;
    r->fn = fn;
    r->ctx = ctx;
    r->stopping = 0;
    zkpipe_status rc = init_sync(r);
    if (rc != ZKPIPE_OK) {
        zkpipe__free(a, r);
        return rc;
    }
    if (pthread_create(&r->thread, NULL, reporter_main, r) != 0) {
        pthread_mutex_destroy(&r->lock);
        pthread_cond_destroy(&r->wake);
        zkpipe__free(a, r);
        return ZKPIPE_ETHREAD;
    }
    *out = r;
    return ZKPIPE_OK;
}

void zkpipe_reporter_stop(zkpipe_reporter *r)
{
    if (r == NULL)
        return;
    pthread_mutex_lock(&r->lock);
    r->stopping = 1;
    pthread_cond_signal(&r->wake);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->thread, NULL);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->wake);
    zkpipe_allocator a = r->allocator;
    zkpipe__free(&a, r);
}
