/* The per-curve table of curve_ops.h, written once: a curve_ops_<curve>.c file includes its
 * field, group and pairing headers, defines CO_C (the curve's prefix, e.g. bn254), CO_CURVE,
 * CO_SNARKJS_NAME and its point codecs (CO_PROOF_G1_WRITE/_READ, CO_PROOF_G2_WRITE/_READ with
 * CO_PROOF_G1_BYTES/_G2_BYTES; CO_KEY_* likewise for the uncompressed key encoding), then
 * includes this file, which defines the table zkpipe__curve_ops_<curve>. Everything else here
 * is static. */
#include <stdatomic.h>
#include <string.h>

#include "arith/curve_ops.h"
#include "core/alloc_internal.h"
#include "core/bytes.h"
#include "core/pool_internal.h"
#include "core/random.h"
#include "msm/msm.h"
#include "poly/ntt.h"

#define CO_CAT_(a, b) a##b
#define CO_CAT(a, b) CO_CAT_(a, b)
#define FR CO_CAT(CO_C, _fr)
#define FQ CO_CAT(CO_C, _fq)
#define FQ12 CO_CAT(CO_C, _fq12)
#define G1 CO_CAT(CO_C, _g1)
#define G2 CO_CAT(CO_C, _g2)
#define G1A CO_CAT(G1, _affine)
#define G2A CO_CAT(G2, _affine)
#define G2P CO_CAT(CO_C, _g2_prepared)
#define FRF(op) CO_CAT(FR, _##op)
#define FQF(op) CO_CAT(FQ, _##op)
#define FQ12F(op) CO_CAT(FQ12, _##op)
#define G1F(op) CO_CAT(G1, _##op)
#define G2F(op) CO_CAT(G2, _##op)
#define PAIRINGF(op) CO_CAT(CO_C, _##op)
#define NTTF(op) CO_CAT(CO_CAT(zkpipe__, FR), _##op)
#define DOMAIN NTTF(domain)
#define MSMF(G, op) CO_CAT(CO_CAT(zkpipe__msm_, G), op)
#define FQ_LIMBS CO_CAT(FQ, _LIMBS)
#define G1_WORDS (2 * FQ_LIMBS)
#define G2_WORDS (4 * FQ_LIMBS)

_Static_assert(sizeof(FR) == ZKPIPE__FR_BYTES, "Fr elements are 4 limbs");
_Static_assert(sizeof(G1A) == G1_WORDS * 8 && sizeof(G2A) == G2_WORDS * 8, "packed points");
_Static_assert(sizeof(G1) <= sizeof(zkpipe__g1) && sizeof(G2) <= sizeof(zkpipe__g2),
               "zkpipe__g1 and zkpipe__g2 hold either curve's Jacobian points");
_Static_assert(sizeof(FQ12) <= ZKPIPE__FQ12_WORDS * 8, "ZKPIPE__FQ12_WORDS");
_Static_assert(sizeof(G2P) <= ZKPIPE__G2_PREPARED_MAX, "ZKPIPE__G2_PREPARED_MAX");

/* Values cross the table as limb arrays; these copy them in and out of the typed values, which
 * compiles to plain loads and stores. */
#define LOAD(T, dst, src) memcpy(&(dst), (src), sizeof(T))
#define STORE(dst, T, src) memcpy((dst), &(src), sizeof(T))

/* ---- Fr ---- */

static int fr_from_canonical(uint64_t *out, const uint64_t *canonical)
{
    FR t;
    if (!FRF(from_canonical)(&t, canonical))
        return 0;
    STORE(out, FR, t);
    return 1;
}

static void fr_to_canonical(uint64_t *out, const uint64_t *a)
{
    FR t;
    LOAD(FR, t, a);
    FRF(to_canonical)(out, &t);
}

static void fr_from_u64(uint64_t *out, uint64_t v)
{
    FR t;
    FRF(from_u64)(&t, v);
    STORE(out, FR, t);
}

#define FR_BINARY(name)                                                                            \
    static void fr_##name(uint64_t *out, const uint64_t *a, const uint64_t *b)                     \
    {                                                                                              \
        FR x, y;                                                                                   \
        LOAD(FR, x, a);                                                                            \
        LOAD(FR, y, b);                                                                            \
        FRF(name)(&x, &x, &y);                                                                     \
        STORE(out, FR, x);                                                                         \
    }
FR_BINARY(add)
FR_BINARY(sub)
FR_BINARY(mul)
#undef FR_BINARY

static int fr_inv(uint64_t *out, const uint64_t *a)
{
    FR t;
    LOAD(FR, t, a);
    if (!FRF(inv)(&t, &t))
        return 0;
    STORE(out, FR, t);
    return 1;
}

