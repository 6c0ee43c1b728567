/* The Chrome trace-event timeline (zkpipe/trace.h). Events go straight to the file under one
 * lock, so the trace costs no memory that grows with the run. */
#include <pthread.h>
#include <stdio.h>

#include "core/alloc_internal.h"
#include "core/clock_internal.h"
#include "zkpipe/trace.h"

/* One process in the viewer: the engine's tracks and counters all live in it. */
#define TRACE_PID 1

struct zkpipe_trace {
    zkpipe_allocator allocator;
    pthread_mutex_t lock;
    FILE *file;
    uint64_t origin_ns;   /* the open: time 0 in the file */
    int events;           /* events written, to place the commas */
    int failed;           /* a write failed */
    zkpipe_snapshot snap; /* zkpipe_trace_counters' copy, under lock */
};

uint64_t zkpipe_trace_now(void)
{
    struct timespec t = zkpipe__clock_now();
    return (uint64_t)t.tv_sec * UINT64_C(1000000000) + (uint64_t)t.tv_nsec;
}

zkpipe_status zkpipe_trace_open(zkpipe_trace **out, const char *path,
                                const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out == NULL || path == NULL || a == NULL)
        return ZKPIPE_EINVAL;
    zkpipe_trace *t = zkpipe__calloc(a, 1, sizeof *t, _Alignof(zkpipe_trace));
    if (t == NULL)
        return ZKPIPE_ENOMEM;
    t->allocator = *a;
    if (pthread_mutex_init(&t->lock, NULL) != 0) {
        zkpipe__free(a, t);
        return ZKPIPE_ENOMEM;
    }
    t->file = fopen(path, "w");
    if (t->file == NULL || fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", t->file) < 0) {
        if (t->file != NULL)
            fclose(t->file);
        pthread_mutex_destroy(&t->lock);
        zkpipe__free(a, t);
        return ZKPIPE_EIO;
    }
    t->origin_ns = zkpipe_trace_now();
    *out = t;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_trace_close(zkpipe_trace *trace)
{
    if (trace == NULL)
        return ZKPIPE_OK;
    int failed = trace->failed || fputs("\n]}\n", trace->file) < 0;
    failed |= fclose(trace->file) != 0;
    pthread_mutex_destroy(&trace->lock);
    zkpipe__free(&trace->allocator, trace);
    return failed ? ZKPIPE_EIO : ZKPIPE_OK;
}

/* Starts an event under the lock: the separator, then the opening brace. */
static void event_begin(zkpipe_trace *t)
{
    if (fputs(t->events++ > 0 ? ",\n{" : "{", t->file) < 0)
        t->failed = 1;
}

static void event_end(zkpipe_trace *t)
{
    if (fputc('}', t->file) == EOF)
        t->failed = 1;
}

/* `s` as a JSON string, quotes included. */
static void put_string(zkpipe_trace *t, const char *s)
{
    int bad = fputc('"', t->file) == EOF;
    for (; *s != '\0' && !bad; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            bad = fprintf(t->file, "\\%c", c) < 0;
        else if (c < 0x20)
            bad = fprintf(t->file, "\\u%04x", c) < 0;
        else
            bad = fputc(c, t->file) == EOF;
    }
    if (bad || fputc('"', t->file) == EOF)
        t->failed = 1;
}

/* Microseconds since the open, with nanosecond digits. */
static void put_time(zkpipe_trace *t, const char *key, uint64_t ns)
{
    uint64_t rel = ns > t->origin_ns ? ns - t->origin_ns : 0;
    if (fprintf(t->file, ",\"%s\":%llu.%03u", key, (unsigned long long)(rel / 1000),
                (unsigned)(rel % 1000)) < 0)
        t->failed = 1;
}

static zkpipe_status finish(zkpipe_trace *t)
{
    zkpipe_status st = t->failed ? ZKPIPE_EIO : ZKPIPE_OK;
    pthread_mutex_unlock(&t->lock);
    return st;
}

zkpipe_status zkpipe_trace_track_name(zkpipe_trace *trace, uint32_t track, const char *name)
{
    if (trace == NULL || name == NULL)
        return ZKPIPE_EINVAL;
    pthread_mutex_lock(&trace->lock);
    event_begin(trace);
    if (fprintf(trace->file,
                "\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%lu,"
                "\"args\":{\"name\":",
                TRACE_PID, (unsigned long)track) < 0)
        trace->failed = 1;
    put_string(trace, name);
    event_end(trace);
    event_end(trace);
    return finish(trace);
}

zkpipe_status zkpipe_trace_span(zkpipe_trace *trace, uint32_t track, const char *name,
                                uint64_t begin_ns, uint64_t end_ns)
{
    if (trace == NULL || name == NULL)
        return ZKPIPE_EINVAL;
    if (end_ns < begin_ns)
        end_ns = begin_ns;
    pthread_mutex_lock(&trace->lock);
    event_begin(trace);
    if (fputs("\"name\":", trace->file) < 0)
        trace->failed = 1;
    put_string(trace, name);
    if (fprintf(trace->file, ",\"cat\":\"stage\",\"ph\":\"X\",\"pid\":%d,\"tid\":%lu", TRACE_PID,
                (unsigned long)track) < 0)
        trace->failed = 1;
    put_time(trace, "ts", begin_ns);
    /* The duration is a difference, not a time since the open. */
    put_time(trace, "dur", trace->origin_ns + (end_ns - begin_ns));
    event_end(trace);
    return finish(trace);
}

zkpipe_status zkpipe_trace_counters(zkpipe_trace *trace, zkpipe_acct *acct)
{
    if (trace == NULL || acct == NULL)
        return ZKPIPE_EINVAL;
    pthread_mutex_lock(&trace->lock);
    zkpipe_acct_snapshot(acct, &trace->snap);
    uint64_t now = zkpipe_trace_now();
    event_begin(trace);
    if (fprintf(trace->file, "\"name\":\"live bytes\",\"ph\":\"C\",\"pid\":%d", TRACE_PID) < 0)
        trace->failed = 1;
    put_time(trace, "ts", now);
    if (fputs(",\"args\":{", trace->file) < 0)
        trace->failed = 1;
    /* Stage names are [a-z0-9_] (zkpipe_acct_register_stage), safe as JSON keys. */
    for (uint32_t s = 0; s < trace->snap.stage_count; s++)
        if (fprintf(trace->file, "%s\"%s\":%llu", s > 0 ? "," : "", trace->snap.stage_names[s],
                    (unsigned long long)trace->snap.stage[s].live_bytes) < 0)
            trace->failed = 1;
    event_end(trace);
    event_end(trace);
    return finish(trace);
}
