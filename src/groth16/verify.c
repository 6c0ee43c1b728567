/* The verifier: the pairing check
 *   e(A, B) = e(alpha, beta) e(IC, gamma) e(C, delta),  IC = IC_0 + sum x_i IC_i,
 * computed as one multi-Miller loop of (A, B), (IC, -gamma), (C, -delta), (-alpha, beta) and
 * one final exponentiation, compared with one; the prepared key holds the lines of beta,
 * -gamma and -delta. Keeping e(alpha, beta) in the key instead would save the fourth pair's
 * lines in each verification but cost the key a whole pairing (a Miller loop and a final
 * exponentiation), more than a verification: a prover's self-check and zkpipe-verify prepare a
 * key for one proof. B changes with each proof and is prepared per call, which costs less than
 * a second accumulator. Also the proof encoding's size and decoder. */
#include <string.h>

#include "groth16/keys.h"
#include "groth16/prove.h"

/* Decodes and validates the three points of a proof. */
static zkpipe_status proof_read(const zkpipe__curve_ops *c, uint64_t *a, uint64_t *b, uint64_t *cc,
                                const uint8_t *proof)
{
    zkpipe_status st = c->proof_point_read(a, proof, 0);
    if (st == ZKPIPE_OK)
        st = c->proof_point_read(b, proof + c->proof_g1_bytes, 1);
    if (st == ZKPIPE_OK)
        st = c->proof_point_read(cc, proof + c->proof_g1_bytes + c->proof_g2_bytes, 0);
    return st;
}

zkpipe_status zkpipe__g16_verify_points(const zkpipe_groth16_pvk *pvk, const uint64_t *inputs,
                                        const uint64_t *a, const uint64_t *b, const uint64_t *cc)
{
    const zkpipe__curve_ops *c = pvk->c;
    uint64_t ic_affine[ZKPIPE__G1A_WORDS];
    /* IC_i are checked to be in the subgroup when the key is read, as multi_mul needs. */
    zkpipe__g1 ic;
    for (size_t i = 1; i < pvk->num_inputs; i++) {
        uint64_t x[ZKPIPE__FR_LIMBS];
        if (!c->fr_from_canonical(x, inputs + 4 * (i - 1)))
            return ZKPIPE_ENONCANONICAL;
    }
    c->g1_multi_mul(&ic, pvk->ic + c->g1a_words, inputs, pvk->num_inputs - 1);
    c->g1_add_affine(&ic, &ic, pvk->ic);
    c->g1_to_affine(ic_affine, &ic);
    /* A prepared point is a plain value of every Miller-loop line: on the stack, 8-aligned. */
    uint64_t b_prepared[ZKPIPE__G2_PREPARED_MAX / 8];
    c->g2_prepare(b_prepared, b);
    const uint64_t *p[4] = {a, ic_affine, cc, pvk->neg_alpha};
    const void *q[4] = {b_prepared, pvk->neg_gamma, pvk->neg_delta, pvk->beta};
    return c->pairing_product_is_one(p, q, 4) ? ZKPIPE_OK : ZKPIPE_EVERIFY;
}

zkpipe_status zkpipe__g16_verify(const zkpipe_groth16_pvk *pvk, const uint64_t *inputs,
                                 const zkpipe_groth16_proof *proof)
{
    uint64_t a[ZKPIPE__G1A_WORDS], b[ZKPIPE__G2A_WORDS], cc[ZKPIPE__G1A_WORDS];
    zkpipe_status st = proof_read(pvk->c, a, b, cc, proof->bytes);
    return st != ZKPIPE_OK ? st : zkpipe__g16_verify_points(pvk, inputs, a, b, cc);
}

zkpipe_status zkpipe_groth16_verify(const zkpipe_groth16_pvk *pvk, const zkpipe_scalar *inputs,
                                    size_t n, const zkpipe_groth16_proof *proof)
{
    if (pvk == NULL || proof == NULL || (inputs == NULL && n > 0) || n + 1 != pvk->num_inputs)
        return ZKPIPE_EINVAL;
    if (proof->curve != pvk->c->curve)
        return ZKPIPE_EMISMATCH;
    if (proof->size != zkpipe__g16_proof_bytes(pvk->c))
        return ZKPIPE_EFORMAT;
    return zkpipe__g16_verify(pvk, n > 0 ? inputs[0].l : NULL, proof);
}

size_t zkpipe__g16_proof_bytes(const zkpipe__curve_ops *c)
{
    return 2 * c->proof_g1_bytes + c->proof_g2_bytes;
}

size_t zkpipe_groth16_proof_size(zkpipe_curve curve)
{
    const zkpipe__curve_ops *c = zkpipe__curve_ops_for(curve);
    return c != NULL ? zkpipe__g16_proof_bytes(c) : 0;
}

zkpipe_status zkpipe_groth16_proof_decode(zkpipe_groth16_proof *out, zkpipe_curve curve,
                                          const uint8_t *in, size_t len)
{
    const zkpipe__curve_ops *c = zkpipe__curve_ops_for(curve);
    if (out == NULL || in == NULL || c == NULL)
        return ZKPIPE_EINVAL;
    if (len != zkpipe__g16_proof_bytes(c))
        return ZKPIPE_EFORMAT;
    uint64_t a[ZKPIPE__G1A_WORDS], b[ZKPIPE__G2A_WORDS], cc[ZKPIPE__G1A_WORDS];
    zkpipe_status st = proof_read(c, a, b, cc, in);
    if (st != ZKPIPE_OK)
        return st;
    out->curve = curve;
    out->size = len;
    memset(out->bytes, 0, sizeof out->bytes);
    memcpy(out->bytes, in, len);
    return ZKPIPE_OK;
}