static void fr_batch_inv(uint64_t *out, const uint64_t *in, size_t n, uint64_t *scratch)
{
    FRF(batch_inv)((FR *)out, (const FR *)in, n, (FR *)scratch);
}

static void fr_pow(uint64_t *out, const uint64_t *a, const uint64_t *e, size_t limbs)
{
    FR t;
    LOAD(FR, t, a);
    FRF(pow)(&t, &t, e, limbs);
    STORE(out, FR, t);
}

static zkpipe_status fr_root_of_unity(uint64_t *out, unsigned log_n)
{
    FR t;
    zkpipe_status st = NTTF(root_of_unity)(&t, log_n);
    if (st == ZKPIPE_OK)
        STORE(out, FR, t);
    return st;
}

/* The vector entries run on the pool in chunks of VEC_CHUNK elements. */
#define VEC_CHUNK 4096

typedef struct vec_ctx {
    FR *out;
    const FR *a, *b, *c;
} vec_ctx;

static void vec_canonical_rows(void *arg, size_t begin, size_t end, unsigned worker)
{
    const vec_ctx *v = (const vec_ctx *)arg;
    (void)worker;
    for (size_t i = begin; i < end; i++) {
        FR e = v->out[i];
        FRF(to_canonical)(v->out[i].l, &e);
    }
}

static void fr_vec_to_canonical(uint64_t *v, size_t n, zkpipe_pool *pool)
{
    vec_ctx ctx = {(FR *)v, NULL, NULL, NULL};
    zkpipe_pool_parallel_for(pool, n, VEC_CHUNK, vec_canonical_rows, &ctx);
}

static void vec_mul_sub_rows(void *arg, size_t begin, size_t end, unsigned worker)
{
    const vec_ctx *v = (const vec_ctx *)arg;
    (void)worker;
    for (size_t i = begin; i < end; i++) {
        FR p;
        FRF(mul)(&p, &v->a[i], &v->b[i]);
        FRF(sub)(&v->out[i], &p, &v->c[i]);
    }
}

static void fr_vec_mul_sub(uint64_t *out, const uint64_t *a, const uint64_t *b, const uint64_t *c,
                           size_t n, zkpipe_pool *pool)
{
    vec_ctx ctx = {(FR *)out, (const FR *)a, (const FR *)b, (const FR *)c};
    zkpipe_pool_parallel_for(pool, n, VEC_CHUNK, vec_mul_sub_rows, &ctx);
}

static void vec_mul_rows(void *arg, size_t begin, size_t end, unsigned worker)
{
    const vec_ctx *v = (const vec_ctx *)arg;
    (void)worker;
    for (size_t i = begin; i < end; i++)
        FRF(mul)(&v->out[i], &v->a[i], &v->b[i]);
}

static void fr_vec_mul(uint64_t *out, const uint64_t *a, const uint64_t *b, size_t n,
                       zkpipe_pool *pool)
{
    vec_ctx ctx = {(FR *)out, (const FR *)a, (const FR *)b, NULL};
    zkpipe_pool_parallel_for(pool, n, VEC_CHUNK, vec_mul_rows, &ctx);
}

static size_t fr_vec_first_mismatch(const uint64_t *a, const uint64_t *b, const uint64_t *c,
                                    size_t n)
{
    const FR *fa = (const FR *)a, *fb = (const FR *)b, *fc = (const FR *)c;
    for (size_t i = 0; i < n; i++) {
        FR p;
        FRF(mul)(&p, &fa[i], &fb[i]);
        if (!FRF(eq)(&p, &fc[i]))
            return i;
    }
    return n;
}

/* <row, z> for one row; coefficients 1 and -1 and zero values skip the multiplication. */
static void lc_eval(FR *r, const zkpipe__lc_rows *m, int mat, size_t row)
{
    FR acc, v, k;
    const zkpipe__term *terms = m->terms[mat] + m->row_start[mat][row];
    size_t count = (size_t)(m->row_start[mat][row + 1] - m->row_start[mat][row]);
    FRF(set_zero)(&acc);
    for (size_t t = 0; t < count; t++) {
        zkpipe__term term = terms[t];
        const uint64_t *value = (term.var & ZKPIPE_VAR_AUX)
                                    ? m->aux_values + 4 * (size_t)(term.var & ~ZKPIPE_VAR_AUX)
                                    : m->input_values + 4 * (size_t)term.var;
        LOAD(FR, v, value);
        if (term.coeff == ZKPIPE__COEFF_ONE) {
            FRF(add)(&acc, &acc, &v);
        } else if (term.coeff == ZKPIPE__COEFF_MINUS_ONE) {
            FRF(sub)(&acc, &acc, &v);
        } else if (!FRF(is_zero)(&v)) { /* witnesses are full of zero bits */
            LOAD(FR, k, m->coeffs + 4 * (size_t)term.coeff);
            FRF(mul)(&v, &v, &k);
            FRF(add)(&acc, &acc, &v);
        }
    }
    *r = acc;
}

