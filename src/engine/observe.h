/* What the engine records about itself for anyone watching it (observe.c): the per-partition
 * histograms of synthesis, wait and prove seconds, the list of partitions in flight with
 * their stage and age, and the thread that flushes an attached trace. The worker paths call
 * three hooks (stage entered, partition ended); everything else is read through the public
 * calls of zkpipe/engine.h. */
#ifndef ZKPIPE_ENGINE_OBSERVE_H
#define ZKPIPE_ENGINE_OBSERVE_H

#include <stdatomic.h>
#include <stdint.h>

#include "zkpipe/engine.h"

typedef struct zkpipe__item zkpipe__item;
typedef struct zkpipe__observe zkpipe__observe;

/* An item's place in the in-flight list. Linked and unlinked under the list's lock; `stage`
 * and `since_ns` are written by whichever thread moves the item and read by listers. */
typedef struct zkpipe__item_watch {
    zkpipe__item *prev, *next;
    int listed;
    _Atomic uint32_t stage;
    _Atomic uint64_t since_ns;
} zkpipe__item_watch;

/* The trace flusher's period: the trace's file is valid JSON holding every event older than
 * this, whatever the partitions do. Half of the second that zkpipe/engine.h promises. */
#define ZKPIPE__TRACE_FLUSH_MS 500

/* Creates the engine's histograms and list (through `allocator`) and, when `trace` is not
 * NULL, starts the flusher thread. ZKPIPE_OK, ZKPIPE_ENOMEM, ZKPIPE_ETHREAD,
 * ZKPIPE_EUNSUPPORTED; on error nothing is left. */
zkpipe_status zkpipe__observe_create(zkpipe__observe **out, const zkpipe_allocator *allocator,
                                     zkpipe_trace *trace);

/* Stops the flusher (a last flush) and frees everything; once no worker runs. NULL: no-op. */
void zkpipe__observe_destroy(zkpipe__observe *o);

/* `it` entered engine stage `stage` at `now_ns` (its at[] mark): SYNTH lists it, PENDING
 * observes its synthesis, PROVING its wait. Any thread that owns the item at that moment. */
void zkpipe__observe_stage(zkpipe__observe *o, zkpipe__item *it, uint32_t stage, uint64_t now_ns);

/* `it` ended with `status` at `end_ns`: unlisted, and its proof observed when one was
 * attempted (it reached PROVING and was not canceled). */
void zkpipe__observe_end(zkpipe__observe *o, zkpipe__item *it, zkpipe_status status,
                         uint64_t end_ns);

#endif
