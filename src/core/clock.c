#include "core/clock_internal.h"

zkpipe_status zkpipe__cond_init_monotonic(pthread_cond_t *cond)
{
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0)
        return ZKPIPE_ENOMEM;
    zkpipe_status st = ZKPIPE_OK;
    if (pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) != 0)
        st = ZKPIPE_EUNSUPPORTED;
    else if (pthread_cond_init(cond, &attr) != 0)
        st = ZKPIPE_ENOMEM;
    pthread_condattr_destroy(&attr);
    return st;
}

struct timespec zkpipe__clock_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t;
}

double zkpipe__seconds(void)
{
    struct timespec t = zkpipe__clock_now();
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* 2^64 ns is under 600 years, so even an "infinite" timeout cannot overflow a 64-bit time_t
 * added to a monotonic clock reading. */
_Static_assert(sizeof(time_t) >= 8, "time_t must hold a monotonic time plus 2^64 ns");

struct timespec zkpipe__timespec_add(struct timespec t, uint64_t ns)
{
    const uint64_t ns_per_s = 1000000000u;
    t.tv_sec += (time_t)(ns / ns_per_s);
    t.tv_nsec += (long)(ns % ns_per_s);
    if (t.tv_nsec >= (long)ns_per_s) {
        t.tv_nsec -= (long)ns_per_s;
        t.tv_sec++;
    }
    return t;
}

struct timespec zkpipe__deadline_after(uint64_t timeout_ns)
{
    return zkpipe__timespec_add(zkpipe__clock_now(), timeout_ns);
}