static void lc_eval_rows(uint64_t *a, uint64_t *b, uint64_t *c, const zkpipe__lc_rows *m,
                         size_t begin, size_t end)
{
    uint64_t *out[3] = {a, b, c};
    for (size_t row = begin; row < end; row++) {
        for (int k = 0; k < 3; k++) {
            FR r;
            lc_eval(&r, m, k, row);
            STORE(out[k] + 4 * (row - begin), FR, r);
        }
    }
}

static size_t fr_accumulate_entries(uint64_t *out_a, uint64_t *out_b, const uint8_t *entries,
                                    size_t count, size_t stride, const uint64_t *w, size_t row_lo,
                                    size_t row_hi, size_t wires)
{
    FR *a = (FR *)out_a, *b = (FR *)out_b;
    const uint8_t *e = entries;
    size_t skipped = 0;
    for (size_t i = 0; i < count; i++, e += stride) {
        FR v, x;
        uint32_t r = zkpipe__get_le32(e + 4), wire = zkpipe__get_le32(e + 8);
        if (r < row_lo || r >= row_hi || wire >= wires) { /* the file changed since checked */
            skipped++;
            continue;
        }
        zkpipe__get_limbs(v.l, e + 12, 4);
        LOAD(FR, x, w + 4 * (size_t)wire);
        FRF(mul)(&v, &v, &x);
        FR *row = (zkpipe__get_le32(e) == 0 ? a : b) + r;
        FRF(add)(row, row, &v);
    }
    return skipped;
}

/* ---- points ---- */

/* 1 when the `coords` coordinates at w (FQ_LIMBS words each) are all below q. */
static int coords_canonical(const uint64_t *w, size_t coords)
{
    for (size_t i = 0; i < coords; i++)
        if (!zkpipe__limbs_below(w + i * FQ_LIMBS, CO_CAT(FQ, _MODULUS), FQ_LIMBS))
            return 0;
    return 1;
}

/* One packed point (any alignment): coordinates below q, on the curve, and in the subgroup
 * when `subgroup`. */
static zkpipe_status check_one(const uint8_t *p, int g2, int subgroup)
{
    uint64_t w[G2_WORDS];
    size_t coords = g2 ? 4 : 2;
    memcpy(w, p, coords * FQ_LIMBS * sizeof(uint64_t));
    if (!coords_canonical(w, coords))
        return ZKPIPE_ENONCANONICAL;
    if (g2) {
        G2A pt;
        LOAD(G2A, pt, w);
        if (!G2F(is_on_curve)(&pt))
            return ZKPIPE_ENOTONCURVE;
        return !subgroup || G2F(is_in_subgroup)(&pt) ? ZKPIPE_OK : ZKPIPE_ENOTINSUBGROUP;
    }
    G1A pt;
    LOAD(G1A, pt, w);
    if (!G1F(is_on_curve)(&pt))
        return ZKPIPE_ENOTONCURVE;
    return !subgroup || G1F(is_in_subgroup)(&pt) ? ZKPIPE_OK : ZKPIPE_ENOTINSUBGROUP;
}

typedef struct check_ctx {
    const uint8_t *p;
    uint8_t *copy; /* or NULL */
    size_t stride;
    int g2, subgroup;
    atomic_size_t bad; /* the lowest bad index found so far */
} check_ctx;

#if ZKPIPE__FF_X86
#define FQ2 CO_CAT(CO_C, _fq2)
#define FQX8F(op) CO_CAT(FQ, _x8_##op)
#define FQ2X8F(op) CO_CAT(FQ2, _x8_##op)

/* Bit i set when lane i of a and b are equal (both fully reduced). */
ZKPIPE__X8_TARGET static unsigned lanes_equal(const CO_CAT(FQ, _x8) * a, const CO_CAT(FQ, _x8) * b)
{
    __mmask8 m = 0xff;
    for (int j = 0; j < (int)(sizeof a->l / sizeof a->l[0]); j++)
        m &= _mm512_cmpeq_epi64_mask(a->l[j], b->l[j]);
    return m;
}

/* The on-curve test of 8 points with canonical coordinates (aligned copies) on the IFMA lanes:
 * bit i set when y_i^2 = x_i^3 + b. A point at infinity (stored as zeros) is not (check_one
 * says the last word on every lane that fails). R-form values times R'-form ones (fp_x8.h):
 * y y' and x x' x' are the R-forms of y^2 and x^3, below 2 p, compared after a reduction. */
