/* Timed waits for the sync layer. Condition variables wait on CLOCK_MONOTONIC so that a
 * wall-clock jump neither cuts a timeout short nor stretches it. */
#ifndef ZKPIPE_SYNC_WAIT_INTERNAL_H
#define ZKPIPE_SYNC_WAIT_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "zkpipe/status.h"

/* How a sync call waits: blocking, trying once, or until a deadline. */
typedef enum zkpipe__wait_mode {
    ZKPIPE__WAIT_BLOCK,
    ZKPIPE__WAIT_TRY,
    ZKPIPE__WAIT_TIMED
} zkpipe__wait_mode;

/* pthread_cond_init with CLOCK_MONOTONIC. Returns ZKPIPE_OK, ZKPIPE_ENOMEM (attribute or
 * condition variable), or ZKPIPE_EUNSUPPORTED (the clock cannot be selected). */
zkpipe_status zkpipe__cond_init_monotonic(pthread_cond_t *cond);

/* The CLOCK_MONOTONIC time `timeout_ns` from now, saturating instead of wrapping. */
struct timespec zkpipe__deadline_after(uint64_t timeout_ns);

#endif
