/* Pippenger's MSM written once for every group: a .c file includes the group's ec/ header,
 * defines MSM_G (the group, e.g. bls12_381_g1), MSM_F (its coordinate field) and MSM_FR (its
 * scalar field), and includes this file, which defines the functions ZKPIPE__MSM_DECLARE
 * declares in msm/msm.h.
 *
 * Each scalar is cut into signed c-bit digits by Booth recoding (digit j reads bits
 * jc - 1 .. jc + c - 1, so no carry runs between windows and a task can recode any window
 * alone). A task takes one window over one range of the points, adds each point into bucket
 * |digit| (negated for a negative digit; zero digits and points at infinity are skipped),
 * then reduces the 2^(c-1) buckets with a running sum to Σ b·bucket_b. The caller combines
 * the task sums: per window, the ranges are added; across windows, Horner's rule with c
 * doublings per window.
 *
 * Large tasks accumulate into affine buckets in batches that share one inversion
 * (batch_affine.h); small ones, where a batch would not fill, into XYZZ buckets. */
#include <string.h>

#include "core/alloc_internal.h"
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

#define LIMBS ZKPIPE__MSM_SCALAR_LIMBS
#define SCRATCH_ALIGN 64

#include "msm/batch_affine.h"

typedef struct task_ctx {
    const AFFINE *bases;
    const uint64_t *scalars; /* canonical */
    const uint64_t *density; /* NULL: every variable */
    size_t nvars;
    zkpipe__msm_plan plan; /* windows: those the scalars actually need */
    unsigned char *work;   /* one worker_bytes() region per worker */
    XYZZ *sums;            /* one per task, task = window * parts + part */
} task_ctx;

