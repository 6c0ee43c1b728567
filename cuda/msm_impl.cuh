/* The G1 MSM kernels and launcher, written once; msm_<group>.cu instantiates them for a group
 * with ZKPIPE__CUDA_MSM_INSTANTIATE (one group per file, so the slow device builds of the two
 * run in parallel). Pippenger with signed digits, the digits sorted into buckets by CUB's
 * radix sort; the steps are cuda/msm_kernel.h's (host-tested), one launch each.
 *
 * Only G1 runs here. Groth16's one G2 MSM (B) runs on a CPU thread while the GPU does the G1
 * MSMs, the split production provers use: a G2 point is twice a G1 point's size and each
 * addition costs about three times as much over Fq2, so G2 kernels would double the device
 * memory and the (slow) device build for one MSM the otherwise idle CPU finishes within the
 * GPU's G1 work. */
#ifndef ZKPIPE_CUDA_MSM_IMPL_CUH
#define ZKPIPE_CUDA_MSM_IMPL_CUH

#include <string.h>

#include "cuda/cuda_backend.h"
#include "cuda/device.cuh"
#include "cuda/msm_kernel.h"
#include "msm/xyzz.h"

/* The group G under the name out_G, with its three point additions as calls: the steps inline
 * everything else, but an inlined addition at each of their call sites (the additions branch
 * to doublings, every field product unrolled) took ptxas six minutes per architecture; as
 * calls each compiles once, in seconds. */
#define OUTLINED_GROUP(G)                                                                          \
    typedef G out_##G;                                                                             \
    typedef G##_affine out_##G##_affine;                                                           \
    typedef G##_xyzz out_##G##_xyzz;                                                               \
    static __host__ __device__ __noinline__ void out_##G##_xyzz_add(                               \
        G##_xyzz *r, const G##_xyzz *a, const G##_xyzz *b)                                         \
    {                                                                                              \
        G##_xyzz_add(r, a, b);                                                                     \
    }                                                                                              \
    static __host__ __device__ __noinline__ void out_##G##_xyzz_add_affine(                        \
        G##_xyzz *r, const G##_xyzz *a, const G##_affine *b, int neg)                              \
    {                                                                                              \
        G##_xyzz_add_affine(r, a, b, neg);                                                         \
    }                                                                                              \
    static __host__ __device__ __noinline__ void out_##G##_xyzz_dbl(G##_xyzz *r,                   \
                                                                    const G##_xyzz *a)             \
    {                                                                                              \
        G##_xyzz_dbl(r, a);                                                                        \
    }                                                                                              \
    ZKPIPE_HD void out_##G##_xyzz_set_infinity(G##_xyzz *r)                                        \
    {                                                                                              \
        G##_xyzz_set_infinity(r);                                                                  \
    }                                                                                              \
    ZKPIPE_HD void out_##G##_xyzz_to_jacobian(G *r, const G##_xyzz *a)                             \
    {                                                                                              \
        G##_xyzz_to_jacobian(r, a);                                                                \
    }                                                                                              \
    ZKPIPE_HD int out_##G##_affine_is_infinity(const G##_affine *p)                                \
    {                                                                                              \
        return G##_affine_is_infinity(p);                                                          \
    }                                                                                              \
    ZKPIPE_HD void out_##G##_set_infinity(G *r)                                                    \
    {                                                                                              \
        G##_set_infinity(r);                                                                       \
    }                                                                                              \
    ZKPIPE_HD void out_##G##_dbl(G *r, const G *a)                                                 \
    {                                                                                              \
        G##_dbl(r, a);                                                                             \
    }                                                                                              \
    ZKPIPE_HD void out_##G##_add(G *r, const G *a, const G *b)                                     \
    {                                                                                              \
        G##_add(r, a, b);                                                                          \
    }

