/* Keys in a circom zkey's layout (groth16/keys.h's snarkjs form), what zkpipe_zkey_write
 * writes: the seeded INSECURE setup here, from toxic waste derived from a seed.
 *
 * snarkjs's setup (`groth16 setup` from a prepared powers of tau) gives, with gamma = delta = 1
 * until a contribution divides C and H by delta:
 *   A_i = u_i(tau) G1, B1_i = v_i(tau) G1, B2_i = v_i(tau) G2 for every variable,
 *   C_i = (beta u_i + alpha v_i + w_i)(tau) / delta G1 for the private ones,
 *   IC_i = the same / gamma for the public ones (and the one),
 *   H_i = L'_{2i+1}(tau) / delta G1 for i < n, L' the Lagrange basis of the domain of size 2n:
 *     the prover's h values sit on the odd coset w_2n <w>, where Z(x) = x^n - 1 is -2, and
 *     a b - c (degree < 2n, zero on <w>) is the sum of its values there times those bases.
 * Here gamma is 1 as in snarkjs (its verifying keys always hold the generator) and tau, alpha,
 * beta, delta come from the seed as for zkpipe_groth16_setup_insecure. */
#include <string.h>

#include "core/alloc_internal.h"
#include "core/bytes.h"
#include "groth16/keys.h"
#include "groth16/setup_internal.h"

#define L4 ZKPIPE__FR_LIMBS

/* The contribution name a seeded zkey carries (at most 64 bytes: snarkjs's limit). */
static const char insecure_name[] = "INSECURE seeded setup: toxic waste known, tests only";

/* Entries of section 4: the A and B terms of every row, then the input rows. */
static size_t coeff_count(const zkpipe_cs *cs)
{
    return (size_t)(cs->m[ZKPIPE__MAT_A].row_start[cs->num_constraints] +
                    cs->m[ZKPIPE__MAT_B].row_start[cs->num_constraints]) +
           cs->num_inputs;
}

static uint8_t *put_entry(uint8_t *e, const zkpipe__curve_ops *c, uint32_t m, size_t row,
                          size_t wire, const uint64_t *mont)
{
    /* The value is stored as v R^2 mod r (FORMATS.md): the Montgomery form of the integer
     * whose limbs are v's Montgomery form. */
    uint64_t twice[L4];
    c->fr_from_canonical(twice, mont);
    zkpipe__put_le32(e, m);
    zkpipe__put_le32(e + 4, (uint32_t)row);
    zkpipe__put_le32(e + 8, (uint32_t)wire);
    for (int k = 0; k < L4; k++)
        zkpipe__put_le64(e + 12 + 8 * k, twice[k]);
    return e + ZKPIPE__G16_COEFF_BYTES;
}

/* Section 4 as snarkjs writes it: row by row the A terms then the B terms in the order built,
 * then A's input-consistency entries (row num_constraints + j, wire j, coefficient 1). */
void zkpipe__setup_zkey_coeffs(uint8_t *e, const zkpipe_cs *cs)
{
    const zkpipe__curve_ops *c = cs->ops;
    for (size_t row = 0; row < cs->num_constraints; row++)
        for (uint32_t m = 0; m < 2; m++) {
            size_t count;
            const zkpipe__term *t = zkpipe__cs_row(cs, (int)m, row, &count);
            for (size_t i = 0; i < count; i++)
                e = put_entry(e, c, m, row, zkpipe__var_index(cs, t[i].var),
                              zkpipe__cs_coeff(cs, t[i].coeff));
        }
    uint64_t one[L4];
    c->fr_from_u64(one, 1);
    for (size_t j = 0; j < cs->num_inputs; j++)
        e = put_entry(e, c, 0, cs->num_constraints + j, j, one);
}

zkpipe_status zkpipe__setup_zkey_shape(const zkpipe_cs *cs, unsigned *log_n)
{
    uint64_t bytes;
    zkpipe_status st = zkpipe_cs_synth_bytes(cs, &bytes, log_n);
    if (st != ZKPIPE_OK)
        return st;
    size_t nv = cs->num_inputs + cs->num_aux;
    /* The odd coset needs the domain of size 2n; a zkey's counts are 32-bit. */
    if (*log_n + 1 > cs->ops->two_adicity || *log_n >= 32 || nv > UINT32_MAX ||
        coeff_count(cs) > UINT32_MAX)
        return ZKPIPE_ETOOBIG;
    return ZKPIPE_OK;
}

