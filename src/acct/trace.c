/* The Chrome trace-event timeline (zkpipe/trace.h), streamed. Events are formatted whole into
 * a scratch line, appended to a fixed buffer, and written at each flush with one pwrite at the
 * end of the file: the buffered events followed by the closing "\n]}\n", which the next flush
 * overwrites. So the trace costs no memory that grows with the run and its file is valid JSON
 * after every flush.
 *
 * Watching a registry: its ledger operations call zkpipe__trace_due inside their write
 * sections (a coarse clock reading against the next due time); the one that wins the due time
 * takes the sample after leaving its section, counted in `sampling` so that close can wait
 * for it. A change that is not due only marks the trace dirty: the next due sample or flush
 * takes it. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acct/acct_internal.h"
#include "core/alloc_internal.h"
#include "core/clock_internal.h"
#include "zkpipe/trace.h"

/* One process in the viewer: the engine's tracks and counters all live in it. */
#define TRACE_PID 1
#define BUFFER_BYTES (64 * 1024)
/* One event at most: a counter event of 12 stages takes about 700 bytes, a span or track name
 * up to NAME_MAX_CHARS characters escaped (6 bytes each at worst) plus about 150. */
#define EVENT_BYTES 2048
#define NAME_MAX_CHARS 256
#define FLUSH_AFTER_NS UINT64_C(1000000000)
#define HEADER "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"
#define CLOSER "\n]}\n"

struct zkpipe_trace {
    zkpipe_allocator allocator;
    pthread_mutex_t lock;
    int fd;             /* -1: no file */
    uint64_t origin_ns; /* the open: time 0 in the file */
    uint64_t events;    /* events written, to place the commas */
    int failed;         /* a write failed */
    off_t flushed;      /* file bytes before the closer */
    size_t len;         /* buffered bytes */
    uint64_t oldest_ns; /* when the first buffered event came; 0: none */
    zkpipe_trace_sample_fn sample_fn;
    void *sample_ctx;

    /* Watching (under lock, except the atomics). */
    zkpipe_acct *watched;
    uint64_t interval_ns;
    _Atomic uint64_t due_ns; /* coarse clock: the next sample not before */
    _Atomic int dirty;       /* a change since the last sample */
    _Atomic int sampling;    /* ledger operations taking a due sample */

    zkpipe_snapshot snap; /* the samples' copy, under lock */
    char event[EVENT_BYTES];
    char buf[BUFFER_BYTES];
};

uint64_t zkpipe_trace_now(void)
{
    struct timespec t = zkpipe__clock_now();
    return (uint64_t)t.tv_sec * UINT64_C(1000000000) + (uint64_t)t.tv_nsec;
}

/* The coarse clock (updated on ticks, a few nanoseconds to read) that rate-limits samples. */
static uint64_t coarse_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
    return (uint64_t)t.tv_sec * UINT64_C(1000000000) + (uint64_t)t.tv_nsec;
}

