/*! zkpipe/histogram.h : a histogram of observations (durations, sizes) with atomic buckets.
 *
 * Observers never wait and never allocate: an observation is four atomic additions. A
 * snapshot is consistent: its count is the sum of its buckets, and its sum is the sum of
 * exactly those observations (the two halves of the histogram take turns, as in the
 * Prometheus Go client, so a snapshot waits only for observations already under way).
 *
 * Values are unsigned integers in a unit the caller picks (nanoseconds for durations); the
 * exporters show them times `unit` (1e-9: seconds). The default buckets suit durations from a
 * millisecond to a quarter of an hour, which covers a test circuit's partition and a
 * production one alike. */
#ifndef ZKPIPE_HISTOGRAM_H
#define ZKPIPE_HISTOGRAM_H

#include "zkpipe/acct.h"
#include "zkpipe/alloc.h"
#include "zkpipe/common.h"
#include "zkpipe/status.h"

ZKPIPE_EXTERN_C_BEGIN

/* Most finite bucket bounds a histogram may have (a +Inf bucket always follows them). */
#define ZKPIPE_HISTOGRAM_BUCKETS_MAX 32

/* A histogram. Opaque. */
typedef struct zkpipe_histogram zkpipe_histogram;

/* A consistent copy of a histogram: plain values the caller owns (about 800 bytes). */
typedef struct zkpipe_histogram_snapshot {
    uint32_t bucket_count; /* finite bounds, 1..ZKPIPE_HISTOGRAM_BUCKETS_MAX */
    double unit;           /* what one unit of a value is worth in the exports (e.g. 1e-9) */
    uint64_t count;        /* observations; equal to cumulative[bucket_count] */
    uint64_t sum;          /* sum of the observed values, in units (wraps past 2^64) */
    uint64_t bounds[ZKPIPE_HISTOGRAM_BUCKETS_MAX]; /* upper bounds (value <= bound), rising */
    /* cumulative[i]: observations <= bounds[i]; cumulative[bucket_count]: all (+Inf). */
    uint64_t cumulative[ZKPIPE_HISTOGRAM_BUCKETS_MAX + 1];
    uint64_t reserved[4]; /* zero; room for fields added later */
} zkpipe_histogram_snapshot;

/*! zkpipe_histogram_create() : an empty histogram.
 * @param bounds `bucket_count` finite upper bounds in units, strictly rising; NULL for the
 *        default seconds ladder in nanoseconds: 1, 2.5, 5, 10, 25, 50, 100, 250, 500 ms, 1,
 *        2.5, 5, 10, 25, 50, 100, 250, 500, 1000 s (bucket_count is then ignored).
 * @param unit the exported value of one unit, > 0 (1e-9 shows nanoseconds as seconds).
 * @param allocator NULL for the C library; copied.
 * @param out receives the histogram; free it with zkpipe_histogram_destroy.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (out NULL, bucket_count 0 or above the maximum, bounds not
 *         rising, unit not > 0, allocator incomplete), ZKPIPE_ENOMEM.
 * Thread safety: any thread. Allocates one block of about 1 KiB. */
ZKPIPE_API zkpipe_status zkpipe_histogram_create(zkpipe_histogram **out, const uint64_t *bounds,
                                                 uint32_t bucket_count, double unit,
                                                 const zkpipe_allocator *allocator);

/*! zkpipe_histogram_destroy() : frees the histogram. NULL is a no-op.
 * Thread safety: no other call on `h` may run concurrently. */
ZKPIPE_API void zkpipe_histogram_destroy(zkpipe_histogram *h);

/*! zkpipe_histogram_observe() : counts one observation of `value` (units). NULL is a no-op.
 * Thread safety: any thread, concurrently with every call but destroy. Lock-free: never waits,
 * never allocates. */
ZKPIPE_API void zkpipe_histogram_observe(zkpipe_histogram *h, uint64_t value);

/*! zkpipe_histogram_read() : copies the histogram into `out` as of one instant.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL).
 * Thread safety: any thread, concurrently with observers and other snapshots (those take
 * turns). It waits only for observations that have begun (a few atomic additions each). Does
 * not allocate. */
ZKPIPE_API zkpipe_status zkpipe_histogram_read(zkpipe_histogram *h, zkpipe_histogram_snapshot *out);

/* Exporters, with the two-call buffer convention of zkpipe/acct.h's exporters (at most `cap`
 * bytes, NUL-terminated when cap > 0, the full length in *out_len).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL arguments, buf NULL with cap > 0, a malformed
 *         snapshot or options, a name outside [a-z0-9_], help NULL). Thread safety: any
 *         thread; they read only their arguments. They do not allocate. */

/*! zkpipe_histogram_prometheus() : the family `<prefix>_<name>` of type histogram: HELP and
 * TYPE lines, then `_bucket{le="..."}` for every bound and +Inf, `_sum` (in exported units)
 * and `_count`, each with the options' constant labels (opts NULL: prefix "zkpipe", none). */
ZKPIPE_API zkpipe_status zkpipe_histogram_prometheus(char *buf, size_t cap, size_t *out_len,
                                                     const char *name, const char *help,
                                                     const zkpipe_histogram_snapshot *snap,
                                                     const zkpipe_prom_options *opts);

/*! zkpipe_histogram_json() : one JSON object, no newline:
 * {"count":N,"sum":S,"buckets":[{"le":B,"count":N},...,{"le":"+Inf","count":N}]}, where S
 * and every B are in exported units and each bucket's count is cumulative (as Prometheus's). */
ZKPIPE_API zkpipe_status zkpipe_histogram_json(char *buf, size_t cap, size_t *out_len,
                                               const zkpipe_histogram_snapshot *snap);

ZKPIPE_EXTERN_C_END

#endif
