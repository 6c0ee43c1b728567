/* How an MSM is cut into tasks: the window width c, the number of windows and the number of
 * point ranges each window is split into. Shared by every group. */
#ifndef ZKPIPE_MSM_PLAN_H
#define ZKPIPE_MSM_PLAN_H

#include <stddef.h>

typedef struct zkpipe__msm_plan {
    unsigned window;  /* c: signed digits in [-2^(c-1), 2^(c-1)], 2^(c-1) buckets */
    unsigned windows; /* ceil((bits + 1) / c): the extra bit absorbs the top digit's carry */
    unsigned parts;   /* point ranges per window; tasks = windows * parts */
    size_t batch;     /* batch-affine additions per inversion; 0: XYZZ buckets only */
    unsigned group;   /* windows per task, each with its own buckets, sharing one batch; above 1
                         only with parts 1: tasks = ceil(windows / group) */
} zkpipe__msm_plan;

/* The fewest additions per inversion worth a batch: below it the XYZZ buckets are cheaper. On
 * the 8-lane kernel (msm/batch_x8.h) a batched addition costs a fraction of a scalar one, and
 * batches pay from ZKPIPE__MSM_MIN_BATCH_LANES on. */
#define ZKPIPE__MSM_MIN_BATCH 128
#define ZKPIPE__MSM_MIN_BATCH_LANES 64

/* The least batch worth making, `lanes` whether batches go to the 8-lane kernel. */
static inline size_t zkpipe__msm_min_batch(int lanes)
{
    return lanes ? ZKPIPE__MSM_MIN_BATCH_LANES : ZKPIPE__MSM_MIN_BATCH;
}
/* The sums cut the bits + 1 bits of `bits`-bit scalars (the extra bit takes the top digit's
 * carry) into `windows` windows of (bits + 1) / windows bits, the first (bits + 1) % windows one
 * bit wider: at most c = ceil((bits + 1) / windows) bits each, none left with a few. Window j's
 * width, and its lowest bit. */
static inline unsigned zkpipe__msm_window_width(unsigned bits, unsigned windows, unsigned j)
{
    return (bits + 1) / windows + (j < (bits + 1) % windows);
}
static inline unsigned zkpipe__msm_window_offset(unsigned bits, unsigned windows, unsigned j)
{
    unsigned wide = (bits + 1) % windows;
    return j * ((bits + 1) / windows) + (j < wide ? j : wide);
}
/* The buckets window j's digits can reach were the bits cut into windows of c bits from the
 * bottom: 2^(c-1), fewer in the top window, whose digits are at most 2^(bits - jc). The plan
 * costs a sum's narrowest window by it: the sums' balanced windows (above) are never narrower
 * than that top one, so the plan errs on the side of a window too wide. */
static inline size_t zkpipe__msm_window_buckets(unsigned bits, unsigned j, unsigned c)
{
    if (bits <= j * c)
        return 1;
    return bits - j * c >= c - 1 ? (size_t)1 << (c - 1) : (size_t)1 << (bits - j * c);
}
/* The additions a task's batch takes over `nbuckets` buckets in reach, for a plan's batch
 * `batch`: a quarter of them (collisions stay rare), and 0, the XYZZ twins, below
 * zkpipe__msm_min_batch(lanes) unless `forced` (ZKPIPE__MSM_BATCH_AFFINE), which keeps at least
 * one where the plan batches. The tasks (msm_impl.h) and the plan's cost model both ask it. */
static inline size_t zkpipe__msm_task_cap(size_t batch, size_t nbuckets, int lanes, int forced)
{
    size_t cap = batch < nbuckets / 4 ? batch : nbuckets / 4;
    if (cap < zkpipe__msm_min_batch(lanes) && !forced)
        return 0;
    return cap == 0 && batch > 0 ? 1 : cap;
}
/* The most bytes of buckets (affine, XYZZ twin, state byte) a task of several windows holds
 * (zkpipe__msm_plan_group): about an L2 cache; past it a wider group stops paying. */
#define ZKPIPE__MSM_MAX_GROUP_BYTES (1024u << 10)
/* What one bucket of a window group costs, zkpipe__msm_plan_group's `bucket_bytes`, for a group
 * of affine type A over the field F: the affine point, its XYZZ twin (four coordinates,
 * msm/xyzz.h) and its state byte. */
#define ZKPIPE__MSM_BUCKET_BYTES(A, F) (sizeof(A) + 4 * sizeof(F) + 1)

/* Plans a sum of `npoints` points with scalars of at most `bits` bits on `threads` threads.
 * `window` 0 picks c by the cost model in plan.c, else forces it (1..ZKPIPE__MSM_MAX_WINDOW).
 * `flags` (zkpipe__msm_config's) may force the bucket kind. `lanes`: whether batches go to the
 * 8-lane kernel (what a window whose batch would be too small costs, in XYZZ buckets,
 * depends on it). npoints > 0, threads > 0. */
void zkpipe__msm_plan_make(zkpipe__msm_plan *out, size_t npoints, unsigned bits, unsigned threads,
                           unsigned window, unsigned flags, int lanes);

/* Turns a plan of XYZZ buckets (batch 0, too few points per task to fill a batch) into one where
 * each task takes several windows over every point, so that one batch is fed by all of them;
 * leaves it as it is when the group would stay at one window or its batch below `min_batch`
 * (zkpipe__msm_min_batch). Tasks come in multiples of `threads`; `bucket_bytes` is what one
 * bucket costs. */
void zkpipe__msm_plan_group(zkpipe__msm_plan *plan, unsigned threads, size_t bucket_bytes,
                            size_t min_batch);

#endif
