/* Pippenger's MSM written once for every group: a .c file includes the group's ec/ header,
 * defines MSM_G (the group, e.g. bls12_381_g1), MSM_F (its coordinate field) and MSM_FR (its
 * scalar field), and includes this file, which defines the functions ZKPIPE__MSM_DECLARE
 * declares in msm/msm.h.
 *
 * Each scalar is cut into signed c-bit digits by Booth recoding (digit j reads bits
 * jc - 1 .. jc + c - 1, so no carry runs between windows and a task can recode any window
 * alone). A task takes one window over one range of the points, adds each point into bucket
 * |digit| (negated for a negative digit; zero digits and points at infinity are skipped),
 * then reduces the 2^(c-1) buckets to Σ b·bucket_b with running sums (in affine batches where
 * the task batched: reduce_affine). The caller combines the task sums: per window, the ranges
 * are added; across windows, Horner's rule with c doublings per window.
 *
 * Large tasks accumulate into affine buckets in batches that share one inversion
 * (batch_affine.h). A small sum, whose windows have too few points to fill a batch, groups
 * windows instead (plan.h): a task adds each point into the buckets of several windows, which
 * share one batch; where even that would not fill one, XYZZ buckets.
 *
 * By default the sum takes the group's endomorphism phi (ec/glv.h; the .c file defines MSM_ENDO,
 * phi on affine points, and MSM_SPLIT, the curve's GLV split): each scalar, reduced mod r, is
 * split once into k1 + k2 lambda with |k1|, |k2| < 2^127, and the sum runs over the 2n points
 * P_i, phi(P_i) (the images' x coordinates computed once into scratch, their y is P_i's) with
 * the half-length scalars: about
 * half the windows for twice the points, so the buckets are reduced half as often and the
 * window can grow by one. Every task reads P_i and phi(P_i) together. ZKPIPE__MSM_NO_ENDO
 * keeps the plain sum over the n points. */
#include <string.h>

#include "core/alloc_internal.h"
#include "core/pool_internal.h"
#include "ec/glv.h"
#include "msm/batch_op.h"
#include "msm/msm.h"
#include "msm/plan.h"
#include "msm/xyzz.h"

#define MSM_CAT_(a, b) a##b
#define MSM_CAT(a, b) MSM_CAT_(a, b)
#define GOP(op) MSM_CAT(MSM_G, _##op)
#define FOP(op) MSM_CAT(MSM_F, _##op)
#define AFFINE MSM_CAT(MSM_G, _affine)
#define XYZZ MSM_CAT(MSM_G, _xyzz)
#define API(suffix) MSM_CAT(MSM_CAT(zkpipe__msm_, MSM_G), suffix)
/* An indirection so that MSM_G is expanded before the template pastes it. */
#define DEFINE_XYZZ(G, F) ZKPIPE__MSM_DEFINE_XYZZ(G, F)

DEFINE_XYZZ(MSM_G, MSM_F)
_Static_assert(sizeof(XYZZ) == 4 * sizeof(MSM_F),
               "ZKPIPE__MSM_BUCKET_BYTES counts four coordinates");

#define LIMBS ZKPIPE__MSM_SCALAR_LIMBS
/* A split half is below 2^127: its top bit holds its sign. */
#define SIGN_BIT (UINT64_C(1) << 63)
#define SCRATCH_ALIGN 64

#include "msm/batch_affine.h"

typedef struct task_ctx {
    const AFFINE *bases;
    const MSM_F *images;     /* x of phi(bases[j]) with the endomorphism, else NULL */
    const uint64_t *scalars; /* canonical; with images the split halves, 2 limbs each */
    const uint64_t *density; /* NULL: every variable */
    size_t nvars;
    zkpipe__msm_plan plan; /* windows: those the scalars actually need */
    unsigned bits;         /* the widest scalar's bit length */
    unsigned flags;        /* the config's */
    unsigned char *work;   /* one worker_bytes() region per worker */
    XYZZ *sums;            /* one per task, task = window * parts + part */
} task_ctx;

