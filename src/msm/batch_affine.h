/* Batch-affine bucket accumulation, part of the MSM template (included by msm/msm_impl.h,
 * which defines GOP, AFFINE, XYZZ, MSM_F, task_ctx and point_digit).
 *
 * The buckets are affine points. Additions into them are collected in a batch of up to
 * `batch` pending ones, each to a different bucket; the batch then shares one field
 * inversion (Montgomery's trick: 3M per element) and each affine addition costs
 * 2M + 1S more, about 5M + 1S in all against the 8M + 2S of an XYZZ mixed addition. A
 * point whose bucket already has an addition pending, or one with the bucket's x (doubling
 * or cancelling), goes to a second, XYZZ bucket instead; the two are merged before the
 * reduction. That keeps the batch free of order dependencies at the price of a few slow
 * additions (about batch / (2 nb) per batch for nb buckets). */

typedef struct pending_add {
    const AFFINE *point;
    uint32_t bucket;
    uint32_t neg;
} pending_add;

/* One worker's arrays for batch_accumulate, carved from the scratch block. */
typedef struct affine_scratch {
    AFFINE *buckets;      /* nb */
    uint32_t *stamp;      /* nb: the batch a bucket has a pending addition in */
    pending_add *pending; /* batch */
    MSM_F *den;           /* batch: x2 - x1 */
    MSM_F *tmp;           /* batch: prefix products of den */
} affine_scratch;

static size_t affine_scratch_bytes(size_t nbuckets, size_t batch)
{
    return round_up(nbuckets * sizeof(AFFINE)) + round_up(nbuckets * sizeof(uint32_t)) +
           round_up(batch * sizeof(pending_add)) + 2 * round_up(batch * sizeof(MSM_F));
}

static void affine_scratch_carve(affine_scratch *s, unsigned char *block, size_t nbuckets,
                                 size_t batch)
{
    s->buckets = (AFFINE *)block;
    block += round_up(nbuckets * sizeof(AFFINE));
    s->stamp = (uint32_t *)block;
    block += round_up(nbuckets * sizeof(uint32_t));
    s->pending = (pending_add *)block;
    block += round_up(batch * sizeof(pending_add));
    s->den = (MSM_F *)block;
    s->tmp = (MSM_F *)(block + round_up(batch * sizeof(MSM_F)));
}

/* 1/a, kept out of line: the exponentiation is long and rare, and inlining it would crowd
 * the per-element loop that calls it. */
static __attribute__((noinline)) void invert(MSM_F *r, const MSM_F *a)
{
    MSM_FOP(inv)(r, a);
}

/* Completes the m pending additions: bucket = bucket + (±point), with distinct x. One
 * inversion for all (Montgomery's trick), consumed from the back so each element's inverse
 * is used as soon as it is known. */
static void flush_batch(affine_scratch *s, size_t m)
{
    MSM_F acc;
    MSM_FOP(set_one)(&acc);
    for (size_t i = 0; i < m; i++) {
        s->tmp[i] = acc; /* the product of den[0..i) */
        MSM_FOP(mul)(&acc, &acc, &s->den[i]);
    }
    invert(&acc, &acc);
    for (size_t i = m; i-- > 0;) {
        AFFINE *a = &s->buckets[s->pending[i].bucket];
        const AFFINE *p = s->pending[i].point;
        MSM_F y2 = p->y, lambda, x3, t;
        MSM_FOP(mul)(&t, &acc, &s->tmp[i]); /* 1 / den[i] */
        MSM_FOP(mul)(&acc, &acc, &s->den[i]);
        if (s->pending[i].neg)
            MSM_FOP(neg)(&y2, &y2);
        /* λ = (y2 - y1) / (x2 - x1); x3 = λ² - x1 - x2; y3 = λ (x1 - x3) - y1 */
        MSM_FOP(sub)(&lambda, &y2, &a->y);
        MSM_FOP(mul)(&lambda, &lambda, &t);
        MSM_FOP(sqr)(&x3, &lambda);
        MSM_FOP(sub)(&x3, &x3, &a->x);
        MSM_FOP(sub)(&x3, &x3, &p->x);
        MSM_FOP(sub)(&t, &a->x, &x3);
        MSM_FOP(mul)(&t, &lambda, &t);
        MSM_FOP(sub)(&a->y, &t, &a->y);
        a->x = x3;
    }
}

/* Adds the points of variables [v0, v1) (bases from index `base`) into `xyzz` by their
 * digits of `window`, through the affine buckets; xyzz must start at infinity. */
static void batch_accumulate(const task_ctx *ctx, affine_scratch *s, XYZZ *xyzz, unsigned window,
                             size_t v0, size_t v1, size_t base)
{
    size_t nbuckets = (size_t)1 << (ctx->plan.window - 1), m = 0;
    uint32_t batch_id = 1;
    for (size_t b = 0; b < nbuckets; b++) {
        GOP(affine_set_infinity)(&s->buckets[b]);
        s->stamp[b] = 0;
    }
    for (size_t v = v0; v < v1; v++) {
        const AFFINE *p;
        int d = point_digit(ctx, v, &base, window, &p);
        if (d == 0)
            continue;
        uint32_t b = (uint32_t)(d > 0 ? d - 1 : -d - 1), neg = d < 0;
        AFFINE *a = &s->buckets[b];
        if (a->infinity) {
            *a = *p;
            if (neg)
                MSM_FOP(neg)(&a->y, &a->y);
        } else if (s->stamp[b] == batch_id || MSM_FOP(eq)(&a->x, &p->x)) {
            GOP(xyzz_add_affine)(&xyzz[b], &xyzz[b], p, (int)neg);
        } else {
            s->stamp[b] = batch_id;
            MSM_FOP(sub)(&s->den[m], &p->x, &a->x);
            s->pending[m].point = p;
            s->pending[m].bucket = b;
            s->pending[m].neg = neg;
            if (++m == ctx->plan.batch) {
                flush_batch(s, m);
                m = 0;
                batch_id++;
            }
        }
    }
    flush_batch(s, m);
    for (size_t b = 0; b < nbuckets; b++)
        if (!s->buckets[b].infinity)
            GOP(xyzz_add_affine)(&xyzz[b], &xyzz[b], &s->buckets[b], 0);
}
