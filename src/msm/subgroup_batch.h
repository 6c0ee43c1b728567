/* The batched subgroup check, part of the msm_impl.h template (it uses its buckets): are all n
 * points, held in one or more arrays (segments: a zkey's query sections), in the subgroup of
 * order r?
 *
 * Each point P_i draws 128 random bits rho_i (from the caller's `coins`, after the points are
 * fixed). For every bit position t the subset sum S_t = Σ_{i: bit t of rho_i is 1} P_i is
 * checked with the group's own test G_is_in_subgroup. If every P_i is in the subgroup G, so is
 * every S_t. If some P_j is not: the curve's group is G ⊕ H with H of order the cofactor h
 * (r does not divide h), P_j's component T_j in H is not zero, and whatever the other bits
 * are, S_t's component Σ_i bit_t(rho_i) T_i is zero for at most one of the two values of
 * bit t of rho_j. So each of the 128 independent rounds misses P_j with probability at most
 * 1/2, and all of them with probability at most 2^-128, whatever h's prime factors.
 *
 * (The usual batch, one random combination Σ rho_i P_i with 64-bit rho_i, is not sound here:
 * only rho_j mod ord(T_j) matters, and h has small prime factors (BLS12-381 G1: 3, 11, ...;
 * its G2: 13, 23, ...; BN254 G2: 10069, ...), so a point with a component of order 3 escapes
 * it with probability 1/3.)
 *
 * The 128 subset sums come from Pippenger's buckets with unsigned c-bit digits: in window j the
 * points go into the bucket of their bits [jc, jc + c), and the subset sum of bit b of the
 * window is the sum of the buckets whose index has bit b set. Those are read off by folding:
 * the top bit's sum is the sum of the upper half of the buckets, then the upper half is added
 * onto the lower half, and so on, about 2^(c+1) additions per window beside its n bucket
 * additions; then 128 per-point checks of the sums. */

#define SUBGROUP_ROUNDS ZKPIPE__MSM_SUBGROUP_ROUNDS

#define SUBGROUP_SEGMENTS ZKPIPE__MSM_SUBGROUP_SEGMENTS

typedef struct subgroup_ctx {
    const AFFINE *const *points;         /* the segments */
    size_t start[SUBGROUP_SEGMENTS + 1]; /* segment s holds points [start[s], start[s + 1]) */
    size_t nseg;
    const uint64_t *coins; /* two words (128 bits) per point */
    size_t n;
    unsigned c, parts;     /* digit bits; point ranges per window */
    zkpipe__msm_plan plan; /* buckets as for a window of c + 1 signed digits: 2^c */
    unsigned char *work;   /* one worker_bytes(&plan) region per worker */
    XYZZ *sums;            /* c per task, task = window * parts + part */
} subgroup_ctx;

/* The sum of buckets in reach of `bits`-bit digits, by bit: sums[b] = Σ_{d: bit b of d} bucket_d.
 * xb holds bucket d at d - 1 (digit 0 has none) and is consumed. */
static void subgroup_fold(XYZZ *sums, XYZZ *xb, unsigned bits)
{
    for (unsigned b = bits; b-- > 0;) {
        size_t half = (size_t)1 << b;
        GOP(xyzz_set_infinity)(&sums[b]);
        for (size_t d = half; d < 2 * half; d++)
            GOP(xyzz_add)(&sums[b], &sums[b], &xb[d - 1]);
        for (size_t d = 1; d < half; d++) /* digit half itself has no lower bit */
            GOP(xyzz_add)(&xb[d - 1], &xb[d - 1], &xb[d + half - 1]);
    }
}

static void subgroup_tasks(void *arg, size_t begin, size_t end, unsigned worker)
{
    const subgroup_ctx *ctx = (const subgroup_ctx *)arg;
    unsigned c = ctx->c, parts = ctx->parts;
    batch_ws ws;
    worker_carve(&ws, ctx->work + (size_t)worker * worker_bytes(&ctx->plan), &ctx->plan);
    for (size_t task = begin; task < end; task++) {
        unsigned window = (unsigned)(task / parts), part = (unsigned)(task % parts);
        unsigned lo = window * c, bits = SUBGROUP_ROUNDS - lo < c ? SUBGROUP_ROUNDS - lo : c;
        size_t v0 = zkpipe__pool_share(ctx->n, parts, part);
        size_t v1 = zkpipe__pool_share(ctx->n, parts, part + 1);
        size_t nbuckets = ((size_t)1 << bits) - 1;
        pending pend;
        pend.head = pend.count = 0;
        memset(ws.state, 0, nbuckets);
        /* the scalar code's least batch, whatever the lanes */
        ws.cap = zkpipe__msm_task_cap(ctx->plan.batch, nbuckets, 0, 0);
        ws.qcap = queue_size(ws.cap);
        size_t seg = 0;
        for (size_t v = v0; v < v1; v++) {
            while (v >= ctx->start[seg + 1])
                seg++;
            const AFFINE *p = &ctx->points[seg][v - ctx->start[seg]];
            const uint64_t *k = ctx->coins + 2 * v;
            point_ref ref = {&p->x, &p->y};
            uint64_t w = lo < 64 ? k[0] >> lo : k[1] >> (lo - 64);
            if (lo < 64 && lo + bits > 64)
                w |= k[1] << (64 - lo);
            int d = (int)(w & (((uint64_t)1 << bits) - 1));
            if (!GOP(affine_is_infinity)(p))
                push(&ws, &pend, ref, d, 0);
        }
        flush(&ws, &pend);
        batch_drain(&ws);
        /* every bucket into its XYZZ twin, then the fold */
        for (size_t b = 0; b < nbuckets; b++) {
            if (!(ws.state[b] & BUCKET_TWIN))
                GOP(xyzz_set_infinity)(&ws.xbuckets[b]);
            if (ws.state[b] & BUCKET_AFFINE)
                GOP(xyzz_add_affine)(&ws.xbuckets[b], &ws.xbuckets[b], &ws.abuckets[b], 0);
        }
        subgroup_fold(ctx->sums + task * c, ws.xbuckets, bits);
    }
}

