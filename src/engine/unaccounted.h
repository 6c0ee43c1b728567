/* The engine's estimate of the memory no ledger accounts for (zkpipe_engine_counters,
 * unaccounted_bytes): the process's resident set minus the registry's accounted live bytes,
 * less that same difference at engine creation. Sampled by whoever calls
 * zkpipe__unaccounted_sample (workers at stage changes, the reporter, stats readers);
 * lock-free. */
#ifndef ZKPIPE_ENGINE_UNACCOUNTED_H
#define ZKPIPE_ENGINE_UNACCOUNTED_H

#include <stdatomic.h>
#include <stdint.h>

#include "zkpipe/acct.h"

typedef struct zkpipe__unaccounted {
    zkpipe_acct *acct;
    int readable;     /* the resident set could be read at creation */
    int64_t baseline; /* resident set minus accounted live bytes at creation */
    atomic_uint_fast64_t now, peak;
} zkpipe__unaccounted;

/* Takes the baseline now. */
void zkpipe__unaccounted_init(zkpipe__unaccounted *u, zkpipe_acct *acct);

/* Samples now; returns the estimate (0 where unreadable or below the baseline). */
uint64_t zkpipe__unaccounted_sample(zkpipe__unaccounted *u);

/* The peak of the samples so far. */
uint64_t zkpipe__unaccounted_peak(const zkpipe__unaccounted *u);

#endif
