/* The constraint-system builder: variables, interned coefficients and CSR matrices. */
#include <string.h>

#include "core/alloc_internal.h"
#include "circuit/cs_internal.h"

#define MAX_VARS ((size_t)ZKPIPE_VAR_AUX - 1)
#define FIRST_CAP 16
#define ALIGN 64

/* Replaces *p (holding `used` bytes) by a block of `bytes` bytes with the same prefix. */
static zkpipe_status regrow(const zkpipe_allocator *al, void **p, size_t used, size_t bytes)
{
    void *q = zkpipe__alloc(al, bytes, ALIGN);
    if (q == NULL)
        return ZKPIPE_ENOMEM;
    if (used > 0)
        memcpy(q, *p, used);
    zkpipe__free(al, *p);
    *p = q;
    return ZKPIPE_OK;
}

/* The capacity after doubling `cap` until it holds `need` (elements of `elem` bytes), or 0
 * when that many bytes would not fit in a size_t (reported as ZKPIPE_ENOMEM: no allocator
 * could satisfy it). */
static size_t doubled(size_t cap, size_t need, size_t elem)
{
    if (cap == 0)
        cap = FIRST_CAP;
    while (cap < need) {
        if (cap > SIZE_MAX / 2)
            return 0;
        cap *= 2;
    }
    return cap > SIZE_MAX / elem ? 0 : cap;
}

static zkpipe_status reserve_values(zkpipe_cs *cs, uint64_t **values, size_t *cap, size_t count)
{
    if (count < *cap || cs->mode == ZKPIPE_CS_SHAPE)
        return ZKPIPE_OK;
    size_t ncap = doubled(*cap, count + 1, ZKPIPE__FE_BYTES);
    if (ncap == 0)
        return ZKPIPE_ENOMEM;
    zkpipe_status st =
        regrow(&cs->allocator, (void **)values, count * ZKPIPE__FE_BYTES, ncap * ZKPIPE__FE_BYTES);
    if (st == ZKPIPE_OK)
        *cap = ncap;
    return st;
}

static uint32_t hash_fe(const uint64_t *v)
{
    uint64_t h = v[0] ^ (v[1] * UINT64_C(0x9e3779b97f4a7c15));
    h ^= (v[2] + (h << 6)) * UINT64_C(0xbf58476d1ce4e5b9);
    h ^= (v[3] + (h >> 2)) * UINT64_C(0x94d049bb133111eb);
    return (uint32_t)(h ^ (h >> 32));
}

