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
 * narrower windows, but at 2^16 points c = 12, 13 and 14 measured alike.
 *
 * Except in the top window, costed as if the bits were cut into windows of c from the bottom
 * (the sums cut them into balanced windows, plan.h, none narrower than that top one, so the term
 * errs towards wider windows): its digits reach only 2^(bits - (windows - 1) c) buckets, and when a
 * quarter of those is below the least batch worth making (zkpipe__msm_task_cap), the tasks add
 * its points into the XYZZ twins, TOP_XYZZ_LANES or _SCALAR times the cost of a batched addition,
 * on the thread that holds it.
 * Without that term c = 10 to 12 were chosen for 2^12 to 2^14 split points (their top windows
 * hold 6 or 7 bits of the 127-bit halves), and forcing c measured (2 threads, ms):
 *   2^13 bases: c = 10 (the plan) 14.3 and c = 13 10.1 (BLS12-381 G1), 8.1 and 5.3 (BN254);
 *   2^14 bases: c = 11 (the plan) 23.4 and c = 13 17.7 (BLS12-381 G1), 13.9 and 9.3 (BN254);
 *   with the IFMA lanes masked, 2^14 bases: 40.6 and 36.3 (BLS12-381), 23.6 and 20.4 (BN254).
 * A reduction factor of 1/2 instead of 3/2 chose c = 16 from 2^16 bases on, which sums alone took
 * up to a quarter less time with, but whole proofs did not: 2^17 rows, BN254 prove_total 327.5
 * against 347.8 ms, BLS12-381 514.3 against 527.6 ms.
 *
 * A sum too small for any task to batch on its own is grouped (zkpipe__msm_plan_group: each
 * task adds every point into the buckets of several windows, one batch for all of them), and
 * its windows are costed as what then runs: the reduction's running sums batched too (factor
 * 1/2, where the buckets get two points each on average), and the top window charged its XYZZ
 * additions whenever it reaches fewer buckets than a quarter of a window's, the share of a batch
 * its points would need (with c = 6, 7 or 9 the 127-bit halves leave a top window of two buckets,
 * where nearly every addition collides). Such candidates keep a task's buckets within
 * GROUPED_MAX_BUCKETS. Forcing c on lone sums of 2^6 to 2^11 bases, every group, 1 and 2 threads,
 * lanes on and masked, had c = 8 fastest from 2^8 bases on, where the XYZZ costing chose c = 6
 * below 2^9 bases (1.22 to 1.38 times slower) and c = 9 to 12 measured 1.3 to 1.7 times slower than
 * c = 8; at 2^6 bases on 2 threads it chose XYZZ buckets at c = 5, 1.1 to 1.5 times slower than the
 * grouped c = 6. */
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

/* An XYZZ addition over a batched one, on the lanes and on the scalar batch (the same sums of
 * 2^16 BN254 bases on 2 threads with c = 11, whose top window is XYZZ, and c = 13). */
#define TOP_XYZZ_LANES 3.6
#define TOP_XYZZ_SCALAR 1.4

/* The reduction's weight per bucket: XYZZ running sums (see the top of this file), and in a
 * grouped task whose windows' buckets get two points each on average, where they are batched. */
#define REDUCTION_XYZZ 1.5
#define REDUCTION_GROUPED 0.5
/* The grouped costing is for the endomorphism's split halves, where it was measured; the plain
 * sums of full scalars (ZKPIPE__MSM_NO_ENDO: tests and measurements) keep the XYZZ costing. */
#define GROUPED_MAX_BITS 128
/* The fewest points costed as a grouped sum (64 bases): below, the XYZZ costing's choices (c = 2
 * to 5) measured as fast as the grouped costing's or faster (8 to 32 bases: 1.2 to 1.6 times
 * faster on 2 threads), the windows' buckets staying mostly empty. */
#define GROUPED_MIN_POINTS 128
/* The most buckets a grouped candidate's task may hold over its windows (2^11: one thread's
 * c = 8 over 127-bit halves), past which they fall out of the caches. */
#define GROUPED_MAX_BUCKETS 2048

