/* Validation of a key read from a file beyond what the formats check (decoding, canonical
 * coordinates, on the curve): the prime-order subgroup, whose batched check is an MSM and so
 * belongs with the prover's arithmetic rather than with the parsers. */
#include "groth16/keys.h"

zkpipe_status zkpipe__g16_key_validate(zkpipe__g16_bad_point *bad, const zkpipe_groth16_pk *pk,
                                       const uint64_t *ic, size_t num_ic, zkpipe_pool *pool,
                                       const zkpipe_allocator *allocator)
{
    const zkpipe__curve_ops *c = pk->c;
    bad->query = ZKPIPE__G16_Q_IC;
    zkpipe_status st = c->check_points(&bad->index, (const uint8_t *)ic, NULL, num_ic, 0, 1, pool);
    if (st != ZKPIPE_OK || pk->subgroup_unchecked)
        return st;
    /* The four G1 queries first, so that their batch takes them as they stand here, then B2,
     * the only G2 one. */
    const uint64_t *pts[5] = {pk->a, pk->b1, pk->l, pk->h, pk->b2};
    const size_t n[5] = {pk->num_a, pk->num_b, pk->num_aux, pk->num_h, pk->num_b};
    int all[2] = {0, 0};
    bad->query = ZKPIPE__G16_Q_NONE;
    bad->index = 0;
    for (int g2 = 0; g2 <= 1; g2++) {
        st = c->subgroup_batch(&all[g2], &pts[4 * g2], &n[4 * g2], g2 ? 1 : 4, g2, pool, allocator);
        if (st != ZKPIPE_OK)
            return st;
    }
    static const zkpipe__g16_query order[5] = {ZKPIPE__G16_Q_A, ZKPIPE__G16_Q_B1, ZKPIPE__G16_Q_B2,
                                               ZKPIPE__G16_Q_L, ZKPIPE__G16_Q_H};
    for (unsigned s = 0; s < 5; s++) {
        int g2 = s == 2;
        unsigned i = g2 ? 4 : s < 2 ? s : s - 1;
        if (all[g2])
            continue;
        bad->query = order[s];
        st = c->check_points(&bad->index, (const uint8_t *)pts[i], NULL, n[i], g2, 1, pool);
        if (st != ZKPIPE_OK)
            return st;
    }
    /* A failing batch holds a point outside, which the recheck names: this cannot happen. */
    bad->query = ZKPIPE__G16_Q_NONE;
    return all[0] && all[1] ? ZKPIPE_OK : ZKPIPE_ENOTINSUBGROUP;
}