static size_t round_up(size_t bytes)
{
    return (bytes + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
}

static int use_endo(unsigned flags)
{
    return !(flags & ZKPIPE__MSM_NO_ENDO);
}

/* The scalar bit length the plan assumes: split halves are below 2^127, Montgomery scalars below
 * r, others may be any 256-bit value. */
static unsigned planned_bits(unsigned flags)
{
    if (use_endo(flags))
        return 127;
    if (!(flags & ZKPIPE__MSM_MONTGOMERY))
        return 64 * LIMBS;
    unsigned bits = 64 * LIMBS;
    while (bits > 0 && !(MSM_CAT(MSM_FR, _MODULUS)[(bits - 1) / 64] >> ((bits - 1) % 64) & 1))
        bits--;
    return bits;
}

static size_t count_dense(const uint64_t *density, size_t nvars)
{
    size_t count = 0;
    for (size_t w = 0; w < nvars / 64; w++)
        count += (size_t)__builtin_popcountll(density[w]);
    if (nvars % 64)
        count += (size_t)__builtin_popcountll(density[nvars / 64] & ((1ull << (nvars % 64)) - 1));
    return count;
}

/* A worker's region: XYZZ buckets and their state bytes (2^(c-1) per window of a task), then with
 * batching the affine buckets, the batch operations, the denominators (and over Fq2 their
 * norms), the prefix products and the queue (half a batch). Each part 64-byte aligned. */
static size_t queue_size(size_t batch)
{
    return batch / 2;
}

/* Arrays of BATCH_INV in a region: the prefix products, and the norms over Fq2. */
#ifdef MSM_INV_F
#define NORM_ARRAYS 2
#else
#define NORM_ARRAYS 1
#endif

/* The prefix products' bytes: with an 8-lane kernel, the most of its layout and the scalar one. */
static size_t prefix_bytes(size_t batch)
{
    size_t bytes = batch * sizeof(BATCH_INV);
#ifdef MSM_BATCH_X8
    size_t lanes = ZKPIPE__MSM_X8_BYTES(batch, MSM_BATCH_X8_LIMBS);
    bytes = lanes > bytes ? lanes : bytes;
#endif
    return bytes;
}

/* The most segments of a batched bucket reduction (reduce_affine) in a plan's regions. */
static size_t plan_segments(const zkpipe__msm_plan *plan)
{
    return plan->batch > 0 ? reduce_segments((size_t)1 << (plan->window - 1), plan->batch) : 0;
}

static size_t worker_bytes(const zkpipe__msm_plan *plan)
{
    size_t nbuckets = (size_t)plan->group << (plan->window - 1), b = plan->batch;
    size_t bytes = round_up(nbuckets * sizeof(XYZZ)) + round_up(nbuckets);
    if (b > 0)
        bytes += round_up(nbuckets * sizeof(AFFINE)) + round_up(b * sizeof(batch_op)) +
                 round_up(b * sizeof(MSM_F)) + (NORM_ARRAYS - 1) * round_up(b * sizeof(BATCH_INV)) +
                 round_up(prefix_bytes(b)) + round_up(queue_size(b) * sizeof(batch_op)) +
                 round_up(REDUCE_POINTS * plan_segments(plan) * sizeof(AFFINE)) +
                 round_up(REDUCE_STATES * plan_segments(plan));
    return bytes;
}

static void worker_carve(batch_ws *ws, unsigned char *region, const zkpipe__msm_plan *plan)
{
    size_t nbuckets = (size_t)plan->group << (plan->window - 1), b = plan->batch;
    ws->xbuckets = (XYZZ *)region;
    region += round_up(nbuckets * sizeof(XYZZ));
    ws->state = region;
    region += round_up(nbuckets);
    ws->abuckets = (AFFINE *)region;
    region += round_up(nbuckets * sizeof(AFFINE));
    ws->ops = (batch_op *)region;
    region += round_up(b * sizeof(batch_op));
    ws->den = (MSM_F *)region;
    region += round_up(b * sizeof(MSM_F));
#ifdef MSM_INV_F
    ws->norm = (BATCH_INV *)region;
    region += round_up(b * sizeof(BATCH_INV));
#else
    ws->norm = ws->den;
#endif
    ws->prefix = (BATCH_INV *)region;
    region += round_up(prefix_bytes(b));
    ws->queue = (batch_op *)region;
    region += round_up(queue_size(b) * sizeof(batch_op));
    ws->acc = (AFFINE *)region;
    region += round_up(REDUCE_POINTS * plan_segments(plan) * sizeof(AFFINE));
    ws->acc_state = region;
    ws->nops = ws->nqueue = 0;
    ws->cap = b;
    ws->qcap = queue_size(b);
}

/* Scratch layout: worker regions, task sums, converted (or split) scalars and with the
 * endomorphism the x coordinates of the bases' images; each part 64-byte aligned. */
typedef struct layout {
    size_t buckets, sums, scalars, images, total;
} layout;

static int make_layout(layout *out, const zkpipe__msm_plan *plan, size_t nvars, size_t nbases,
                       unsigned flags, unsigned threads)
{
    const size_t cap = SIZE_MAX / 4; /* every part below it, so their sum cannot overflow */
    out->buckets = (size_t)threads * worker_bytes(plan);
    out->sums = round_up((size_t)plan->windows * plan->parts * sizeof(XYZZ));
    out->scalars = out->images = 0;
    if (nvars > cap / (LIMBS * sizeof(uint64_t)) || nbases > cap / sizeof(MSM_F))
        return 0;
    if ((flags & ZKPIPE__MSM_MONTGOMERY) || use_endo(flags))
        out->scalars = round_up(nvars * LIMBS * sizeof(uint64_t));
    if (use_endo(flags))
        out->images = round_up(nbases * sizeof(MSM_F));
    if (out->buckets > cap || out->sums > cap)
        return 0;
    out->total = out->buckets + out->sums + out->scalars + out->images;
    return 1;
}

/* With the endomorphism the sum runs over P_i and phi(P_i). */
static size_t planned_points(size_t nbases, unsigned flags)
{
    return use_endo(flags) && nbases <= SIZE_MAX / 2 ? 2 * nbases : nbases;
}

/* The plan for nbases bases: windows grouped (plan.h) unless the bucket kind is forced. */
static void make_plan(zkpipe__msm_plan *plan, size_t nbases, unsigned threads,
                      const zkpipe__msm_config *cfg)
{
    zkpipe__msm_plan_make(plan, planned_points(nbases, cfg->flags), planned_bits(cfg->flags),
                          threads, cfg->window, cfg->flags, BATCH_LANES);
    if (!(cfg->flags & (ZKPIPE__MSM_XYZZ | ZKPIPE__MSM_BATCH_AFFINE)))
        zkpipe__msm_plan_group(plan, threads, ZKPIPE__MSM_BUCKET_BYTES(AFFINE, MSM_F),
                               zkpipe__msm_min_batch(BATCH_LANES));
}

size_t API(_scratch_bytes)(size_t nvars, size_t nbases, const zkpipe__msm_config *config,
                           unsigned threads)
{
    zkpipe__msm_config def = {0, 0};
    const zkpipe__msm_config *cfg = config ? config : &def;
    zkpipe__msm_plan plan;
    layout lay;
    if (nvars == 0 || nbases == 0 || cfg->window > ZKPIPE__MSM_MAX_WINDOW)
        return 0;
    threads = threads ? threads : 1;
    make_plan(&plan, nbases, threads, cfg);
    if (!make_layout(&lay, &plan, nvars, nbases, cfg->flags, threads))
        return SIZE_MAX;
    return lay.total;
}

/* The most windows a sum has: 1-bit windows over 256-bit scalars and the carry's bit. */
#define MAX_WINDOWS 257

/* Booth digit of the c-bit window at bit `at` of the nlimbs-limb k: with w = bits at - 1 ..
 * at + c - 1 of k (bit -1 and bits past the end read as 0), the digit is (w + 1) / 2, minus 2^c
 * when w's top bit is set: in [-2^(c-1), 2^(c-1)]. The top bit taken away here is the low bit
 * added back in the window above, whatever its width. */
static int booth_digit(const uint64_t *k, unsigned at, unsigned c, unsigned nlimbs)
{
    uint64_t w;
    if (at == 0) {
        w = k[0] << 1;
    } else {
        unsigned lo = at - 1, limb = lo / 64, shift = lo % 64;
        if (limb >= nlimbs)
            return 0;
        w = k[limb] >> shift;
        if (shift > 64 - (c + 1) && limb + 1 < nlimbs)
            w |= k[limb + 1] << (64 - shift);
    }
    w &= ((uint64_t)1 << (c + 1)) - 1;
    return (int)((w + 1) >> 1) - (int)((w >> c) << c);
}

/* sum += g·p by double-and-add, for g >= 1. */
static void add_multiple(XYZZ *sum, const XYZZ *p, size_t g)
{
    XYZZ t = *p;
    int top = 63 - __builtin_clzll((unsigned long long)g);
    for (int i = top - 1; i >= 0; i--) {
        GOP(xyzz_dbl)(&t, &t);
        if (g >> i & 1)
            GOP(xyzz_add)(&t, &t, p);
    }
    GOP(xyzz_add)(sum, sum, &t);
}

/* Σ b·bucket_b as Σ_b running_b with running_b = Σ_{b' >= b} bucket_b': two additions per
 * bucket. Bucket b is its affine part and its XYZZ twin, each where its state bit says it holds
 * a point and `kinds` (BUCKET_AFFINE, BUCKET_TWIN or both) takes it. running only changes at
 * non-empty buckets, so a run of g equal terms is added as g·running, which keeps wide windows
 * over few points (sparse buckets) cheap. */
static void fill_bucket_sum(XYZZ *sum, const batch_ws *ws, size_t nbuckets, unsigned kinds)
{
    XYZZ running;
    size_t run = 0;
    GOP(xyzz_set_infinity)(&running);
    GOP(xyzz_set_infinity)(sum);
    for (size_t b = nbuckets; b-- > 0;) {
        int has_a = (ws->state[b] & kinds & BUCKET_AFFINE) != 0;
        int has_x =
            (ws->state[b] & kinds & BUCKET_TWIN) && !GOP(xyzz_is_infinity)(&ws->xbuckets[b]);
        if (has_a || has_x) {
            if (run > 0 && !GOP(xyzz_is_infinity)(&running))
                add_multiple(sum, &running, run);
            run = 0;
            if (has_a)
                GOP(xyzz_add_affine)(&running, &running, &ws->abuckets[b], 0);
            if (has_x)
                GOP(xyzz_add)(&running, &running, &ws->xbuckets[b]);
        }
        run++;
    }
    if (!GOP(xyzz_is_infinity)(&running))
        add_multiple(sum, &running, run);
}

/* *sum = Σ b·bucket_b over the affine parts of ws's m buckets (m a power of two, k segments of
 * reduce_segments(m, ws->cap)); the twins are left to the caller. Uses ws's batch arrays, which
 * must be empty, and ws->acc.
 *
 * One running sum is two XYZZ additions per bucket (8M + 2S and 12M + 2S), in one chain of
 * dependent additions. Cut into k segments of len = m / k buckets, the k running sums are
 * independent: each step adds the next bucket of every segment into its running sum R_s and the
 * previous R_s into the segment's total T_s, 2k affine additions that share one inversion.
 * Bucket b = s len + i (digit b + 1) gets weight i + 1 in T_s, and the rest of its weight,
 * s len, comes from
 *   Σ b·bucket_b = Σ_s T_s + len Σ_s s R_s,
 * whose second sum is fill_bucket_sum's running sum over R_1 .. R_{k-1} (2k XYZZ additions),
 * then log2(len) doublings. Each step costs an inversion and the combination 3k XYZZ additions:
 * more segments, fewer inversions, a longer combination. At m = 4096 buckets k = 256 (16
 * inversions, 768 XYZZ additions) measured faster than 64 or 128 and level with 512, and the
 * reduction took about two thirds of the single running sum's time (bench_msm at 2^16, both
 * curves' G1), not the half the multiplication counts suggest. */
static void reduce_affine(XYZZ *sum, const batch_ws *ws, size_t m, size_t k)
{
    size_t len = m / k;
    AFFINE *run = ws->acc, *total = ws->acc + k, *prev = ws->acc + 2 * k;
    batch_ws red = *ws; /* its buckets: R_s at s, T_s at k + s */
    XYZZ v;
    red.abuckets = ws->acc;
    red.state = ws->acc_state;
    red.cap = 2 * k;
    red.nops = red.nqueue = red.qcap = 0;
    memset(red.state, 0, 2 * k);
    for (size_t t = 0; t <= len; t++) {
        /* T_s += R_s as it was after step t - 1: from a copy, since R_s moves in this batch */
        for (size_t s = 0; t > 0 && s < k; s++) {
            if (!(red.state[s] & BUCKET_AFFINE))
                continue;
            prev[s] = run[s];
            batch_schedule(&red, k + s, &prev[s].x, &prev[s].y, 0);
        }
        for (size_t s = 0; t < len && s < k; s++) {
            size_t b = s * len + len - 1 - t;
            if (ws->state[b] & BUCKET_AFFINE)
                batch_schedule(&red, s, &ws->abuckets[b].x, &ws->abuckets[b].y, 0);
        }
        batch_finish(&red);
    }
    /* Σ_{s >= 1} s R_s: the running sum over R_1 .. R_{k-1}, as over buckets of digits s */
    red.abuckets = run + 1;
    red.state = ws->acc_state + 1;
    fill_bucket_sum(&v, &red, k - 1, BUCKET_AFFINE);
    for (size_t l = len; l > 1; l /= 2)
        GOP(xyzz_dbl)(&v, &v);
    for (size_t s = 0; s < k; s++)
        if (ws->acc_state[k + s] & BUCKET_AFFINE)
            GOP(xyzz_add_affine)(&v, &v, &total[s], 0);
    *sum = v;
}

/* Σ b·bucket_b over a window's nbuckets buckets (a power of two): the affine parts in batches
 * (reduce_affine) where the task batched and there are enough of them, the rest by
 * fill_bucket_sum. */
static void bucket_sum(XYZZ *sum, batch_ws *ws, size_t nbuckets)
{
    size_t k = ws->cap > 0 ? reduce_segments(nbuckets, ws->cap) : 0;
    XYZZ twins;
    if (k == 0) {
        fill_bucket_sum(sum, ws, nbuckets, BUCKET_AFFINE | BUCKET_TWIN);
        return;
    }
    reduce_affine(sum, ws, nbuckets, k);
    fill_bucket_sum(&twins, ws, nbuckets, BUCKET_TWIN);
    GOP(xyzz_add)(sum, sum, &twins);
}

/* The additions waiting for their buckets (see accumulate): a ring of PENDING. */
#define PENDING 8
typedef struct pending {
    point_ref p[PENDING];
    uint32_t bucket[PENDING];
    unsigned char neg[PENDING];
    unsigned head, count;
} pending;

/* bucket b += ±p, now: batched, or straight into the twin without batching. */
static void bucket_add(batch_ws *ws, size_t b, point_ref p, int neg)
{
    if (ws->cap)
        batch_add(ws, b, p, neg);
    else
        twin_add(ws, b, p, neg);
}

/* Schedules bucket off + |d| - 1 += sign(d) p after the PENDING additions before it: the bucket
 * is prefetched now and added PENDING points later. So is p's x, every line of it: for the
 * image phi(P) it lies apart from P (ctx->images), nothing reads it before the addition does
 * (the loads of it in batch_schedule stalled), and a zkey's points are used in place, 8-byte
 * aligned, so x often spans one line more than its size needs (with its first line only, a
 * BLS12-381 G2 sum took 1.13 times as long). A zero digit adds nothing. Inlined into
 * accumulate's loops: as the call gcc made of it, the 2^16 sums spent 4 to 5 % more CPU time. */
static inline __attribute__((always_inline)) void push(batch_ws *ws, pending *pend, point_ref p,
                                                       int d, size_t off)
{
    if (d == 0)
        return;
    size_t b = off + (size_t)(d > 0 ? d : -d) - 1;
    const char *next = ws->cap ? (const char *)&ws->abuckets[b] : (const char *)&ws->xbuckets[b];
    size_t bytes = ws->cap ? sizeof(AFFINE) : sizeof(XYZZ);
    for (size_t line = 0; line < bytes; line += 64)
        __builtin_prefetch(next + line, 1);
    for (size_t line = 0; line < sizeof(MSM_F); line += 64)
        __builtin_prefetch((const char *)p.x + line, 0);
    __builtin_prefetch((const char *)(p.x + 1) - 1, 0);
    unsigned at = pend->head;
    if (pend->count == PENDING) {
        bucket_add(ws, pend->bucket[at], pend->p[at], pend->neg[at]);
        pend->head = (at + 1) % PENDING;
    } else {
        at = (at + pend->count++) % PENDING;
    }
    pend->p[at] = p;
    pend->bucket[at] = (uint32_t)b;
    pend->neg[at] = d < 0;
}

/* The additions still waiting, in order. */
static void flush(batch_ws *ws, pending *pend)
{
    for (; pend->count > 0; pend->count--) {
        unsigned at = pend->head;
        bucket_add(ws, pend->bucket[at], pend->p[at], pend->neg[at]);
        pend->head = (at + 1) % PENDING;
    }
}

/* Adds each point of variables [v0, v1) (bases from index `base`) into the bucket of its
 * digit in each window of [w0, w1), window w's buckets 2^(c-1) (w - w0) on (with the
 * endomorphism, P and phi(P) with the digits of k1 and k2): batched when ws->cap > 0, else
 * straight into the XYZZ buckets. The buckets outgrow the L1 and L2 caches at large windows, so
 * each addition waits PENDING points while its bucket is prefetched (one point was too short a
 * wait: the loads of the bucket in batch_schedule stalled). */
static void accumulate(const task_ctx *ctx, batch_ws *ws, unsigned w0, unsigned w1, size_t v0,
                       size_t v1, size_t base)
{
    pending pend;
    pend.head = pend.count = 0;
    unsigned c = ctx->plan.window, at[MAX_WINDOWS], width[MAX_WINDOWS];
    size_t per = (size_t)1 << (c - 1);
    for (unsigned w = w0; w < w1; w++) {
        at[w - w0] = zkpipe__msm_window_offset(ctx->bits, ctx->plan.windows, w);
        width[w - w0] = zkpipe__msm_window_width(ctx->bits, ctx->plan.windows, w);
    }
    for (size_t v = v0; v < v1; v++) {
        if (ctx->density && !(ctx->density[v / 64] >> (v % 64) & 1))
            continue;
        size_t j = base++;
        const AFFINE *p = &ctx->bases[j];
        const uint64_t *k = ctx->scalars + v * LIMBS;
        point_ref ref = {&p->x, &p->y};
        if (GOP(affine_is_infinity)(p))
            continue;
        if (ctx->images) {
            uint64_t h[LIMBS] = {k[0], k[1] & ~SIGN_BIT, k[2], k[3] & ~SIGN_BIT};
            for (unsigned w = 0; w < w1 - w0; w++) {
                int d = booth_digit(h, at[w], width[w], 2);
                push(ws, &pend, ref, k[1] & SIGN_BIT ? -d : d, per * w);
            }
            ref.x = &ctx->images[j];
            for (unsigned w = 0; w < w1 - w0; w++) {
                int d = booth_digit(h + 2, at[w], width[w], 2);
                push(ws, &pend, ref, k[3] & SIGN_BIT ? -d : d, per * w);
            }
        } else {
            for (unsigned w = 0; w < w1 - w0; w++)
                push(ws, &pend, ref, booth_digit(k, at[w], width[w], LIMBS), per * w);
        }
    }
    flush(ws, &pend);
    batch_drain(ws);
}

/* The buckets window w's digits reach: 2^(width - 1) (the top window's top bit, the carry's,
 * is 0, so its digits are not negative but reach as far). */
static size_t window_reach(const task_ctx *ctx, unsigned w)
{
    return (size_t)1 << (zkpipe__msm_window_width(ctx->bits, ctx->plan.windows, w) - 1);
}

/* A task: one window over one range of the points, or (plan.group > 1) a group of windows over
 * every point; each window's buckets reduced to its sum. */
static void run_tasks(void *arg, size_t begin, size_t end, unsigned worker)
{
    const task_ctx *ctx = (const task_ctx *)arg;
    unsigned c = ctx->plan.window, parts = ctx->plan.parts, group = ctx->plan.group;
    size_t per = (size_t)1 << (c - 1);
    batch_ws ws;
    worker_carve(&ws, ctx->work + (size_t)worker * worker_bytes(&ctx->plan), &ctx->plan);
    for (size_t task = begin; task < end; task++) {
        unsigned part = (unsigned)(task % parts), w0 = (unsigned)(task / parts) * group;
        unsigned w1 = w0 + group < ctx->plan.windows ? w0 + group : ctx->plan.windows;
        size_t v0 = zkpipe__pool_share(ctx->nvars, parts, part);
        size_t v1 = zkpipe__pool_share(ctx->nvars, parts, part + 1);
        size_t base = ctx->density ? count_dense(ctx->density, v0) : v0;
        /* the buckets in reach: 2^(c-1) for every window but the last, which counts its own
         * reach (a window a bit narrower than c, before the last, reaches half of its share) */
        size_t nbuckets = per * (w1 - 1 - w0) + window_reach(ctx, w1 - 1);
        memset(ws.state, 0, nbuckets);
        ws.cap = zkpipe__msm_task_cap(ctx->plan.batch, nbuckets, BATCH_LANES,
                                      (ctx->flags & ZKPIPE__MSM_BATCH_AFFINE) != 0);
        ws.qcap = queue_size(ws.cap);
        accumulate(ctx, &ws, w0, w1, v0, v1, base);
        for (unsigned w = w0; w < w1; w++) {
            batch_ws view = ws; /* window w's buckets */
            view.abuckets += per * (w - w0);
            view.xbuckets += per * (w - w0);
            view.state += per * (w - w0);
            bucket_sum(&ctx->sums[(size_t)w * parts + part], &view, window_reach(ctx, w));
        }
    }
}

/* Horner over the windows, top first: acc = 2^width acc + Σ_parts sum, width window j's. */
static void combine(MSM_G *out, const task_ctx *ctx)
{
    MSM_G acc, w;
    GOP(set_infinity)(&acc);
    for (unsigned j = ctx->plan.windows; j-- > 0;) {
        XYZZ s = ctx->sums[(size_t)j * ctx->plan.parts];
        for (unsigned p = 1; p < ctx->plan.parts; p++)
            GOP(xyzz_add)(&s, &s, &ctx->sums[(size_t)j * ctx->plan.parts + p]);
        for (unsigned i = zkpipe__msm_window_width(ctx->bits, ctx->plan.windows, j); i > 0; i--)
            GOP(dbl)(&acc, &acc);
        GOP(xyzz_to_jacobian)(&w, &s);
        GOP(add)(&acc, &acc, &w);
    }
    *out = acc;
}

/* The scalars' preparation, run on the pool before the tasks: conversion from Montgomery form
 * or reduction mod r, and with the endomorphism the split; then the bases' images. */
typedef struct prep_ctx {
    const uint64_t *in;
    uint64_t *out;
    int mont, split;
    const AFFINE *bases;
    MSM_F *images;
} prep_ctx;

static void prep_scalars(void *arg, size_t begin, size_t end, unsigned worker)
{
    const prep_ctx *ctx = (const prep_ctx *)arg;
    (void)worker;
    for (size_t v = begin; v < end; v++) {
        uint64_t *k = ctx->out + v * LIMBS;
        if (ctx->mont) {
            MSM_FR e;
            memcpy(e.l, ctx->in + v * LIMBS, sizeof e.l);
            MSM_CAT(MSM_FR, _to_canonical)(k, &e);
        } else {
            memcpy(k, ctx->in + v * LIMBS, LIMBS * sizeof(uint64_t));
            while (!zkpipe__limbs_lt(k, MSM_CAT(MSM_FR, _MODULUS), LIMBS))
                zkpipe__limbs_sub(k, k, MSM_CAT(MSM_FR, _MODULUS), LIMBS);
        }
        if (ctx->split) {
            unsigned neg;
            MSM_SPLIT(k, &neg, k);
            k[1] |= neg & 1 ? SIGN_BIT : 0;
            k[3] |= neg & 2 ? SIGN_BIT : 0;
        }
    }
}

static void prep_images(void *arg, size_t begin, size_t end, unsigned worker)
{
    const prep_ctx *ctx = (const prep_ctx *)arg;
    (void)worker;
    for (size_t j = begin; j < end; j++) {
        AFFINE t;
        MSM_ENDO(&t, &ctx->bases[j]);
        ctx->images[j] = t.x;
    }
}

/* The bit length of the widest scalar of nlimbs limbs, `stride` limbs apart, but for the bits
 * in `mask` of the top limb. */
static unsigned bit_length(const uint64_t *scalars, size_t count, unsigned nlimbs, size_t stride,
                           uint64_t mask)
{
    uint64_t any[LIMBS] = {0};
    for (size_t v = 0; v < count; v++)
        for (unsigned i = 0; i < nlimbs; i++)
            any[i] |= scalars[v * stride + i];
    any[nlimbs - 1] &= mask;
    for (unsigned i = nlimbs; i-- > 0;)
        if (any[i])
            return 64 * i + 64 - (unsigned)__builtin_clzll(any[i]);
    return 0;
}

zkpipe_status API(_ex)(MSM_G *out, const AFFINE *bases, const uint64_t *scalars,
                       const uint64_t *density, size_t nvars, const zkpipe__msm_config *config,
                       zkpipe_pool *pool, const zkpipe_allocator *allocator)
{
    zkpipe__msm_config def = {0, 0};
    const zkpipe__msm_config *cfg = config ? config : &def;
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out == NULL || a == NULL || cfg->window > ZKPIPE__MSM_MAX_WINDOW ||
        (cfg->flags & ~ZKPIPE__MSM_FLAGS) != 0 ||
        (cfg->flags & (ZKPIPE__MSM_XYZZ | ZKPIPE__MSM_BATCH_AFFINE)) ==
            (ZKPIPE__MSM_XYZZ | ZKPIPE__MSM_BATCH_AFFINE))
        return ZKPIPE_EINVAL;
    if (nvars > 0 && (scalars == NULL || (density == NULL && bases == NULL)))
        return ZKPIPE_EINVAL;
    size_t nbases = density ? count_dense(density, nvars) : nvars;
    if (nbases > 0 && bases == NULL)
        return ZKPIPE_EINVAL;
    unsigned threads = zkpipe_pool_threads(pool);
    int mont = (cfg->flags & ZKPIPE__MSM_MONTGOMERY) != 0, endo = use_endo(cfg->flags);
    unsigned bits =
        mont ? planned_bits(cfg->flags) : bit_length(scalars, nvars, LIMBS, LIMBS, ~UINT64_C(0));
    if (nbases == 0 || bits == 0) {
        GOP(set_infinity)(out);
        return ZKPIPE_OK;
    }

    task_ctx ctx;
    layout lay;
    make_plan(&ctx.plan, nbases, threads, cfg);
    if (!make_layout(&lay, &ctx.plan, nvars, nbases, cfg->flags, threads))
        return ZKPIPE_EOVERFLOW;
    unsigned char *scratch = (unsigned char *)zkpipe__alloc(a, lay.total, SCRATCH_ALIGN);
    if (scratch == NULL)
        return ZKPIPE_ENOMEM;
    unsigned char *at = scratch + lay.buckets + lay.sums;
    ctx.work = scratch;
    ctx.sums = (XYZZ *)(scratch + lay.buckets);
    ctx.bases = bases;
    ctx.images = NULL;
    ctx.scalars = scalars;
    ctx.density = density;
    ctx.nvars = nvars;
    if (mont || endo) {
        prep_ctx prep = {scalars, (uint64_t *)at, mont, endo, bases, NULL};
        if (endo)
            prep.images = (MSM_F *)(at + lay.scalars);
        /* nothing here fails but for a NULL fn */
        (void)zkpipe_pool_parallel_for(pool, nvars, 1024, prep_scalars, &prep);
        if (endo)
            (void)zkpipe_pool_parallel_for(pool, nbases, 1024, prep_images, &prep);
        ctx.scalars = prep.out;
        ctx.images = prep.images;
        bits = endo ? bit_length(prep.out, 2 * nvars, 2, 2, ~SIGN_BIT)
                    : bit_length(prep.out, nvars, LIMBS, LIMBS, ~UINT64_C(0));
    }
    /* Fewer windows when the scalars are short; the plan's count is the most they need. */
    ctx.bits = bits;
    ctx.flags = cfg->flags;
    ctx.plan.windows = (bits + 1 + ctx.plan.window - 1) / ctx.plan.window;
    if (bits > 0) {
        size_t tasks =
            (size_t)(ctx.plan.windows + ctx.plan.group - 1) / ctx.plan.group * ctx.plan.parts;
        (void)zkpipe_pool_parallel_for(pool, tasks, 1, run_tasks, &ctx);
        combine(out, &ctx);
    } else {
        GOP(set_infinity)(out);
    }
    zkpipe__free(a, scratch);
    return ZKPIPE_OK;
}

zkpipe_status API()(MSM_G *out, const AFFINE *bases, const uint64_t *scalars, size_t n,
                    zkpipe_pool *pool, const zkpipe_allocator *allocator)
{
    return API(_ex)(out, bases, scalars, NULL, n, NULL, pool, allocator);
}

zkpipe_status API(_dense)(MSM_G *out, const AFFINE *bases, const uint64_t *scalars,
                          const uint64_t *density, size_t nvars, zkpipe_pool *pool,
                          const zkpipe_allocator *allocator)
{
    if (density == NULL && nvars > 0)
        return ZKPIPE_EINVAL;
    return API(_ex)(out, bases, scalars, density, nvars, NULL, pool, allocator);
}

#include "msm/subgroup_batch.h"
