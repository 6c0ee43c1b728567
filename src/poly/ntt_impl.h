/* The NTT written once for every field: a .c file defines NTT_F to a field type whose header
 * it has included (e.g. bls12_381_fr) and includes this file, which defines the functions
 * declared in ntt.h for that field. The field operations are static inline, so the butterfly
 * compiles to straight-line code for the field's limb count.
 *
 * Transform layout: bit-reversal permutation, then the radix-2 DIT stages in groups. A group
 * of b consecutive stages starting at half-size M splits into independent sub-transforms of
 * 2^b elements at stride M; each task runs a whole group on a few neighbouring
 * sub-transforms (ROW of them, so each row read is contiguous) before moving on, which keeps
 * its working set in cache and touches the whole array once per group, not once per stage.
 * On the IFMA lanes (the .c file defines NTT_X8 and NTT_X8_FIRST3 on x86-64) a stage's runs of
 * eight or more butterflies go eight at a time, and the first three stages, whose runs are
 * shorter, go to a radix-8 kernel that takes eight sub-transforms at a time (ntt_x8.h). */
#include <stdbool.h>

#include "core/alloc_internal.h"
#include "core/pool_internal.h"
#include "poly/ntt.h"

#define NTT_CAT_(a, b) a##b
#define NTT_CAT(a, b) NTT_CAT_(a, b)
#define FE NTT_F
#define FOP(op) NTT_CAT(NTT_F, _##op)
#define API(name) NTT_CAT(NTT_CAT(zkpipe__, NTT_F), _##name)
#define DOMAIN API(domain)

/* The first group: 2^10 elements (32 KiB) per task, an L1 data cache. */
#define FIRST_GROUP_BITS 10
/* Later groups: ROW sub-transforms of 2^8 elements each (128 KiB), an L2 cache. */
#define LATER_GROUP_BITS 8
#define ROW 16

struct DOMAIN {
    zkpipe_allocator allocator;
    size_t n;
    unsigned log_n;
    FE generator;
    FE n_inv;
    FE *twiddles; /* n - 1 elements, in the block after this header */
};

/* The header, padded so the twiddles after it start on a cache line. */
#define HEADER_BYTES ((sizeof(struct DOMAIN) + 63) / 64 * 64)

/* r = base^e for a one-limb exponent. */
static void power_u64(FE *r, const FE *base, uint64_t e)
{
    FOP(pow)(r, base, &e, 1);
}

zkpipe_status API(root_of_unity)(FE *out, unsigned log_n)
{
    if (out == NULL)
        return ZKPIPE_EINVAL;
    if (log_n > NTT_CAT(NTT_F, _TWO_ADICITY))
        return ZKPIPE_ETOOBIG;
    FE w = NTT_CAT(NTT_F, _ROOT_OF_UNITY);
    for (unsigned i = log_n; i < NTT_CAT(NTT_F, _TWO_ADICITY); i++)
        FOP(sqr)(&w, &w);
    *out = w;
    return ZKPIPE_OK;
}

size_t API(domain_estimate)(unsigned log_n)
{
    if (log_n > NTT_CAT(NTT_F, _TWO_ADICITY) || log_n >= sizeof(size_t) * 8)
        return 0;
    size_t twiddles = ((size_t)1 << log_n) - 1;
    if (twiddles > (SIZE_MAX - HEADER_BYTES) / sizeof(FE))
        return 0;
    return HEADER_BYTES + twiddles * sizeof(FE);
}

/* Elements per chunk of an element-wise loop (zkpipe__pool_chunk): a multiplication or a swap
 * each, so a small domain's loops run on the caller and a large one's keep the pool's split. */
#define GRAIN_MUL 512
#define GRAIN_SWAP 4096

/* out[k] = base^k for k in [begin, end), each chunk starting from one exponentiation. */
struct powers_job {
    FE *out;
    FE base;
};

static void powers_body(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    struct powers_job *job = ctx;
    FE w;
    power_u64(&w, &job->base, begin);
    for (size_t k = begin; k < end; k++) {
        job->out[k] = w;
        FOP(mul)(&w, &w, &job->base);
    }
}

