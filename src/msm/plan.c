/* The cost model, in units of one XYZZ mixed addition. A task (one window over one range of
 * n/P points) costs about
 *   a·n/P bucket additions + 1.5·2^c for the reduction
 * (2^(c-1) buckets, two full XYZZ additions each, a full one being about 1.4 mixed ones; the
 * factor 3/2 also stands for the bucket array falling out of cache as it grows). a is 1 for
 * XYZZ buckets and AFFINE_ADD for batch-affine ones, which also pay 2^(c-1) mixed additions
 * to merge their two bucket arrays. Tasks are spread over T threads, so the wall time is
 * ceil(windows·P / T) rounds of one task each. Splitting windows into P ranges only pays
 * when there are fewer windows than threads or they do not divide evenly: each extra range
 * repeats the reduction. The final combination (c doublings and one addition per window,
 * one addition per extra range) is negligible. */
#include "msm/plan.h"

#include "msm/msm.h"

/* A batch-affine addition relative to an XYZZ mixed one (5M + 1S and bookkeeping against
 * 8M + 2S), plus its share of the batch's inversion (about 450 multiplications). */
#define AFFINE_ADD 0.6
#define INVERSION 45.0
/* Pending additions per batch: enough to spread the inversion (about 500 multiplications),
 * few enough next to the 2^(c-1) buckets that collisions, which fall back to XYZZ, stay rare
 * (about batch / 2^c of the points). */
#define MAX_BATCH 1024

static double task_rounds(unsigned tasks, unsigned threads)
{
    return (double)((tasks + threads - 1) / threads);
}

void zkpipe__msm_plan_make(zkpipe__msm_plan *out, size_t npoints, unsigned bits, unsigned threads,
                           unsigned window, unsigned flags)
{
    double best = -1;
    unsigned lo = window ? window : 1, hi = window ? window : ZKPIPE__MSM_MAX_WINDOW;
    int affine_lo = (flags & ZKPIPE__MSM_AFFINE) ? 1 : 0;
    int affine_hi = (flags & ZKPIPE__MSM_NO_AFFINE) ? 0 : 1;
    for (unsigned c = lo; c <= hi; c++) {
        unsigned windows = (bits + 1 + c - 1) / c;
        double buckets = (double)(1u << (c - 1));
        unsigned batch = (1u << (c - 1)) / 8;
        batch = batch > MAX_BATCH ? MAX_BATCH : batch ? batch : 1;
        for (int affine = affine_lo; affine <= affine_hi; affine++) {
            double add = affine ? AFFINE_ADD + INVERSION / batch : 1.0;
            /* More ranges than threads per window never shorten the critical path. */
            for (unsigned parts = 1; parts <= threads; parts++) {
                double per_task = add * (double)npoints / parts + 3 * buckets;
                if (affine)
                    per_task += buckets;
                double cost = task_rounds(windows * parts, threads) * per_task;
                if (best < 0 || cost < best) {
                    best = cost;
                    out->window = c;
                    out->windows = windows;
                    out->parts = parts;
                    out->batch = affine ? batch : 0;
                }
            }
        }
    }
}
