/* A test allocator that counts live allocations and fails on demand, so a test can walk
 * every allocation site of a call and check that nothing leaks on each failure path. */
#ifndef ZKPIPE_TESTS_FAIL_ALLOC_H
#define ZKPIPE_TESTS_FAIL_ALLOC_H

#include <stdatomic.h>
#include <stddef.h>

#include "zkpipe/alloc.h"

typedef struct fail_alloc {
    zkpipe_allocator allocator; /* hand &fa->allocator to zkpipe create functions */
    atomic_long calls;          /* allocations attempted so far */
    atomic_long live;           /* allocations not yet freed */
    long fail_at;               /* the call index (0-based) that fails; -1 never */
} fail_alloc;

/* Resets the counters; the allocation with index `fail_at` (and only that one) fails. */
void fail_alloc_init(fail_alloc *fa, long fail_at);

/* Runs `attempt(arg, allocator)` with failure injected at call 0, 1, 2, ... until a run makes
 * no failing call. Each failed run must return ZKPIPE_ENOMEM and leave no live allocation;
 * `cleanup(arg)` (may be NULL) undoes a successful run. Returns the number of allocation
 * sites walked; check failures with cmocka asserts (call from the main test thread only). */
long fail_alloc_walk(int (*attempt)(void *arg, const zkpipe_allocator *a),
                     void (*cleanup)(void *arg), void *arg);

#endif
