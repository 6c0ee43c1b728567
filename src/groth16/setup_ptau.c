/* Keys in a circom zkey's layout from a phase-2-prepared powers of tau: what snarkjs's
 * `groth16 setup` (zkey_new.js) computes, the same points and the same circuit hash, so that
 * zkpipe_zkey_write writes the same file.
 *
 * With the ptau's Lagrange-basis points at the circuit's level (tau L_j, alpha tau L_j,
 * beta tau L_j in G1, tau L_j in G2, j < n):
 *   A_i = sum over A's rows of a_ji (tau L_j) G1, plus (tau L_{m+i}) G1 for each input i,
 *   B1_i, B2_i likewise from B (no input rows),
 *   C_i (private) and IC_i (public) = sum a_ji (beta L_j) + b_ji (alpha L_j) + c_ji (L_j),
 *     plus (beta L_{m+i}) for each input,
 *   H_i = the level 2n's point 2i + 1 (the odd coset),
 * alpha1, beta1, beta2 the ptau's, gamma2, delta1, delta2 the generators (delta = 1 until a
 * contribution). Each point is a small MSM over its variable's terms (a column of the
 * matrices): one term at a time for the short columns, Pippenger for the long ones (the one
 * wire of a real circuit holds every constant). */
#include <string.h>

#include "arith/snarkjs_sub_affine.h"
#include "core/alloc_internal.h"
#include "core/blake2b.h"
#include "core/bytes.h"
#include "groth16/keys.h"
#include "groth16/setup_internal.h"

#define L4 ZKPIPE__FR_LIMBS
/* Columns with more terms than this go through the MSM. */
#define LONG_COLUMN 512

/* The point tables a term may use. */
enum { BASE_TAU, BASE_ALPHA, BASE_BETA, BASE_TAU_G2, BASES };

typedef struct term {
    uint32_t row, coeff; /* coeff: the system's coefficient id */
    uint32_t base;
} term;

/* Terms by variable (a column view of the matrices): start[v] .. start[v + 1]. */
typedef struct columns {
    size_t *start;
    term *terms;
} columns;

/* Which matrices feed a column set, and through which base; BASES: not at all. The input
 * rows (row m + i of variable i, coefficient 1) use `inputs`. */
typedef struct column_spec {
    int base[3];
    int inputs;
} column_spec;

static zkpipe_status columns_build(columns *out, const zkpipe_cs *cs, const column_spec *spec,
                                   const zkpipe_allocator *a)
{
    size_t nv = cs->num_inputs + cs->num_aux, total = 0;
    for (int k = 0; k < 3; k++)
        if (spec->base[k] != BASES)
            total += (size_t)cs->m[k].row_start[cs->num_constraints];
    if (spec->inputs != BASES)
        total += cs->num_inputs;
    out->start = zkpipe__calloc(a, nv + 1, sizeof *out->start, 64);
    out->terms = zkpipe__calloc(a, total > 0 ? total : 1, sizeof *out->terms, 64);
    if (out->start == NULL || out->terms == NULL)
        return ZKPIPE_ENOMEM;
    /* Count, prefix sums, then fill in row order (start[v] walks to start[v + 1]). */
    for (int k = 0; k < 3; k++) {
        if (spec->base[k] == BASES)
            continue;
        const zkpipe__matrix *m = &cs->m[k];
        for (uint64_t t = 0; t < m->row_start[cs->num_constraints]; t++)
            out->start[zkpipe__var_index(cs, m->terms[t].var) + 1]++;
    }
    if (spec->inputs != BASES)
        for (size_t i = 0; i < cs->num_inputs; i++)
            out->start[i + 1]++;
    for (size_t v = 0; v < nv; v++)
        out->start[v + 1] += out->start[v];
    for (size_t row = 0; row < cs->num_constraints; row++)
        for (int k = 0; k < 3; k++) {
            if (spec->base[k] == BASES)
                continue;
            size_t count;
            const zkpipe__term *t = zkpipe__cs_row(cs, k, row, &count);
            for (size_t i = 0; i < count; i++) {
                size_t v = zkpipe__var_index(cs, t[i].var);
                term e = {(uint32_t)row, t[i].coeff, (uint32_t)spec->base[k]};
                out->terms[out->start[v]++] = e;
            }
        }
    if (spec->inputs != BASES)
        for (size_t i = 0; i < cs->num_inputs; i++) {
            term e = {(uint32_t)(cs->num_constraints + i), 0, (uint32_t)spec->inputs};
            out->terms[out->start[i]++] = e;
        }
    /* Each start[v] now stands where start[v + 1] began: shift back. */
    for (size_t v = nv; v > 0; v--)
        out->start[v] = out->start[v - 1];
    out->start[0] = 0;
    return ZKPIPE_OK;
}