zkpipe_status API(domain_create)(DOMAIN **out, unsigned log_n, zkpipe_pool *pool,
                                 const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out == NULL || a == NULL)
        return ZKPIPE_EINVAL;
    size_t bytes = API(domain_estimate)(log_n);
    if (bytes == 0)
        return ZKPIPE_ETOOBIG;
    DOMAIN *d = zkpipe__alloc(a, bytes, 64);
    if (d == NULL)
        return ZKPIPE_ENOMEM;
    d->allocator = *a;
    d->n = (size_t)1 << log_n;
    d->log_n = log_n;
    d->twiddles = (FE *)((unsigned char *)d + HEADER_BYTES);
    API(root_of_unity)(&d->generator, log_n);
    FE n_fe;
    FOP(from_u64)(&n_fe, d->n);
    FOP(inv)(&d->n_inv, &n_fe);

    if (d->n > 1) {
        /* The last stage's w_n^k, k < n/2, then each earlier stage takes every other one. */
        size_t half = d->n / 2;
        struct powers_job job = {d->twiddles + half - 1, d->generator};
        zkpipe_pool_parallel_for(pool, half, zkpipe__pool_chunk(pool, half, GRAIN_MUL), powers_body,
                                 &job);
        for (size_t m = half / 2; m >= 1; m /= 2) {
            FE *stage = d->twiddles + m - 1;
            const FE *next = d->twiddles + 2 * m - 1;
            for (size_t k = 0; k < m; k++)
                stage[k] = next[2 * k];
        }
    }
    *out = d;
    return ZKPIPE_OK;
}

void API(domain_destroy)(DOMAIN *d)
{
    if (d == NULL)
        return;
    zkpipe_allocator a = d->allocator;
    zkpipe__free(&a, d);
}

size_t API(domain_sizeof)(const DOMAIN *d)
{
    return d == NULL ? 0 : API(domain_estimate)(d->log_n);
}

size_t API(domain_size)(const DOMAIN *d)
{
    return d->n;
}

unsigned API(domain_log_size)(const DOMAIN *d)
{
    return d->log_n;
}

void API(domain_generator)(FE *out, const DOMAIN *d)
{
    *out = d->generator;
}

static size_t bit_reverse(size_t i, unsigned bits)
{
    uint64_t x = i;
    x = (x >> 1 & 0x5555555555555555u) | (x & 0x5555555555555555u) << 1;
    x = (x >> 2 & 0x3333333333333333u) | (x & 0x3333333333333333u) << 2;
    x = (x >> 4 & 0x0f0f0f0f0f0f0f0fu) | (x & 0x0f0f0f0f0f0f0f0fu) << 4;
    x = (x >> 8 & 0x00ff00ff00ff00ffu) | (x & 0x00ff00ff00ff00ffu) << 8;
    x = (x >> 16 & 0x0000ffff0000ffffu) | (x & 0x0000ffff0000ffffu) << 16;
    x = x >> 32 | x << 32;
    return bits == 0 ? 0 : (size_t)(x >> (64 - bits));
}

struct transform_job {
    FE *a;
    const DOMAIN *d;
    size_t stride;    /* M: half-size of the group's first stage */
    size_t span;      /* M 2^b: elements one sub-transform spans */
    size_t row;       /* neighbouring sub-transforms per task */
    FE factor, ratio; /* scaling jobs: a_i <- a_i factor ratio^i */
};

static void swap(FE *x, FE *y)
{
    FE t = *x;
    *x = *y;
    *y = t;
}

/* Each index pairs with its bit reverse once: the smaller one swaps. */
static void bit_reverse_body(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    struct transform_job *job = ctx;
    for (size_t i = begin; i < end; i++) {
        size_t r = bit_reverse(i, job->d->log_n);
        if (i < r)
            swap(&job->a[i], &job->a[r]);
    }
}

/* The same permutation in tiles, for arrays larger than the caches. Writing an index as
 * (hi, mid, lo), hi and lo of TILE_BITS bits, its reverse is (rev lo, rev mid, rev hi): the
 * 2^(2 TILE_BITS) elements of mid's tile trade places with those of rev mid's tile, and both
 * tiles (8 KiB each) stay in L1 during the exchange instead of missing on every element. */
#define TILE_BITS 4

static void bit_reverse_tiles_body(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    struct transform_job *job = ctx;
    const unsigned log_n = job->d->log_n, high = log_n - TILE_BITS;
    const size_t side = (size_t)1 << TILE_BITS;
    for (size_t mid = begin; mid < end; mid++) {
        size_t rmid = bit_reverse(mid, log_n - 2 * TILE_BITS);
        if (rmid < mid)
            continue;
        for (size_t hi = 0; hi < side; hi++) {
            size_t rhi = bit_reverse(hi, TILE_BITS);
            for (size_t lo = 0; lo < side; lo++) {
                size_t i = hi << high | mid << TILE_BITS | lo;
                size_t r = bit_reverse(lo, TILE_BITS) << high | rmid << TILE_BITS | rhi;
                if (mid != rmid || i < r)
                    swap(&job->a[i], &job->a[r]);
            }
        }
    }
}