ZKPIPE__X8_TARGET static unsigned g1_on_curve_x8(const G1A *pt)
{
    const FQ *x[8], *y[8], *b[8];
    FQ coeff;
    G1F(b)(&coeff);
    for (int i = 0; i < 8; i++)
        x[i] = &pt[i].x, y[i] = &pt[i].y, b[i] = &coeff;
    CO_CAT(FQ, _x8) X, Xs, Y, Ys, B, lhs, rhs;
    FQX8F(load)(&X, x, 0);
    FQX8F(load)(&Xs, x, 1);
    FQX8F(load)(&Y, y, 0);
    FQX8F(load)(&Ys, y, 1);
    FQX8F(load)(&B, b, 0);
    FQX8F(mul)(&lhs, &Y, &Ys);
    FQX8F(mul)(&rhs, &X, &Xs);
    FQX8F(mul)(&rhs, &rhs, &Xs);
    FQX8F(add)(&rhs, &rhs, &B);
    FQX8F(reduce4)(&lhs, &lhs);
    FQX8F(reduce4)(&rhs, &rhs);
    return lanes_equal(&lhs, &rhs);
}

/* The same on G2's twist: y^2 by the squaring (fully reduced), x^3 as x^2 x' (below 2 p). */
ZKPIPE__X8_TARGET static unsigned g2_on_curve_x8(const G2A *pt)
{
    const FQ2 *x[8], *y[8], *b[8];
    FQ2 coeff;
    G2F(b)(&coeff);
    for (int i = 0; i < 8; i++)
        x[i] = &pt[i].x, y[i] = &pt[i].y, b[i] = &coeff;
    CO_CAT(FQ2, _x8) X, Xs, Y, Ys, B, lhs, rhs;
    FQ2X8F(load)(&X, x, 0);
    FQ2X8F(load)(&Xs, x, 1);
    FQ2X8F(load)(&Y, y, 0);
    FQ2X8F(load)(&Ys, y, 1);
    FQ2X8F(load)(&B, b, 0);
    FQ2X8F(sqr)(&lhs, &Y, &Ys);
    FQ2X8F(sqr)(&rhs, &X, &Xs);
    FQ2X8F(mul)(&rhs, &rhs, &Xs);
    FQX8F(add)(&rhs.c0, &rhs.c0, &B.c0);
    FQX8F(add)(&rhs.c1, &rhs.c1, &B.c1);
    FQ2X8F(reduce4)(&rhs, &rhs);
    return lanes_equal(&lhs.c0, &rhs.c0) & lanes_equal(&lhs.c1, &rhs.c1);
}

_Static_assert(sizeof(G1A) == G1_WORDS * sizeof(uint64_t), "packed G1 points");
_Static_assert(sizeof(G2A) == G2_WORDS * sizeof(uint64_t), "packed G2 points");

/* Points [i, i + 8) of the range checked on the lanes (canonical coordinates and the curve,
 * not the subgroup); returns 8 when all pass, else the offset of the first that check_one
 * refuses, or 8 when the lanes' refusals were points at infinity (which check_one accepts). */
static unsigned check_eight(const uint8_t *from, size_t stride, int g2)
{
    union {
        uint64_t w[8 * G2_WORDS];
        G1A g1a[8];
        G2A g2a[8];
    } pt;
    size_t words = g2 ? G2_WORDS : G1_WORDS;
    memcpy(&pt, from, 8 * stride);
    int canonical = 1;
    for (unsigned i = 0; i < 8; i++)
        canonical &= coords_canonical(pt.w + i * words, words / FQ_LIMBS);
    unsigned on = !canonical ? 0 : g2 ? g2_on_curve_x8(pt.g2a) : g1_on_curve_x8(pt.g1a);
    for (unsigned i = 0; i < 8; i++)
        if (!(on >> i & 1) && check_one(from + i * stride, g2, 0) != ZKPIPE_OK)
            return i;
    return 8;
}
#undef FQ2
#undef FQX8F
#undef FQ2X8F
#endif

/* Points copied at a time before they are checked in the copy: a few pages, still in the
 * cache when checked. */
#define CHECK_COPY_POINTS 64
#if ZKPIPE__FF_X86
_Static_assert(CHECK_COPY_POINTS % 8 == 0, "lane groups inside copy blocks");
#endif

