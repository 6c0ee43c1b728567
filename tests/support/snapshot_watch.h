/* A concurrent reader for the tests of the byte budget and the narrow waist's bound: a thread
 * that takes snapshots of a registry (and, given an engine, its counters) as fast as it can
 * until stopped, and counts every one that breaks a limit. Only the reader writes the
 * figures, and only the thread that stopped it reads them. */
#ifndef ZKPIPE_TESTS_SNAPSHOT_WATCH_H
#define ZKPIPE_TESTS_SNAPSHOT_WATCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "zkpipe/zkpipe.h"

typedef struct snapshot_watch {
    /* Set before snapshot_watch_start. */
    zkpipe_acct *acct;
    uint64_t byte_limit;  /* accounted live bytes allowed on any snapshot */
    zkpipe_engine *e;     /* NULL: the registry only; else also, on its counters at once: */
    uint64_t max_permits; /*   1 <= permits_admitted <= max_permits, the waist within `bound`,
                           *   the partitions holding buffers within `resident_bound` */
    /* The reader's. */
    pthread_t thread;
    atomic_int stop, running; /* running: its first read is made */
    uint64_t snapshots, breaches, failed_reads;
    uint64_t max_live;                      /* the most accounted bytes a snapshot showed */
    uint64_t min_permits, max_permits_seen; /* of permits_admitted (with an engine) */
    uint64_t max_waist, max_resident;       /* the most items a snapshot showed in each */
} snapshot_watch;

/* Starts the reader and returns once it has made its first read, so snapshots + failed_reads
 * is at least 1 and the reader is reading whatever the caller does next. Returns 0, or
 * pthread_create's error. */
int snapshot_watch_start(snapshot_watch *w);

/* Stops and joins it; its figures are final after this. */
void snapshot_watch_stop(snapshot_watch *w);

#endif
