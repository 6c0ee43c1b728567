/* Fixed-base batch scalar multiplication of a group's generator, for the setup's many
 * scalars times one point. Part of curve_ops_impl.h: ZKPIPE__FIXED_BASE_DEFINE(g, G, GA)
 * defines the table entry
 *
 *   zkpipe_status g_generator_mul(uint64_t *out, const uint64_t *k, size_t n,
 *                                 zkpipe_pool *pool, const zkpipe_allocator *allocator)
 *       : out[i] = k[i] G for i < n (k Montgomery Fr, out packed affine points).
 *
 * The window table holds d 2^(w j) G for the ceil(256 / w) window positions j and digits
 * 0 < d < 2^w, so a multiplication is ceil(256 / w) mixed additions and no doubling, and each
 * chunk of results is normalised with one inversion. The table costs about 2^w / w additions
 * per bit and each scalar 1 / w, so w grows with n (zkpipe__fb_window): 8 bits from about a
 * thousand scalars on, down to 1 bit (a doubling chain) for one scalar, where a fixed 8-bit
 * table would build 8,160 points to multiply a handful. Table and scratch (the table's points
 * in Jacobian form, or FB_CHUNK per pool thread when that is more) are one block, freed before
 * returning. */
#ifndef ZKPIPE_ARITH_FIXED_BASE_IMPL_H
#define ZKPIPE_ARITH_FIXED_BASE_IMPL_H

#define FB_MAX_BITS 8
#define FB_CHUNK 512

typedef struct zkpipe__fb_shape {
    unsigned bits;    /* w */
    unsigned windows; /* ceil(256 / w) */
    size_t digits;    /* 2^w - 1 */
    size_t points;    /* windows * digits */
} zkpipe__fb_shape;

/* The window of at most FB_MAX_BITS bits with the fewest additions for n scalars: the table's
 * points (weighted 3/2: a full addition and their share of the normalisation) plus n times a
 * mixed addition per window. */
static inline zkpipe__fb_shape zkpipe__fb_window(size_t n)
{
    zkpipe__fb_shape best = {0, 0, 0, 0};
    double best_cost = 0;
    for (unsigned w = 1; w <= FB_MAX_BITS; w++) {
        zkpipe__fb_shape s = {w, (256 + w - 1) / w, ((size_t)1 << w) - 1, 0};
        s.points = s.windows * s.digits;
        double cost = 1.5 * (double)s.points + (double)n * s.windows;
        if (w == 1 || cost < best_cost)
            best = s, best_cost = cost;
    }
    return best;
}

/* Bits [bit, bit + w) of the 256-bit little-endian k, bits past 255 read as 0. */
static inline unsigned zkpipe__fb_digit(const uint64_t k[4], unsigned bit, unsigned w)
{
    unsigned i = bit / 64, s = bit % 64;
    uint64_t v = k[i] >> s;
    if (s + w > 64 && i < 3)
        v |= k[i + 1] << (64 - s);
    return (unsigned)(v & (((uint64_t)1 << w) - 1));
}

#endif

#define ZKPIPE__FIXED_BASE_DEFINE(g, G, GA)                                                        \
    typedef struct g##_fb_ctx {                                                                    \
        GA *out;                                                                                   \
        const FR *k;                                                                               \
        size_t n;                                                                                  \
        const GA *table;                                                                           \
        G *scratch;                                                                                \
        zkpipe__fb_shape shape;                                                                    \
    } g##_fb_ctx;                                                                                  \
    static void g##_fb_table(GA *table, G *scratch, zkpipe__fb_shape shape)                        \
    {                                                                                              \
        GA base;                                                                                   \
        G step;                                                                                    \
        CO_CAT(G, _generator)(&base);                                                              \
        CO_CAT(G, _from_affine)(&step, &base);                                                     \
        for (unsigned j = 0; j < shape.windows; j++) {                                             \
            G *row = scratch + (size_t)j * shape.digits;                                           \
            row[0] = step;                                                                         \
            for (size_t d = 1; d < shape.digits; d++)                                              \
                CO_CAT(G, _add)(&row[d], &row[d - 1], &step);                                      \
            CO_CAT(G, _add)(&step, &row[shape.digits - 1], &step);                                 \
        }                                                                                          \
        CO_CAT(G, _batch_to_affine)(table, scratch, shape.points);                                 \
    }                                                                                              \
    static void g##_fb_chunks(void *arg, size_t begin, size_t end, unsigned worker)                \
    {                                                                                              \
        const g##_fb_ctx *ctx = (const g##_fb_ctx *)arg;                                           \
        G *acc = ctx->scratch + (size_t)worker * FB_CHUNK;                                         \
        const zkpipe__fb_shape sh = ctx->shape;                                                    \
        for (size_t c = begin; c < end; c++) {                                                     \
            size_t i0 = c * FB_CHUNK;                                                              \
            size_t len = ctx->n - i0 < FB_CHUNK ? ctx->n - i0 : FB_CHUNK;                          \
            for (size_t i = 0; i < len; i++) {                                                     \
                uint64_t limbs[4];                                                                 \
                FRF(to_canonical)(limbs, &ctx->k[i0 + i]);                                         \
                CO_CAT(G, _set_infinity)(&acc[i]);                                                 \
                for (unsigned j = 0; j < sh.windows; j++) {                                        \
                    unsigned d = zkpipe__fb_digit(limbs, j * sh.bits, sh.bits);                    \
                    if (d != 0)                                                                    \
                        CO_CAT(G, _add_affine)                                                     \
                    (&acc[i], &acc[i], &ctx->table[j * sh.digits + d - 1]);                        \
                }                                                                                  \
            }                                                                                      \
            CO_CAT(G, _batch_to_affine)(ctx->out + i0, acc, len);                                  \
        }                                                                                          \
    }                                                                                              \
    static zkpipe_status g##_generator_mul(uint64_t *out, const uint64_t *k, size_t n,             \
                                           zkpipe_pool *pool, const zkpipe_allocator *allocator)   \
    {                                                                                              \
        zkpipe__fb_shape shape = zkpipe__fb_window(n);                                             \
        size_t jac = (size_t)zkpipe_pool_threads(pool) * FB_CHUNK;                                 \
        jac = jac > shape.points ? jac : shape.points;                                             \
        size_t table_bytes = (shape.points * sizeof(GA) + 63) / 64 * 64;                           \
        unsigned char *block =                                                                     \
            (unsigned char *)zkpipe__alloc(allocator, table_bytes + jac * sizeof(G), 64);          \
        if (block == NULL)                                                                         \
            return ZKPIPE_ENOMEM;                                                                  \
        g##_fb_ctx ctx = {                                                                         \
            (GA *)out, (const FR *)k, n, (const GA *)block, (G *)(block + table_bytes), shape};    \
        g##_fb_table((GA *)block, ctx.scratch, shape);                                             \
        size_t chunks = (n + FB_CHUNK - 1) / FB_CHUNK;                                             \
        zkpipe_pool_parallel_for(pool, chunks, 1, g##_fb_chunks, &ctx);                            \
        zkpipe__free(allocator, block);                                                            \
        return ZKPIPE_OK;                                                                          \
    }