/* A group's steps under one name, so the kernels and the launcher are written once. */
#define GROUP_OPS(G)                                                                               \
    struct G##_ops {                                                                               \
        typedef G point;                                                                           \
        typedef G##_affine affine;                                                                 \
        typedef G##_xyzz xyzz;                                                                     \
        static __device__ void digits(uint32_t *k, uint32_t *v, const uint64_t *s, int mont,       \
                                      uint32_t i, uint32_t n, const zkpipe__cuda_msm_shape *sh)    \
        {                                                                                          \
            zkpipe__cuda_out_##G##_digits(k, v, s, mont, i, n, sh);                                \
        }                                                                                          \
        static __device__ void piece_sum(xyzz *out, const affine *bases, const uint32_t *vals,     \
                                         const uint32_t *starts, const uint32_t *ends,             \
                                         const uint32_t *offsets, uint32_t p, uint32_t nkeys)      \
        {                                                                                          \
            zkpipe__cuda_out_##G##_piece_sum(out, bases, vals, starts, ends, offsets, p, nkeys);   \
        }                                                                                          \
        static __device__ void piece_merge(xyzz *out, const xyzz *parts, const uint32_t *off1,     \
                                           const uint32_t *off, uint32_t p, uint32_t nkeys)        \
        {                                                                                          \
            zkpipe__cuda_out_##G##_piece_merge(out, parts, off1, off, p, nkeys);                   \
        }                                                                                          \
        static __device__ void bucket_sum(xyzz *b, const xyzz *parts, const uint32_t *off,         \
                                          uint32_t i)                                              \
        {                                                                                          \
            zkpipe__cuda_out_##G##_bucket_sum(b, parts, off, i);                                   \
        }                                                                                          \
        static __device__ void segment(xyzz *sums, xyzz *runs, const xyzz *b, uint32_t w,          \
                                       uint32_t t, const zkpipe__cuda_msm_shape *sh)               \
        {                                                                                          \
            zkpipe__cuda_out_##G##_segment(sums, runs, b, w, t, sh);                               \
        }                                                                                          \
        static __device__ void window_sum(xyzz *out, const xyzz *sums, const xyzz *runs,           \
                                          uint32_t w, const zkpipe__cuda_msm_shape *sh)            \
        {                                                                                          \
            zkpipe__cuda_out_##G##_window_sum(out, sums, runs, w, sh);                             \
        }                                                                                          \
        static void combine(point *out, const xyzz *wins, const zkpipe__cuda_msm_shape *sh)        \
        {                                                                                          \
            zkpipe__cuda_out_##G##_combine(out, wins, sh);                                         \
        }                                                                                          \
        static void set_infinity(point *p)                                                         \
        {                                                                                          \
            G##_set_infinity(p);                                                                   \
        }                                                                                          \
        static unsigned scalar_bits(int mont)                                                      \
        {                                                                                          \
            return zkpipe__cuda_out_##G##_scalar_bits(mont);                                       \
        }                                                                                          \
    };

/* Most windows a shape has (c = 4 over 256 bits): the host's array of window sums. */
#define MAX_WINDOWS 65

static __global__ void __launch_bounds__(ZKPIPE__CUDA_BLOCK)
    bounds_kernel(uint32_t *starts, uint32_t *ends, const uint32_t *keys, uint32_t total,
                  uint32_t nkeys)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total)
        zkpipe__cuda_msm_bounds(starts, ends, keys, i, total, nkeys);
}

static __global__ void __launch_bounds__(ZKPIPE__CUDA_BLOCK)
    piece_count_kernel(uint32_t *counts, const uint32_t *starts, const uint32_t *ends,
                       uint32_t nkeys)
{
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b <= nkeys)
        zkpipe__cuda_msm_piece_count(counts, starts, ends, b, nkeys);
}

template <class T>
__global__ void __launch_bounds__(ZKPIPE__CUDA_BLOCK)
    digits_kernel(uint32_t *keys, uint32_t *vals, const uint64_t *scalars, int mont, uint32_t n,
                  zkpipe__cuda_msm_shape shape)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        T::digits(keys, vals, scalars, mont, i, n, &shape);
}

