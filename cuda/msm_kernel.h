/* The GPU MSM's per-thread steps, written once for the device kernels (msm_impl.cuh) and for a
 * host test that runs them serially, thread index by thread index (tests/test_cuda_host.c): every
 * step a kernel takes is here, the kernels only map thread indices onto these functions.
 *
 * The method (Pippenger with signed digits and digit sorting):
 * 1. digits: scalar i gives one signed Booth digit d per window w, in [-2^(c-1), 2^(c-1)];
 *    it becomes the pair (key, value) = (w 2^(c-1) + |d| - 1, i | sign << 31), or the key
 *    `nkeys` (sorted past every bucket, ignored) for d = 0. windows * npoints pairs.
 * 2. sort the pairs by key (CUB radix sort): each bucket's points become one run.
 * 3. bounds: each run's first and one-past-last position, per key (empty: 0, 0).
 * 4. pieces: a run is cut into pieces of at most PIECE points, so a bucket that many points
 *    fall into (scalars 0 and 1 are common in witnesses) is summed by many threads; an
 *    exclusive scan of the piece counts numbers the pieces, and a piece finds its bucket by
 *    binary search over those offsets.
 * 5. piece sums (one thread per piece); the same cut again over each bucket's piece sums
 *    (a bucket of 2^18 points: 4096 piece sums, 64 merged sums); then bucket sums (one thread
 *    per bucket, over its merged sums).
 * 6. bucket reduction Σ_b (b + 1) bucket_b per window, in SEG-bucket segments: a thread per
 *    segment returns its running-sum total and its plain sum; one thread per window combines
 *    the segments; the host combines the windows by Horner's rule (c doublings each).
 *
 * ZKPIPE__CUDA_MSM_DEFINE(G, F, FR) defines, for the group G over F with scalar field FR (and
 * the XYZZ type of msm/xyzz.h, G_xyzz, which must be defined first), the functions
 * zkpipe__cuda_G_<step> below. Indices are 32-bit: windows * npoints must stay below 2^31. */
#ifndef ZKPIPE_CUDA_MSM_KERNEL_H
#define ZKPIPE_CUDA_MSM_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "ff/hd.h"

/* Points per piece of a bucket's run. */
#define ZKPIPE__CUDA_MSM_PIECE 64u
/* Buckets per reduction segment (fewer when a window has fewer). */
#define ZKPIPE__CUDA_MSM_SEG 256u
/* Widest window: 2^15 buckets per window, keys below 2^20. */
#define ZKPIPE__CUDA_MSM_MAX_WINDOW 16u
/* The sign bit of a sorted value; the low 31 bits are the point index. */
#define ZKPIPE__CUDA_MSM_NEG 0x80000000u

/* The shape of one MSM: window c, windows, buckets per window, keys (windows * buckets),
 * segments per window. */
typedef struct zkpipe__cuda_msm_shape {
    unsigned window, windows;
    uint32_t buckets, nkeys, segs, seg;
} zkpipe__cuda_msm_shape;

/* c grows with log2(npoints) (buckets sum about 8 points each at best, since a bucket costs a
 * full addition in the reduction), between 4 and ZKPIPE__CUDA_MSM_MAX_WINDOW; `bits` is the
 * scalars' bit length. */
ZKPIPE_HD void zkpipe__cuda_msm_shape_make(zkpipe__cuda_msm_shape *s, size_t npoints, unsigned bits)
{
    unsigned log = 0;
    while (log < 63 && ((size_t)1 << (log + 1)) <= npoints)
        log++;
    unsigned c = log > 7 ? log - 3 : 4;
    if (c > ZKPIPE__CUDA_MSM_MAX_WINDOW)
        c = ZKPIPE__CUDA_MSM_MAX_WINDOW;
    s->window = c;
    s->windows = (bits + 1 + c - 1) / c; /* the extra bit takes the top digit's carry */
    s->buckets = (uint32_t)1 << (c - 1);
    s->nkeys = s->buckets * s->windows;
    s->seg = s->buckets < ZKPIPE__CUDA_MSM_SEG ? s->buckets : ZKPIPE__CUDA_MSM_SEG;
    s->segs = s->buckets / s->seg;
}