static inline void butterfly(FE *x, FE *y, const FE *w)
{
    FE t;
    FOP(mul)(&t, y, w);
    FOP(sub)(y, x, &t);
    FOP(add)(x, x, &t);
}

/* Butterflies k in [k, stop) of one stage: where the CPU has the IFMA lanes (NTT_X8, defined by
 * the .c file on x86-64), eight at a time, the rest one by one. Butterfly 0 (w^0 = 1) saves
 * its multiplication when it is left to the scalar loop; the lanes take it with the seven
 * after it, which would otherwise all run one by one (on a domain of 2^17, 7/8 n scalar
 * butterflies a transform). */
static inline void butterflies(FE *lo, FE *hi, const FE *w, size_t k, size_t stop)
{
#ifdef NTT_X8
    size_t lanes = (stop - k) / 8 * 8;
    if (lanes > 0 && zkpipe__ff_x86_ifma) {
        NTT_X8(lo + k, hi + k, w + k, lanes);
        k += lanes;
    }
#endif
    if (k == 0 && stop > 0) {
        FE t = hi[0];
        FOP(sub)(&hi[0], &lo[0], &t);
        FOP(add)(&lo[0], &lo[0], &t);
        k = 1;
    }
    for (; k < stop; k++)
        butterfly(&lo[k], &hi[k], &w[k]);
}

/* Runs the group's stages on sub-transforms [first, first + row) of the span at `a`. A task
 * that takes every sub-transform (row = stride, first = 0) runs each stage's k over [0, m) in
 * one piece, which the lanes take eight at a time. */
static void run_group(FE *a, const FE *twiddles, size_t stride, size_t span, size_t first,
                      size_t row)
{
    size_t m = stride;
#ifdef NTT_X8_FIRST3
    /* The first three stages, whose runs of butterflies are shorter than the lanes, eight
     * sub-transforms at a time across the lanes instead. */
    if (stride == 1 && span >= 64 && zkpipe__ff_x86_ifma) {
        NTT_X8_FIRST3(a, span, twiddles + 3);
        m = 8;
    }
#endif
    for (; m < span; m *= 2) {
        const FE *w = twiddles + m - 1;
        size_t step = row == stride ? m : stride, run = row == stride ? m : row;
        for (size_t g = 0; g < span; g += 2 * m) {
            FE *lo = a + g, *hi = a + g + m;
            for (size_t k0 = 0; k0 < m; k0 += step) {
                size_t k = k0 + first, stop = k + run;
                butterflies(lo, hi, w, k, stop);
            }
        }
    }
}

static void group_body(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    struct transform_job *job = ctx;
    size_t tasks_per_span = job->stride / job->row;
    for (size_t t = begin; t < end; t++) {
        size_t span = t / tasks_per_span, first = t % tasks_per_span * job->row;
        run_group(job->a + span * job->span, job->d->twiddles, job->stride, job->span, first,
                  job->row);
    }
}

/* The unscaled forward transform, natural order in and out. */
static void transform(FE *a, const DOMAIN *d, zkpipe_pool *pool)
{
    if (d->n == 1)
        return;
    struct transform_job job = {.a = a, .d = d};
    if (d->log_n >= 2 * TILE_BITS)
        zkpipe_pool_parallel_for(
            pool, d->n >> 2 * TILE_BITS,
            zkpipe__pool_chunk(pool, d->n >> 2 * TILE_BITS, GRAIN_SWAP >> 2 * TILE_BITS),
            bit_reverse_tiles_body, &job);
    else
        zkpipe_pool_parallel_for(pool, d->n, zkpipe__pool_chunk(pool, d->n, GRAIN_SWAP),
                                 bit_reverse_body, &job);
    for (unsigned done = 0; done < d->log_n;) {
        unsigned bits = done == 0 ? FIRST_GROUP_BITS : LATER_GROUP_BITS;
        if (bits > d->log_n - done)
            bits = d->log_n - done;
        job.stride = (size_t)1 << done;
        job.span = job.stride << bits;
        job.row = job.stride < ROW ? job.stride : ROW;
        size_t tasks = d->n / job.span * (job.stride / job.row);
        zkpipe_pool_parallel_for(pool, tasks, 0, group_body, &job);
        done += bits;
    }
}

/* a_j <-> a_{n-j}, times `factor` unless it is one: turns a forward transform into an
 * inverse. */
