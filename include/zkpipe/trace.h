/*! zkpipe/trace.h : a timeline in Chrome trace-event JSON, which Perfetto (ui.perfetto.dev)
 * and chrome://tracing open, streamed to its file while the run goes on.
 *
 * The file is one JSON object {"displayTimeUnit":"ms","traceEvents":[...]}: complete events
 * ("ph":"X") for spans on numbered tracks (the engine uses one track per partition and one
 * span per stage it passed through), track names as metadata events, and two counter events
 * ("ph":"C") per sample of a registry, "live bytes" and "live items", each with one series per
 * stage, so the viewer draws bytes and items in flight per stage over time.
 *
 * What holds for the file: from zkpipe_trace_open on, after every flush, it is complete,
 * valid JSON that ends in "]}" and holds every event written before that flush. Events are
 * kept in a 64 KiB buffer and flushed (with one write at the end of the file, over the
 * previous closing bracket) when zkpipe_trace_flush or zkpipe_trace_close is called, when the
 * buffer is full, and when an event comes a second or more after the oldest one still
 * buffered. Between flushes the file is the previous flush's valid JSON; a reader that opens
 * it during a flush's write may see it cut short. An event is never split across two flushes.
 *
 * Times are CLOCK_MONOTONIC nanoseconds (as zkpipe_trace_now returns); the file shows them
 * in microseconds since the trace was opened. */
#ifndef ZKPIPE_TRACE_H
#define ZKPIPE_TRACE_H

#include "zkpipe/acct.h"
#include "zkpipe/alloc.h"
#include "zkpipe/common.h"
#include "zkpipe/status.h"

ZKPIPE_EXTERN_C_BEGIN

/* A trace being written. Opaque; every function below may be called from any thread
 * concurrently (events are written under a lock, whole), except zkpipe_trace_close. */
typedef struct zkpipe_trace zkpipe_trace;

/* Receives each counter sample (the snapshot the two counter events were written from) on the
 * thread that took it, under the trace's lock: it must not call the trace. `snap` is valid only
 * during the call. */
typedef void (*zkpipe_trace_sample_fn)(uint64_t time_ns, const zkpipe_snapshot *snap, void *ctx);

/*! zkpipe_trace_open() : creates (or truncates) the regular file at `path` and writes the
 * header and the closing bracket (an empty, valid trace). A FIFO, device or socket is refused
 * at once (each flush rewrites the end of the file in place).
 * @param out receives the trace; the caller finishes it with zkpipe_trace_close.

 * @param allocator NULL for the C library; copied.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL out or path, allocator incomplete), ZKPIPE_EIO (the
 *         file cannot be created or written, or is not a regular file), ZKPIPE_ENOMEM (memory
 *         or the lock). On error *out is untouched and nothing is left open.
 * Thread safety: any thread. Allocates one block of about 74 KiB: the 64 KiB event buffer
 * and the snapshot that counter samples take. */
ZKPIPE_API zkpipe_status zkpipe_trace_open(zkpipe_trace **out, const char *path,
                                           const zkpipe_allocator *allocator);

/*! zkpipe_trace_open_sampler() : a trace without a file: its events go nowhere, its counter
 * samples (zkpipe_trace_counters, zkpipe_trace_watch) reach zkpipe_trace_on_sample, e.g. to
 * draw a picture of the run. Arguments, errors and memory as zkpipe_trace_open, without EIO. */
ZKPIPE_API zkpipe_status zkpipe_trace_open_sampler(zkpipe_trace **out,
                                                   const zkpipe_allocator *allocator);

/*! zkpipe_trace_close() : stops watching (zkpipe_trace_watch), takes a last sample when the
 * watched registry changed since the previous one, flushes, closes the file and frees the
 * trace.
 * @return ZKPIPE_OK, or ZKPIPE_EIO when any write since the open failed (the trace is freed
 *         either way). NULL is a no-op returning ZKPIPE_OK.
 * Thread safety: no other call on `trace` may run concurrently. */
ZKPIPE_API zkpipe_status zkpipe_trace_close(zkpipe_trace *trace);

/*! zkpipe_trace_now() : the CLOCK_MONOTONIC time in nanoseconds, the clock of every event.
 * Thread safety: any thread. */
ZKPIPE_API uint64_t zkpipe_trace_now(void);

/*! zkpipe_trace_track_name() : names track `track` (a "thread_name" metadata event).
 * @param name any string; it is escaped for JSON.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL trace or name), ZKPIPE_EIO (a write failed).
 * Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_trace_track_name(zkpipe_trace *trace, uint32_t track,
                                                 const char *name);

/*! zkpipe_trace_span() : a span `name` on `track` from begin_ns to end_ns (clamped to
 * begin_ns when earlier; times before the open are shown as 0).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL trace or name), ZKPIPE_EIO. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_trace_span(zkpipe_trace *trace, uint32_t track, const char *name,
                                           uint64_t begin_ns, uint64_t end_ns);

/*! zkpipe_trace_counters() : a counter sample at the current time: "live bytes" and "live
 * items" with one series per registered stage of `acct` (a snapshot taken now).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL trace or acct), ZKPIPE_EIO. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_trace_counters(zkpipe_trace *trace, zkpipe_acct *acct);

/*! zkpipe_trace_flush() : writes the buffered events to the file, which is then valid JSON
 * holding all of them (see the top of this header). A no-op without a file or events.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL), ZKPIPE_EIO (this or an earlier write failed).
 * Thread safety: any thread, concurrently with the other calls but close. */
ZKPIPE_API zkpipe_status zkpipe_trace_flush(zkpipe_trace *trace);

/*! zkpipe_trace_watch() : samples `acct` (as zkpipe_trace_counters) whenever one of its ledgers
 * charges, releases, moves, opens or closes, at most once per `interval_us` microseconds (0:
 * 10000, i.e. 10 ms; at least 100); a change that comes sooner is sampled with the next one
 * past the interval, or at the next flush, so the timeline never stops on a stale value. A
 * ledger operation pays one atomic load when its registry is not watched; when it is, a coarse
 * clock reading and an atomic compare, plus, once per interval, the sample itself (a snapshot
 * and two events under the trace's lock), on the thread whose ledger operation was due.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, interval below 100), ZKPIPE_ESTATE (this trace
 *         already watches a registry, or `acct` is already watched by a trace).
 * Thread safety: any thread; the watch ends at zkpipe_trace_close, and `acct` must outlive the
 * trace. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_trace_watch(zkpipe_trace *trace, zkpipe_acct *acct,
                                            uint32_t interval_us);

/*! zkpipe_trace_on_sample() : `fn(time_ns, snapshot, ctx)` receives every counter sample from
 * now on (NULL: none). `ctx` must stay valid until the trace is closed or fn replaced.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (trace NULL). Thread safety: any thread. */
ZKPIPE_API zkpipe_status zkpipe_trace_on_sample(zkpipe_trace *trace, zkpipe_trace_sample_fn fn,
                                                void *ctx);

ZKPIPE_EXTERN_C_END

#endif
