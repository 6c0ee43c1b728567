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
} zkpipe__msm_plan;

/* Plans a sum of `npoints` points with scalars of at most `bits` bits on `threads` threads.
 * `window` 0 picks c by the cost model in plan.c, else forces it (1..ZKPIPE__MSM_MAX_WINDOW).
 * `flags` (zkpipe__msm_config's) may force the bucket kind. npoints > 0, threads > 0. */
void zkpipe__msm_plan_make(zkpipe__msm_plan *out, size_t npoints, unsigned bits, unsigned threads,
                           unsigned window, unsigned flags);

#endif
