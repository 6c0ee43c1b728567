/* Fixed-base batch scalar multiplication for the setup: many scalars times one generator.
 * ZKPIPE__G16_DEFINE_FIXED_BASE(G, FR) defines, for the group G (ec/jacobian.h) with scalar
 * field FR, the statics
 *
 *   size_t G##__fb_table_bytes(void) : the table's size.
 *   void G##__fb_table(G##_affine *table, G *scratch, const G##_affine *base)
 *       : table[j][d - 1] = d 2^(8 j) base for the 32 byte positions j and digits d < 256;
 *         scratch holds the same number of Jacobian points.
 *   void G##__fb_mul(G##_affine *out, const FR *k, size_t n, const G##_affine *table,
 *                    G *scratch, zkpipe_pool *pool)
 *       : out[i] = k[i] base (k in Montgomery form) for i < n; scratch holds
 *         G__FB_CHUNK Jacobian points per pool thread.
 *
 * A multiplication is then 32 mixed additions and no doubling, and each chunk of results is
 * normalised with one inversion. */
#ifndef ZKPIPE_GROTH16_FIXED_BASE_IMPL_H
#define ZKPIPE_GROTH16_FIXED_BASE_IMPL_H

#define ZKPIPE__G16_FB_WINDOWS 32
#define ZKPIPE__G16_FB_DIGITS 255
#define ZKPIPE__G16_FB_POINTS (ZKPIPE__G16_FB_WINDOWS * ZKPIPE__G16_FB_DIGITS)
#define ZKPIPE__G16_FB_CHUNK 512

#define ZKPIPE__G16_DEFINE_FIXED_BASE(G, FR)                                                       \
    static void G##__fb_table(G##_affine *table, G *scratch, const G##_affine *base)               \
    {                                                                                              \
        G step;                                                                                    \
        G##_from_affine(&step, base);                                                              \
        for (int j = 0; j < ZKPIPE__G16_FB_WINDOWS; j++) {                                         \
            G *row = scratch + (size_t)j * ZKPIPE__G16_FB_DIGITS;                                  \
            row[0] = step;                                                                         \
            for (int d = 1; d < ZKPIPE__G16_FB_DIGITS; d++)                                        \
                G##_add(&row[d], &row[d - 1], &step);                                              \
            G##_add(&step, &row[ZKPIPE__G16_FB_DIGITS - 1], &step);                                \
        }                                                                                          \
        G##_batch_to_affine(table, scratch, ZKPIPE__G16_FB_POINTS);                                \
    }                                                                                              \
    typedef struct G##__fb_ctx {                                                                   \
        G##_affine *out;                                                                           \
        const FR *k;                                                                               \
        size_t n;                                                                                  \
        const G##_affine *table;                                                                   \
        G *scratch;                                                                                \
    } G##__fb_ctx;                                                                                 \
    static void G##__fb_chunks(void *arg, size_t begin, size_t end, unsigned worker)               \
    {                                                                                              \
        const G##__fb_ctx *ctx = (const G##__fb_ctx *)arg;                                         \
        G *acc = ctx->scratch + (size_t)worker * ZKPIPE__G16_FB_CHUNK;                             \
        for (size_t c = begin; c < end; c++) {                                                     \
            size_t i0 = c * ZKPIPE__G16_FB_CHUNK;                                                  \
            size_t len = ctx->n - i0 < ZKPIPE__G16_FB_CHUNK ? ctx->n - i0 : ZKPIPE__G16_FB_CHUNK;  \
            for (size_t i = 0; i < len; i++) {                                                     \
                uint64_t limbs[4];                                                                 \
                FR##_to_canonical(limbs, &ctx->k[i0 + i]);                                         \
                G##_set_infinity(&acc[i]);                                                         \
                for (int j = 0; j < ZKPIPE__G16_FB_WINDOWS; j++) {                                 \
                    unsigned d = (unsigned)(limbs[j / 8] >> (8 * (j % 8)) & 0xff);                 \
                    if (d != 0)                                                                    \
                        G##_add_affine(&acc[i], &acc[i],                                           \
                                       &ctx->table[j * ZKPIPE__G16_FB_DIGITS + d - 1]);            \
                }                                                                                  \
            }                                                                                      \
            G##_batch_to_affine(ctx->out + i0, acc, len);                                          \
        }                                                                                          \
    }                                                                                              \
    static void G##__fb_mul(G##_affine *out, const FR *k, size_t n, const G##_affine *table,       \
                            G *scratch, zkpipe_pool *pool)                                         \
    {                                                                                              \
        G##__fb_ctx ctx = {out, k, n, table, scratch};                                             \
        size_t chunks = (n + ZKPIPE__G16_FB_CHUNK - 1) / ZKPIPE__G16_FB_CHUNK;                     \
        zkpipe_pool_parallel_for(pool, chunks, 1, G##__fb_chunks, &ctx);                           \
    }

#endif
