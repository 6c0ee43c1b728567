/* Fails the pthread calls zkpipe makes to set up objects and threads, on demand, to walk the
 * error paths behind them (as fail_alloc does for allocations). A test executable gets these
 * wrappers by linking zkpipe_test_fail_pthread with the linker's --wrap for each call; see
 * zkpipe_fail_pthread() in tests/CMakeLists.txt. Wrapped: pthread_mutex_init,
 * pthread_cond_init, pthread_condattr_init, pthread_condattr_setclock (these fail with ENOMEM,
 * setclock with EINVAL) and pthread_create (fails with EAGAIN). */
#ifndef ZKPIPE_TESTS_FAIL_PTHREAD_H
#define ZKPIPE_TESTS_FAIL_PTHREAD_H

#include "zkpipe/alloc.h"

/* Counts wrapped calls from 0 again; the one with index `fail_at` (only that one) fails,
 * none when fail_at is -1. Call it from the main test thread while no other thread runs. */
void fail_pthread_arm(long fail_at);

/* Wrapped calls made since fail_pthread_arm. */
long fail_pthread_calls(void);

/* The name of the call that failed since fail_pthread_arm ("pthread_cond_init"...), or NULL. */
const char *fail_pthread_failed(void);

/* Threads created while armed (fail_at >= 0) since fail_pthread_arm, and how many of those have
 * returned from their start function, so a test can check that a failed setup joined every
 * thread it had started. */
unsigned fail_pthread_started(void);
unsigned fail_pthread_finished(void);

/* Runs `attempt(arg, allocator)` with failure injected at wrapped call 0, 1, 2, ... until a run
 * makes no failing call, as fail_alloc_walk does for allocations (the allocator counts live
 * blocks and never fails), for setups that create no thread. A failed run must return
 * ZKPIPE_EUNSUPPORTED when pthread_condattr_setclock failed (CLOCK_MONOTONIC cannot be used),
 * ZKPIPE_ENOMEM for any other call, and leave no block allocated; the run with no failure must
 * return `ok_status`, and `cleanup(arg)` (may be NULL) must then free what it made. Returns the
 * number of call sites walked. Uses cmocka asserts: call from the main test thread only. */
long fail_pthread_walk(int (*attempt)(void *arg, const zkpipe_allocator *a),
                       void (*cleanup)(void *arg), void *arg, int ok_status);

#endif