static void check_range(void *arg, size_t begin, size_t end, unsigned worker)
{
    check_ctx *ctx = (check_ctx *)arg;
    (void)worker;
    const uint8_t *from = ctx->copy != NULL ? ctx->copy : ctx->p;
#if ZKPIPE__FF_X86
    /* Eight at a time on the lanes where there are; the subgroup check has no lane form. */
    int lanes = zkpipe__ff_x86_ifma && !ctx->subgroup;
#endif
    for (size_t i = begin; i < end; i++) {
        if (i >= atomic_load_explicit(&ctx->bad, memory_order_relaxed))
            return;
        if (ctx->copy != NULL && (i - begin) % CHECK_COPY_POINTS == 0) {
            size_t k = end - i < CHECK_COPY_POINTS ? end - i : CHECK_COPY_POINTS;
            memcpy(ctx->copy + i * ctx->stride, ctx->p + i * ctx->stride, k * ctx->stride);
        }
#if ZKPIPE__FF_X86
        /* Groups of 8 from `begin` never straddle a copy block (CHECK_COPY_POINTS is 64). */
        if (lanes && (i - begin) % 8 == 0 && end - i >= 8) {
            unsigned off = check_eight(from + i * ctx->stride, ctx->stride, ctx->g2);
            if (off == 8) {
                i += 7;
                continue;
            }
            i += off;
        } else if (check_one(from + i * ctx->stride, ctx->g2, ctx->subgroup) == ZKPIPE_OK) {
            continue;
        }
#else
        if (check_one(from + i * ctx->stride, ctx->g2, ctx->subgroup) == ZKPIPE_OK)
            continue;
#endif
        size_t cur = atomic_load(&ctx->bad);
        while (i < cur && !atomic_compare_exchange_weak(&ctx->bad, &cur, i)) {
        }
        return;
    }
}

/* Points per chunk of a check: a few chunks per thread, but at least CHECK_MIN_G1 or _G2
 * on-curve checks (tens of microseconds on the lanes, about what handing a chunk to another
 * thread costs: a key of a few thousand points is checked on the caller alone) or, where each
 * point takes a scalar multiplication, one copy block. A multiple of CHECK_COPY_POINTS. */
#define CHECK_MIN_G1 4096
#define CHECK_MIN_G2 1024

static size_t check_chunk(size_t n, int g2, int subgroup, const zkpipe_pool *pool)
{
    size_t chunk = zkpipe__pool_chunk(pool, n,
                                      subgroup ? CHECK_COPY_POINTS
                                      : g2     ? CHECK_MIN_G2
                                               : CHECK_MIN_G1);
    return (chunk + CHECK_COPY_POINTS - 1) / CHECK_COPY_POINTS * CHECK_COPY_POINTS;
}

static zkpipe_status check_points(size_t *bad, const uint8_t *p, uint8_t *copy, size_t n, int g2,
                                  int subgroup, zkpipe_pool *pool)
{
    check_ctx ctx = {p, copy, (g2 ? G2_WORDS : G1_WORDS) * sizeof(uint64_t), g2, subgroup, n};
    zkpipe_pool_parallel_for(pool, n, check_chunk(n, g2, subgroup, pool), check_range, &ctx);
    *bad = atomic_load(&ctx.bad);
    return *bad < n ? check_one(p + *bad * ctx.stride, g2, subgroup) : ZKPIPE_OK;
}

static zkpipe_status subgroup_batch(int *all, const uint64_t *const *p, const size_t *n,
                                    size_t nseg, int g2, zkpipe_pool *pool,
                                    const zkpipe_allocator *allocator)
{
    if (g2)
        return MSMF(G2, _subgroup_check_segments)(all, (const G2A *const *)p, n, nseg,
                                                  zkpipe__os_random, pool, allocator);
    return MSMF(G1, _subgroup_check_segments)(all, (const G1A *const *)p, n, nseg,
                                              zkpipe__os_random, pool, allocator);
}

static zkpipe_status point_from_canonical(uint64_t *out, const uint64_t *coords, int g2)
{
    FQ f[4];
    size_t ncoords = g2 ? 4 : 2;
    for (size_t i = 0; i < ncoords; i++)
        if (!FQF(from_canonical)(&f[i], coords + i * FQ_LIMBS))
            return ZKPIPE_ENONCANONICAL;
    zkpipe_status st = check_one((const uint8_t *)f, g2, 1);
    if (st == ZKPIPE_OK)
        memcpy(out, f, ncoords * sizeof(FQ));
    return st;
}

static void point_to_canonical(uint64_t *coords, const uint64_t *point, int g2)
{
    size_t ncoords = g2 ? 4 : 2;
    for (size_t i = 0; i < ncoords; i++) {
        FQ f;
        LOAD(FQ, f, point + i * FQ_LIMBS);
        FQF(to_canonical)(coords + i * FQ_LIMBS, &f);
    }
}

static void proof_point_write(uint8_t *out, const uint64_t *point, int g2)
{
    if (g2) {
        G2A p;
        LOAD(G2A, p, point);
        CO_PROOF_G2_WRITE(out, &p);
    } else {
        G1A p;
        LOAD(G1A, p, point);
        CO_PROOF_G1_WRITE(out, &p);
    }
}