static void columns_free(columns *c, const zkpipe_allocator *a)
{
    zkpipe__free(a, c->start);
    zkpipe__free(a, c->terms);
    c->start = NULL;
    c->terms = NULL;
}

/* One composition: points out[v - first] for the variables [first, first + count). */
typedef struct compose_ctx {
    const zkpipe_cs *cs;
    const columns *cols;
    const uint8_t *const *bases; /* BASES tables of packed points (any alignment) */
    int g2;
    uint64_t *out;
    size_t first;
} compose_ctx;

static void load_point(uint64_t *p, const compose_ctx *x, const term *t)
{
    size_t bytes = 8 * (x->g2 ? x->cs->ops->g2a_words : x->cs->ops->g1a_words);
    memcpy(p, x->bases[t->base] + (size_t)t->row * bytes, bytes);
}

/* G1 terms a multi-multiplication takes at once. */
#define MULTI_TERMS 16

/* A short column, one term at a time into *acc (a zkpipe__g1 or zkpipe__g2): coefficients 1
 * and -1 (ids 0 and 1) by an addition. */
static void compose_short(const compose_ctx *x, size_t v, void *acc)
{
    const zkpipe__curve_ops *c = x->cs->ops;
    const term *t = x->cols->terms + x->cols->start[v];
    size_t n = x->cols->start[v + 1] - x->cols->start[v];
    uint64_t p[ZKPIPE__G2A_WORDS], zero[ZKPIPE__G2A_WORDS] = {0};
    if (x->g2) {
        zkpipe__g2 *a = acc, q;
        c->g2_from_affine(a, zero);
        for (size_t i = 0; i < n; i++) {
            load_point(p, x, &t[i]);
            if (t[i].coeff == 1)
                c->g2_affine_neg(p, p);
            if (t[i].coeff <= 1) {
                c->g2_add_affine(a, a, p);
                continue;
            }
            c->g2_from_affine(&q, p);
            c->g2_mul(&q, &q, zkpipe__cs_coeff(x->cs, t[i].coeff));
            c->g2_add(a, a, &q);
        }
    } else {
        /* G1 terms with other coefficients go MULTI_TERMS at a time through the GLV
         * multi-multiplication, which shares its doublings among them. */
        zkpipe__g1 *a = acc, q;
        uint64_t pts[MULTI_TERMS * ZKPIPE__G1A_WORDS], k[MULTI_TERMS * L4];
        size_t m = 0, words = c->g1a_words;
        c->g1_from_affine(a, zero);
        for (size_t i = 0; i < n; i++) {
            if (t[i].coeff > 1) {
                load_point(pts + words * m, x, &t[i]);
                c->fr_to_canonical(k + L4 * m, zkpipe__cs_coeff(x->cs, t[i].coeff));
                m++;
            } else {
                load_point(p, x, &t[i]);
                if (t[i].coeff == 1)
                    c->g1_affine_neg(p, p);
                c->g1_add_affine(a, a, p);
            }
            if (m == MULTI_TERMS || (m > 0 && i + 1 == n)) {
                c->g1_multi_mul(&q, pts, k, m);
                c->g1_add(a, a, &q);
                m = 0;
            }
        }
    }
}