/* Rebuilds the slot table for 2 * cap slots (load factor at most one half). */
static zkpipe_status rehash(zkpipe_cs *cs, uint32_t cap)
{
    uint32_t nslots = 2 * cap;
    uint32_t *slots = zkpipe__calloc(&cs->allocator, nslots, sizeof *slots, ALIGN);
    if (slots == NULL)
        return ZKPIPE_ENOMEM;
    for (uint32_t id = 0; id < cs->num_coeffs; id++) {
        uint32_t s = hash_fe(cs->coeffs + (size_t)ZKPIPE__FE_LIMBS * id) & (nslots - 1);
        while (slots[s] != 0)
            s = (s + 1) & (nslots - 1);
        slots[s] = id + 1;
    }
    zkpipe__free(&cs->allocator, cs->coeff_slots);
    cs->coeff_slots = slots;
    cs->slots_mask = nslots - 1;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe__cs_intern(zkpipe_cs *cs, const uint64_t *value, uint32_t *out_id)
{
    uint32_t s = hash_fe(value) & cs->slots_mask;
    for (; cs->coeff_slots[s] != 0; s = (s + 1) & cs->slots_mask) {
        uint32_t id = cs->coeff_slots[s] - 1;
        if (memcmp(cs->coeffs + (size_t)ZKPIPE__FE_LIMBS * id, value, ZKPIPE__FE_BYTES) == 0) {
            *out_id = id;
            return ZKPIPE_OK;
        }
    }
    if (cs->num_coeffs == cs->coeffs_cap) {
        if (cs->coeffs_cap >= UINT32_MAX / 4)
            return ZKPIPE_ETOOBIG;
        /* Slots first: if the coefficients cannot grow, the larger slot table still keeps
         * the load factor at most one half. */
        uint32_t ncap = 2 * cs->coeffs_cap;
        zkpipe_status st = rehash(cs, ncap);
        if (st != ZKPIPE_OK)
            return st;
        st = regrow(&cs->allocator, (void **)&cs->coeffs, (size_t)cs->num_coeffs * ZKPIPE__FE_BYTES,
                    (size_t)ncap * ZKPIPE__FE_BYTES);
        if (st != ZKPIPE_OK)
            return st;
        cs->coeffs_cap = ncap;
        s = hash_fe(value) & cs->slots_mask;
        while (cs->coeff_slots[s] != 0)
            s = (s + 1) & cs->slots_mask;
    }
    uint32_t id = cs->num_coeffs++;
    memcpy(cs->coeffs + (size_t)ZKPIPE__FE_LIMBS * id, value, ZKPIPE__FE_BYTES);
    cs->coeff_slots[s] = id + 1;
    *out_id = id;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_cs_create(zkpipe_cs **out, zkpipe_curve curve, zkpipe_cs_mode mode,
                               const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *al = zkpipe__allocator_or_default(allocator);
    const zkpipe__curve_ops *ops = zkpipe__curve_ops_for(curve);
    if (out == NULL || al == NULL || ops == NULL ||
        (mode != ZKPIPE_CS_WITNESS && mode != ZKPIPE_CS_SHAPE))
        return ZKPIPE_EINVAL;
    zkpipe_cs *cs = zkpipe__calloc(al, 1, sizeof *cs, ALIGN);
    if (cs == NULL)
        return ZKPIPE_ENOMEM;
    cs->allocator = *al;
    cs->curve = curve;
    cs->mode = mode;
    cs->ops = ops;
    cs->rows_cap = FIRST_CAP;
    cs->coeffs_cap = FIRST_CAP;
    int ok = 1;
    for (int k = 0; k < 3; k++) {
        cs->m[k].terms_cap = FIRST_CAP;
        cs->m[k].row_start = zkpipe__calloc(al, FIRST_CAP + 1, sizeof(uint64_t), ALIGN);
        cs->m[k].terms = zkpipe__alloc(al, FIRST_CAP * sizeof(zkpipe__term), ALIGN);
        ok &= cs->m[k].row_start != NULL && cs->m[k].terms != NULL;
    }
    cs->coeffs = zkpipe__alloc(al, FIRST_CAP * ZKPIPE__FE_BYTES, ALIGN);
    ok &= cs->coeffs != NULL && rehash(cs, FIRST_CAP) == ZKPIPE_OK;

    uint64_t one[ZKPIPE__FE_LIMBS], zero[ZKPIPE__FE_LIMBS] = {0}, minus_one[ZKPIPE__FE_LIMBS];
    ops->fr_from_u64(one, 1);
    ops->fr_sub(minus_one, zero, one);
    uint32_t id_one = 0, id_minus_one = 0;
    if (!ok || zkpipe__cs_intern(cs, one, &id_one) != ZKPIPE_OK ||
        zkpipe__cs_intern(cs, minus_one, &id_minus_one) != ZKPIPE_OK ||
        zkpipe__cs_alloc_mont(cs, 0, one, NULL) != ZKPIPE_OK) {
        zkpipe_cs_destroy(cs);
        return ZKPIPE_ENOMEM;
    }
    *out = cs;
    return ZKPIPE_OK;
}

void zkpipe_cs_destroy(zkpipe_cs *cs)
{
    if (cs == NULL)
        return;
    const zkpipe_allocator *al = &cs->allocator;
    zkpipe__free(al, cs->input_values);
    zkpipe__free(al, cs->aux_values);
    for (int k = 0; k < 3; k++) {
        zkpipe__free(al, cs->m[k].row_start);
        zkpipe__free(al, cs->m[k].terms);
    }
    zkpipe__free(al, cs->coeffs);
    zkpipe__free(al, cs->coeff_slots);
    zkpipe_allocator copy = cs->allocator;
    zkpipe__free(&copy, cs);
}

zkpipe_status zkpipe__cs_alloc_mont(zkpipe_cs *cs, int aux, const uint64_t *value, zkpipe_var *out)
{
    size_t *count = aux ? &cs->num_aux : &cs->num_inputs;
    if (*count >= MAX_VARS)
        return ZKPIPE_ETOOBIG;
    zkpipe_status st = aux ? reserve_values(cs, &cs->aux_values, &cs->aux_cap, *count)
                           : reserve_values(cs, &cs->input_values, &cs->inputs_cap, *count);
    if (st != ZKPIPE_OK)
        return st;
    if (cs->mode == ZKPIPE_CS_WITNESS) {
        uint64_t *values = aux ? cs->aux_values : cs->input_values;
        memcpy(values + ZKPIPE__FE_LIMBS * *count, value, ZKPIPE__FE_BYTES);
    }
    zkpipe_var var = (zkpipe_var)*count | (aux ? ZKPIPE_VAR_AUX : 0);
    ++*count;
    if (out != NULL)
        *out = var;
    return ZKPIPE_OK;
}

static zkpipe_status alloc_checked(zkpipe_cs *cs, int aux, zkpipe_var *out,
                                   const zkpipe_scalar *value)
{
    if (cs == NULL)
        return ZKPIPE_EINVAL;
    uint64_t mont[ZKPIPE__FE_LIMBS] = {0};
    if (cs->mode == ZKPIPE_CS_WITNESS) {
        if (value == NULL)
            return ZKPIPE_EINVAL;
        if (!cs->ops->fr_from_canonical(mont, value->l))
            return ZKPIPE_ENONCANONICAL;
    }
    return zkpipe__cs_alloc_mont(cs, aux, mont, out);
}

zkpipe_status zkpipe_cs_alloc_input(zkpipe_cs *cs, zkpipe_var *out, const zkpipe_scalar *value)
{
    return alloc_checked(cs, 0, out, value);
}

zkpipe_status zkpipe_cs_alloc_aux(zkpipe_cs *cs, zkpipe_var *out, const zkpipe_scalar *value)
{
    return alloc_checked(cs, 1, out, value);
}

int zkpipe__cs_var_valid(const zkpipe_cs *cs, uint32_t var)
{
    if (var & ZKPIPE_VAR_AUX)
        return (var & ~ZKPIPE_VAR_AUX) < cs->num_aux;
    return var < cs->num_inputs;
}

/* Makes room for one more row with n[k] terms in matrix k. */
static zkpipe_status reserve_row(zkpipe_cs *cs, const size_t n[3])
{
    if (cs->num_constraints >= UINT32_MAX - 1)
        return ZKPIPE_ETOOBIG;
    size_t rows = cs->num_constraints;
    if (rows + 1 > cs->rows_cap) {
        size_t ncap = doubled(cs->rows_cap, rows + 1, sizeof(uint64_t));
        if (ncap == 0)
            return ZKPIPE_ENOMEM;
        for (int k = 0; k < 3; k++) {
            zkpipe_status st = regrow(&cs->allocator, (void **)&cs->m[k].row_start,
                                      (rows + 1) * sizeof(uint64_t), (ncap + 1) * sizeof(uint64_t));
            if (st != ZKPIPE_OK)
                return st; /* the matrices already grown keep their larger blocks */
        }
        cs->rows_cap = ncap;
    }
    for (int k = 0; k < 3; k++) {
        zkpipe__matrix *m = &cs->m[k];
        uint64_t used = m->row_start[rows];
        if (n[k] > SIZE_MAX - used)
            return ZKPIPE_ENOMEM;
        if (used + n[k] <= m->terms_cap)
            continue;
        size_t ncap = doubled(m->terms_cap, used + n[k], sizeof(zkpipe__term));
        if (ncap == 0)
            return ZKPIPE_ENOMEM;
        zkpipe_status st = regrow(&cs->allocator, (void **)&m->terms, used * sizeof(zkpipe__term),
                                  ncap * sizeof(zkpipe__term));
        if (st != ZKPIPE_OK)
            return st;
        m->terms_cap = ncap;
    }
    return ZKPIPE_OK;
}

/* Publishes the row whose terms were written past each matrix's end: n[k] of them. */
static void commit_row(zkpipe_cs *cs, const size_t n[3])
{
    size_t rows = cs->num_constraints;
    for (int k = 0; k < 3; k++)
        cs->m[k].row_start[rows + 1] = cs->m[k].row_start[rows] + n[k];
    cs->num_constraints = rows + 1;
}

zkpipe_status zkpipe__cs_enforce_terms(zkpipe_cs *cs, const zkpipe__term *a, size_t na,
                                       const zkpipe__term *b, size_t nb, const zkpipe__term *c,
                                       size_t nc)
{
    const zkpipe__term *lc[3] = {a, b, c};
    const size_t n[3] = {na, nb, nc};
    for (int k = 0; k < 3; k++) {
        for (size_t t = 0; t < n[k]; t++) {
            if (!zkpipe__cs_var_valid(cs, lc[k][t].var))
                return ZKPIPE_EINVAL;
        }
    }
    zkpipe_status st = reserve_row(cs, n);
    if (st != ZKPIPE_OK)
        return st;
    for (int k = 0; k < 3; k++) {
        if (n[k] > 0)
            memcpy(cs->m[k].terms + cs->m[k].row_start[cs->num_constraints], lc[k],
                   n[k] * sizeof(zkpipe__term));
    }
    commit_row(cs, n);
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_cs_enforce(zkpipe_cs *cs, const zkpipe_term *a, size_t na,
                                const zkpipe_term *b, size_t nb, const zkpipe_term *c, size_t nc)
{
    const zkpipe_term *lc[3] = {a, b, c};
    size_t n[3] = {na, nb, nc};
    if (cs == NULL)
        return ZKPIPE_EINVAL;
    for (int k = 0; k < 3; k++) {
        if (lc[k] == NULL && n[k] > 0)
            return ZKPIPE_EINVAL;
    }
    zkpipe_status st = reserve_row(cs, n);
    if (st != ZKPIPE_OK)
        return st;
    /* Terms go straight past each matrix's end and become visible only at commit_row. */
    size_t kept[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        zkpipe__term *dst = cs->m[k].terms + cs->m[k].row_start[cs->num_constraints];
        for (size_t t = 0; t < n[k]; t++) {
            const zkpipe_term *src = &lc[k][t];
            uint64_t mont[ZKPIPE__FE_LIMBS];
            if (!zkpipe__cs_var_valid(cs, src->var))
                return ZKPIPE_EINVAL;
            if (!cs->ops->fr_from_canonical(mont, src->coeff.l))
                return ZKPIPE_ENONCANONICAL;
            if ((src->coeff.l[0] | src->coeff.l[1] | src->coeff.l[2] | src->coeff.l[3]) == 0)
                continue;
            uint32_t id;
            if ((st = zkpipe__cs_intern(cs, mont, &id)) != ZKPIPE_OK)
                return st;
            dst[kept[k]].var = src->var;
            dst[kept[k]].coeff = id;
            kept[k]++;
        }
    }
    commit_row(cs, kept);
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_scalar_from_i64(zkpipe_scalar *out, zkpipe_curve curve, int64_t v)
{
    const zkpipe__curve_ops *ops = zkpipe__curve_ops_for(curve);
    if (out == NULL || ops == NULL)
        return ZKPIPE_EINVAL;
    /* Magnitude first: -INT64_MIN does not fit in an int64_t but does in a uint64_t. */
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    uint64_t m[ZKPIPE__FE_LIMBS], zero[ZKPIPE__FE_LIMBS] = {0};
    ops->fr_from_u64(m, mag);
    if (v < 0)
        ops->fr_sub(m, zero, m);
    ops->fr_to_canonical(out->l, m);
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_cs_value(const zkpipe_cs *cs, zkpipe_scalar *out, zkpipe_var var)
{
    if (cs == NULL || out == NULL || !zkpipe__cs_var_valid(cs, var))
        return ZKPIPE_EINVAL;
    if (cs->mode != ZKPIPE_CS_WITNESS)
        return ZKPIPE_ESTATE;
    cs->ops->fr_to_canonical(out->l, zkpipe__var_value(cs, var));
    return ZKPIPE_OK;
}

zkpipe_curve zkpipe_cs_curve(const zkpipe_cs *cs)
{
    return cs == NULL ? ZKPIPE_CURVE_COUNT : cs->curve;
}

zkpipe_cs_mode zkpipe_cs_get_mode(const zkpipe_cs *cs)
{
    return cs == NULL ? ZKPIPE_CS_SHAPE : cs->mode;
}

size_t zkpipe_cs_num_inputs(const zkpipe_cs *cs)
{
    return cs == NULL ? 0 : cs->num_inputs;
}

size_t zkpipe_cs_num_aux(const zkpipe_cs *cs)
{
    return cs == NULL ? 0 : cs->num_aux;
}

size_t zkpipe_cs_num_constraints(const zkpipe_cs *cs)
{
    return cs == NULL ? 0 : cs->num_constraints;
}

size_t zkpipe_cs_sizeof(const zkpipe_cs *cs)
{
    if (cs == NULL)
        return 0;
    size_t bytes = sizeof *cs;
    if (cs->mode == ZKPIPE_CS_WITNESS)
        bytes += (cs->inputs_cap + cs->aux_cap) * ZKPIPE__FE_BYTES;
    for (int k = 0; k < 3; k++)
        bytes += (cs->rows_cap + 1) * sizeof(uint64_t) + cs->m[k].terms_cap * sizeof(zkpipe__term);
    bytes += (size_t)cs->coeffs_cap * ZKPIPE__FE_BYTES;
    bytes += ((size_t)cs->slots_mask + 1) * sizeof(uint32_t);
    return bytes;
}

zkpipe_status zkpipe_cs_check(const zkpipe_cs *cs, size_t *first_failing)
{
    if (cs == NULL)
        return ZKPIPE_EINVAL;
    if (cs->mode != ZKPIPE_CS_WITNESS)
        return ZKPIPE_ESTATE;
    /* The rows are evaluated a chunk at a time on the stack, as synthesis evaluates them, and
     * checked with the same comparison the prover makes on synthesized a, b and c. */
    enum { CHUNK = 128 };
    uint64_t abc[3][CHUNK * ZKPIPE__FE_LIMBS];
    zkpipe__lc_rows m = zkpipe__cs_lc_rows(cs);
    for (size_t row = 0; row < cs->num_constraints; row += CHUNK) {
        size_t n = cs->num_constraints - row < CHUNK ? cs->num_constraints - row : CHUNK;
        cs->ops->lc_eval_rows(abc[0], abc[1], abc[2], &m, row, row + n);
        size_t bad = cs->ops->fr_vec_first_mismatch(abc[0], abc[1], abc[2], n);
        if (bad < n) {
            if (first_failing != NULL)
                *first_failing = row + bad;
            return ZKPIPE_EUNSATISFIED;
        }
    }
    return ZKPIPE_OK;
}
