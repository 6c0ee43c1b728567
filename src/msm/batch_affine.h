/* Batch-affine bucket accumulation, part of the msm_impl.h template (it uses its macros).
 *
 * Buckets are affine points. An addition P + Q needs the inverse of x_Q - x_P (of 2 y_P for a
 * doubling); scheduled additions wait in a batch whose denominators share one inversion
 * (Montgomery's trick, 3 multiplications each), after which each costs 2M + 1S: about 5M + 1S
 * per point plus the inversion's share, against 8M + 2S for a mixed XYZZ addition, and the
 * affine bucket is half the memory. A bucket can take part in only one addition per batch, so
 * a point whose bucket is already scheduled goes into that bucket's XYZZ twin instead; the
 * reduction adds both (plan.c sizes the batch). */

enum { BATCH_NEG = 1, BATCH_DBL = 2 };

typedef struct batch_op {
    uint32_t bucket;
    uint32_t flags; /* BATCH_NEG: add -P; BATCH_DBL: the bucket equals the point */
    const AFFINE *p;
} batch_op;

/* One worker's buckets and pending batch, carved from the scratch block. */
typedef struct batch_ws {
    AFFINE *abuckets;    /* 2^(c-1) affine buckets */
    XYZZ *xbuckets;      /* their XYZZ twins, for collisions */
    unsigned char *busy; /* 1 while the bucket has an addition in the batch */
    batch_op *ops;       /* capacity `cap` */
    MSM_F *den, *prefix; /* denominators and their running products */
    size_t nops, cap;
} batch_ws;

/* Finishes the batched additions: one inversion, then each bucket's new point. */
static void batch_flush(batch_ws *ws)
{
    size_t n = ws->nops;
    MSM_F acc, inv, num, lambda, x3, t;
    if (n == 0)
        return;
    acc = ws->den[0];
    for (size_t i = 1; i < n; i++) {
        ws->prefix[i] = acc;
        FOP(mul)(&acc, &acc, &ws->den[i]);
    }
    FOP(inv)(&acc, &acc); /* non-zero: every denominator is */
    for (size_t i = n; i-- > 0;) {
        const batch_op *op = &ws->ops[i];
        AFFINE *q = &ws->abuckets[op->bucket];
        if (i > 0) {
            FOP(mul)(&inv, &acc, &ws->prefix[i]);
            FOP(mul)(&acc, &acc, &ws->den[i]);
        } else {
            inv = acc;
        }
        if (op->flags & BATCH_DBL) {
            FOP(sqr)(&t, &q->x); /* lambda = 3 x^2 / 2y */
            FOP(dbl)(&num, &t);
            FOP(add)(&num, &num, &t);
        } else {
            num = op->p->y;
            if (op->flags & BATCH_NEG)
                FOP(neg)(&num, &num);
            FOP(sub)(&num, &num, &q->y);
        }
        FOP(mul)(&lambda, &num, &inv);
        FOP(sqr)(&x3, &lambda);
        FOP(sub)(&x3, &x3, &q->x);
        FOP(sub)(&x3, &x3, &op->p->x);
        FOP(sub)(&t, &q->x, &x3);
        FOP(mul)(&t, &lambda, &t);
        FOP(sub)(&q->y, &t, &q->y);
        q->x = x3;
        ws->busy[op->bucket] = 0;
    }
    ws->nops = 0;
}

/* bucket b += ±p: at once when the bucket is empty or the sum is infinity, else scheduled. */
static void batch_add(batch_ws *ws, size_t b, const AFFINE *p, int neg)
{
    AFFINE *q = &ws->abuckets[b];
    MSM_F d, y;
    uint32_t flags = neg ? BATCH_NEG : 0;
    if (ws->busy[b]) {
        GOP(xyzz_add_affine)(&ws->xbuckets[b], &ws->xbuckets[b], p, neg);
        return;
    }
    if (GOP(affine_is_infinity)(q)) {
        q->x = p->x;
        q->y = p->y;
        if (neg)
            FOP(neg)(&q->y, &q->y);
        return;
    }
    FOP(sub)(&d, &p->x, &q->x);
    if (FOP(is_zero)(&d)) {
        y = p->y;
        if (neg)
            FOP(neg)(&y, &y);
        if (!FOP(eq)(&y, &q->y) || FOP(is_zero)(&y)) {
            GOP(affine_set_infinity)(q); /* P + (-P), or doubling a point of order 2 */
            return;
        }
        FOP(dbl)(&d, &q->y);
        flags |= BATCH_DBL;
    }
    ws->ops[ws->nops].bucket = (uint32_t)b;
    ws->ops[ws->nops].flags = flags;
    ws->ops[ws->nops].p = p;
    ws->den[ws->nops] = d;
    ws->busy[b] = 1;
    if (++ws->nops == ws->cap)
        batch_flush(ws);
}