/* Short columns are normalised this many at a time, with one inversion: per column, the
 * inversion would cost more than its few additions. */
#define NORMALISE_BATCH 64

/* The short columns among [begin, end) of v - first into x->out, in batches; the long ones
 * are left for compose_long. */
static void compose_chunk(void *arg, size_t begin, size_t end, unsigned worker)
{
    const compose_ctx *x = arg;
    const zkpipe__curve_ops *c = x->cs->ops;
    size_t words = x->g2 ? c->g2a_words : c->g1a_words;
    zkpipe__g1 j1[NORMALISE_BATCH];
    zkpipe__g2 j2[NORMALISE_BATCH];
    uint64_t aff[NORMALISE_BATCH * ZKPIPE__G2A_WORDS];
    size_t at[NORMALISE_BATCH], k = 0;
    (void)worker;
    for (size_t v = x->first + begin; v < x->first + end; v++) {
        if (x->cols->start[v + 1] - x->cols->start[v] <= LONG_COLUMN) {
            compose_short(x, v, x->g2 ? (void *)&j2[k] : (void *)&j1[k]);
            at[k++] = v - x->first;
        }
        if (k == NORMALISE_BATCH || (k > 0 && v + 1 == x->first + end)) {
            if (x->g2)
                c->g2_batch_to_affine(aff, j2, k);
            else
                c->g1_batch_to_affine(aff, j1, k);
            for (size_t i = 0; i < k; i++)
                memcpy(x->out + words * at[i], aff + words * i, 8 * words);
            k = 0;
        }
    }
}

/* A long column through the MSM: its points gathered, its coefficients as scalars. */
static zkpipe_status compose_long(const compose_ctx *x, size_t v, uint64_t *out, zkpipe_pool *pool,
                                  const zkpipe_allocator *a)
{
    const zkpipe__curve_ops *c = x->cs->ops;
    const term *t = x->cols->terms + x->cols->start[v];
    size_t n = x->cols->start[v + 1] - x->cols->start[v];
    size_t words = x->g2 ? c->g2a_words : c->g1a_words;
    uint64_t *pts = zkpipe__alloc(a, n * 8 * words, 64);
    uint64_t *k = zkpipe__alloc(a, n * 8 * L4, 64);
    zkpipe_status st = ZKPIPE_ENOMEM;
    if (pts != NULL && k != NULL) {
        for (size_t i = 0; i < n; i++) {
            load_point(pts + words * i, x, &t[i]);
            memcpy(k + L4 * i, zkpipe__cs_coeff(x->cs, t[i].coeff), 8 * L4);
        }
        if (x->g2) {
            zkpipe__g2 acc;
            st = c->msm_g2(&acc, pts, k, NULL, n, ZKPIPE__CURVE_MSM_MONTGOMERY, pool, a);
            if (st == ZKPIPE_OK)
                c->g2_to_affine(out, &acc);
        } else {
            zkpipe__g1 acc;
            st = c->msm_g1(&acc, pts, k, NULL, n, ZKPIPE__CURVE_MSM_MONTGOMERY, pool, a);
            if (st == ZKPIPE_OK)
                c->g1_to_affine(out, &acc);
        }
    }
    zkpipe__free(a, pts);
    zkpipe__free(a, k);
    return st;
}

/* out[v - first] for v in [first, first + count): the short columns in parallel, then each
 * long one with the whole pool. */
static zkpipe_status compose(compose_ctx *x, size_t first, size_t count, uint64_t *out,
                             zkpipe_pool *pool, const zkpipe_allocator *a)
{
    x->out = out;
    x->first = first;
    size_t words = x->g2 ? x->cs->ops->g2a_words : x->cs->ops->g1a_words;
    zkpipe_status st = zkpipe_pool_parallel_for(pool, count, 256, compose_chunk, x);
    for (size_t v = first; v < first + count && st == ZKPIPE_OK; v++)
        if (x->cols->start[v + 1] - x->cols->start[v] > LONG_COLUMN)
            st = compose_long(x, v, out + words * (v - first), pool, a);
    return st;
}

