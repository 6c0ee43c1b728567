/* Synthesis into accounted buffers, and the byte estimate an engine budgets with. */
#include <string.h>

#include "core/alloc_internal.h"
#include "circuit/synth.h"

#define ALIGN 64
#define ROWS_PER_CHUNK 1024

static unsigned two_adicity(zkpipe_curve curve)
{
    const zkpipe__curve_ops *c = zkpipe__curve_ops_for(curve);
    return c != NULL ? c->two_adicity : 0;
}

size_t zkpipe__density_words(size_t num_vars)
{
    return num_vars / 64 + (num_vars % 64 != 0);
}

zkpipe_status zkpipe_synth_estimate(uint64_t *out_bytes, unsigned *out_log_n, zkpipe_curve curve,
                                    size_t num_constraints, size_t num_inputs, size_t num_aux)
{
    unsigned max_log = two_adicity(curve);
    if (out_bytes == NULL || max_log == 0 || num_inputs == 0)
        return ZKPIPE_EINVAL;
    if (num_constraints > UINT64_MAX - num_inputs || num_inputs > UINT64_MAX - num_aux)
        return ZKPIPE_EOVERFLOW;
    uint64_t rows = (uint64_t)num_constraints + num_inputs;
    unsigned log_n = 0;
    while (log_n <= max_log && ((uint64_t)1 << log_n) < rows)
        log_n++;
    if (log_n > max_log)
        return ZKPIPE_ETOOBIG;
    uint64_t vars = (uint64_t)num_inputs + num_aux;
    if (vars > UINT64_MAX / ZKPIPE__FE_BYTES - ((uint64_t)3 << log_n))
        return ZKPIPE_EOVERFLOW;
    /* Both bitmaps together take at most vars / 4 + 16 bytes, well inside the margin. */
    *out_bytes = (((uint64_t)3 << log_n) + vars) * ZKPIPE__FE_BYTES +
                 2 * sizeof(uint64_t) * zkpipe__density_words(vars);
    if (out_log_n != NULL)
        *out_log_n = log_n;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_cs_synth_bytes(const zkpipe_cs *cs, uint64_t *out_bytes, unsigned *out_log_n)
{
    if (cs == NULL)
        return ZKPIPE_EINVAL;
    return zkpipe_synth_estimate(out_bytes, out_log_n, cs->curve, cs->num_constraints,
                                 cs->num_inputs, cs->num_aux);
}

/* The byte size and ledger kind of each buffer, in the order they are allocated. */
enum { BUF_A, BUF_B, BUF_C, BUF_INPUT, BUF_AUX, BUF_DENSITY, BUF_COUNT };

static uint64_t **buffer(zkpipe__synth_result *r, int which)
{
    uint64_t **slots[BUF_COUNT] = {&r->a, &r->b, &r->c, &r->input, &r->aux, &r->density};
    return slots[which];
}

static size_t buffer_bytes(const zkpipe__synth_result *r, int which)
{
    switch (which) {
    case BUF_A:
    case BUF_B:
    case BUF_C:
        return r->n * ZKPIPE__FE_BYTES;
    case BUF_INPUT:
        return r->num_inputs * ZKPIPE__FE_BYTES;
    case BUF_AUX:
        return r->num_aux * ZKPIPE__FE_BYTES;
    default:
        return 2 * r->density_words * sizeof(uint64_t);
    }
}

static uint32_t buffer_kind(int which)
{
    return which <= BUF_C       ? ZKPIPE_KIND_ABC
           : which == BUF_INPUT ? ZKPIPE_KIND_INPUT
           : which == BUF_AUX   ? ZKPIPE_KIND_AUX
                                : ZKPIPE_KIND_DENSITY;
}

static void drop(zkpipe__synth_result *r, int which)
{
    uint64_t **p = buffer(r, which);
    if (*p == NULL)
        return;
    if (r->ledger != NULL)
        zkpipe_ledger_release(r->ledger, buffer_kind(which), buffer_bytes(r, which));
    zkpipe__free(&r->allocator, *p);
    *p = NULL;
}

static zkpipe_status take(zkpipe__synth_result *r, int which)
{
    size_t bytes = buffer_bytes(r, which);
    uint64_t *p = zkpipe__alloc(&r->allocator, bytes, ALIGN);
    if (p == NULL)
        return ZKPIPE_ENOMEM;
    if (r->ledger != NULL) {
        zkpipe_status st = zkpipe_ledger_charge(r->ledger, buffer_kind(which), bytes);
        if (st != ZKPIPE_OK) {
            zkpipe__free(&r->allocator, p);
            return st;
        }
    }
    *buffer(r, which) = p;
    return ZKPIPE_OK;
}

void zkpipe__synth_free_abc(zkpipe__synth_result *r)
{
    if (r == NULL)
        return;
    for (int which = BUF_A; which <= BUF_C; which++)
        drop(r, which);
}

void zkpipe__synth_free(zkpipe__synth_result *r)
{
    if (r == NULL)
        return;
    for (int which = 0; which < BUF_COUNT; which++)
        drop(r, which);
    memset(r, 0, sizeof *r);
}

typedef struct eval_ctx {
    const zkpipe_cs *cs;
    zkpipe__lc_rows m;
    zkpipe__synth_result *r;
} eval_ctx;

static void eval_chunk(void *arg, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const eval_ctx *ctx = arg;
    size_t at = begin * ZKPIPE__FE_LIMBS;
    ctx->cs->ops->lc_eval_rows(ctx->r->a + at, ctx->r->b + at, ctx->r->c + at, &ctx->m, begin, end);
}

static void set_density(uint64_t *bitmap, const zkpipe_cs *cs, const zkpipe__matrix *m)
{
    for (uint64_t t = 0; t < m->row_start[cs->num_constraints]; t++) {
        size_t v = zkpipe__var_index(cs, m->terms[t].var);
        bitmap[v / 64] |= (uint64_t)1 << (v % 64);
    }
}

void zkpipe__density_fill(uint64_t *density, const zkpipe_cs *cs)
{
    size_t words = zkpipe__density_words(cs->num_inputs + cs->num_aux);
    uint64_t *density_a = density, *density_b = density + words;
    memset(density, 0, 2 * words * sizeof(uint64_t));
    for (size_t j = 0; j < cs->num_inputs; j++)
        density_a[j / 64] |= (uint64_t)1 << (j % 64); /* the input-consistency rows */
    set_density(density_a, cs, &cs->m[ZKPIPE__MAT_A]);
    set_density(density_b, cs, &cs->m[ZKPIPE__MAT_B]);
}

zkpipe_status zkpipe__synth(zkpipe__synth_result *out, const zkpipe_cs *cs, zkpipe_pool *pool,
                            zkpipe_ledger *ledger)
{
    return zkpipe__synth_with(out, cs, pool, ledger, cs != NULL ? &cs->allocator : NULL);
}

zkpipe_status zkpipe__synth_with(zkpipe__synth_result *out, const zkpipe_cs *cs, zkpipe_pool *pool,
                                 zkpipe_ledger *ledger, const zkpipe_allocator *allocator)
{
    if (out == NULL || cs == NULL || allocator == NULL)
        return ZKPIPE_EINVAL;
    if (cs->mode != ZKPIPE_CS_WITNESS)
        return ZKPIPE_ESTATE;
    uint64_t bytes;
    unsigned log_n;
    zkpipe_status st = zkpipe_cs_synth_bytes(cs, &bytes, &log_n);
    if (st != ZKPIPE_OK)
        return st;
    zkpipe__synth_result r;
    memset(&r, 0, sizeof r);
    r.curve = cs->curve;
    r.log_n = log_n;
    r.n = (size_t)1 << log_n;
    r.num_constraints = cs->num_constraints;
    r.num_inputs = cs->num_inputs;
    r.num_aux = cs->num_aux;
    r.density_words = zkpipe__density_words(cs->num_inputs + cs->num_aux);
    r.ledger = ledger;
    r.allocator = *allocator;
    for (int which = 0; which < BUF_COUNT; which++) {
        if ((st = take(&r, which)) != ZKPIPE_OK) {
            zkpipe__synth_free(&r);
            return st;
        }
    }

    eval_ctx ctx = {cs, zkpipe__cs_lc_rows(cs), &r};
    st = zkpipe_pool_parallel_for(pool, cs->num_constraints, ROWS_PER_CHUNK, eval_chunk, &ctx);
    if (st != ZKPIPE_OK) {
        zkpipe__synth_free(&r);
        return st;
    }
    size_t m = cs->num_constraints, tail = (r.n - m) * ZKPIPE__FE_BYTES;
    memcpy(r.a + m * ZKPIPE__FE_LIMBS, cs->input_values, cs->num_inputs * ZKPIPE__FE_BYTES);
    memset(r.a + (m + cs->num_inputs) * ZKPIPE__FE_LIMBS, 0,
           (r.n - m - cs->num_inputs) * ZKPIPE__FE_BYTES);
    memset(r.b + m * ZKPIPE__FE_LIMBS, 0, tail);
    memset(r.c + m * ZKPIPE__FE_LIMBS, 0, tail);
    memcpy(r.input, cs->input_values, cs->num_inputs * ZKPIPE__FE_BYTES);
    if (cs->num_aux > 0)
        memcpy(r.aux, cs->aux_values, cs->num_aux * ZKPIPE__FE_BYTES);

    zkpipe__density_fill(r.density, cs);
    *out = r;
    return ZKPIPE_OK;
}