/* `len` bytes at `off`, retried on short writes and EINTR; 0 on failure. */
static int write_at(int fd, const char *p, size_t len, off_t off)
{
    while (len > 0) {
        ssize_t n = pwrite(fd, p, len, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        p += n;
        len -= (size_t)n;
        off += n;
    }
    return 1;
}

/* Under lock: the buffered events and the closer, at the end of the file. */
static void flush_locked(zkpipe_trace *t)
{
    if (t->len == 0)
        return;
    if (t->fd >= 0) {
        memcpy(t->buf + t->len, CLOSER, sizeof CLOSER - 1);
        if (write_at(t->fd, t->buf, t->len + sizeof CLOSER - 1, t->flushed))
            t->flushed += (off_t)t->len;
        else
            t->failed = 1;
    }
    t->len = 0;
    t->oldest_ns = 0;
}

/* A trace on `path`, or without a file when path is NULL. */
static zkpipe_status open_trace(zkpipe_trace **out, const char *path,
                                const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out == NULL || a == NULL)
        return ZKPIPE_EINVAL;
    zkpipe_trace *t = zkpipe__calloc(a, 1, sizeof *t, _Alignof(zkpipe_trace));
    if (t == NULL)
        return ZKPIPE_ENOMEM;
    t->allocator = *a;
    t->fd = -1;
    if (pthread_mutex_init(&t->lock, NULL) != 0) {
        zkpipe__free(a, t);
        return ZKPIPE_ENOMEM;
    }
    if (path != NULL) {
        /* Each flush rewrites the closing bracket in place, so only a regular file can hold a
         * trace; O_NONBLOCK keeps a FIFO without a reader from blocking the open itself. */
        struct stat sb;
        t->fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
        if (t->fd >= 0 &&
            (fstat(t->fd, &sb) != 0 || !S_ISREG(sb.st_mode) || ftruncate(t->fd, 0) != 0 ||
             fcntl(t->fd, F_SETFL, fcntl(t->fd, F_GETFL) & ~O_NONBLOCK) != 0)) {
            close(t->fd);
            t->fd = -1;
        }
        if (t->fd < 0 || !write_at(t->fd, HEADER CLOSER, sizeof HEADER CLOSER - 1, 0)) {
            if (t->fd >= 0)
                close(t->fd);
            pthread_mutex_destroy(&t->lock);
            zkpipe__free(a, t);
            return ZKPIPE_EIO;
        }
        t->flushed = sizeof HEADER - 1;
    }
    t->origin_ns = zkpipe_trace_now();
    *out = t;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_trace_open(zkpipe_trace **out, const char *path,
                                const zkpipe_allocator *allocator)
{
    return path != NULL ? open_trace(out, path, allocator) : ZKPIPE_EINVAL;
}

zkpipe_status zkpipe_trace_open_sampler(zkpipe_trace **out, const zkpipe_allocator *allocator)
{
    return open_trace(out, NULL, allocator);
}

/* Ends the watch: no ledger operation holds the trace once the gate was closed after the
 * pointer went, and no due sample is under way once `sampling` is 0. Not under lock. */
static void unwatch(zkpipe_trace *t)
{
    zkpipe_acct *acct = t->watched;
    if (acct == NULL)
        return;
    atomic_store_explicit(&acct->watcher, NULL, memory_order_release);
    zkpipe__gate_close(acct);
    zkpipe__gate_open(acct);
    unsigned spins = 0;
    while (atomic_load_explicit(&t->sampling, memory_order_acquire) != 0)
        zkpipe__backoff(&spins);
}

static void sample_locked(zkpipe_trace *t, zkpipe_acct *acct);

zkpipe_status zkpipe_trace_close(zkpipe_trace *trace)
{
    if (trace == NULL)
        return ZKPIPE_OK;
    unwatch(trace);
    pthread_mutex_lock(&trace->lock);
    if (trace->watched != NULL && atomic_load_explicit(&trace->dirty, memory_order_relaxed))
        sample_locked(trace, trace->watched);
    flush_locked(trace);
    pthread_mutex_unlock(&trace->lock);
    int failed = trace->failed;
    if (trace->fd >= 0)
        failed |= close(trace->fd) != 0;
    pthread_mutex_destroy(&trace->lock);
    zkpipe__free(&trace->allocator, trace);
    return failed ? ZKPIPE_EIO : ZKPIPE_OK;
}

/* Formatting one event into t->event (under lock). */
typedef struct line {
    char *p;
    size_t len, cap;
} line;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
put(line *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(l->p + l->len, l->cap - l->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        l->len += (size_t)n < l->cap - l->len ? (size_t)n : l->cap - l->len - 1;
}

/* `s` as a JSON string, quotes included, cut after NAME_MAX_CHARS characters. */
static void put_string(line *l, const char *s)
{
    put(l, "\"");
    for (size_t i = 0; s[i] != '\0' && i < NAME_MAX_CHARS; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            put(l, "\\%c", c);
        else if (c < 0x20)
            put(l, "\\u%04x", c);
        else
            put(l, "%c", c);
    }
    put(l, "\"");
}

/* Microseconds since the open, with nanosecond digits. */
static void put_time(line *l, const zkpipe_trace *t, const char *key, uint64_t ns)
{
    uint64_t rel = ns > t->origin_ns ? ns - t->origin_ns : 0;
    put(l, ",\"%s\":%llu.%03u", key, (unsigned long long)(rel / 1000), (unsigned)(rel % 1000));
}

/* Starts an event in t->event; its opening brace is put by event_end's separator. */
static line event_begin(zkpipe_trace *t)
{
    line l = {t->event, 0, sizeof t->event};
    t->event[0] = '\0';
    return l;
}

/* Under lock: appends the event to the buffer, flushing first when it does not fit or when
 * the oldest buffered event is a second old. */
static void append_locked(zkpipe_trace *t, const line *l)
{
    const char *sep = t->events > 0 ? ",\n{" : "{";
    size_t need = strlen(sep) + l->len + 1;
    uint64_t now = zkpipe_trace_now();
    if (t->len + need + sizeof CLOSER > sizeof t->buf ||
        (t->oldest_ns != 0 && now - t->oldest_ns >= FLUSH_AFTER_NS))
        flush_locked(t);
    memcpy(t->buf + t->len, sep, strlen(sep));
    memcpy(t->buf + t->len + strlen(sep), l->p, l->len);
    t->buf[t->len + need - 1] = '}';
    t->len += need;
    t->events++;
    if (t->oldest_ns == 0)
        t->oldest_ns = now;
}

/* Appends the event, unlocks, and returns the trace's status. */
static zkpipe_status event_end(zkpipe_trace *t, const line *l)
{
    append_locked(t, l);
    zkpipe_status st = t->failed ? ZKPIPE_EIO : ZKPIPE_OK;
    pthread_mutex_unlock(&t->lock);
    return st;
}

zkpipe_status zkpipe_trace_track_name(zkpipe_trace *trace, uint32_t track, const char *name)
{
    if (trace == NULL || name == NULL)
        return ZKPIPE_EINVAL;
    pthread_mutex_lock(&trace->lock);
    line l = event_begin(trace);
    put(&l, "\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%lu,\"args\":{\"name\":",
        TRACE_PID, (unsigned long)track);
    put_string(&l, name);
    put(&l, "}");
    return event_end(trace, &l);
}

zkpipe_status zkpipe_trace_span(zkpipe_trace *trace, uint32_t track, const char *name,
                                uint64_t begin_ns, uint64_t end_ns)
{
    if (trace == NULL || name == NULL)
        return ZKPIPE_EINVAL;
    if (end_ns < begin_ns)
        end_ns = begin_ns;
    pthread_mutex_lock(&trace->lock);
    line l = event_begin(trace);
    put(&l, "\"name\":");
    put_string(&l, name);
    put(&l, ",\"cat\":\"stage\",\"ph\":\"X\",\"pid\":%d,\"tid\":%lu", TRACE_PID,
        (unsigned long)track);
    put_time(&l, trace, "ts", begin_ns);
    /* The duration is a difference, not a time since the open. */
    put_time(&l, trace, "dur", trace->origin_ns + (end_ns - begin_ns));
    return event_end(trace, &l);
}

/* Under lock: one counter event from the snapshot in t->snap, the live items or live bytes
 * of each stage. */
static void counter_event(zkpipe_trace *t, uint64_t now, const char *name, int items)
{
    line l = event_begin(t);
    put(&l, "\"name\":\"%s\",\"ph\":\"C\",\"pid\":%d", name, TRACE_PID);
    put_time(&l, t, "ts", now);
    put(&l, ",\"args\":{");
    /* Stage names are [a-z0-9_] (zkpipe_acct_register_stage), safe as JSON keys. */
    for (uint32_t s = 0; s < t->snap.stage_count; s++)
        put(&l, "%s\"%s\":%llu", s > 0 ? "," : "", t->snap.stage_names[s],
            (unsigned long long)(items ? t->snap.stage[s].live_items
                                       : t->snap.stage[s].live_bytes));
    put(&l, "}");
    append_locked(t, &l);
}

/* Under lock: a snapshot of `acct`, its two counter events, and the sample callback. */
static void sample_locked(zkpipe_trace *t, zkpipe_acct *acct)
{
    if (acct == t->watched)
        atomic_store_explicit(&t->dirty, 0, memory_order_relaxed);
    zkpipe_acct_snapshot(acct, &t->snap);
    uint64_t now = zkpipe_trace_now();
    counter_event(t, now, "live bytes", 0);
    counter_event(t, now, "live items", 1);
    if (t->sample_fn != NULL)
        t->sample_fn(now, &t->snap, t->sample_ctx);
}

zkpipe_status zkpipe_trace_counters(zkpipe_trace *trace, zkpipe_acct *acct)
{
    if (trace == NULL || acct == NULL)
        return ZKPIPE_EINVAL;
    pthread_mutex_lock(&trace->lock);
    sample_locked(trace, acct);
    zkpipe_status st = trace->failed ? ZKPIPE_EIO : ZKPIPE_OK;
    pthread_mutex_unlock(&trace->lock);
    return st;
}

zkpipe_status zkpipe_trace_flush(zkpipe_trace *trace)
{
    if (trace == NULL)
        return ZKPIPE_EINVAL;
    pthread_mutex_lock(&trace->lock);
    if (trace->watched != NULL && atomic_load_explicit(&trace->dirty, memory_order_relaxed))
        sample_locked(trace, trace->watched);
    flush_locked(trace);
    zkpipe_status st = trace->failed ? ZKPIPE_EIO : ZKPIPE_OK;
    pthread_mutex_unlock(&trace->lock);
    return st;
}

zkpipe_status zkpipe_trace_on_sample(zkpipe_trace *trace, zkpipe_trace_sample_fn fn, void *ctx)
{
    if (trace == NULL)
        return ZKPIPE_EINVAL;
    pthread_mutex_lock(&trace->lock);
    trace->sample_fn = fn;
    trace->sample_ctx = ctx;
    pthread_mutex_unlock(&trace->lock);
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_trace_watch(zkpipe_trace *trace, zkpipe_acct *acct, uint32_t interval_us)
{
    if (interval_us == 0)
        interval_us = 10000;
    if (trace == NULL || acct == NULL || interval_us < 100)
        return ZKPIPE_EINVAL;
    pthread_mutex_lock(&trace->lock);
    zkpipe_status st = ZKPIPE_ESTATE;
    if (trace->watched == NULL) {
        trace->interval_ns = (uint64_t)interval_us * 1000u;
        atomic_store_explicit(&trace->due_ns, 0, memory_order_relaxed);
        struct zkpipe_trace *none = NULL;
        if (atomic_compare_exchange_strong_explicit(&acct->watcher, &none, trace,
                                                    memory_order_acq_rel, memory_order_relaxed)) {
            trace->watched = acct;
            st = ZKPIPE_OK;
        }
    }
    pthread_mutex_unlock(&trace->lock);
    return st;
}

int zkpipe__trace_due(struct zkpipe_trace *t)
{
    uint64_t now = coarse_now();
    uint64_t due = atomic_load_explicit(&t->due_ns, memory_order_relaxed);
    if (now >= due &&
        atomic_compare_exchange_strong_explicit(&t->due_ns, &due, now + t->interval_ns,
                                                memory_order_relaxed, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&t->sampling, 1, memory_order_relaxed);
        return 1;
    }
    if (!atomic_load_explicit(&t->dirty, memory_order_relaxed))
        atomic_store_explicit(&t->dirty, 1, memory_order_relaxed);
    return 0;
}

void zkpipe__trace_sample_due(struct zkpipe_trace *t)
{
    pthread_mutex_lock(&t->lock);
    sample_locked(t, t->watched);
    pthread_mutex_unlock(&t->lock);
    atomic_fetch_sub_explicit(&t->sampling, 1, memory_order_release);
}
