/* Clock readings and medians shared by the benchmarks. */
#ifndef ZKPIPE_BENCH_STATS_H
#define ZKPIPE_BENCH_STATS_H

#include <stddef.h>
#include <time.h>

/* The time on `clock` (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID...) in nanoseconds. */
double bench_clock_ns(clockid_t clock);

/* Sorts v[0..n) and returns its median (the mean of the middle two when n is even); n > 0. */
double bench_median(double *v, size_t n);

#endif