static zkpipe_status proof_point_read(uint64_t *point, const uint8_t *in, int g2)
{
    zkpipe_status st;
    if (g2) {
        G2A p;
        if ((st = CO_PROOF_G2_READ(&p, in)) == ZKPIPE_OK)
            STORE(point, G2A, p);
    } else {
        G1A p;
        if ((st = CO_PROOF_G1_READ(&p, in)) == ZKPIPE_OK)
            STORE(point, G1A, p);
    }
    return st;
}

static void key_point_write(uint8_t *out, const uint64_t *point, int g2)
{
    if (g2) {
        G2A p;
        LOAD(G2A, p, point);
        CO_KEY_G2_WRITE(out, &p);
    } else {
        G1A p;
        LOAD(G1A, p, point);
        CO_KEY_G1_WRITE(out, &p);
    }
}

static zkpipe_status key_point_read(uint64_t *point, const uint8_t *in, int g2)
{
    zkpipe_status st;
    if (g2) {
        G2A p;
        if ((st = CO_KEY_G2_READ(&p, in)) == ZKPIPE_OK)
            STORE(point, G2A, p);
    } else {
        G1A p;
        if ((st = CO_KEY_G1_READ(&p, in)) == ZKPIPE_OK)
            STORE(point, G1A, p);
    }
    return st;
}

static int g1_in_subgroup(const uint64_t *affine)
{
    G1A p;
    LOAD(G1A, p, affine);
    return G1F(is_in_subgroup)(&p);
}

static int g2_in_subgroup(const uint64_t *affine)
{
    G2A p;
    LOAD(G2A, p, affine);
    return G2F(is_in_subgroup)(&p);
}

/* Points normalised with one inversion in batch_to_affine: the inversion's cost spread over
 * this many, within a few kB of stack. */
#define CO_BATCH 64

/* The Jacobian entries of one group. */
#define CO_GROUP_OPS(g, G, GA, J)                                                                  \
    static void g##_from_affine(J *out, const uint64_t *affine)                                    \
    {                                                                                              \
        GA a;                                                                                      \
        G r;                                                                                       \
        LOAD(GA, a, affine);                                                                       \
        CO_CAT(G, _from_affine)(&r, &a);                                                           \
        STORE(out->w, G, r);                                                                       \
    }                                                                                              \
    static void g##_to_affine(uint64_t *affine, const J *p)                                        \
    {                                                                                              \
        G x;                                                                                       \
        GA a;                                                                                      \
        LOAD(G, x, p->w);                                                                          \
        CO_CAT(G, _to_affine)(&a, &x);                                                             \
        STORE(affine, GA, a);                                                                      \
    }                                                                                              \
    /* In runs of CO_BATCH points: one inversion a run, the Jacobian layout of J not G's. */       \
    static void g##_batch_to_affine(uint64_t *affine, const J *p, size_t n)                        \
    {                                                                                              \
        G x[CO_BATCH];                                                                             \
        GA a[CO_BATCH];                                                                            \
        for (size_t i0 = 0; i0 < n; i0 += CO_BATCH) {                                              \
            size_t len = n - i0 < CO_BATCH ? n - i0 : CO_BATCH;                                    \
            for (size_t i = 0; i < len; i++)                                                       \
                LOAD(G, x[i], p[i0 + i].w);                                                        \
            CO_CAT(G, _batch_to_affine)(a, x, len);                                                \
            memcpy(affine + (sizeof(GA) / 8) * i0, a, len * sizeof(GA));                           \
        }                                                                                          \
    }                                                                                              \
    static void g##_add(J *out, const J *a, const J *b)                                            \
    {                                                                                              \
        G x, y;                                                                                    \
        LOAD(G, x, a->w);                                                                          \
        LOAD(G, y, b->w);                                                                          \
        CO_CAT(G, _add)(&x, &x, &y);                                                               \
        STORE(out->w, G, x);                                                                       \
    }                                                                                              \
    static void g##_add_affine(J *out, const J *a, const uint64_t *b)                              \
    {                                                                                              \
        G x;                                                                                       \
        GA y;                                                                                      \
        LOAD(G, x, a->w);                                                                          \
        LOAD(GA, y, b);                                                                            \
        CO_CAT(G, _add_affine)(&x, &x, &y);                                                        \
        STORE(out->w, G, x);                                                                       \
    }                                                                                              \
    static void g##_mul(J *out, const J *p, const uint64_t *k)                                     \
    {                                                                                              \
        G x;                                                                                       \
        FR s;                                                                                      \
        LOAD(G, x, p->w);                                                                          \
        LOAD(FR, s, k);                                                                            \
        CO_CAT(G, _mul)(&x, &x, &s);                                                               \
        STORE(out->w, G, x);                                                                       \
    }
