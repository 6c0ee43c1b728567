/* NTT timings on both scalar fields, 1 thread and all threads: median milliseconds of the
 * forward, inverse and coset-forward transforms (the coset is snarkjs', shift w_2n).
 *
 *   bench_ntt [min_log_n [max_log_n [repetitions [threads]]]]   defaults: 16 20 5 0 (0 = all)
 *
 * Each size is also checked: the inverse must return the input exactly; a mismatch exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_stats.h"
#include "poly/ntt.h"
#include "zkpipe/zkpipe.h"

/* One field's entry points behind untyped pointers, so the driver is written once. */
typedef struct field_ops {
    const char *name;
    size_t elem_bytes;
    zkpipe_status (*create)(void **d, unsigned log_n, zkpipe_pool *pool);
    void (*destroy)(void *d);
    void (*fill)(void *a, size_t n);
    zkpipe_status (*ntt)(void *a, const void *d, zkpipe_pool *pool);
    zkpipe_status (*intt)(void *a, const void *d, zkpipe_pool *pool);
    zkpipe_status (*coset_ntt)(void *a, const void *d, zkpipe_pool *pool);
} field_ops;

#define FIELD_OPS(F)                                                                               \
    static zkpipe_status F##_create(void **d, unsigned log_n, zkpipe_pool *pool)                   \
    {                                                                                              \
        zkpipe__##F##_domain *dom = NULL;                                                          \
        zkpipe_status rc = zkpipe__##F##_domain_create(&dom, log_n, pool, NULL);                   \
        *d = dom;                                                                                  \
        return rc;                                                                                 \
    }                                                                                              \
    static void F##_destroy(void *d)                                                               \
    {                                                                                              \
        zkpipe__##F##_domain_destroy(d);                                                           \
    }                                                                                              \
    static void F##_fill(void *a, size_t n)                                                        \
    {                                                                                              \
        F *v = a;                                                                                  \
        for (size_t i = 0; i < n; i++)                                                             \
            F##_from_u64(&v[i], i * 0x9e3779b97f4a7c15u + 1);                                      \
    }                                                                                              \
    static zkpipe_status F##_ntt(void *a, const void *d, zkpipe_pool *pool)                        \
    {                                                                                              \
        return zkpipe__##F##_ntt(a, d, pool);                                                      \
    }                                                                                              \
    static zkpipe_status F##_intt(void *a, const void *d, zkpipe_pool *pool)                       \
    {                                                                                              \
        return zkpipe__##F##_intt(a, d, pool);                                                     \
    }                                                                                              \
    static zkpipe_status F##_coset_ntt(void *a, const void *d, zkpipe_pool *pool)                  \
    {                                                                                              \
        F shift;                                                                                   \
        zkpipe__##F##_root_of_unity(&shift, zkpipe__##F##_domain_log_size(d) + 1);                 \
        return zkpipe__##F##_coset_ntt(a, d, &shift, pool);                                        \
    }                                                                                              \
    static const field_ops F##_ops = {#F,       sizeof(F), F##_create, F##_destroy,                \
                                      F##_fill, F##_ntt,   F##_intt,   F##_coset_ntt};

FIELD_OPS(bls12_381_fr)
FIELD_OPS(bn254_fr)

/* Median over `reps` runs of op on `a` (each run transforms the previous result). */
static double median_ms(zkpipe_status (*op)(void *, const void *, zkpipe_pool *), void *a,
                        const void *d, zkpipe_pool *pool, double *times, int reps)
{
    for (int r = 0; r < reps; r++) {
        double t0 = bench_clock_ns(CLOCK_MONOTONIC);
        op(a, d, pool);
        times[r] = (bench_clock_ns(CLOCK_MONOTONIC) - t0) / 1e6;
    }
    return bench_median(times, (size_t)reps);
}

/* Returns 0, or 1 when a round trip did not give the input back or something failed. */
static int bench_size(const field_ops *f, unsigned log_n, zkpipe_pool *pool, int reps)
{
    size_t n = (size_t)1 << log_n;
    void *d = NULL;
    unsigned char *a = malloc(n * f->elem_bytes), *orig = malloc(n * f->elem_bytes);
    double *times = malloc((size_t)reps * sizeof *times);
    int bad = 1;
    if (a == NULL || orig == NULL || times == NULL || f->create(&d, log_n, pool) != ZKPIPE_OK) {
        fprintf(stderr, "%s 2^%u: out of memory\n", f->name, log_n);
        goto out;
    }
    f->fill(orig, n);
    memcpy(a, orig, n * f->elem_bytes);
    f->ntt(a, d, pool);
    f->intt(a, d, pool);
    if (memcmp(a, orig, n * f->elem_bytes) != 0) {
        fprintf(stderr, "%s 2^%u: the inverse did not return the input\n", f->name, log_n);
        goto out;
    }
    double fwd = median_ms(f->ntt, a, d, pool, times, reps);
    double inv = median_ms(f->intt, a, d, pool, times, reps);
    double coset = median_ms(f->coset_ntt, a, d, pool, times, reps);
    printf("%-13s 2^%-2u %3u thr  ntt %9.2f ms  intt %9.2f ms  coset_ntt %9.2f ms\n", f->name,
           log_n, zkpipe_pool_threads(pool), fwd, inv, coset);
    fflush(stdout);
    bad = 0;
out:
    f->destroy(d);
    free(times);
    free(orig);
    free(a);
    return bad;
}

int main(int argc, char **argv)
{
    unsigned min_log = argc > 1 ? (unsigned)atoi(argv[1]) : 16;
    unsigned max_log = argc > 2 ? (unsigned)atoi(argv[2]) : 20;
    int reps = argc > 3 ? atoi(argv[3]) : 5;
    unsigned threads = argc > 4 ? (unsigned)atoi(argv[4]) : 0;
    if (reps < 1 || max_log > 28 || min_log > max_log) {
        fprintf(stderr, "usage: bench_ntt [min_log_n [max_log_n [repetitions [threads]]]]\n");
        return 2;
    }
    zkpipe_pool *all = NULL;
    zkpipe_status rc = zkpipe_pool_create(&all, threads, NULL);
    if (rc != ZKPIPE_OK) {
        fprintf(stderr, "pool: %s\n", zkpipe_status_str(rc));
        return 1;
    }
    const field_ops *fields[] = {&bls12_381_fr_ops, &bn254_fr_ops};
    int bad = 0;
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        for (unsigned log_n = min_log; log_n <= max_log; log_n++) {
            bad |= bench_size(fields[i], log_n, NULL, reps);
            if (zkpipe_pool_threads(all) > 1)
                bad |= bench_size(fields[i], log_n, all, reps);
        }
    }
    zkpipe_pool_destroy(all);
    return bad;
}
