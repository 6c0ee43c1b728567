/* The cost model. A task (one window over one point range of n/P points) costs about
 *   n/P mixed additions into buckets + 2^c bucket-reduction additions
 * (2^(c-1) buckets, two additions each: running sum and total; a full XYZZ addition is
 * 1.4 times a mixed one, rounded into the factor 3/2 below, which also stands for the
 * bucket array falling out of cache as it grows). Tasks are spread over T threads, so the
 * wall time is ceil(windows·P / T) rounds of one task each. Splitting windows into P ranges
 * only pays when there are fewer windows than threads or they do not divide evenly: each
 * extra range repeats the reduction. The final combination (c doublings and one addition per
 * window, one addition per extra range) is negligible. The window is chosen with XYZZ costs
 * even when the buckets are batched: a batched addition is cheaper, which favours slightly
 * narrower windows, but at 2^16 points c = 12, 13 and 14 measured alike. */
#include "msm/plan.h"

#include "msm/msm.h"

static double task_rounds(unsigned tasks, unsigned threads)
{
    return (double)((tasks + threads - 1) / threads);
}

/* Batch size: a quarter of the buckets. About 1/8 of the points then find their bucket already
 * in the batch and fall back to XYZZ, but the inversion is shared more widely; at 2^16 points
 * this measured a few percent faster than 1/16 or 1/8, and clearly faster than 1/16 at c = 11
 * (64-entry batches). The cap bounds the batch's memory. */
#define MAX_BATCH 1024

static size_t batch_size(unsigned window)
{
    size_t b = ((size_t)1 << (window - 1)) / 4;
    return b < 16 ? 16 : b > MAX_BATCH ? MAX_BATCH : b;
}

void zkpipe__msm_plan_make(zkpipe__msm_plan *out, size_t npoints, unsigned bits, unsigned threads,
                           unsigned window, unsigned flags)
{
    double best = -1;
    unsigned lo = window ? window : 1, hi = window ? window : ZKPIPE__MSM_MAX_WINDOW;
    for (unsigned c = lo; c <= hi; c++) {
        unsigned windows = (bits + 1 + c - 1) / c;
        /* More ranges than threads per window never shorten the critical path. */
        for (unsigned parts = 1; parts <= threads; parts++) {
            double per_task = (double)npoints / parts + 1.5 * (double)(1u << c);
            double cost = task_rounds(windows * parts, threads) * per_task;
            if (best < 0 || cost < best) {
                best = cost;
                out->window = c;
                out->windows = windows;
                out->parts = parts;
            }
        }
    }
    out->group = 1;
    /* Batching measured slower than XYZZ up to 2^12 points per task (the inversions and the
     * collisions are shared by too few additions) and faster from 2^14 on. */
    size_t batch = batch_size(out->window);
    if (flags & ZKPIPE__MSM_BATCH_AFFINE)
        out->batch = batch;
    else if (flags & ZKPIPE__MSM_XYZZ)
        out->batch = 0;
    else
        out->batch = npoints / out->parts >= 8192 ? batch : 0;
}

/* A small sum has too few points per window for a batch of `min_batch` additions to
 * fill often, but a task that adds each point into g windows' buckets at once sees g times as
 * many additions per batch (and reads each point once for g windows). The windows are shared
 * out over `threads` tasks first, and over more (in steps of `threads`) while the group's
 * buckets exceed ZKPIPE__MSM_MAX_GROUP_BYTES. */
void zkpipe__msm_plan_group(zkpipe__msm_plan *plan, unsigned threads, size_t bucket_bytes,
                            size_t min_batch)
{
    size_t per = (size_t)1 << (plan->window - 1), batch;
    unsigned tasks = threads < plan->windows ? threads : plan->windows, group;
    if (plan->batch != 0 || tasks == 0)
        return;
    for (;;) {
        group = (plan->windows + tasks - 1) / tasks;
        if (group <= 1 || group * per * bucket_bytes <= ZKPIPE__MSM_MAX_GROUP_BYTES)
            break;
        tasks += threads;
    }
    batch = group * per / 4; /* a quarter of the buckets, as in batch_size */
    if (group <= 1 || batch < min_batch)
        return;
    plan->group = group;
    plan->parts = 1;
    plan->batch = batch < MAX_BATCH ? batch : MAX_BATCH;
}