CO_GROUP_OPS(g1, G1, G1A, zkpipe__g1)
CO_GROUP_OPS(g2, G2, G2A, zkpipe__g2)
#undef CO_GROUP_OPS

static void g1_multi_mul(zkpipe__g1 *out, const uint64_t *affine, const uint64_t *k, size_t n)
{
    G1 x;
    G1F(multi_mul)(&x, (const G1A *)affine, k, n);
    STORE(out->w, G1, x);
}

static void g2_multi_mul(zkpipe__g2 *out, const uint64_t *affine, const uint64_t *k, size_t n)
{
    G2 x;
    G2F(multi_mul)(&x, (const G2A *)affine, k, n);
    STORE(out->w, G2, x);
}

static void g1_affine_neg(uint64_t *out, const uint64_t *affine)
{
    G1A p;
    LOAD(G1A, p, affine);
    G1F(affine_neg)(&p, &p);
    STORE(out, G1A, p);
}

static void g2_affine_neg(uint64_t *out, const uint64_t *affine)
{
    G2A p;
    LOAD(G2A, p, affine);
    G2F(affine_neg)(&p, &p);
    STORE(out, G2A, p);
}

#include "arith/fixed_base_impl.h"
ZKPIPE__FIXED_BASE_DEFINE(g1, G1, G1A)
ZKPIPE__FIXED_BASE_DEFINE(g2, G2, G2A)

/* ---- pairings ---- */

static void pairing(uint64_t *fq12, const uint64_t *g1a, const uint64_t *g2a)
{
    G1A p;
    G2A q;
    FQ12 f;
    LOAD(G1A, p, g1a);
    LOAD(G2A, q, g2a);
    PAIRINGF(pairing)(&f, &p, &q);
    STORE(fq12, FQ12, f);
}

static void g2_prepare(void *prepared, const uint64_t *g2a)
{
    G2A q;
    LOAD(G2A, q, g2a);
    PAIRINGF(g2_prepare)((G2P *)prepared, &q);
}

/* The verifier pairs four points: A, IC, C and -alpha. */
#define PAIRS_MAX 4

static int pairing_product_is_one(const uint64_t *const *p, const void *const *q, size_t n)
{
    G1A ps[PAIRS_MAX];
    const G2P *qs[PAIRS_MAX];
    if (n > PAIRS_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        LOAD(G1A, ps[i], p[i]);
        qs[i] = (const G2P *)q[i];
    }
    return PAIRINGF(pairing_check_prepared)(ps, qs, n);
}

/* ---- NTT ---- */

static zkpipe_status domain_create(zkpipe__domain **out, unsigned log_n, zkpipe_pool *pool,
                                   const zkpipe_allocator *allocator)
{
    return NTTF(domain_create)((DOMAIN **)out, log_n, pool, allocator);
}

static void domain_destroy(zkpipe__domain *d)
{
    NTTF(domain_destroy)((DOMAIN *)d);
}

static size_t domain_bytes(unsigned log_n)
{
    return NTTF(domain_estimate)(log_n);
}

static zkpipe_status intt(uint64_t *v, const zkpipe__domain *d, zkpipe_pool *pool)
{
    return NTTF(intt)((FR *)v, (const DOMAIN *)d, pool);
}

#define CO_SHIFTED(name)                                                                           \
    static zkpipe_status name(uint64_t *v, const zkpipe__domain *d, const uint64_t *shift,         \
                              zkpipe_pool *pool)                                                   \
    {                                                                                              \
        FR g;                                                                                      \
        LOAD(FR, g, shift);                                                                        \
        return NTTF(name)((FR *)v, (const DOMAIN *)d, &g, pool);                                   \
    }
CO_SHIFTED(coset_ntt)
CO_SHIFTED(coset_intt)
CO_SHIFTED(divide_by_vanishing_on_coset)
#undef CO_SHIFTED

/* ---- MSM ---- */

static zkpipe__msm_config msm_config(unsigned flags)
{
    zkpipe__msm_config cfg = {0,
                              (flags & ZKPIPE__CURVE_MSM_MONTGOMERY) ? ZKPIPE__MSM_MONTGOMERY : 0u};
    return cfg;
}