zkpipe_status API(_subgroup_check_segments)(int *all, const AFFINE *const *points,
                                            const size_t *counts, size_t nseg,
                                            zkpipe__msm_coins_fn coins, zkpipe_pool *pool,
                                            const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    subgroup_ctx ctx;
    size_t n = 0;
    if (all == NULL || coins == NULL || a == NULL || nseg > SUBGROUP_SEGMENTS ||
        (nseg > 0 && (points == NULL || counts == NULL)))
        return ZKPIPE_EINVAL;
    ctx.start[0] = 0;
    for (size_t s = 0; s < nseg; s++) {
        if (counts[s] > 0 && points[s] == NULL)
            return ZKPIPE_EINVAL;
        if (counts[s] > SIZE_MAX / 64 - n)
            return ZKPIPE_EOVERFLOW;
        n += counts[s];
        ctx.start[s + 1] = n;
    }
    if (!MSM_COFACTOR || n == 0) {
        *all = 1; /* every point on the curve is in the group */
        return ZKPIPE_OK;
    }
    unsigned threads = zkpipe_pool_threads(pool);
    double best = -1;
    /* Window cost: n bucket additions plus about 2^(c+1) fold additions, each a full XYZZ
     * addition worth about two batched ones. c <= 15 keeps the 2^c buckets within a plan. */
    for (unsigned c = 1; c <= ZKPIPE__MSM_MAX_WINDOW - 1; c++) {
        unsigned windows = (SUBGROUP_ROUNDS + c - 1) / c;
        double cost = (double)windows * ((double)n + 4.0 * (double)((size_t)1 << c));
        if (best < 0 || cost < best) {
            best = cost;
            ctx.c = c;
        }
    }
    unsigned windows = (SUBGROUP_ROUNDS + ctx.c - 1) / ctx.c;
    ctx.parts = windows >= threads ? 1 : (threads + windows - 1) / windows;
    zkpipe__msm_plan_make(&ctx.plan, n, SUBGROUP_ROUNDS, threads, ctx.c + 1, ZKPIPE__MSM_NO_ENDO,
                          BATCH_LANES);
    ctx.points = points;
    ctx.nseg = nseg;
    ctx.n = n;
    size_t tasks = (size_t)windows * ctx.parts;
    size_t work = (size_t)threads * worker_bytes(&ctx.plan);
    size_t sums = round_up(tasks * ctx.c * sizeof(XYZZ));
    size_t coin_bytes = round_up(n * 2 * sizeof(uint64_t));
    unsigned char *scratch =
        (unsigned char *)zkpipe__alloc(a, work + sums + coin_bytes, SCRATCH_ALIGN);
    if (scratch == NULL)
        return ZKPIPE_ENOMEM;
    ctx.work = scratch;
    ctx.sums = (XYZZ *)(scratch + work);
    ctx.coins = (const uint64_t *)(scratch + work + sums);
    zkpipe_status st = coins(scratch + work + sums, n * 2 * sizeof(uint64_t));
    if (st == ZKPIPE_OK) {
        MSM_G jac[SUBGROUP_ROUNDS];
        AFFINE aff[SUBGROUP_ROUNDS];
        (void)zkpipe_pool_parallel_for(pool, tasks, 1, subgroup_tasks, &ctx);
        for (unsigned t = 0; t < SUBGROUP_ROUNDS; t++) {
            unsigned j = t / ctx.c, b = t % ctx.c;
            XYZZ s = ctx.sums[(size_t)j * ctx.parts * ctx.c + b];
            for (unsigned p = 1; p < ctx.parts; p++)
                GOP(xyzz_add)(&s, &s, &ctx.sums[((size_t)j * ctx.parts + p) * ctx.c + b]);
            GOP(xyzz_to_jacobian)(&jac[t], &s);
        }
        GOP(batch_to_affine)(aff, jac, SUBGROUP_ROUNDS);
        *all = 1;
        for (unsigned t = 0; t < SUBGROUP_ROUNDS && *all; t++)
            *all = GOP(is_in_subgroup)(&aff[t]);
    }
    zkpipe__free(a, scratch);
    return st;
}

zkpipe_status API(_subgroup_check)(int *all, const AFFINE *points, size_t n,
                                   zkpipe__msm_coins_fn coins, zkpipe_pool *pool,
                                   const zkpipe_allocator *allocator)
{
    return API(_subgroup_check_segments)(all, &points, &n, 1, coins, pool, allocator);
}
