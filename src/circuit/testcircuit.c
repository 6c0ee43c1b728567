/* The built-in test circuit: a MiMC-like hash chain with range-checked absorbed words. */
#include <string.h>

#include "core/alloc_internal.h"
#include "circuit/cs_internal.h"
#include "zkpipe/testcircuit.h"

#define WORD_BITS 32
#define ROUNDS_PER_WORD 8
#define NUM_KEYS 64 /* round constants repeat with this period, so few coefficients exist */
#define MIN_LOG 4
#define MAX_LOG 28

typedef struct builder {
    zkpipe_cs *cs;
    const zkpipe__curve_ops *ops;
    uint64_t rng;
    uint32_t key_ids[NUM_KEYS];
    uint64_t keys[NUM_KEYS][ZKPIPE__FE_LIMBS];
    uint32_t pow2_ids[WORD_BITS];
    /* The round's linear combination x + k + (absorbed terms): lc[0] = x, lc[1] = k * one,
     * then absorbed bits or messages; `absorbed` is their value. */
    zkpipe__term *lc;
    size_t lc_len;
    uint64_t absorbed[ZKPIPE__FE_LIMBS];
    uint64_t x[ZKPIPE__FE_LIMBS];
    size_t rounds;
} builder;

/* splitmix64: a seeded stream, the same on every platform. */
static uint64_t next_random(builder *bd)
{
    uint64_t z = (bd->rng += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* A random element below 2^252, so canonical in both fields. */
static void random_fe(builder *bd, uint64_t *mont)
{
    uint64_t canonical[ZKPIPE__FE_LIMBS];
    for (int i = 0; i < ZKPIPE__FE_LIMBS; i++)
        canonical[i] = next_random(bd);
    canonical[ZKPIPE__FE_LIMBS - 1] >>= 4;
    bd->ops->fr_from_canonical(mont, canonical);
}

static void absorb(builder *bd, zkpipe_var var, uint32_t coeff, const uint64_t *term_value)
{
    bd->lc[bd->lc_len].var = var;
    bd->lc[bd->lc_len].coeff = coeff;
    bd->lc_len++;
    bd->ops->fr_add(bd->absorbed, bd->absorbed, term_value);
}

/* A fresh bit b with b (1 - b) = 0; when `position` < WORD_BITS it joins the next round's
 * word with weight 2^position. */
static zkpipe_status emit_bit(builder *bd, unsigned position)
{
    uint64_t value[ZKPIPE__FE_LIMBS];
    zkpipe_var b;
    bd->ops->fr_from_u64(value, next_random(bd) >> 63);
    zkpipe_status st = zkpipe__cs_alloc_mont(bd->cs, 1, value, &b);
    if (st != ZKPIPE_OK)
        return st;
    const zkpipe__term a_lc[1] = {{b, ZKPIPE__COEFF_ONE}};
    const zkpipe__term b_lc[2] = {{ZKPIPE_VAR_ONE, ZKPIPE__COEFF_ONE},
                                  {b, ZKPIPE__COEFF_MINUS_ONE}};
    if ((st = zkpipe__cs_enforce_terms(bd->cs, a_lc, 1, b_lc, 2, NULL, 0)) != ZKPIPE_OK)
        return st;
    if (position < WORD_BITS) {
        uint64_t weighted[ZKPIPE__FE_LIMBS], pow2[ZKPIPE__FE_LIMBS];
        bd->ops->fr_from_u64(pow2, (uint64_t)1 << position);
        bd->ops->fr_mul(weighted, value, pow2);
        absorb(bd, b, bd->pow2_ids[position], weighted);
    }
    return ZKPIPE_OK;
}

/* y = (x + k + absorbed)^5 in three constraints: t2 = L L, t4 = t2 t2, y = t4 L. */
static zkpipe_status emit_round(builder *bd, zkpipe_var *x)
{
    const zkpipe__curve_ops *ops = bd->ops;
    size_t key = bd->rounds++ % NUM_KEYS;
    uint64_t l[ZKPIPE__FE_LIMBS], t2[ZKPIPE__FE_LIMBS], t4[ZKPIPE__FE_LIMBS];
    ops->fr_add(l, bd->x, bd->keys[key]);
    ops->fr_add(l, l, bd->absorbed);
    ops->fr_mul(t2, l, l);
    ops->fr_mul(t4, t2, t2);
    ops->fr_mul(bd->x, t4, l);
    bd->lc[0].var = *x;
    bd->lc[1].coeff = bd->key_ids[key];

    zkpipe_var v2, v4, y;
    zkpipe_status st;
    if ((st = zkpipe__cs_alloc_mont(bd->cs, 1, t2, &v2)) != ZKPIPE_OK ||
        (st = zkpipe__cs_alloc_mont(bd->cs, 1, t4, &v4)) != ZKPIPE_OK ||
        (st = zkpipe__cs_alloc_mont(bd->cs, 1, bd->x, &y)) != ZKPIPE_OK)
        return st;
    const zkpipe__term c2[1] = {{v2, ZKPIPE__COEFF_ONE}}, c4[1] = {{v4, ZKPIPE__COEFF_ONE}};
    const zkpipe__term cy[1] = {{y, ZKPIPE__COEFF_ONE}};
    if ((st = zkpipe__cs_enforce_terms(bd->cs, bd->lc, bd->lc_len, bd->lc, bd->lc_len, c2, 1)) !=
            ZKPIPE_OK ||
        (st = zkpipe__cs_enforce_terms(bd->cs, c2, 1, c2, 1, c4, 1)) != ZKPIPE_OK ||
        (st = zkpipe__cs_enforce_terms(bd->cs, c4, 1, bd->lc, bd->lc_len, cy, 1)) != ZKPIPE_OK)
        return st;
    *x = y;
    bd->lc_len = 2;
    memset(bd->absorbed, 0, sizeof bd->absorbed);
    return ZKPIPE_OK;
}

/* Interns the round constants and the powers of two the words are packed with. */
static zkpipe_status intern_constants(builder *bd)
{
    zkpipe_status st = ZKPIPE_OK;
    for (int i = 0; i < NUM_KEYS && st == ZKPIPE_OK; i++) {
        random_fe(bd, bd->keys[i]);
        st = zkpipe__cs_intern(bd->cs, bd->keys[i], &bd->key_ids[i]);
    }
    for (int i = 0; i < WORD_BITS && st == ZKPIPE_OK; i++) {
        uint64_t pow2[ZKPIPE__FE_LIMBS];
        bd->ops->fr_from_u64(pow2, (uint64_t)1 << i);
        st = zkpipe__cs_intern(bd->cs, pow2, &bd->pow2_ids[i]);
    }
    return st;
}

static zkpipe_status build(builder *bd, size_t num_constraints, size_t num_public)
{
    zkpipe_status st = intern_constants(bd);
    if (st != ZKPIPE_OK)
        return st;
    bd->lc[0].coeff = ZKPIPE__COEFF_ONE;
    bd->lc[1].var = ZKPIPE_VAR_ONE;
    bd->lc_len = 2;
    for (size_t j = 1; j < num_public; j++) {
        uint64_t value[ZKPIPE__FE_LIMBS];
        zkpipe_var message;
        random_fe(bd, value);
        if ((st = zkpipe__cs_alloc_mont(bd->cs, 0, value, &message)) != ZKPIPE_OK)
            return st;
        absorb(bd, message, ZKPIPE__COEFF_ONE, value);
    }
    zkpipe_var x;
    random_fe(bd, bd->x);
    if ((st = zkpipe__cs_alloc_mont(bd->cs, 1, bd->x, &x)) != ZKPIPE_OK)
        return st;

    /* Blocks of one word's bits then its rounds, always leaving room for a round after
     * bits; one or two constraints left over become bits no round absorbs. */
    size_t left = num_constraints - (num_public > 0);
    while (left >= 3) {
        for (unsigned bit = 0; bit < WORD_BITS && left > 3; bit++, left--) {
            if ((st = emit_bit(bd, bit)) != ZKPIPE_OK)
                return st;
        }
        for (int r = 0; r < ROUNDS_PER_WORD && left >= 3; r++, left -= 3) {
            if ((st = emit_round(bd, &x)) != ZKPIPE_OK)
                return st;
        }
    }
    for (; left > 0; left--) {
        if ((st = emit_bit(bd, WORD_BITS)) != ZKPIPE_OK)
            return st;
    }
    if (num_public > 0) {
        zkpipe_var out;
        if ((st = zkpipe__cs_alloc_mont(bd->cs, 0, bd->x, &out)) != ZKPIPE_OK)
            return st;
        const zkpipe__term a_lc[1] = {{x, ZKPIPE__COEFF_ONE}};
        const zkpipe__term b_lc[1] = {{ZKPIPE_VAR_ONE, ZKPIPE__COEFF_ONE}};
        const zkpipe__term c_lc[1] = {{out, ZKPIPE__COEFF_ONE}};
        st = zkpipe__cs_enforce_terms(bd->cs, a_lc, 1, b_lc, 1, c_lc, 1);
    }
    return st;
}

zkpipe_status zkpipe_testcircuit_build(zkpipe_cs *cs, unsigned log_rows, uint64_t seed,
                                       size_t num_public)
{
    if (cs == NULL || log_rows < MIN_LOG || log_rows > MAX_LOG ||
        num_public > ((size_t)1 << (log_rows - 2)))
        return ZKPIPE_EINVAL;
    if (cs->num_inputs != 1 || cs->num_aux != 0 || cs->num_constraints != 0)
        return ZKPIPE_ESTATE;
    builder bd;
    memset(&bd, 0, sizeof bd);
    bd.cs = cs;
    bd.ops = cs->ops;
    bd.rng = seed;
    bd.lc = zkpipe__alloc(&cs->allocator, (2 + WORD_BITS + num_public) * sizeof(zkpipe__term),
                          sizeof(zkpipe__term));
    if (bd.lc == NULL)
        return ZKPIPE_ENOMEM;
    zkpipe_status st = build(&bd, ((size_t)1 << log_rows) - 1 - num_public, num_public);
    zkpipe__free(&cs->allocator, bd.lc);
    return st;
}
