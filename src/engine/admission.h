/* What the engine learns from closed ledgers, per partition source, to admit partitions by
 * their real size: a source is a stage operations table with the key its `source` operation
 * names (zkpipe/engine.h). Shared by the synthesis workers (which plan a reservation) and
 * whichever thread closes a ledger (which teaches the table); one mutex, taken twice per
 * partition. */
#ifndef ZKPIPE_ENGINE_ADMISSION_H
#define ZKPIPE_ENGINE_ADMISSION_H

#include <pthread.h>
#include <stdatomic.h>

#include "zkpipe/engine.h"
#include "zkpipe/http.h"

/* Sources remembered at once; past that the least recently used is forgotten. */
#define ZKPIPE__SOURCES_MAX 64

typedef struct zkpipe__source {
    const zkpipe_stage_ops *ops; /* the table the partitions named; NULL: a free entry */
    const void *key;
    char name[ZKPIPE_ENGINE_SOURCE_NAME_MAX + 1];
    zkpipe_engine_source stats;
    uint64_t slack;  /* the most a closed ledger grew back after releases (reservation.h) */
    uint64_t proved; /* closed ledgers of partitions proved: whole profiles */
    uint64_t used;   /* the table's clock when last planned or taught */
} zkpipe__source;

typedef struct zkpipe__admission {
    pthread_mutex_t lock;
    uint64_t clock; /* (lock) */
    zkpipe__source src[ZKPIPE__SOURCES_MAX];
    /* Engine-wide, for zkpipe_engine_stats. */
    atomic_uint_fast64_t over_events, over_bytes, returned_early;
} zkpipe__admission;

/* A reservation's plan: what to acquire, the slack kept above a shrinking reservation, and
 * whether it may shrink at all: only once a partition of its source has been proved, so that
 * the slack is known (before that, nothing says what the partition allocates after freeing). */
typedef struct zkpipe__plan {
    uint64_t units;
    uint64_t slack;
    int profiled;
} zkpipe__plan;

/* ZKPIPE_OK or ZKPIPE_ENOMEM (the mutex). */
zkpipe_status zkpipe__admission_init(zkpipe__admission *a);
void zkpipe__admission_destroy(zkpipe__admission *a);

/* The plan for a partition of (ops, key) announcing `estimate`: max(estimate, the source's
 * learned peak), at most `cap` (the budget; 0: none). */
zkpipe__plan zkpipe__admission_plan(zkpipe__admission *a, const zkpipe_stage_ops *ops,
                                    const void *key, uint64_t estimate, uint64_t cap);

/* A ledger of (ops, key), still open, has reached `peak` bytes: later plans reserve at least
 * that much at once (a wrong estimate costs the partitions admitted before this one, not those
 * admitted before the first close). */
void zkpipe__admission_raise(zkpipe__admission *a, const zkpipe_stage_ops *ops, const void *key,
                             uint64_t peak);

/* A ledger of (ops, key) closed after reaching `peak` bytes, growing back by at most
 * `regrowth` above its following reservation, and exceeding what it held by at most `over`;
 * `proved`: its partition was proved (the ledger saw the whole profile). */
void zkpipe__admission_learn(zkpipe__admission *a, const zkpipe_stage_ops *ops, const void *key,
                             uint64_t peak, uint64_t regrowth, uint64_t over, int proved);

/* Copies up to `cap` sources into `out`, most recently used first; returns how many exist. */
size_t zkpipe__admission_sources(zkpipe__admission *a, zkpipe_engine_source *out, size_t cap);

/* The engine HTTP provider's part for admission (admission_http.c): JSON members (after
 * others: each starts with a comma) and Prometheus families. */
void zkpipe__admission_json(zkpipe_http_out *out, zkpipe_engine *e,
                            const zkpipe_engine_counters *c);
void zkpipe__admission_prometheus(zkpipe_http_out *out, zkpipe_engine *e,
                                  const zkpipe_engine_counters *c);

#endif
