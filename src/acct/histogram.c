/* Histograms with atomic buckets (zkpipe/histogram.h).
 *
 * Two halves take turns being hot, as in the Prometheus Go client: an observer counts itself
 * in on one word whose top bit names the hot half, then adds to that half's bucket and sum and
 * marks itself done there. A snapshot flips the hot bit, which freezes the number of
 * observations the now-cold half will ever get, waits until that many are done in it, copies
 * it, then adds it into the new hot half and zeroes it. The hot half thus always holds the
 * totals minus what arrived since, and a snapshot is exact without ever blocking observers. */
#include <math.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <string.h>

#include "acct/export_internal.h"
#include "core/alloc_internal.h"
#include "zkpipe/histogram.h"

#define HOT_BIT ((uint64_t)1 << 63)

typedef struct half {
    alignas(ZKPIPE__CACHE_LINE) _Atomic uint64_t done; /* observations finished in this half */
    _Atomic uint64_t sum;
    _Atomic uint64_t bucket[ZKPIPE_HISTOGRAM_BUCKETS_MAX + 1]; /* not cumulative */
} half;

struct zkpipe_histogram {
    alignas(ZKPIPE__CACHE_LINE) _Atomic uint64_t started; /* HOT_BIT | observations begun */
    half halves[2];
    alignas(ZKPIPE__CACHE_LINE) atomic_flag reading; /* snapshots take turns */
    uint32_t bucket_count;
    double unit;
    uint64_t bounds[ZKPIPE_HISTOGRAM_BUCKETS_MAX];
    zkpipe_allocator allocator;
};

#define MS UINT64_C(1000000)
#define S UINT64_C(1000000000)
static const uint64_t default_bounds[] = {
    1 * MS,    5 * MS / 2, 5 * MS, 10 * MS, 25 * MS, 50 * MS, 100 * MS, 250 * MS, 500 * MS, 1 * S,
    5 * S / 2, 5 * S,      10 * S, 25 * S,  50 * S,  100 * S, 250 * S,  500 * S,  1000 * S,
};

zkpipe_status zkpipe_histogram_create(zkpipe_histogram **out, const uint64_t *bounds,
                                      uint32_t bucket_count, double unit,
                                      const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out == NULL || a == NULL || !(unit > 0) || isinf(unit))
        return ZKPIPE_EINVAL;
    if (bounds == NULL) {
        bounds = default_bounds;
        bucket_count = sizeof default_bounds / sizeof default_bounds[0];
    }
    if (bucket_count == 0 || bucket_count > ZKPIPE_HISTOGRAM_BUCKETS_MAX)
        return ZKPIPE_EINVAL;
    for (uint32_t i = 1; i < bucket_count; i++)
        if (bounds[i] <= bounds[i - 1])
            return ZKPIPE_EINVAL;
    zkpipe_histogram *h = zkpipe__calloc(a, 1, sizeof *h, alignof(zkpipe_histogram));
    if (h == NULL)
        return ZKPIPE_ENOMEM;
    atomic_flag_clear(&h->reading);
    h->bucket_count = bucket_count;
    h->unit = unit;
    memcpy(h->bounds, bounds, bucket_count * sizeof bounds[0]);
    h->allocator = *a;
    *out = h;
    return ZKPIPE_OK;
}

void zkpipe_histogram_destroy(zkpipe_histogram *h)
{
    if (h == NULL)
        return;
    zkpipe_allocator a = h->allocator;
    zkpipe__free(&a, h);
}

/* The first bucket whose bound is >= v (bucket_count: +Inf), by binary search. */
static uint32_t bucket_of(const zkpipe_histogram *h, uint64_t v)
{
    uint32_t lo = 0, hi = h->bucket_count;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (h->bounds[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void zkpipe_histogram_observe(zkpipe_histogram *h, uint64_t value)
{
    if (h == NULL)
        return;
    uint32_t b = bucket_of(h, value);
    uint64_t n = atomic_fetch_add_explicit(&h->started, 1, memory_order_acquire);
    half *hot = &h->halves[n >> 63];
    atomic_fetch_add_explicit(&hot->bucket[b], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&hot->sum, value, memory_order_relaxed);
    atomic_fetch_add_explicit(&hot->done, 1, memory_order_release);
}

zkpipe_status zkpipe_histogram_read(zkpipe_histogram *h, zkpipe_histogram_snapshot *out)
{
    if (h == NULL || out == NULL)
        return ZKPIPE_EINVAL;
    memset(out, 0, sizeof *out);
    unsigned spins = 0;
    while (atomic_flag_test_and_set_explicit(&h->reading, memory_order_acquire))
        zkpipe__backoff(&spins);
    uint64_t n = atomic_fetch_add_explicit(&h->started, HOT_BIT, memory_order_acq_rel);
    uint64_t count = n & ~HOT_BIT;
    half *cold = &h->halves[n >> 63];
    half *hot = &h->halves[(n >> 63) ^ 1];
    spins = 0;
    while (atomic_load_explicit(&cold->done, memory_order_acquire) != count)
        zkpipe__backoff(&spins);
    uint64_t sum = atomic_load_explicit(&cold->sum, memory_order_relaxed);
    uint64_t acc = 0;
    for (uint32_t i = 0; i <= h->bucket_count; i++) {
        uint64_t c = atomic_load_explicit(&cold->bucket[i], memory_order_relaxed);
        acc += c;
        out->cumulative[i] = acc;
        /* Carry the totals over to the new hot half; nothing writes the cold one until the
         * next flip, which waits for our turn to end. */
        atomic_fetch_add_explicit(&hot->bucket[i], c, memory_order_relaxed);
        atomic_store_explicit(&cold->bucket[i], 0, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&hot->sum, sum, memory_order_relaxed);
    atomic_fetch_add_explicit(&hot->done, count, memory_order_release);
    atomic_store_explicit(&cold->sum, 0, memory_order_relaxed);
    atomic_store_explicit(&cold->done, 0, memory_order_relaxed);
    atomic_flag_clear_explicit(&h->reading, memory_order_release);
    out->bucket_count = h->bucket_count;
    out->unit = h->unit;
    out->count = count;
    out->sum = sum;
    memcpy(out->bounds, h->bounds, h->bucket_count * sizeof h->bounds[0]);
    return ZKPIPE_OK;
}
