/* Monotonic time for timed waits. Condition variables wait on CLOCK_MONOTONIC so that a
 * wall-clock jump neither cuts a timeout short nor stretches it. */
#ifndef ZKPIPE_CORE_CLOCK_INTERNAL_H
#define ZKPIPE_CORE_CLOCK_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "zkpipe/status.h"

/* pthread_cond_init with CLOCK_MONOTONIC. Returns ZKPIPE_OK, ZKPIPE_ENOMEM (attribute or
 * condition variable), or ZKPIPE_EUNSUPPORTED (the clock cannot be selected); on failure no
 * condition variable is left to destroy. */
zkpipe_status zkpipe__cond_init_monotonic(pthread_cond_t *cond);

/* The CLOCK_MONOTONIC time now. */
struct timespec zkpipe__clock_now(void);

/* The CLOCK_MONOTONIC time now in seconds, for phase timings. */
double zkpipe__seconds(void);

/* `t` (a CLOCK_MONOTONIC reading, normalised) plus `ns` nanoseconds; cannot overflow. */
struct timespec zkpipe__timespec_add(struct timespec t, uint64_t ns);

/* The CLOCK_MONOTONIC time `timeout_ns` from now; any uint64_t timeout is representable. */
struct timespec zkpipe__deadline_after(uint64_t timeout_ns);

#endif
