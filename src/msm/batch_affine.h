/* Bucket accumulation, part of the msm_impl.h template (it uses its macros).
 *
 * Buckets are affine points. An addition P + Q needs the inverse of x_Q - x_P (of 2 y_P for a
 * doubling); scheduled additions wait in a batch whose denominators share one inversion
 * (Montgomery's trick, 3 multiplications each), after which each costs 2M + 1S: about 5M + 1S
 * per point plus the inversion's share, against 8M + 2S for a mixed XYZZ addition, and the
 * affine bucket is half the memory. A bucket can take part in only one addition per batch, so
 * a point whose bucket is already scheduled waits in a queue and is scheduled again after the
 * batch is done; only when the queue is full, and for what is left in it when the task ends,
 * does the point go into the bucket's XYZZ twin, which the reduction adds in. (Sending every
 * such point to the twin cost an XYZZ addition for about one point in eight, and a full XYZZ
 * addition per bucket in the reduction.)
 *
 * Without batching (cap 0) every point goes into the XYZZ twins. Each bucket's state byte says
 * which of its parts hold a point, so a task clears only those bytes, not the buckets.
 *
 * Over Fq2 (the .c file defines MSM_INV_F, the base field Fq) the batch inverts the
 * denominators' norms N(d) = d conj(d) in Fq instead, and takes 1/d = conj(d) / N(d): the
 * prefix products and their inversion run in Fq, one norm and one product by an Fq element
 * replace Fq2 products: ten products in Fq per denominator (two of them squarings) instead of
 * the twelve of four Fq2 products, and the batch's one inversion is in Fq. N(d) is non-zero for
 * non-zero d since -1 is not a square in Fq.
 *
 * Where the .c file defines MSM_BATCH_X8 (every group on x86-64, msm/batch_x8.h), a batch of at
 * least ZKPIPE__MSM_X8_MIN additions goes to that kernel when the CPU has AVX-512 IFMA, and where
 * it also defines MSM_BATCH_X8F (BN254's groups) to that one when the CPU has AVX-512F without
 * IFMA: the same additions, eight at a time, with the prefix products in the lanes' layout
 * (ws->prefix is sized for the larger). Over Fq2 the kernel makes the norms on its lanes, so
 * batch_schedule leaves them then, and a smaller batch, which the scalar code finishes, takes them
 * in batch_finish. */

#ifdef MSM_INV_F
#define BATCH_INV MSM_INV_F
#define IOP(op) MSM_CAT(MSM_INV_F, _##op)
#else
#define BATCH_INV MSM_F
#define IOP(op) FOP(op)
#endif

enum { BATCH_NEG = ZKPIPE__MSM_BATCH_NEG, BATCH_DBL = ZKPIPE__MSM_BATCH_DBL };
/* Whether a batch of ZKPIPE__MSM_X8_MIN or more goes to the lanes: IFMA's, or AVX-512F's. */
#if defined(MSM_BATCH_X8F)
#define BATCH_LANES (zkpipe__ff_x86_ifma || zkpipe__ff_x86_avx512)
#elif defined(MSM_BATCH_X8)
#define BATCH_LANES zkpipe__ff_x86_ifma
#else
#define BATCH_LANES 0
#endif
/* A bucket's state bits. */
enum { BUCKET_SCHEDULED = 1, BUCKET_TWIN = 2, BUCKET_AFFINE = 4 };

/* A point added into a bucket, by its coordinates: a base, or with the endomorphism the image
 * phi(P) = (beta x, y), whose x is stored apart and whose y is P's; and a scheduled addition
 * (msm/batch_op.h). */
typedef MSM_CAT(MSM_G, _point_ref) point_ref;
typedef MSM_CAT(MSM_G, _batch_op) batch_op;

/* One worker's buckets, pending batch and queue, carved from the scratch block. */
typedef struct batch_ws {
    AFFINE *abuckets;         /* 2^(c-1) affine buckets */
    XYZZ *xbuckets;           /* their XYZZ twins */
    unsigned char *state;     /* BUCKET_* bits per bucket */
    batch_op *ops;            /* the batch, capacity `cap` */
    MSM_F *den;               /* denominators */
    BATCH_INV *norm;          /* what is inverted: den, or with MSM_INV_F its norms */
    BATCH_INV *prefix;        /* running products of norm */
    batch_op *queue;          /* points whose bucket was scheduled, capacity `qcap` < cap */
    AFFINE *acc;              /* reduce_affine's sums: REDUCE_POINTS per segment */
    unsigned char *acc_state; /* their BUCKET_* bits: REDUCE_STATES per segment */
    size_t nops, cap, nqueue, qcap;
} batch_ws;