static void negate_indices_body(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    struct transform_job *job = ctx;
    FE *a = job->a;
    size_t n = job->d->n;
    bool scaled = !FOP(is_one)(&job->factor);
    for (size_t j = begin; j < end; j++) {
        bool pair = j != 0 && j != n / 2; /* 0 and n/2 are their own negatives */
        if (pair)
            swap(&a[j], &a[n - j]);
        if (scaled)
            FOP(mul)(&a[j], &a[j], &job->factor);
        if (scaled && pair)
            FOP(mul)(&a[n - j], &a[n - j], &job->factor);
    }
}

/* a_i <- a_i factor ratio^i. */
static void scale_body(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    struct transform_job *job = ctx;
    FE w;
    power_u64(&w, &job->ratio, begin);
    FOP(mul)(&w, &w, &job->factor);
    if (FOP(is_one)(&job->ratio)) {
        for (size_t i = begin; i < end; i++)
            FOP(mul)(&job->a[i], &job->a[i], &w);
        return;
    }
    for (size_t i = begin; i < end; i++) {
        FOP(mul)(&job->a[i], &job->a[i], &w);
        FOP(mul)(&w, &w, &job->ratio);
    }
}

static void scale(FE *a, const DOMAIN *d, const FE *factor, const FE *ratio, zkpipe_pool *pool)
{
    struct transform_job job = {.a = a, .d = d, .factor = *factor, .ratio = *ratio};
    zkpipe_pool_parallel_for(pool, d->n, zkpipe__pool_chunk(pool, d->n, GRAIN_MUL), scale_body,
                             &job);
}

static void inverse_transform(FE *a, const DOMAIN *d, const FE *factor, zkpipe_pool *pool)
{
    transform(a, d, pool);
    struct transform_job job = {.a = a, .d = d, .factor = *factor};
    zkpipe_pool_parallel_for(pool, d->n / 2 + 1, zkpipe__pool_chunk(pool, d->n / 2 + 1, GRAIN_MUL),
                             negate_indices_body, &job);
}

zkpipe_status API(ntt)(FE *a, const DOMAIN *d, zkpipe_pool *pool)
{
    if (a == NULL || d == NULL)
        return ZKPIPE_EINVAL;
    transform(a, d, pool);
    return ZKPIPE_OK;
}

zkpipe_status API(intt)(FE *a, const DOMAIN *d, zkpipe_pool *pool)
{
    if (a == NULL || d == NULL)
        return ZKPIPE_EINVAL;
    inverse_transform(a, d, &d->n_inv, pool);
    return ZKPIPE_OK;
}

zkpipe_status API(coset_ntt)(FE *a, const DOMAIN *d, const FE *shift, zkpipe_pool *pool)
{
    if (a == NULL || d == NULL || shift == NULL || FOP(is_zero)(shift))
        return ZKPIPE_EINVAL;
    FE one;
    FOP(set_one)(&one);
    scale(a, d, &one, shift, pool);
    transform(a, d, pool);
    return ZKPIPE_OK;
}

zkpipe_status API(coset_intt)(FE *a, const DOMAIN *d, const FE *shift, zkpipe_pool *pool)
{
    FE shift_inv, one;
    if (a == NULL || d == NULL || shift == NULL || !FOP(inv)(&shift_inv, shift))
        return ZKPIPE_EINVAL;
    FOP(set_one)(&one);
    inverse_transform(a, d, &one, pool);
    scale(a, d, &d->n_inv, &shift_inv, pool);
    return ZKPIPE_OK;
}

zkpipe_status API(vanishing_on_coset)(FE *out, const DOMAIN *d, const FE *shift)
{
    if (out == NULL || d == NULL || shift == NULL)
        return ZKPIPE_EINVAL;
    FE z = *shift, one;
    for (unsigned i = 0; i < d->log_n; i++)
        FOP(sqr)(&z, &z);
    FOP(set_one)(&one);
    FOP(sub)(out, &z, &one);
    return ZKPIPE_OK;
}

zkpipe_status API(divide_by_vanishing_on_coset)(FE *a, const DOMAIN *d, const FE *shift,
                                                zkpipe_pool *pool)
{
    FE z, z_inv, one;
    if (a == NULL || API(vanishing_on_coset)(&z, d, shift) != ZKPIPE_OK || !FOP(inv)(&z_inv, &z))
        return ZKPIPE_EINVAL;
    FOP(set_one)(&one);
    scale(a, d, &z_inv, &one, pool);
    return ZKPIPE_OK;
}
