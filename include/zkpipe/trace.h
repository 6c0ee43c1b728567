/*! zkpipe/trace.h : a timeline in Chrome trace-event JSON, which Perfetto (ui.perfetto.dev)
 * and chrome://tracing open.
 *
 * The file is one JSON object {"displayTimeUnit":"ms","traceEvents":[...]} whose events are
 * written as they come: complete events ("ph":"X") for spans on numbered tracks (the engine
 * uses one track per partition and one span per stage it passed through), track names as
 * metadata events, and counter events ("ph":"C") named "live bytes" with one series per stage
 * of a registry, so the viewer draws bytes in flight per stage over time. The closing "]}"
 * is written by zkpipe_trace_close; until then the file is a valid prefix that the viewers
 * also accept.
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

/*! zkpipe_trace_open() : creates (or truncates) the file at `path` and writes the header.
 * @param out receives the trace; the caller finishes it with zkpipe_trace_close.
 * @param allocator NULL for the C library; copied.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL out or path, allocator incomplete), ZKPIPE_EIO (the
 *         file cannot be created or written), ZKPIPE_ENOMEM (memory or the lock). On error
 *         *out is untouched and nothing is left open.
 * Thread safety: any thread. Allocates one block of about 8 KiB (it holds the snapshot that
 * zkpipe_trace_counters takes), plus what the C library's stdio allocates for the file. */
ZKPIPE_API zkpipe_status zkpipe_trace_open(zkpipe_trace **out, const char *path,
                                           const zkpipe_allocator *allocator);

/*! zkpipe_trace_close() : writes the closing "]}", closes the file and frees the trace.
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

/*! zkpipe_trace_counters() : a "live bytes" counter sample at the current time, with one
 * series per registered stage of `acct` (its live bytes in a snapshot taken now).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL trace or acct), ZKPIPE_EIO. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_trace_counters(zkpipe_trace *trace, zkpipe_acct *acct);

ZKPIPE_EXTERN_C_END

#endif