/* twin b += ±p. */
static void twin_add(batch_ws *ws, size_t b, point_ref p, int neg)
{
    XYZZ *x = &ws->xbuckets[b];
    if (ws->state[b] & BUCKET_TWIN) {
        AFFINE a;
        a.x = *p.x;
        a.y = *p.y;
        GOP(xyzz_add_affine)(x, x, &a, neg);
        return;
    }
    x->x = *p.x;
    x->y = *p.y;
    if (neg)
        FOP(neg)(&x->y, &x->y);
    FOP(set_one)(&x->zz);
    FOP(set_one)(&x->zzz);
    ws->state[b] |= BUCKET_TWIN;
}

/* The batch's additions: one inversion, then each bucket's new point. */
static void batch_finish(batch_ws *ws)
{
    size_t n = ws->nops;
    BATCH_INV acc, inv;
    MSM_F num, lambda, x3, t;
    if (n == 0)
        return;
#ifdef MSM_BATCH_X8
    if (n >= ZKPIPE__MSM_X8_MIN && BATCH_LANES) {
#ifdef MSM_BATCH_X8F
        if (!zkpipe__ff_x86_ifma)
            MSM_BATCH_X8F(ws->abuckets, ws->ops, ws->den, n, ws->prefix);
        else
#endif
            MSM_BATCH_X8(ws->abuckets, ws->ops, ws->den, n, ws->prefix);
        for (size_t i = 0; i < n; i++)
            ws->state[ws->ops[i].bucket] &= (unsigned char)~BUCKET_SCHEDULED;
        ws->nops = 0;
        return;
    }
#endif
#ifdef MSM_INV_F
    if (BATCH_LANES) /* batch_schedule left the norms to the lanes */
        for (size_t i = 0; i < n; i++)
            FOP(norm)(&ws->norm[i], &ws->den[i]);
#endif
    /* The prefix products, the inverses taken from them and the slope are only multiplied
     * again: F_mul_lazy leaves out their final subtractions (fp.h), and the chain's end is
     * reduced before its inversion. */
    acc = ws->norm[0];
    for (size_t i = 1; i < n; i++) {
        ws->prefix[i] = acc;
        IOP(mul_lazy)(&acc, &acc, &ws->norm[i]);
    }
    IOP(reduce_lazy)(&acc, &acc);
    IOP(inv)(&acc, &acc); /* non-zero: every denominator is */
    for (size_t i = n; i-- > 0;) {
        const batch_op *op = &ws->ops[i];
        AFFINE *q = &ws->abuckets[op->bucket];
        if (i > 0) {
            IOP(mul_lazy)(&inv, &acc, &ws->prefix[i]);
            IOP(mul_lazy)(&acc, &acc, &ws->norm[i]);
        } else {
            inv = acc;
        }
        if (op->flags & BATCH_DBL) {
            FOP(sqr)(&t, &q->x); /* lambda = 3 x^2 / 2y */
            FOP(dbl)(&num, &t);
            FOP(add)(&num, &num, &t);
        } else {
            num = *op->p.y;
            if (op->flags & BATCH_NEG)
                FOP(neg)(&num, &num);
            FOP(sub)(&num, &num, &q->y);
        }
#ifdef MSM_INV_F
        FOP(conjugate)(&t, &ws->den[i]);
        FOP(mul)(&lambda, &num, &t);
        FOP(mul_by_fq)(&lambda, &lambda, &inv);
#else
        FOP(mul_lazy)(&lambda, &num, &inv);
#endif
        FOP(sqr)(&x3, &lambda);
        FOP(sub)(&x3, &x3, &q->x);
        FOP(sub)(&x3, &x3, op->p.x);
        FOP(sub)(&t, &q->x, &x3);
        FOP(mul)(&t, &lambda, &t);
        FOP(sub)(&q->y, &t, &q->y);
        q->x = x3;
        ws->state[op->bucket] &= (unsigned char)~BUCKET_SCHEDULED;
    }
    ws->nops = 0;
}

/* bucket b += ±p for a bucket not scheduled: at once when the bucket is empty or the sum is
 * infinity, else scheduled. Never fills the batch past cap when called with nops < cap. */
