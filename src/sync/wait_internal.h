/* Timed waits for the sync layer. Condition variables wait on CLOCK_MONOTONIC so that a
 * wall-clock jump neither cuts a timeout short nor stretches it. */
#ifndef ZKPIPE_SYNC_WAIT_INTERNAL_H
#define ZKPIPE_SYNC_WAIT_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "zkpipe/status.h"

/* pthread_cond_init with CLOCK_MONOTONIC. Returns ZKPIPE_OK, ZKPIPE_ENOMEM (attribute or
 * condition variable), or ZKPIPE_EUNSUPPORTED (the clock cannot be selected). */
zkpipe_status zkpipe__cond_init_monotonic(pthread_cond_t *cond);

/* The CLOCK_MONOTONIC time `timeout_ns` from now, saturating instead of wrapping. */
struct timespec zkpipe__deadline_after(uint64_t timeout_ns);

#endif