/* snarkjs's circuit hash input: a point as ffjavascript's uncompressed form, big-endian
 * coordinates as in bellman's key files, but the point at infinity all zeros, without the
 * infinity flag those set (FORMATS.md). */
static void hash_points(zkpipe__blake2b *h, const zkpipe__curve_ops *c, const uint64_t *p, size_t n,
                        int g2)
{
    size_t words = g2 ? c->g2a_words : c->g1a_words;
    size_t bytes = g2 ? c->key_g2_bytes : c->key_g1_bytes;
    uint8_t buf[4 * 48];
    for (size_t i = 0; i < n; i++) {
        const uint64_t *q = p + words * i;
        uint64_t any = 0;
        for (size_t k = 0; k < words; k++)
            any |= q[k];
        if (any == 0)
            memset(buf, 0, bytes);
        else
            c->key_point_write(buf, q, g2);
        zkpipe__blake2b_update(h, buf, bytes);
    }
}

/* A count as the hash takes it: 32-bit big-endian. */
static void hash_count(zkpipe__blake2b *h, size_t n)
{
    uint8_t b[4] = {(uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
    zkpipe__blake2b_update(h, b, 4);
}

/* The H part of the hash is not the H section: snarkjs hashes (tau^(i+n) - tau^i) G1, the
 * bellman H query, in chunks of 2^14 points, the last chunk full length too (its loop reads
 * min(n - 1, 2^14) points per chunk), so this many are hashed, reaching tau^(count - 1 + n):
 * from n = 2^15 on, tau^(2n - 1), one past the 2n - 1 of a ptau of the circuit's power
 * (arith/snarkjs_sub_affine.c). */
static size_t hash_h_count(size_t n)
{
    size_t chunk = n - 1 < ((size_t)1 << 14) ? n - 1 : (size_t)1 << 14;
    return (n - 1 + chunk - 1) / chunk * chunk;
}

/* Points [begin, end) of a run of hash_h's H query: (tau^(i+n) - tau^i) G1 for i from
 * first + begin, into out + begin, normalised in batches. */
typedef struct h_query_ctx {
    const zkpipe__curve_ops *c;
    const uint8_t *tau_g1;
    size_t n, first;
    uint64_t *out;
} h_query_ctx;

static void h_query_chunk(void *arg, size_t begin, size_t end, unsigned worker)
{
    const h_query_ctx *x = arg;
    const zkpipe__curve_ops *c = x->c;
    size_t bytes = 8 * c->g1a_words;
    zkpipe__g1 acc[NORMALISE_BATCH];
    (void)worker;
    for (size_t i0 = begin; i0 < end; i0 += NORMALISE_BATCH) {
        size_t len = end - i0 < NORMALISE_BATCH ? end - i0 : NORMALISE_BATCH;
        for (size_t k = 0; k < len; k++) {
            size_t i = x->first + i0 + k;
            uint64_t p[ZKPIPE__G1A_WORDS], q[ZKPIPE__G1A_WORDS];
            memcpy(p, x->tau_g1 + (i + x->n) * bytes, bytes);
            memcpy(q, x->tau_g1 + i * bytes, bytes);
            if (i + x->n >= 2 * x->n - 1) {
                /* Past the 2n - 1 points zkpipe_ptau_points checked: at the ceremony's own
                 * power, bytes after tauG1, which snarkjs's wasm does not treat as residues.
                 * Its arithmetic is followed there (and gives p - q for a valid p). */
                zkpipe__snarkjs_sub_affine(&acc[k], c, p, q);
                continue;
            }
            c->g1_affine_neg(q, q);
            c->g1_from_affine(&acc[k], p);
            c->g1_add_affine(&acc[k], &acc[k], q);
        }
        c->g1_batch_to_affine(x->out + c->g1a_words * i0, acc, len);
    }
}

/* Hashed a run of H_RUN points at a time: the points computed on the pool, then hashed in
 * order, within a bounded buffer. */
#define H_RUN ((size_t)1 << 14)

static zkpipe_status hash_h(zkpipe__blake2b *h, const zkpipe__curve_ops *c, const uint8_t *tau_g1,
                            size_t n, zkpipe_pool *pool, const zkpipe_allocator *a)
{
    size_t count = hash_h_count(n);
    size_t run = count < H_RUN ? count : H_RUN;
    uint64_t *buf = zkpipe__alloc(a, (run > 0 ? run : 1) * 8 * c->g1a_words, 64);
    if (buf == NULL)
        return ZKPIPE_ENOMEM;
    hash_count(h, n - 1);
    zkpipe_status st = ZKPIPE_OK;
    for (size_t first = 0; first < count && st == ZKPIPE_OK; first += run) {
        size_t len = count - first < run ? count - first : run;
        h_query_ctx x = {c, tau_g1, n, first, buf};
        st = zkpipe_pool_parallel_for(pool, len, 1024, h_query_chunk, &x);
        if (st == ZKPIPE_OK)
            hash_points(h, c, buf, len, 0);
    }
    zkpipe__free(a, buf);
    return st;
}

zkpipe_status zkpipe_groth16_setup_zkey_ptau(zkpipe_groth16_pk **out_pk, zkpipe_groth16_vk **out_vk,
                                             const zkpipe_cs *cs, const zkpipe_groth16_ptau *pt,
                                             zkpipe_pool *pool, const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out_pk == NULL || out_vk == NULL || cs == NULL || pt == NULL || a == NULL)
        return ZKPIPE_EINVAL;
    unsigned log_n;
    zkpipe_status st = zkpipe__setup_zkey_shape(cs, &log_n);
    if (st != ZKPIPE_OK)
        return st;
    if (pt->curve != cs->curve || pt->log_n != log_n)
        return ZKPIPE_EMISMATCH;
    const zkpipe__curve_ops *c = cs->ops;
    size_t ni = cs->num_inputs, nv = ni + cs->num_aux, n = (size_t)1 << log_n;
    size_t w1 = c->g1a_words, w2 = c->g2a_words;
    if (pt->tau_g1_count < hash_h_count(n) + n)
        return ZKPIPE_EMISMATCH;
    zkpipe_groth16_pk *pk = NULL;
    zkpipe_groth16_vk *vk = NULL;
    columns cols = {NULL, NULL};
    size_t ncoeff = (size_t)(cs->m[0].row_start[cs->num_constraints] +
                             cs->m[1].row_start[cs->num_constraints]) +
                    ni;
    st = zkpipe__g16_pk_alloc_zkey(&pk, c, ni, cs->num_aux, log_n, ncoeff, a);
    if (st == ZKPIPE_OK)
        st = zkpipe__g16_vk_alloc(&vk, c, ni, a);
    if (st != ZKPIPE_OK)
        goto done;
    zkpipe__setup_zkey_coeffs(zkpipe__g16_w_bytes(pk->coeffs), cs);

    /* The header: the ptau's alpha, beta; gamma and delta the generators. */
    uint64_t one[L4], g1[ZKPIPE__G1A_WORDS], g2[ZKPIPE__G2A_WORDS];
    c->fr_from_u64(one, 1);
    if ((st = c->g1_generator_mul(g1, one, 1, NULL, a)) != ZKPIPE_OK ||
        (st = c->g2_generator_mul(g2, one, 1, NULL, a)) != ZKPIPE_OK)
        goto done;
    memcpy(zkpipe__g16_w(pk->alpha1), pt->alpha_g1, 8 * w1);
    memcpy(zkpipe__g16_w(pk->beta1), pt->beta_g1, 8 * w1);
    memcpy(zkpipe__g16_w(pk->beta2), pt->beta_g2, 8 * w2);
    memcpy(zkpipe__g16_w(pk->delta1), g1, 8 * w1);
    memcpy(zkpipe__g16_w(pk->delta2), g2, 8 * w2);
    memcpy(vk->alpha1, pk->alpha1, 8 * w1);
    memcpy(vk->beta2, pk->beta2, 8 * w2);
    memcpy(vk->gamma2, g2, 8 * w2);
    memcpy(vk->delta2, g2, 8 * w2);

    /* H: the odd points of the level 2n. */
    for (size_t i = 0; i < n; i++)
        memcpy(zkpipe__g16_w(pk->h) + w1 * i, pt->lagrange_tau_g1_2n + (2 * i + 1) * 8 * w1,
               8 * w1);

    const uint8_t *bases[BASES] = {pt->lagrange_tau_g1, pt->lagrange_alpha_g1, pt->lagrange_beta_g1,
                                   pt->lagrange_tau_g2};
    compose_ctx x = {cs, &cols, bases, 0, NULL, 0};
    static const column_spec spec_a = {{BASE_TAU, BASES, BASES}, BASE_TAU};
    static const column_spec spec_b = {{BASES, BASE_TAU, BASES}, BASES};
    static const column_spec spec_c = {{BASE_BETA, BASE_ALPHA, BASE_TAU}, BASE_BETA};
    if ((st = columns_build(&cols, cs, &spec_a, a)) != ZKPIPE_OK ||
        (st = compose(&x, 0, nv, zkpipe__g16_w(pk->a), pool, a)) != ZKPIPE_OK)
        goto done;
    columns_free(&cols, a);
    if ((st = columns_build(&cols, cs, &spec_b, a)) != ZKPIPE_OK ||
        (st = compose(&x, 0, nv, zkpipe__g16_w(pk->b1), pool, a)) != ZKPIPE_OK)
        goto done;
    /* B2: the same columns over tau L_j in G2 (every term's base set to it). */
    for (size_t t = 0; t < cols.start[nv]; t++)
        cols.terms[t].base = BASE_TAU_G2;
    x.g2 = 1;
    if ((st = compose(&x, 0, nv, zkpipe__g16_w(pk->b2), pool, a)) != ZKPIPE_OK)
        goto done;
    x.g2 = 0;
    columns_free(&cols, a);
    if ((st = columns_build(&cols, cs, &spec_c, a)) != ZKPIPE_OK ||
        (st = compose(&x, 0, ni, vk->ic, pool, a)) != ZKPIPE_OK ||
        (st = compose(&x, ni, nv - ni, zkpipe__g16_w(pk->l), pool, a)) != ZKPIPE_OK)
        goto done;

    /* The circuit hash, in zkey_new.js's order: the header's points, IC, H (bellman's), C, A,
     * B1, B2, each section's count first. */
    zkpipe__blake2b h;
    zkpipe__blake2b_init(&h, 64);
    hash_points(&h, c, pk->alpha1, 1, 0);
    hash_points(&h, c, pk->beta1, 1, 0);
    hash_points(&h, c, pk->beta2, 1, 1);
    hash_points(&h, c, g2, 1, 1);
    hash_points(&h, c, g1, 1, 0);
    hash_points(&h, c, g2, 1, 1);
    hash_count(&h, ni);
    hash_points(&h, c, vk->ic, ni, 0);
    if ((st = hash_h(&h, c, pt->tau_g1, n, pool, a)) != ZKPIPE_OK)
        goto done;
    hash_count(&h, nv - ni);
    hash_points(&h, c, pk->l, nv - ni, 0);
    hash_count(&h, nv);
    hash_points(&h, c, pk->a, nv, 0);
    hash_count(&h, nv);
    hash_points(&h, c, pk->b1, nv, 0);
    hash_count(&h, nv);
    hash_points(&h, c, pk->b2, nv, 1);
    zkpipe__blake2b_final(&h, pk->cs_hash);
done:
    columns_free(&cols, a);
    if (st != ZKPIPE_OK) {
        zkpipe_groth16_pk_destroy(pk);
        zkpipe_groth16_vk_destroy(vk);
        return st;
    }
    *out_pk = pk;
    *out_vk = vk;
    return ZKPIPE_OK;
}
