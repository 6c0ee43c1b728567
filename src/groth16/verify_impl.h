/* The verifier: a prepared verifying key and the pairing check
 *   e(A, B) = e(alpha, beta) e(IC, gamma) e(C, delta),  IC = IC_0 + sum x_i IC_i,
 * computed as one multi-Miller loop of (A, B), (IC, -gamma), (C, -delta), one final
 * exponentiation, and a comparison with e(alpha, beta) computed once. -gamma and -delta are
 * prepared once (every line of their Miller loops stored in the key); B changes with each proof
 * and is prepared per call, which costs less than a second accumulator. Part of the per-curve
 * template. */

typedef struct PVK {
    zkpipe_groth16_pvk base;
    FQ12 alpha_beta;
    G2P neg_gamma, neg_delta; /* prepared lines */
    G1A *ic;                  /* num_inputs */
} PVK;

static zkpipe_status pvk_create(zkpipe_groth16_pvk **out, const zkpipe_groth16_vk *vbase,
                                const zkpipe_allocator *a)
{
    const VK *vk = (const VK *)vbase;
    size_t off_ic = align_up(sizeof(PVK));
    size_t total = add_array(off_ic, vbase->num_inputs, sizeof(G1A));
    unsigned char *block;
    zkpipe_status st = key_block(&block, total, sizeof(PVK), a);
    if (st != ZKPIPE_OK)
        return st;
    PVK *pvk = (PVK *)block;
    pvk->base.allocator = *a;
    pvk->base.ops = &OPS;
    pvk->base.num_inputs = vbase->num_inputs;
    PAIRING(pairing)(&pvk->alpha_beta, &vk->alpha1, &vk->beta2);
    G2A neg;
    G2F(affine_neg)(&neg, &vk->gamma2);
    PAIRING(g2_prepare)(&pvk->neg_gamma, &neg);
    G2F(affine_neg)(&neg, &vk->delta2);
    PAIRING(g2_prepare)(&pvk->neg_delta, &neg);
    pvk->ic = (G1A *)(block + off_ic);
    memcpy(pvk->ic, vk->ic, vbase->num_inputs * sizeof(G1A));
    *out = &pvk->base;
    return ZKPIPE_OK;
}

/* Decodes and validates the three points of a proof. */
static zkpipe_status proof_read(G1A *A, G2A *B, G1A *C, const uint8_t *proof)
{
    zkpipe_status st = proof_g1_read(A, proof);
    if (st == ZKPIPE_OK)
        st = proof_g2_read(B, proof + PROOF_G1_BYTES);
    if (st == ZKPIPE_OK)
        st = proof_g1_read(C, proof + PROOF_G1_BYTES + PROOF_G2_BYTES);
    return st;
}

static zkpipe_status proof_check(const uint8_t *proof)
{
    G1A A, C;
    G2A B;
    return proof_read(&A, &B, &C, proof);
}

static zkpipe_status verify(const zkpipe_groth16_pvk *base, const zkpipe_scalar *inputs,
                            const uint8_t *proof)
{
    const PVK *pvk = (const PVK *)base;
    G1A p[3]; /* A, IC, C */
    G2A b;
    zkpipe_status st = proof_read(&p[0], &b, &p[2], proof);
    if (st != ZKPIPE_OK)
        return st;
    G1 ic, t;
    G1F(from_affine)(&ic, &pvk->ic[0]);
    for (size_t i = 1; i < base->num_inputs; i++) {
        FR x;
        if (!FRF(from_canonical)(&x, inputs[i - 1].l))
            return ZKPIPE_ENONCANONICAL;
        G1F(from_affine)(&t, &pvk->ic[i]);
        G1F(mul)(&t, &t, &x);
        G1F(add)(&ic, &ic, &t);
    }
    G1F(to_affine)(&p[1], &ic);
    G2P b_prepared;
    PAIRING(g2_prepare)(&b_prepared, &b);
    const G2P *q[3] = {&b_prepared, &pvk->neg_gamma, &pvk->neg_delta};
    FQ12 f;
    PAIRING(multi_miller_loop_prepared)(&f, p, q, 3);
    PAIRING(final_exp)(&f, &f);
    return FQ12F(eq)(&f, &pvk->alpha_beta) ? ZKPIPE_OK : ZKPIPE_EVERIFY;
}
