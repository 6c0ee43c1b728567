/* Fixed-base batch scalar multiplication of a group's generator, for the setup's many
 * scalars times one point. Part of curve_ops_impl.h: ZKPIPE__FIXED_BASE_DEFINE(g, G, GA)
 * defines the table entry
 *
 *   zkpipe_status g_generator_mul(uint64_t *out, const uint64_t *k, size_t n,
 *                                 zkpipe_pool *pool, const zkpipe_allocator *allocator)
 *       : out[i] = k[i] G for i < n (k Montgomery Fr, out packed affine points).
 *
 * The window table holds d 2^(8 j) G for the 32 byte positions j and digits d < 256, so a
 * multiplication is 32 mixed additions and no doubling, and each chunk of results is
 * normalised with one inversion. Table and scratch (FB_POINTS affine and as many Jacobian
 * points, or FB_CHUNK per pool thread when that is more) are one block, freed before
 * returning. */
#ifndef ZKPIPE_ARITH_FIXED_BASE_IMPL_H
#define ZKPIPE_ARITH_FIXED_BASE_IMPL_H

#define FB_WINDOWS 32
#define FB_DIGITS 255
#define FB_POINTS (FB_WINDOWS * FB_DIGITS)
#define FB_CHUNK 512

#endif

#define ZKPIPE__FIXED_BASE_DEFINE(g, G, GA)                                                        \
    typedef struct g##_fb_ctx {                                                                    \
        GA *out;                                                                                   \
        const FR *k;                                                                               \
        size_t n;                                                                                  \
        const GA *table;                                                                           \
        G *scratch;                                                                                \
    } g##_fb_ctx;                                                                                  \
    static void g##_fb_table(GA *table, G *scratch)                                                \
    {                                                                                              \
        GA base;                                                                                   \
        G step;                                                                                    \
        CO_CAT(G, _generator)(&base);                                                              \
        CO_CAT(G, _from_affine)(&step, &base);                                                     \
        for (int j = 0; j < FB_WINDOWS; j++) {                                                     \
            G *row = scratch + (size_t)j * FB_DIGITS;                                              \
            row[0] = step;                                                                         \
            for (int d = 1; d < FB_DIGITS; d++)                                                    \
                CO_CAT(G, _add)(&row[d], &row[d - 1], &step);                                      \
            CO_CAT(G, _add)(&step, &row[FB_DIGITS - 1], &step);                                    \
        }                                                                                          \
        CO_CAT(G, _batch_to_affine)(table, scratch, FB_POINTS);                                    \
    }                                                                                              \
    static void g##_fb_chunks(void *arg, size_t begin, size_t end, unsigned worker)                \
    {                                                                                              \
        const g##_fb_ctx *ctx = (const g##_fb_ctx *)arg;                                           \
        G *acc = ctx->scratch + (size_t)worker * FB_CHUNK;                                         \
        for (size_t c = begin; c < end; c++) {                                                     \
            size_t i0 = c * FB_CHUNK;                                                              \
            size_t len = ctx->n - i0 < FB_CHUNK ? ctx->n - i0 : FB_CHUNK;                          \
            for (size_t i = 0; i < len; i++) {                                                     \
                uint64_t limbs[4];                                                                 \
                FRF(to_canonical)(limbs, &ctx->k[i0 + i]);                                         \
                CO_CAT(G, _set_infinity)(&acc[i]);                                                 \
                for (int j = 0; j < FB_WINDOWS; j++) {                                             \
                    unsigned d = (unsigned)(limbs[j / 8] >> (8 * (j % 8)) & 0xff);                 \
                    if (d != 0)                                                                    \
                        CO_CAT(G, _add_affine)                                                     \
                    (&acc[i], &acc[i], &ctx->table[j * FB_DIGITS + d - 1]);                        \
                }                                                                                  \
            }                                                                                      \
            CO_CAT(G, _batch_to_affine)(ctx->out + i0, acc, len);                                  \
        }                                                                                          \
    }                                                                                              \
    static zkpipe_status g##_generator_mul(uint64_t *out, const uint64_t *k, size_t n,             \
                                           zkpipe_pool *pool, const zkpipe_allocator *allocator)   \
    {                                                                                              \
        size_t jac = (size_t)zkpipe_pool_threads(pool) * FB_CHUNK;                                 \
        jac = jac > FB_POINTS ? jac : FB_POINTS;                                                   \
        size_t table_bytes = (FB_POINTS * sizeof(GA) + 63) / 64 * 64;                              \
        unsigned char *block =                                                                     \
            (unsigned char *)zkpipe__alloc(allocator, table_bytes + jac * sizeof(G), 64);          \
        if (block == NULL)                                                                         \
            return ZKPIPE_ENOMEM;                                                                  \
        g##_fb_ctx ctx = {(GA *)out, (const FR *)k, n, (const GA *)block,                          \
                          (G *)(block + table_bytes)};                                             \
        g##_fb_table((GA *)block, ctx.scratch);                                                    \
        size_t chunks = (n + FB_CHUNK - 1) / FB_CHUNK;                                             \
        zkpipe_pool_parallel_for(pool, chunks, 1, g##_fb_chunks, &ctx);                            \
        zkpipe__free(allocator, block);                                                            \
        return ZKPIPE_OK;                                                                          \
    }