/* Whether tasks of `per_task` points batch their additions (at `batch`, 0 when they do not). */
static size_t task_batch(size_t per_task, unsigned window, unsigned flags)
{
    if (flags & ZKPIPE__MSM_BATCH_AFFINE)
        return batch_size(window);
    if (flags & ZKPIPE__MSM_XYZZ)
        return 0;
    /* Batching measured slower than XYZZ up to 2^12 points per task (the inversions and the
     * collisions are shared by too few additions) and faster from 2^14 on. */
    return per_task >= 8192 ? batch_size(window) : 0;
}

/* A grouped task's batch: a quarter of its `group` windows' buckets, as in batch_size (before
 * the MAX_BATCH cap). zkpipe__msm_plan_group groups only where it reaches the least batch. */
static size_t group_batch(unsigned group, unsigned c)
{
    return ((size_t)group << (c - 1)) / 4;
}

/* The windows per task when zkpipe__msm_plan_group will group a plan of window c, else 0: no
 * task batches alone, no bucket kind is forced, and the windows shared out over the threads give
 * a batch (a quarter of a task's buckets) of at least zkpipe__msm_min_batch(lanes). */
static unsigned will_group(size_t npoints, unsigned bits, unsigned c, unsigned windows,
                           unsigned threads, unsigned flags, int lanes)
{
    if (bits > GROUPED_MAX_BITS || task_batch(npoints, c, flags) != 0 ||
        (flags & (ZKPIPE__MSM_XYZZ | ZKPIPE__MSM_BATCH_AFFINE)) != 0 ||
        npoints < GROUPED_MIN_POINTS)
        return 0;
    unsigned tasks = threads < windows ? threads : windows;
    unsigned group = (windows + tasks - 1) / tasks;
    if (group <= 1 || group_batch(group, c) < zkpipe__msm_min_batch(lanes))
        return 0;
    return group;
}

void zkpipe__msm_plan_make(zkpipe__msm_plan *out, size_t npoints, unsigned bits, unsigned threads,
                           unsigned window, unsigned flags, int lanes)
{
    double best = -1, top_xyzz = lanes ? TOP_XYZZ_LANES : TOP_XYZZ_SCALAR;
    unsigned lo = window ? window : 1, hi = window ? window : ZKPIPE__MSM_MAX_WINDOW;
    for (unsigned c = lo; c <= hi; c++) {
        unsigned windows = (bits + 1 + c - 1) / c;
        size_t top = zkpipe__msm_window_buckets(bits, windows - 1, c);
        unsigned grouped = will_group(npoints, bits, c, windows, threads, flags, lanes);
        if (grouped && window == 0 && ((size_t)grouped << (c - 1)) > GROUPED_MAX_BUCKETS)
            continue;
        /* batched running sums are cheap over full buckets; over buckets of one point or none,
         * walking them costs as much as the XYZZ ones */
        double reduction =
            grouped && npoints >= (size_t)1 << c ? REDUCTION_GROUPED : REDUCTION_XYZZ;
        double share = (double)group_batch(1, c); /* a window's share of a grouped batch */
        /* More ranges than threads per window never shorten the critical path; a grouped
         * plan takes every point in each task (parts 1). */
        for (unsigned parts = 1; parts <= (grouped ? 1 : threads); parts++) {
            size_t batch = task_batch(npoints / parts, c, flags);
            double points = (double)npoints / parts;
            double per_task = points + reduction * (double)(1u << c);
            double cost = task_rounds(windows * parts, threads) * per_task;
            if (grouped && (double)top < share)
                cost += (top_xyzz - 1) * points * (1 - (double)top / share);
            else if (batch > 0 &&
                     zkpipe__msm_task_cap(batch, top, lanes,
                                          (flags & ZKPIPE__MSM_BATCH_AFFINE) != 0) == 0)
                cost += (top_xyzz - 1) * points;
            if (best < 0 || cost < best) {
                best = cost;
                out->window = c;
                out->windows = windows;
                out->parts = parts;
            }
        }
    }
    out->group = 1;
    out->batch = task_batch(npoints / out->parts, out->window, flags);
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
    batch = group_batch(group, plan->window);
    if (group <= 1 || batch < min_batch)
        return;
    plan->group = group;
    plan->parts = 1;
    plan->batch = batch < MAX_BATCH ? batch : MAX_BATCH;
}