/* out[i] = L'_{2i+1}(tau) * k for i < n = 2^log_n, L' over the domain of size 2n:
 * (tau^2n - 1) / 2n * x_i / (tau - x_i), x_i = w_2n^(2i+1). scratch: n elements. ZKPIPE_OK,
 * ZKPIPE_EINVAL when tau is in that domain. */
static zkpipe_status odd_lagrange(const zkpipe__curve_ops *c, uint64_t *out, uint64_t *scratch,
                                  const uint64_t *tau, const uint64_t *k, unsigned log_n)
{
    size_t n = (size_t)1 << log_n;
    uint64_t g[L4], w[L4], x[L4], z[L4], t[L4], one[L4];
    zkpipe_status st = c->fr_root_of_unity(g, log_n + 1);
    if (st != ZKPIPE_OK)
        return st;
    c->fr_mul(w, g, g);
    c->fr_from_u64(one, 1);
    memcpy(z, tau, sizeof z);
    for (unsigned i = 0; i <= log_n; i++)
        c->fr_mul(z, z, z);
    c->fr_sub(z, z, one);
    if (memcmp(z, (uint64_t[L4]){0}, sizeof z) == 0)
        return ZKPIPE_EINVAL;
    c->fr_from_u64(t, (uint64_t)2 * n);
    c->fr_inv(t, t);
    c->fr_mul(z, z, t);
    c->fr_mul(z, z, k);
    memcpy(x, g, sizeof x);
    for (size_t i = 0; i < n; i++) {
        c->fr_sub(out + L4 * i, tau, x);
        c->fr_mul(x, x, w);
    }
    c->fr_batch_inv(out, out, n, scratch);
    memcpy(x, g, sizeof x);
    for (size_t i = 0; i < n; i++) {
        c->fr_mul(t, z, x);
        c->fr_mul(out + L4 * i, out + L4 * i, t);
        c->fr_mul(x, x, w);
    }
    return ZKPIPE_OK;
}

/* The points of a seeded zkey-layout key; m: 2 max(n, nv) + 4 nv scalars of scratch (L and
 * then the H scalars, the inversions' scratch, u v w, one batch). */