static void batch_schedule(batch_ws *ws, size_t b, const MSM_F *px, const MSM_F *py, int neg)
{
    AFFINE *q = &ws->abuckets[b];
    size_t n = ws->nops;
    MSM_F *d = &ws->den[n];
    batch_op *op = &ws->ops[n];
    uint32_t flags = neg ? BATCH_NEG : 0;
    if (!(ws->state[b] & BUCKET_AFFINE)) {
        q->x = *px;
        q->y = *py;
        if (neg)
            FOP(neg)(&q->y, &q->y);
        ws->state[b] |= BUCKET_AFFINE;
        return;
    }
    /* d and the op are written where the batch keeps them, field by field, and p arrives as
     * two pointers, not a point_ref: built on the stack and copied (gcc moved the point_ref into
     * a vector register through the stack too), they were read back in 16-byte loads across
     * 8-byte stores, which the CPU cannot forward: a third of this function's samples */
    FOP(sub)(d, px, &q->x);
    if (FOP(is_zero)(d)) {
        MSM_F y = *py;
        if (neg)
            FOP(neg)(&y, &y);
        if (!FOP(eq)(&y, &q->y) || FOP(is_zero)(&y)) {
            /* P + (-P), or doubling a point of order 2: the bucket is empty again */
            ws->state[b] &= (unsigned char)~BUCKET_AFFINE;
            return;
        }
        FOP(dbl)(d, &q->y);
        flags |= BATCH_DBL;
    }
    op->bucket = (uint32_t)b;
    op->flags = flags;
    op->p.x = px;
    op->p.y = py;
#ifdef MSM_INV_F
    if (!BATCH_LANES)
        FOP(norm)(&ws->norm[n], d);
#endif
    ws->state[b] |= BUCKET_SCHEDULED;
    ws->nops = n + 1;
}

/* Schedules the queued points whose buckets are free again; the others stay queued. */
static void batch_requeue(batch_ws *ws)
{
    size_t n = ws->nqueue;
    ws->nqueue = 0;
    for (size_t i = 0; i < n; i++) {
        batch_op e = ws->queue[i];
        if (ws->state[e.bucket] & BUCKET_SCHEDULED)
            ws->queue[ws->nqueue++] = e;
        else
            batch_schedule(ws, e.bucket, e.p.x, e.p.y, (int)(e.flags & BATCH_NEG));
    }
}

/* bucket b += ±p. */
static void batch_add(batch_ws *ws, size_t b, point_ref p, int neg)
{
    if (ws->state[b] & BUCKET_SCHEDULED) {
        if (ws->nqueue == ws->qcap) {
            twin_add(ws, b, p, neg);
            return;
        }
        ws->queue[ws->nqueue].bucket = (uint32_t)b;
        ws->queue[ws->nqueue].flags = neg ? BATCH_NEG : 0;
        ws->queue[ws->nqueue].p = p;
        ws->nqueue++;
        return;
    }
    batch_schedule(ws, b, p.x, p.y, neg);
    if (ws->nops == ws->cap) {
        batch_finish(ws);
        batch_requeue(ws); /* at most qcap < cap points */
    }
}

/* The task's last additions: the batch, one more for the queue, and what still waits there
 * into the twins. */
static void batch_drain(batch_ws *ws)
{
    batch_finish(ws);
    batch_requeue(ws);
    batch_finish(ws);
    for (size_t i = 0; i < ws->nqueue; i++)
        twin_add(ws, ws->queue[i].bucket, ws->queue[i].p, (int)(ws->queue[i].flags & BATCH_NEG));
    ws->nqueue = 0;
}

/* The sizes of the batched bucket reduction (msm_impl.h's reduce_affine). */
enum { REDUCE_POINTS = 3, REDUCE_STATES = 2 }; /* R_s, T_s and a copy of R_s; their states */
/* Fewer segments share an inversion among too few additions to pay. */
#define REDUCE_MIN_SEGMENTS 16

/* The segments for m buckets (a power of two) with batches of up to `cap` additions: the
 * largest power of two k with k^2 <= 16m and 2k <= cap, or 0 below REDUCE_MIN_SEGMENTS. */
static size_t reduce_segments(size_t m, size_t cap)
{
    size_t k = 1;
    while (4 * k * k <= 16 * m && 4 * k <= cap)
        k *= 2;
    return k >= REDUCE_MIN_SEGMENTS ? k : 0;
}
