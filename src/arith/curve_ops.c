/* The tables' lookups, and what is written once on top of them: random scalars and the
 * setup's seeded toxic waste. */
#include <string.h>

#include "arith/curve_ops.h"
#include "core/bytes.h"
#include "core/random.h"

extern const zkpipe__curve_ops zkpipe__curve_ops_bls12_381;
extern const zkpipe__curve_ops zkpipe__curve_ops_bn254;

static const zkpipe__curve_ops *const tables[ZKPIPE_CURVE_COUNT] = {
    [ZKPIPE_CURVE_BLS12_381] = &zkpipe__curve_ops_bls12_381,
    [ZKPIPE_CURVE_BN254] = &zkpipe__curve_ops_bn254,
};

const zkpipe__curve_ops *zkpipe__curve_ops_for(zkpipe_curve curve)
{
    return (unsigned)curve < ZKPIPE_CURVE_COUNT ? tables[curve] : NULL;
}

const zkpipe__curve_ops *zkpipe__curve_ops_by_prime(const uint8_t *prime, size_t n8, int fr)
{
    for (size_t c = 0; c < ZKPIPE_CURVE_COUNT; c++) {
        size_t nlimbs = fr ? ZKPIPE__FR_LIMBS : tables[c]->fq_limbs;
        uint64_t p[6];
        if (n8 != 8 * nlimbs)
            continue;
        zkpipe__get_limbs(p, prime, nlimbs);
        if (memcmp(p, fr ? tables[c]->r : tables[c]->q, nlimbs * sizeof(uint64_t)) == 0)
            return tables[c];
    }
    return NULL;
}

int zkpipe__limbs_below(const uint64_t *a, const uint64_t *b, size_t nlimbs)
{
    for (size_t i = nlimbs; i-- > 0;)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

/* Sets `out` (Montgomery) from 4 candidate limbs when, with the top limb masked to r's bit
 * length, they make a non-zero integer below r; returns 1 then, else 0. */
static int accept(uint64_t *out, uint64_t *limbs, const zkpipe__curve_ops *c)
{
    limbs[3] &= ~(uint64_t)0 >> __builtin_clzll(c->r[3]);
    if ((limbs[0] | limbs[1] | limbs[2] | limbs[3]) == 0)
        return 0;
    return c->fr_from_canonical(out, limbs);
}

zkpipe_status zkpipe__fr_random(uint64_t *out, const zkpipe__curve_ops *c)
{
    for (;;) {
        uint64_t limbs[4];
        zkpipe_status st = zkpipe__os_random((uint8_t *)limbs, sizeof limbs);
        if (st != ZKPIPE_OK)
            return st;
        if (accept(out, limbs, c))
            return ZKPIPE_OK;
    }
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* 1 when tau^n = 1 for n = 2^log_n, i.e. tau lies in the domain (its Lagrange basis is
 * undefined there). */
static int in_domain(const uint64_t *tau, const zkpipe__curve_ops *c, unsigned log_n)
{
    uint64_t x[4], one[4];
    memcpy(x, tau, sizeof x);
    for (unsigned i = 0; i < log_n; i++)
        c->fr_mul(x, x, x);
    c->fr_from_u64(one, 1);
    return memcmp(x, one, sizeof x) == 0;
}

void zkpipe__fr_toxic_from_seed(uint64_t *toxic, const zkpipe__curve_ops *c, const uint8_t *seed,
                                unsigned log_n)
{
    uint64_t state[4];
    for (int k = 0; k < 4; k++)
        state[k] = zkpipe__get_le64(seed + 8 * k);
    for (int i = 0; i < 5;) {
        uint64_t limbs[4];
        for (int k = 0; k < 4; k++)
            limbs[k] = splitmix64(&state[k]);
        if (accept(toxic + 4 * i, limbs, c) && (i > 0 || !in_domain(toxic, c, log_n)))
            i++;
    }
}