#define CO_MSM(g, G, GA, J)                                                                        \
    static zkpipe_status msm_##g(J *out, const uint64_t *bases, const uint64_t *scalars,           \
                                 const uint64_t *density, size_t nvars, unsigned flags,            \
                                 zkpipe_pool *pool, const zkpipe_allocator *allocator)             \
    {                                                                                              \
        zkpipe__msm_config cfg = msm_config(flags);                                                \
        G r;                                                                                       \
        zkpipe_status st =                                                                         \
            MSMF(G, _ex)(&r, (const GA *)bases, scalars, density, nvars, &cfg, pool, allocator);   \
        if (st == ZKPIPE_OK)                                                                       \
            STORE(out->w, G, r);                                                                   \
        return st;                                                                                 \
    }                                                                                              \
    static size_t msm_##g##_scratch_bytes(size_t nvars, size_t nbases, unsigned flags,             \
                                          unsigned threads)                                        \
    {                                                                                              \
        zkpipe__msm_config cfg = msm_config(flags);                                                \
        return MSMF(G, _scratch_bytes)(nvars, nbases, &cfg, threads);                              \
    }
CO_MSM(g1, G1, G1A, zkpipe__g1)
CO_MSM(g2, G2, G2A, zkpipe__g2)
#undef CO_MSM

const zkpipe__curve_ops CO_CAT(zkpipe__curve_ops_, CO_C) = {
    .curve = CO_CURVE,
    .snarkjs_name = CO_SNARKJS_NAME,
    .fq_limbs = FQ_LIMBS,
    .q = CO_CAT(FQ, _MODULUS),
    .r = CO_CAT(FR, _MODULUS),
    .two_adicity = CO_CAT(FR, _TWO_ADICITY),
    .g1a_words = G1_WORDS,
    .g2a_words = G2_WORDS,
    .proof_g1_bytes = CO_PROOF_G1_BYTES,
    .proof_g2_bytes = CO_PROOF_G2_BYTES,
    .key_g1_bytes = CO_KEY_G1_BYTES,
    .key_g2_bytes = CO_KEY_G2_BYTES,
    .fr_from_canonical = fr_from_canonical,
    .fr_to_canonical = fr_to_canonical,
    .fr_from_u64 = fr_from_u64,
    .fr_add = fr_add,
    .fr_sub = fr_sub,
    .fr_mul = fr_mul,
    .fr_inv = fr_inv,
    .fr_batch_inv = fr_batch_inv,
    .fr_pow = fr_pow,
    .fr_root_of_unity = fr_root_of_unity,
    .fr_vec_to_canonical = fr_vec_to_canonical,
    .fr_vec_mul_sub = fr_vec_mul_sub,
    .fr_vec_mul = fr_vec_mul,
    .fr_vec_first_mismatch = fr_vec_first_mismatch,
    .lc_eval_rows = lc_eval_rows,
    .fr_accumulate_entries = fr_accumulate_entries,
    .check_points = check_points,
    .subgroup_batch = subgroup_batch,
    .point_from_canonical = point_from_canonical,
    .point_to_canonical = point_to_canonical,
    .proof_point_write = proof_point_write,
    .proof_point_read = proof_point_read,
    .key_point_write = key_point_write,
    .key_point_read = key_point_read,
    .g1_in_subgroup = g1_in_subgroup,
    .g2_in_subgroup = g2_in_subgroup,
    .g1_affine_neg = g1_affine_neg,
    .g2_affine_neg = g2_affine_neg,
    .g1_from_affine = g1_from_affine,
    .g1_to_affine = g1_to_affine,
    .g1_batch_to_affine = g1_batch_to_affine,
    .g1_add = g1_add,
    .g1_add_affine = g1_add_affine,
    .g1_mul = g1_mul,
    .g1_multi_mul = g1_multi_mul,
    .g2_from_affine = g2_from_affine,
    .g2_to_affine = g2_to_affine,
    .g2_batch_to_affine = g2_batch_to_affine,
    .g2_add = g2_add,
    .g2_add_affine = g2_add_affine,
    .g2_mul = g2_mul,
    .g2_multi_mul = g2_multi_mul,
    .g1_generator_mul = g1_generator_mul,
    .g2_generator_mul = g2_generator_mul,
    .g2_prepared_bytes = sizeof(G2P),
    .fq12_words = sizeof(FQ12) / 8,
    .pairing = pairing,
    .g2_prepare = g2_prepare,
    .pairing_product_is_one = pairing_product_is_one,
    .domain_create = domain_create,
    .domain_destroy = domain_destroy,
    .domain_bytes = domain_bytes,
    .intt = intt,
    .coset_ntt = coset_ntt,
    .coset_intt = coset_intt,
    .divide_by_vanishing_on_coset = divide_by_vanishing_on_coset,
    .msm_g1 = msm_g1,
    .msm_g2 = msm_g2,
    .msm_g1_scratch_bytes = msm_g1_scratch_bytes,
    .msm_g2_scratch_bytes = msm_g2_scratch_bytes,
};