/* `count` (at most 63) bits of the 4-limb integer k from bit `lo` up; bits past 255 read 0. */
ZKPIPE_HD uint64_t zkpipe__cuda_scalar_bits(const uint64_t *k, unsigned lo, unsigned count)
{
    unsigned limb = lo / 64, shift = lo % 64;
    if (limb >= 4)
        return 0;
    uint64_t w = k[limb] >> shift;
    if (shift != 0 && limb + 1 < 4)
        w |= k[limb + 1] << (64 - shift);
    return w & (((uint64_t)1 << count) - 1);
}

/* The signed digit of window j: with v = bits jc - 1 .. jc + c - 1 of k (bit -1 is 0), the
 * digit is ceil(v / 2), less 2^c when v's top bit is set; that bit comes back as the low bit
 * read by window j + 1, so the digits sum to k: Σ d_j 2^(jc) = k. */
ZKPIPE_HD int zkpipe__cuda_booth_digit(const uint64_t *k, unsigned j, unsigned c)
{
    uint64_t v = j == 0 ? zkpipe__cuda_scalar_bits(k, 0, c) << 1
                        : zkpipe__cuda_scalar_bits(k, j * c - 1, c + 1);
    return (int)((v + 1) >> 1) - (int)((v >> c) << c);
}

/* Step 3 for sorted position i of `total`: records where key runs start and end. */
ZKPIPE_HD void zkpipe__cuda_msm_bounds(uint32_t *starts, uint32_t *ends, const uint32_t *keys,
                                       uint32_t i, uint32_t total, uint32_t nkeys)
{
    uint32_t key = keys[i];
    if (key >= nkeys)
        return;
    if (i == 0 || keys[i - 1] != key)
        starts[key] = i;
    if (i + 1 == total || keys[i + 1] != key)
        ends[key] = i + 1;
}

/* Step 4, before the scan: the pieces of bucket key b (the entry at nkeys is 0, so the scan's
 * last entry is the total). */
ZKPIPE_HD void zkpipe__cuda_msm_piece_count(uint32_t *counts, const uint32_t *starts,
                                            const uint32_t *ends, uint32_t b, uint32_t nkeys)
{
    counts[b] =
        b < nkeys ? (ends[b] - starts[b] + ZKPIPE__CUDA_MSM_PIECE - 1) / ZKPIPE__CUDA_MSM_PIECE : 0;
}

/* Step 4, after the scan: the bucket piece p belongs to, the last b with offsets[b] <= p
 * (offsets has nkeys + 1 entries; p < offsets[nkeys]). The pieces of a second cut (step 5)
 * are counted with starts = offsets and ends = offsets + 1. */