/* Launched for the most pieces there can be; the scan's last entry says how many there are. */
template <class T>
__global__ void __launch_bounds__(ZKPIPE__CUDA_BLOCK)
    piece_kernel(typename T::xyzz *partials, const typename T::affine *bases, const uint32_t *vals,
                 const uint32_t *starts, const uint32_t *ends, const uint32_t *offsets,
                 uint32_t nkeys)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < offsets[nkeys])
        T::piece_sum(partials, bases, vals, starts, ends, offsets, p, nkeys);
}

/* The same for the second cut: merged sums of the piece sums. */
template <class T>
__global__ void __launch_bounds__(ZKPIPE__CUDA_BLOCK)
    merge_kernel(typename T::xyzz *merged, const typename T::xyzz *partials,
                 const uint32_t *offsets1, const uint32_t *offsets, uint32_t nkeys)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < offsets[nkeys])
        T::piece_merge(merged, partials, offsets1, offsets, p, nkeys);
}

template <class T>
__global__ void __launch_bounds__(ZKPIPE__CUDA_BLOCK)
    bucket_kernel(typename T::xyzz *buckets, const typename T::xyzz *partials,
                  const uint32_t *offsets, uint32_t nkeys)
{
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < nkeys)
        T::bucket_sum(buckets, partials, offsets, b);
}

template <class T>
__global__ void __launch_bounds__(ZKPIPE__CUDA_BLOCK)
    segment_kernel(typename T::xyzz *sums, typename T::xyzz *runs, const typename T::xyzz *buckets,
                   zkpipe__cuda_msm_shape shape)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < shape.windows * shape.segs)
        T::segment(sums, runs, buckets, i / shape.segs, i % shape.segs, &shape);
}

template <class T>
__global__ void __launch_bounds__(ZKPIPE__CUDA_BLOCK)
    window_kernel(typename T::xyzz *out, const typename T::xyzz *sums, const typename T::xyzz *runs,
                  zkpipe__cuda_msm_shape shape)
{
    uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w < shape.windows)
        T::window_sum(out, sums, runs, w, &shape);
}

/* Device sub-buffers of one MSM, as offsets into its arena. */
struct msm_layout {
    size_t bases, scalars, keys[2], vals[2], starts, ends, counts, offsets, partials, buckets, sums,
        runs, wins, sort_temp, scan_temp, offsets2, merged;
    size_t sort_bytes, scan_bytes;
};

/* The most merged sums there can be, for at most max_pieces pieces over nkeys buckets. */
static inline uint32_t merged_bound(uint32_t max_pieces, uint32_t nkeys)
{
    return max_pieces / ZKPIPE__CUDA_MSM_PIECE + nkeys;
}