static zkpipe_status seeded_points(zkpipe_groth16_pk *pk, zkpipe_groth16_vk *vk, uint64_t *m,
                                   const zkpipe_cs *cs, const uint64_t *toxic, zkpipe_pool *pool,
                                   const zkpipe_allocator *a)
{
    const zkpipe__curve_ops *c = cs->ops;
    size_t ni = cs->num_inputs, nv = ni + cs->num_aux, n = (size_t)1 << pk->log_n;
    size_t most = nv > n ? nv : n;
    uint64_t *L = m, *scratch = m + L4 * most, *uvw[3], *scal = m + L4 * (2 * most + 3 * nv);
    for (int k = 0; k < 3; k++)
        uvw[k] = m + L4 * (2 * most + (size_t)k * nv);
    const uint64_t *tau = toxic, *alpha = toxic + 4, *beta = toxic + 8, *delta = toxic + 16;
    uint64_t one[L4], delta_inv[L4];
    c->fr_from_u64(one, 1);
    c->fr_inv(delta_inv, delta);
    zkpipe_status st = zkpipe__setup_lagrange(c, L, scratch, tau, pk->log_n);
    if (st != ZKPIPE_OK)
        return st;
    zkpipe__setup_qap(uvw, cs, L);
    if ((st = c->g1_generator_mul(zkpipe__g16_w(pk->a), uvw[0], nv, pool, a)) != ZKPIPE_OK ||
        (st = c->g1_generator_mul(zkpipe__g16_w(pk->b1), uvw[1], nv, pool, a)) != ZKPIPE_OK ||
        (st = c->g2_generator_mul(zkpipe__g16_w(pk->b2), uvw[1], nv, pool, a)) != ZKPIPE_OK)
        return st;
    zkpipe__setup_combine(c, scal, uvw, alpha, beta, delta_inv, ni, nv);
    if ((st = c->g1_generator_mul(zkpipe__g16_w(pk->l), scal, nv - ni, pool, a)) != ZKPIPE_OK)
        return st;
    zkpipe__setup_combine(c, scal, uvw, alpha, beta, one, 0, ni);
    if ((st = c->g1_generator_mul(vk->ic, scal, ni, pool, a)) != ZKPIPE_OK)
        return st;
    if ((st = odd_lagrange(c, L, scratch, tau, delta_inv, pk->log_n)) != ZKPIPE_OK ||
        (st = c->g1_generator_mul(zkpipe__g16_w(pk->h), L, n, pool, a)) != ZKPIPE_OK)
        return st;
    /* alpha, beta, delta in G1; beta, gamma = 1, delta in G2. */
    uint64_t k1[3 * L4], k2[3 * L4], g1s[3 * ZKPIPE__G1A_WORDS], g2s[3 * ZKPIPE__G2A_WORDS];
    memcpy(k1, alpha, sizeof one);
    memcpy(k1 + L4, beta, sizeof one);
    memcpy(k1 + 2 * L4, delta, sizeof one);
    memcpy(k2, beta, sizeof one);
    memcpy(k2 + L4, one, sizeof one);
    memcpy(k2 + 2 * L4, delta, sizeof one);
    if ((st = c->g1_generator_mul(g1s, k1, 3, pool, a)) != ZKPIPE_OK ||
        (st = c->g2_generator_mul(g2s, k2, 3, pool, a)) != ZKPIPE_OK)
        return st;
    size_t w1 = c->g1a_words, w2 = c->g2a_words;
    memcpy(zkpipe__g16_w(pk->alpha1), g1s, 8 * w1);
    memcpy(zkpipe__g16_w(pk->beta1), g1s + w1, 8 * w1);
    memcpy(zkpipe__g16_w(pk->delta1), g1s + 2 * w1, 8 * w1);
    memcpy(zkpipe__g16_w(pk->beta2), g2s, 8 * w2);
    memcpy(zkpipe__g16_w(pk->delta2), g2s + 2 * w2, 8 * w2);
    memcpy(vk->alpha1, g1s, 8 * w1);
    memcpy(vk->beta2, g2s, 8 * w2);
    memcpy(vk->gamma2, g2s + w2, 8 * w2);
    memcpy(vk->delta2, g2s + 2 * w2, 8 * w2);
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_groth16_setup_zkey_insecure(zkpipe_groth16_pk **out_pk,
                                                 zkpipe_groth16_vk **out_vk, const zkpipe_cs *cs,
                                                 const uint8_t *seed, zkpipe_pool *pool,
                                                 const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out_pk == NULL || out_vk == NULL || cs == NULL || seed == NULL || a == NULL)
        return ZKPIPE_EINVAL;
    unsigned log_n;
    zkpipe_status st = zkpipe__setup_zkey_shape(cs, &log_n);
    if (st != ZKPIPE_OK)
        return st;
    const zkpipe__curve_ops *c = cs->ops;
    size_t ni = cs->num_inputs, nv = ni + cs->num_aux, n = (size_t)1 << log_n;
    size_t most = nv > n ? nv : n;
    uint64_t toxic[5 * L4];
    zkpipe__fr_toxic_from_seed(toxic, c, seed, log_n);
    zkpipe_groth16_pk *pk = NULL;
    zkpipe_groth16_vk *vk = NULL;
    uint64_t *m = NULL;
    st = zkpipe__g16_pk_alloc_zkey(&pk, c, ni, cs->num_aux, log_n, coeff_count(cs), a);
    if (st == ZKPIPE_OK)
        st = zkpipe__g16_vk_alloc(&vk, c, ni, a);
    if (st == ZKPIPE_OK && most > SIZE_MAX / (32 * 6))
        st = ZKPIPE_EOVERFLOW;
    if (st == ZKPIPE_OK && (m = zkpipe__calloc(a, 2 * most + 4 * nv, 32, 64)) == NULL)
        st = ZKPIPE_ENOMEM;
    if (st == ZKPIPE_OK) {
        zkpipe__setup_zkey_coeffs(zkpipe__g16_w_bytes(pk->coeffs), cs);
        pk->contribution = insecure_name;
        st = seeded_points(pk, vk, m, cs, toxic, pool, a);
    }
    memset(toxic, 0, sizeof toxic);
    zkpipe__free(a, m);
    if (st != ZKPIPE_OK) {
        zkpipe_groth16_pk_destroy(pk);
        zkpipe_groth16_vk_destroy(vk);
        return st;
    }
    *out_pk = pk;
    *out_vk = vk;
    return ZKPIPE_OK;
}