static size_t round_up(size_t bytes)
{
    return (bytes + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
}

/* The scalar bit length the plan assumes: Montgomery scalars are below r, others may be any
 * 256-bit value. */
static unsigned planned_bits(unsigned flags)
{
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

/* A worker's region: XYZZ buckets, then with batching the affine buckets, busy flags, batch
 * operations, denominators and prefix products. Each part 64-byte aligned. */
static size_t worker_bytes(const zkpipe__msm_plan *plan)
{
    size_t nbuckets = (size_t)1 << (plan->window - 1), b = plan->batch;
    size_t bytes = round_up(nbuckets * sizeof(XYZZ));
    if (b > 0)
        bytes += round_up(nbuckets * sizeof(AFFINE)) + round_up(nbuckets) +
                 round_up(b * sizeof(batch_op)) + 2 * round_up(b * sizeof(MSM_F));
    return bytes;
}

static void worker_carve(batch_ws *ws, unsigned char *region, const zkpipe__msm_plan *plan)
{
    size_t nbuckets = (size_t)1 << (plan->window - 1), b = plan->batch;
    ws->xbuckets = (XYZZ *)region;
    region += round_up(nbuckets * sizeof(XYZZ));
    ws->abuckets = (AFFINE *)region;
    region += round_up(nbuckets * sizeof(AFFINE));
    ws->busy = region;
    region += round_up(nbuckets);
    ws->ops = (batch_op *)region;
    region += round_up(b * sizeof(batch_op));
    ws->den = (MSM_F *)region;
    region += round_up(b * sizeof(MSM_F));
    ws->prefix = (MSM_F *)region;
    ws->nops = 0;
    ws->cap = b;
}

/* Scratch layout: worker regions, task sums, converted scalars; each part 64-byte aligned. */
typedef struct layout {
    size_t buckets, sums, scalars, total;
} layout;

static int make_layout(layout *out, const zkpipe__msm_plan *plan, size_t nvars, unsigned flags,
                       unsigned threads)
{
    out->buckets = (size_t)threads * worker_bytes(plan);
    out->sums = round_up((size_t)plan->windows * plan->parts * sizeof(XYZZ));
    out->scalars = 0;
    if (flags & ZKPIPE__MSM_MONTGOMERY) {
        if (nvars > (SIZE_MAX - SCRATCH_ALIGN) / (LIMBS * sizeof(uint64_t)))
            return 0;
        out->scalars = round_up(nvars * LIMBS * sizeof(uint64_t));
    }
    if (out->scalars > SIZE_MAX - out->buckets - out->sums)
        return 0;
    out->total = out->buckets + out->sums + out->scalars;
    return 1;
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
    zkpipe__msm_plan_make(&plan, nbases, planned_bits(cfg->flags), threads, cfg->window,
                          cfg->flags);
    if (!make_layout(&lay, &plan, nvars, cfg->flags, threads))
        return SIZE_MAX;
    return lay.total;
}

/* Booth digit of window j: with w = bits jc - 1 .. jc + c - 1 of k (bit -1 reads as 0), the
 * digit is (w + 1) / 2, minus 2^c when w's top bit is set: in [-2^(c-1), 2^(c-1)]. The top
 * bit taken away here is the low bit added back in window j + 1. */
static int booth_digit(const uint64_t *k, unsigned j, unsigned c)
{
    uint64_t w;
    if (j == 0) {
        w = k[0] << 1;
    } else {
        unsigned lo = j * c - 1, limb = lo / 64, shift = lo % 64;
        w = k[limb] >> shift;
        if (shift > 64 - (c + 1) && limb + 1 < LIMBS)
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
 * bucket. Bucket b is xbuckets[b] plus, when abuckets is not NULL, abuckets[b]. running only
 * changes at non-empty buckets, so a run of g equal terms is added as g·running, which keeps
 * wide windows over few points (sparse buckets) cheap. */
static void fill_bucket_sum(XYZZ *sum, const AFFINE *abuckets, const XYZZ *xbuckets,
                            size_t nbuckets)
{
    XYZZ running;
    size_t run = 0;
    GOP(xyzz_set_infinity)(&running);
    GOP(xyzz_set_infinity)(sum);
    for (size_t b = nbuckets; b-- > 0;) {
        int has_a = abuckets && !GOP(affine_is_infinity)(&abuckets[b]);
        int has_x = !GOP(xyzz_is_infinity)(&xbuckets[b]);
        if (has_a || has_x) {
            if (run > 0 && !GOP(xyzz_is_infinity)(&running))
                add_multiple(sum, &running, run);
            run = 0;
            if (has_a)
                GOP(xyzz_add_affine)(&running, &running, &abuckets[b], 0);
            if (has_x)
                GOP(xyzz_add)(&running, &running, &xbuckets[b]);
        }
        run++;
    }
    if (!GOP(xyzz_is_infinity)(&running))
        add_multiple(sum, &running, run);
}

/* Adds each point of variables [v0, v1) (bases from index `base`) into the bucket of its
 * digit in `window`: batched when ws->cap > 0, else straight into the XYZZ buckets. The
 * buckets outgrow the L2 cache at large windows, so each addition waits one point while its
 * bucket is prefetched. */
static void accumulate(const task_ctx *ctx, batch_ws *ws, unsigned window, size_t v0, size_t v1,
                       size_t base)
{
    const AFFINE *pending = NULL;
    int pending_digit = 0;
    for (size_t v = v0; v <= v1; v++) {
        int d = 0;
        const AFFINE *p = NULL;
        if (v < v1) {
            if (ctx->density && !(ctx->density[v / 64] >> (v % 64) & 1))
                continue;
            p = &ctx->bases[base++];
            d = GOP(affine_is_infinity)(p)
                    ? 0
                    : booth_digit(ctx->scalars + v * LIMBS, window, ctx->plan.window);
            if (d == 0)
                continue;
            size_t b = (size_t)(d > 0 ? d : -d) - 1;
            const char *next =
                ws->cap ? (const char *)&ws->abuckets[b] : (const char *)&ws->xbuckets[b];
            size_t bytes = ws->cap ? sizeof(AFFINE) : sizeof(XYZZ);
            for (size_t line = 0; line < bytes; line += 64)
                __builtin_prefetch(next + line, 1);
        }
        if (pending_digit != 0) {
            size_t b = (size_t)(pending_digit > 0 ? pending_digit : -pending_digit) - 1;
            XYZZ *xb = &ws->xbuckets[b];
            if (ws->cap)
                batch_add(ws, b, pending, pending_digit < 0);
            else
                GOP(xyzz_add_affine)(xb, xb, pending, pending_digit < 0);
        }
        pending = p;
        pending_digit = d;
    }
    batch_flush(ws);
}

static void run_tasks(void *arg, size_t begin, size_t end, unsigned worker)
{
    const task_ctx *ctx = (const task_ctx *)arg;
    unsigned c = ctx->plan.window, parts = ctx->plan.parts;
    size_t nbuckets = (size_t)1 << (c - 1);
    batch_ws ws;
    worker_carve(&ws, ctx->work + (size_t)worker * worker_bytes(&ctx->plan), &ctx->plan);
    for (size_t task = begin; task < end; task++) {
        unsigned window = (unsigned)(task / parts), part = (unsigned)(task % parts);
        size_t v0 = ctx->nvars / parts * part + ctx->nvars % parts * part / parts;
        size_t v1 = ctx->nvars / parts * (part + 1) + ctx->nvars % parts * (part + 1) / parts;
        size_t base = ctx->density ? count_dense(ctx->density, v0) : v0;
        for (size_t b = 0; b < nbuckets; b++)
            GOP(xyzz_set_infinity)(&ws.xbuckets[b]);
        if (ws.cap) {
            memset(ws.abuckets, 0, nbuckets * sizeof(AFFINE)); /* x = y = 0: infinity */
            memset(ws.busy, 0, nbuckets);
        }
        accumulate(ctx, &ws, window, v0, v1, base);
        fill_bucket_sum(&ctx->sums[task], ws.cap ? ws.abuckets : NULL, ws.xbuckets, nbuckets);
    }
}

/* Horner over the windows, top first: acc = 2^c acc + Σ_parts sum. */
static void combine(MSM_G *out, const task_ctx *ctx)
{
    MSM_G acc, w;
    GOP(set_infinity)(&acc);
    for (unsigned j = ctx->plan.windows; j-- > 0;) {
        XYZZ s = ctx->sums[(size_t)j * ctx->plan.parts];
        for (unsigned p = 1; p < ctx->plan.parts; p++)
            GOP(xyzz_add)(&s, &s, &ctx->sums[(size_t)j * ctx->plan.parts + p]);
        for (unsigned i = 0; i < ctx->plan.window; i++)
            GOP(dbl)(&acc, &acc);
        GOP(xyzz_to_jacobian)(&w, &s);
        GOP(add)(&acc, &acc, &w);
    }
    *out = acc;
}

static void to_canonical(uint64_t *out, const uint64_t *mont, size_t nvars)
{
    for (size_t v = 0; v < nvars; v++) {
        MSM_FR e;
        memcpy(e.l, mont + v * LIMBS, sizeof e.l);
        MSM_CAT(MSM_FR, _to_canonical)(out + v * LIMBS, &e);
    }
}

static unsigned bit_length(const uint64_t *scalars, size_t nvars)
{
    uint64_t any[LIMBS] = {0};
    for (size_t v = 0; v < nvars; v++)
        for (int i = 0; i < LIMBS; i++)
            any[i] |= scalars[v * LIMBS + i];
    for (int i = LIMBS; i-- > 0;)
        if (any[i])
            return (unsigned)(64 * i + 64 - __builtin_clzll(any[i]));
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
    int mont = (cfg->flags & ZKPIPE__MSM_MONTGOMERY) != 0;
    unsigned bits = mont ? planned_bits(cfg->flags) : bit_length(scalars, nvars);
    if (nbases == 0 || bits == 0) {
        GOP(set_infinity)(out);
        return ZKPIPE_OK;
    }

    task_ctx ctx;
    layout lay;
    zkpipe__msm_plan_make(&ctx.plan, nbases, planned_bits(cfg->flags), threads, cfg->window,
                          cfg->flags);
    if (!make_layout(&lay, &ctx.plan, nvars, cfg->flags, threads))
        return ZKPIPE_EOVERFLOW;
    unsigned char *scratch = (unsigned char *)zkpipe__alloc(a, lay.total, SCRATCH_ALIGN);
    if (scratch == NULL)
        return ZKPIPE_ENOMEM;
    ctx.work = scratch;
    ctx.sums = (XYZZ *)(scratch + lay.buckets);
    ctx.scalars = scalars;
    if (mont) {
        uint64_t *converted = (uint64_t *)(scratch + lay.buckets + lay.sums);
        to_canonical(converted, scalars, nvars);
        ctx.scalars = converted;
        bits = bit_length(converted, nvars);
    }
    ctx.bases = bases;
    ctx.density = density;
    ctx.nvars = nvars;
    /* Fewer windows when the scalars are short; the plan's count is the most they need. */
    ctx.plan.windows = (bits + 1 + ctx.plan.window - 1) / ctx.plan.window;
    if (bits > 0) {
        zkpipe_status st = zkpipe_pool_parallel_for(pool, (size_t)ctx.plan.windows * ctx.plan.parts,
                                                    1, run_tasks, &ctx);
        (void)st; /* fails only for a NULL fn */
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