/* The launch sequence after the inputs are on the device; the window sums end in `wins`. */
template <class T>
static zkpipe_status msm_steps(typename T::xyzz *wins, const zkpipe__cuda_arena *a,
                               const msm_layout *l, const zkpipe__cuda_msm_shape *s, uint32_t n,
                               uint32_t max_pieces, int mont, int end_bit, cudaStream_t stream)
{
    typedef typename T::xyzz xyzz;
#define AT(type, field) ((type *)zkpipe__cuda_arena_at(a, l->field))
    uint32_t total = s->windows * n;
    uint32_t *keys[2] = {AT(uint32_t, keys[0]), AT(uint32_t, keys[1])};
    uint32_t *vals[2] = {AT(uint32_t, vals[0]), AT(uint32_t, vals[1])};
    uint32_t *starts = AT(uint32_t, starts), *ends = AT(uint32_t, ends);
    uint32_t *counts = AT(uint32_t, counts), *offsets = AT(uint32_t, offsets);
    uint32_t *offsets2 = AT(uint32_t, offsets2);
    xyzz *partials = AT(xyzz, partials), *merged = AT(xyzz, merged), *buckets = AT(xyzz, buckets);
    xyzz *sums = AT(xyzz, sums), *runs = AT(xyzz, runs), *dwins = AT(xyzz, wins);
    size_t sort_bytes = l->sort_bytes, scan_bytes = l->scan_bytes;
    int current = 0;
    cudaError_t err;
    const char *what = "cudaMemsetAsync";
    if ((err = cudaMemsetAsync(starts, 0, s->nkeys * sizeof(uint32_t), stream)) != cudaSuccess ||
        (err = cudaMemsetAsync(ends, 0, s->nkeys * sizeof(uint32_t), stream)) != cudaSuccess)
        return zkpipe__cuda_fail(err, what);
    digits_kernel<T><<<zkpipe__cuda_blocks(n), ZKPIPE__CUDA_BLOCK, 0, stream>>>(
        keys[0], vals[0], AT(uint64_t, scalars), mont, n, *s);
    what = "MSM digits";
    if ((err = cudaGetLastError()) != cudaSuccess)
        return zkpipe__cuda_fail(err, what);
    what = "MSM digit sort";
    if ((err = zkpipe__cuda_sort_pairs(AT(void, sort_temp), &sort_bytes, keys, vals, &current,
                                       total, end_bit, stream)) != cudaSuccess)
        return zkpipe__cuda_fail(err, what);
    bounds_kernel<<<zkpipe__cuda_blocks(total), ZKPIPE__CUDA_BLOCK, 0, stream>>>(
        starts, ends, keys[current], total, s->nkeys);
    piece_count_kernel<<<zkpipe__cuda_blocks(s->nkeys + 1), ZKPIPE__CUDA_BLOCK, 0, stream>>>(
        counts, starts, ends, s->nkeys);
    what = "MSM bucket bounds";
    if ((err = cudaGetLastError()) != cudaSuccess)
        return zkpipe__cuda_fail(err, what);
    what = "MSM piece scan";
    if ((err = zkpipe__cuda_exclusive_sum(AT(void, scan_temp), &scan_bytes, counts, offsets,
                                          s->nkeys + 1, stream)) != cudaSuccess)
        return zkpipe__cuda_fail(err, what);
    piece_kernel<T><<<zkpipe__cuda_blocks(max_pieces), ZKPIPE__CUDA_BLOCK, 0, stream>>>(
        partials, AT(typename T::affine, bases), vals[current], starts, ends, offsets, s->nkeys);
    piece_count_kernel<<<zkpipe__cuda_blocks(s->nkeys + 1), ZKPIPE__CUDA_BLOCK, 0, stream>>>(
        counts, offsets, offsets + 1, s->nkeys);
    what = "MSM pieces";
    if ((err = cudaGetLastError()) != cudaSuccess)
        return zkpipe__cuda_fail(err, what);
    what = "MSM merge scan";
    if ((err = zkpipe__cuda_exclusive_sum(AT(void, scan_temp), &scan_bytes, counts, offsets2,
                                          s->nkeys + 1, stream)) != cudaSuccess)
        return zkpipe__cuda_fail(err, what);
    merge_kernel<T><<<zkpipe__cuda_blocks(merged_bound(max_pieces, s->nkeys)), ZKPIPE__CUDA_BLOCK,
                      0, stream>>>(merged, partials, offsets, offsets2, s->nkeys);
    bucket_kernel<T><<<zkpipe__cuda_blocks(s->nkeys), ZKPIPE__CUDA_BLOCK, 0, stream>>>(
        buckets, merged, offsets2, s->nkeys);
    segment_kernel<T><<<zkpipe__cuda_blocks(s->windows * s->segs), ZKPIPE__CUDA_BLOCK, 0, stream>>>(
        sums, runs, buckets, *s);
    window_kernel<T>
        <<<zkpipe__cuda_blocks(s->windows), ZKPIPE__CUDA_BLOCK, 0, stream>>>(dwins, sums, runs, *s);
    what = "MSM bucket sums";
    if ((err = cudaGetLastError()) != cudaSuccess)
        return zkpipe__cuda_fail(err, what);
    what = "MSM result copy";
    if ((err = cudaMemcpyAsync(wins, dwins, s->windows * sizeof(xyzz), cudaMemcpyDeviceToHost,
                               stream)) != cudaSuccess ||
        (err = cudaStreamSynchronize(stream)) != cudaSuccess)
        return zkpipe__cuda_fail(err, what);
    return ZKPIPE_OK;
#undef AT
}