ZKPIPE_HD uint32_t zkpipe__cuda_msm_piece_owner(const uint32_t *offsets, uint32_t p, uint32_t nkeys)
{
    uint32_t lo = 0, hi = nkeys; /* offsets[lo] <= p < offsets[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (offsets[mid] <= p)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Piece p's positions [*from, *to) in its bucket's run [starts[b], ends[b]). */
ZKPIPE_HD void zkpipe__cuda_msm_piece_range(uint32_t *from, uint32_t *to, const uint32_t *starts,
                                            const uint32_t *ends, const uint32_t *offsets,
                                            uint32_t p, uint32_t nkeys)
{
    uint32_t b = zkpipe__cuda_msm_piece_owner(offsets, p, nkeys);
    *from = starts[b] + (p - offsets[b]) * ZKPIPE__CUDA_MSM_PIECE;
    *to = ends[b] - *from < ZKPIPE__CUDA_MSM_PIECE ? ends[b] : *from + ZKPIPE__CUDA_MSM_PIECE;
}

#define ZKPIPE__CUDA_MSM_DEFINE(G, F, FR)                                                          \
    /* The scalars' bit length: r's for Montgomery scalars (reduced), else 256. Host only. */      \
    static inline unsigned zkpipe__cuda_##G##_scalar_bits(int mont)                                \
    {                                                                                              \
        unsigned bits = 256;                                                                       \
        while (mont && !(FR##_MODULUS[(bits - 1) / 64] >> ((bits - 1) % 64) & 1))                  \
            bits--;                                                                                \
        return bits;                                                                               \
    }                                                                                              \
    /* Step 1 for point i of n: scalars hold 4 limbs each, Montgomery form when mont. */           \
    ZKPIPE_HD void zkpipe__cuda_##G##_digits(uint32_t *keys, uint32_t *vals,                       \
                                             const uint64_t *scalars, int mont, uint32_t i,        \
                                             uint32_t n, const zkpipe__cuda_msm_shape *s)          \
    {                                                                                              \
        uint64_t k[4];                                                                             \
        if (mont) {                                                                                \
            FR e;                                                                                  \
            for (int l = 0; l < 4; l++)                                                            \
                e.l[l] = scalars[4 * (size_t)i + l];                                               \
            FR##_to_canonical(k, &e);                                                              \
        } else {                                                                                   \
            for (int l = 0; l < 4; l++)                                                            \
                k[l] = scalars[4 * (size_t)i + l];                                                 \
        }                                                                                          \
        for (unsigned w = 0; w < s->windows; w++) {                                                \
            int d = zkpipe__cuda_booth_digit(k, w, s->window);                                     \
            size_t at = (size_t)w * n + i;                                                         \
            keys[at] = d == 0 ? s->nkeys : w * s->buckets + (uint32_t)(d < 0 ? -d : d) - 1;        \
            vals[at] = i | (d < 0 ? ZKPIPE__CUDA_MSM_NEG : 0);                                     \
        }                                                                                          \
    }                                                                                              \
    /* Step 5a: the sum of piece p's points (bases at infinity are skipped). */                    \
    ZKPIPE_HD void zkpipe__cuda_##G##_piece_sum(                                                   \
        G##_xyzz *partials, const G##_affine *bases, const uint32_t *vals, const uint32_t *starts, \
        const uint32_t *ends, const uint32_t *offsets, uint32_t p, uint32_t nkeys)                 \
    {                                                                                              \
        uint32_t from, to;                                                                         \
        zkpipe__cuda_msm_piece_range(&from, &to, starts, ends, offsets, p, nkeys);                 \
        G##_xyzz acc;                                                                              \
        G##_xyzz_set_infinity(&acc);                                                               \
        for (uint32_t j = from; j < to; j++) {                                                     \
            const G##_affine *q = &bases[vals[j] & ~ZKPIPE__CUDA_MSM_NEG];                         \
            if (!G##_affine_is_infinity(q))                                                        \
                G##_xyzz_add_affine(&acc, &acc, q, (vals[j] & ZKPIPE__CUDA_MSM_NEG) != 0);         \
        }                                                                                          \
        partials[p] = acc;                                                                         \
    }                                                                                              \
    /* Step 5b: merged sum p of the piece sums, cut as step 4 cuts points (starts = offsets1,      \
     * ends = offsets1 + 1, offsets = the second scan's). */                                       \
    ZKPIPE_HD void zkpipe__cuda_##G##_piece_merge(                                                 \
        G##_xyzz *merged, const G##_xyzz *partials, const uint32_t *offsets1,                      \
        const uint32_t *offsets, uint32_t p, uint32_t nkeys)                                       \
    {                                                                                              \
        uint32_t from, to;                                                                         \
        zkpipe__cuda_msm_piece_range(&from, &to, offsets1, offsets1 + 1, offsets, p, nkeys);       \
        G##_xyzz acc;                                                                              \
        G##_xyzz_set_infinity(&acc);                                                               \
        for (uint32_t j = from; j < to; j++)                                                       \
            G##_xyzz_add(&acc, &acc, &partials[j]);                                                \
        merged[p] = acc;                                                                           \
    }                                                                                              \
    /* Step 5c: bucket b as the sum of its merged sums (offsets: the second scan's). */            \
    ZKPIPE_HD void zkpipe__cuda_##G##_bucket_sum(G##_xyzz *buckets, const G##_xyzz *partials,      \
                                                 const uint32_t *offsets, uint32_t b)              \
    {                                                                                              \
        G##_xyzz acc;                                                                              \
        G##_xyzz_set_infinity(&acc);                                                               \
        for (uint32_t p = offsets[b]; p < offsets[b + 1]; p++)                                     \
            G##_xyzz_add(&acc, &acc, &partials[p]);                                                \
        buckets[b] = acc;                                                                          \
    }                                                                                              \
    /* Step 6a, segment t of window w (t < segs): with the segment's buckets b0 .. b0 + seg - 1,   \
     * sums[] = Σ (b - b0 + 1) bucket_b by a running sum from the top, runs[] = Σ bucket_b. */   \
    ZKPIPE_HD void zkpipe__cuda_##G##_segment(G##_xyzz *sums, G##_xyzz *runs,                      \
                                              const G##_xyzz *buckets, uint32_t w, uint32_t t,     \
                                              const zkpipe__cuda_msm_shape *s)                     \
    {                                                                                              \
        const G##_xyzz *seg = buckets + (size_t)w * s->buckets + (size_t)t * s->seg;               \
        G##_xyzz running, sum;                                                                     \
        G##_xyzz_set_infinity(&running);                                                           \
        G##_xyzz_set_infinity(&sum);                                                               \
        for (uint32_t b = s->seg; b-- > 0;) {                                                      \
            G##_xyzz_add(&running, &running, &seg[b]);                                             \
            G##_xyzz_add(&sum, &sum, &running);                                                    \
        }                                                                                          \
        sums[(size_t)w * s->segs + t] = sum;                                                       \
        runs[(size_t)w * s->segs + t] = running;                                                   \
    }                                                                                              \
    /* Step 6b, window w: Σ_t sums_t + seg Σ_t t runs_t (segment t's buckets sit t seg places    \
     * up), the second sum again by a running sum; seg is a power of two: doublings. */            \
    ZKPIPE_HD void zkpipe__cuda_##G##_window_sum(G##_xyzz *out, const G##_xyzz *sums,              \
                                                 const G##_xyzz *runs, uint32_t w,                 \
                                                 const zkpipe__cuda_msm_shape *s)                  \
    {                                                                                              \
        const G##_xyzz *ws = sums + (size_t)w * s->segs, *wr = runs + (size_t)w * s->segs;         \
        G##_xyzz running, weighted, total;                                                         \
        G##_xyzz_set_infinity(&running);                                                           \
        G##_xyzz_set_infinity(&weighted);                                                          \
        G##_xyzz_set_infinity(&total);                                                             \
        for (uint32_t t = s->segs; t-- > 1;) {                                                     \
            G##_xyzz_add(&running, &running, &wr[t]);                                              \
            G##_xyzz_add(&weighted, &weighted, &running);                                          \
        }                                                                                          \
        for (uint32_t m = 1; m < s->seg; m *= 2)                                                   \
            G##_xyzz_dbl(&weighted, &weighted);                                                    \
        for (uint32_t t = 0; t < s->segs; t++)                                                     \
            G##_xyzz_add(&total, &total, &ws[t]);                                                  \
        G##_xyzz_add(&out[w], &total, &weighted);                                                  \
    }                                                                                              \
    /* The host's last step: Horner over the window sums, top first. */                            \
    ZKPIPE_HD void zkpipe__cuda_##G##_combine(G *out, const G##_xyzz *windows,                     \
                                              const zkpipe__cuda_msm_shape *s)                     \
    {                                                                                              \
        G acc, t;                                                                                  \
        G##_set_infinity(&acc);                                                                    \
        for (unsigned w = s->windows; w-- > 0;) {                                                  \
            for (unsigned i = 0; i < s->window; i++)                                               \
                G##_dbl(&acc, &acc);                                                               \
            G##_xyzz_to_jacobian(&t, &windows[w]);                                                 \
            G##_add(&acc, &acc, &t);                                                               \
        }                                                                                          \
        *out = acc;                                                                                \
    }

#endif