/* Plans every sub-buffer, CUB's scratch included (its size query runs nothing). */
template <class T>
static zkpipe_status msm_plan(msm_layout *l, zkpipe__cuda_arena *a, const zkpipe__cuda_msm_shape *s,
                              uint32_t n, uint32_t max_pieces, int end_bit)
{
    typedef typename T::xyzz xyzz;
    uint32_t total = s->windows * n, *none[2] = {NULL, NULL};
    int current;
    cudaError_t err;
    l->sort_bytes = l->scan_bytes = 0;
    if ((err = zkpipe__cuda_sort_pairs(NULL, &l->sort_bytes, none, none, &current, total, end_bit,
                                       0)) != cudaSuccess ||
        (err = zkpipe__cuda_exclusive_sum(NULL, &l->scan_bytes, NULL, NULL, s->nkeys + 1, 0)) !=
            cudaSuccess)
        return zkpipe__cuda_fail(err, "CUB scratch size");
    a->bytes = 0;
    l->bases = zkpipe__cuda_arena_plan(a, (size_t)n * sizeof(typename T::affine));
    l->scalars = zkpipe__cuda_arena_plan(a, (size_t)n * 4 * sizeof(uint64_t));
    for (int k = 0; k < 2; k++) {
        l->keys[k] = zkpipe__cuda_arena_plan(a, (size_t)total * sizeof(uint32_t));
        l->vals[k] = zkpipe__cuda_arena_plan(a, (size_t)total * sizeof(uint32_t));
    }
    l->starts = zkpipe__cuda_arena_plan(a, (size_t)s->nkeys * sizeof(uint32_t));
    l->ends = zkpipe__cuda_arena_plan(a, (size_t)s->nkeys * sizeof(uint32_t));
    l->counts = zkpipe__cuda_arena_plan(a, ((size_t)s->nkeys + 1) * sizeof(uint32_t));
    l->offsets = zkpipe__cuda_arena_plan(a, ((size_t)s->nkeys + 1) * sizeof(uint32_t));
    l->partials = zkpipe__cuda_arena_plan(a, (size_t)max_pieces * sizeof(xyzz));
    l->offsets2 = zkpipe__cuda_arena_plan(a, ((size_t)s->nkeys + 1) * sizeof(uint32_t));
    l->merged =
        zkpipe__cuda_arena_plan(a, (size_t)merged_bound(max_pieces, s->nkeys) * sizeof(xyzz));
    l->buckets = zkpipe__cuda_arena_plan(a, (size_t)s->nkeys * sizeof(xyzz));
    l->sums = zkpipe__cuda_arena_plan(a, (size_t)s->windows * s->segs * sizeof(xyzz));
    l->runs = zkpipe__cuda_arena_plan(a, (size_t)s->windows * s->segs * sizeof(xyzz));
    l->wins = zkpipe__cuda_arena_plan(a, (size_t)s->windows * sizeof(xyzz));
    l->sort_temp = zkpipe__cuda_arena_plan(a, l->sort_bytes);
    l->scan_temp = zkpipe__cuda_arena_plan(a, l->scan_bytes);
    return ZKPIPE_OK;
}

static size_t count_dense(const uint64_t *density, size_t nvars)
{
    size_t count = 0;
    for (size_t v = 0; v < nvars; v++)
        count += density[v / 64] >> (v % 64) & 1;
    return count;
}

template <class T>
static zkpipe_status msm(typename T::point *out, const typename T::affine *bases,
                         const uint64_t *scalars, const uint64_t *density, size_t nvars, int mont,
                         zkpipe_ledger *ledger)
{
    typedef typename T::xyzz xyzz;
    if (out == NULL || (nvars > 0 && scalars == NULL))
        return ZKPIPE_EINVAL;
    size_t n = density != NULL ? count_dense(density, nvars) : nvars;
    if (n > 0 && bases == NULL)
        return ZKPIPE_EINVAL;
    if (n == 0) {
        T::set_infinity(out);
        return ZKPIPE_OK;
    }
    zkpipe__cuda_msm_shape s;
    zkpipe__cuda_msm_shape_make(&s, n, T::scalar_bits(mont));
    if (n >= ((size_t)1 << 31) / s.windows)
        return ZKPIPE_ETOOBIG;
    uint32_t total = s.windows * (uint32_t)n;
    uint32_t max_pieces = total / ZKPIPE__CUDA_MSM_PIECE + s.nkeys;
    int end_bit = 1;
    while (s.nkeys >> end_bit)
        end_bit++; /* the sentinel key nkeys sorts too */

    msm_layout l;
    zkpipe__cuda_arena arena;
    cudaStream_t stream;
    void *pinned;
    size_t scalar_bytes = n * 4 * sizeof(uint64_t);
    xyzz wins[MAX_WINDOWS];
    zkpipe_status st = msm_plan<T>(&l, &arena, &s, (uint32_t)n, max_pieces, end_bit);
    if (st != ZKPIPE_OK || (st = zkpipe__cuda_arena_alloc(&arena, ledger)) != ZKPIPE_OK)
        return st;
    cudaError_t err = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (err != cudaSuccess) {
        zkpipe__cuda_arena_free(&arena);
        return zkpipe__cuda_fail(err, "cudaStreamCreate");
    }
    if ((st = zkpipe__cuda_pinned_alloc(&pinned, scalar_bytes, ledger)) == ZKPIPE_OK) {
        uint64_t *dense = (uint64_t *)pinned;
        for (size_t v = 0, j = 0; v < nvars; v++)
            if (density == NULL || (density[v / 64] >> (v % 64) & 1))
                memcpy(dense + 4 * j++, scalars + 4 * v, 4 * sizeof(uint64_t));
        if ((err = cudaMemcpyAsync(zkpipe__cuda_arena_at(&arena, l.bases), bases,
                                   n * sizeof(typename T::affine), cudaMemcpyHostToDevice,
                                   stream)) != cudaSuccess ||
            (err = cudaMemcpyAsync(zkpipe__cuda_arena_at(&arena, l.scalars), pinned, scalar_bytes,
                                   cudaMemcpyHostToDevice, stream)) != cudaSuccess)
            st = zkpipe__cuda_fail(err, "MSM upload");
        if (st == ZKPIPE_OK) {
            zkpipe__cuda_timer timer;
            zkpipe__cuda_timer_start(&timer, stream);
            st = msm_steps<T>(wins, &arena, &l, &s, (uint32_t)n, max_pieces, mont, end_bit, stream);
            zkpipe__cuda_timer_stop(&timer, stream);
        }
        if (st == ZKPIPE_OK)
            T::combine(out, wins, &s);
        cudaStreamSynchronize(stream);
        zkpipe__cuda_pinned_free(pinned, scalar_bytes, ledger);
    }
    cudaStreamDestroy(stream);
    zkpipe__cuda_arena_free(&arena);
    return st;
}

#define MSM_LAUNCHER(G)                                                                            \
    extern "C" zkpipe_status zkpipe__cuda_msm_##G(                                                 \
        G *out, const G##_affine *bases, const uint64_t *scalars, const uint64_t *density,         \
        size_t nvars, int mont, zkpipe_ledger *ledger)                                             \
    {                                                                                              \
        return msm<G##_ops>(out, bases, scalars, density, nvars, mont, ledger);                    \
    }

/* Everything for the group G over F with scalar field FR: its XYZZ buckets (msm/xyzz.h), the
 * outlined additions, the steps of msm_kernel.h and the launcher zkpipe__cuda_msm_G. */
#define ZKPIPE__CUDA_MSM_INSTANTIATE(G, F, FR)                                                     \
    ZKPIPE__MSM_DEFINE_XYZZ(G, F)                                                                  \
    OUTLINED_GROUP(G)                                                                              \
    ZKPIPE__CUDA_MSM_DEFINE(out_##G, F, FR)                                                        \
    GROUP_OPS(G)                                                                                   \
    MSM_LAUNCHER(G)

#endif
