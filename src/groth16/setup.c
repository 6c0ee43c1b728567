/* The INSECURE seeded setup (zkpipe_groth16_setup_insecure): the QAP polynomials of a
 * constraint system evaluated at tau, times the generators.
 *
 * Over the domain <w> of size n, u_i is the polynomial with u_i(w^row) = A[row][i] (and the
 * input-consistency rows: u_{input j}(w^(m + j)) = 1), so u_i(tau) = sum_row A[row][i]
 * L_row(tau) with the Lagrange basis L_j(tau) = Z(tau) / n * w^j / (tau - w^j), Z(x) = x^n - 1;
 * likewise v_i from B and w_i from C. The keys hold, in bellman's layout (groth16/keys.h):
 *   A_i = u_i(tau) G1, B1_i = v_i(tau) G1, B2_i = v_i(tau) G2 for the dense variables,
 *   L_i = (beta u_i + alpha v_i + w_i)(tau) / delta G1 for aux i,
 *   IC_i = the same / gamma for inputs i, H_j = tau^j Z(tau) / delta G1 for j < n - 1. */
#include <string.h>

#include "circuit/synth.h"
#include "core/alloc_internal.h"
#include "groth16/keys.h"
#include "groth16/setup_internal.h"

#define L4 ZKPIPE__FR_LIMBS

/* The setup's scalars: L, scratch (n each), u, v, w (num_vars each), and one array of
 * max(num_vars, n) for each batch of generator multiples. */
typedef struct setup_mem {
    uint64_t *L, *tmp, *uvw[3], *scal;
    uint64_t *density; /* the two bitmaps */
    void *block;
} setup_mem;

static zkpipe_status setup_mem_alloc(setup_mem *m, size_t n, size_t nv, const zkpipe_allocator *a)
{
    size_t most = nv > n ? nv : n, words = zkpipe__density_words(nv);
    size_t elems = 2 * n + most + 3 * nv;
    if (nv > SIZE_MAX / 8 || n > SIZE_MAX / 8 || elems > (SIZE_MAX - 16 * words) / 32)
        return ZKPIPE_EOVERFLOW;
    m->block = zkpipe__calloc(a, 1, 32 * elems + 16 * words, 64);
    if (m->block == NULL)
        return ZKPIPE_ENOMEM;
    uint64_t *f = (uint64_t *)m->block;
    m->L = f;
    m->tmp = f + L4 * n;
    m->scal = f + L4 * 2 * n;
    for (int k = 0; k < 3; k++)
        m->uvw[k] = f + L4 * (2 * n + most + (size_t)k * nv);
    m->density = f + L4 * elems;
    return ZKPIPE_OK;
}

/* L[j] = L_j(tau) for j < n; scratch holds n elements. tau must not be in the domain. */
zkpipe_status zkpipe__setup_lagrange(const zkpipe__curve_ops *c, uint64_t *L, uint64_t *scratch,
                                     const uint64_t *tau, unsigned log_n)
{
    size_t n = (size_t)1 << log_n;
    uint64_t w[L4], wj[L4], z[L4], t[L4], one[L4];
    zkpipe_status st = c->fr_root_of_unity(w, log_n);
    if (st != ZKPIPE_OK)
        return st;
    c->fr_from_u64(one, 1);
    memcpy(wj, one, sizeof wj);
    for (size_t j = 0; j < n; j++) {
        c->fr_sub(L + L4 * j, tau, wj);
        c->fr_mul(wj, wj, w);
    }
    c->fr_batch_inv(L, L, n, scratch);
    /* Z(tau) / n */
    memcpy(z, tau, sizeof z);
    for (unsigned i = 0; i < log_n; i++)
        c->fr_mul(z, z, z);
    c->fr_sub(z, z, one);
    c->fr_from_u64(t, (uint64_t)n);
    c->fr_inv(t, t);
    c->fr_mul(z, z, t);
    memcpy(wj, one, sizeof wj);
    for (size_t j = 0; j < n; j++) {
        c->fr_mul(t, z, wj);
        c->fr_mul(L + L4 * j, L + L4 * j, t);
        c->fr_mul(wj, wj, w);
    }
    return ZKPIPE_OK;
}

/* uvw[k][i] += sum over rows of matrix k's coefficient of variable i times L[row];
 * uvw[k] holds num_inputs + num_aux elements, zeroed by the caller. */
void zkpipe__setup_qap(uint64_t *const *uvw, const zkpipe_cs *cs, const uint64_t *L)
{
    const zkpipe__curve_ops *c = cs->ops;
    for (int k = 0; k < 3; k++) {
        for (size_t row = 0; row < cs->num_constraints; row++) {
            size_t count;
            const zkpipe__term *t = zkpipe__cs_row(cs, k, row, &count);
            for (size_t i = 0; i < count; i++) {
                uint64_t p[L4];
                uint64_t *acc = uvw[k] + L4 * zkpipe__var_index(cs, t[i].var);
                c->fr_mul(p, zkpipe__cs_coeff(cs, t[i].coeff), L + L4 * row);
                c->fr_add(acc, acc, p);
            }
        }
    }
    for (size_t j = 0; j < cs->num_inputs; j++)
        c->fr_add(uvw[0] + L4 * j, uvw[0] + L4 * j, L + L4 * (cs->num_constraints + j));
}

/* out[i - begin] = (beta u_i + alpha v_i + w_i) * inv for i in [begin, end). */
void zkpipe__setup_combine(const zkpipe__curve_ops *c, uint64_t *out, uint64_t *const *uvw,
                           const uint64_t *alpha, const uint64_t *beta, const uint64_t *inv,
                           size_t begin, size_t end)
{
    for (size_t i = begin; i < end; i++) {
        uint64_t x[L4], y[L4];
        c->fr_mul(x, beta, uvw[0] + L4 * i);
        c->fr_mul(y, alpha, uvw[1] + L4 * i);
        c->fr_add(x, x, y);
        c->fr_add(x, x, uvw[2] + L4 * i);
        c->fr_mul(out + L4 * (i - begin), x, inv);
    }
}

/* out[i] = tau^i Z(tau) / delta for i < n - 1: the H query's scalars. */
static void h_query_at(const zkpipe__curve_ops *c, uint64_t *out, const uint64_t *tau,
                       const uint64_t *delta_inv, size_t n)
{
    uint64_t z[L4], one[L4], p[L4], e[1] = {(uint64_t)n};
    c->fr_from_u64(one, 1);
    c->fr_pow(z, tau, e, 1);
    c->fr_sub(z, z, one);
    c->fr_mul(p, z, delta_inv);
    for (size_t i = 0; i + 1 < n; i++) {
        memcpy(out + L4 * i, p, sizeof p);
        c->fr_mul(p, p, tau);
    }
}

/* out = the elements of in[0 .. nv) whose bit is set in `bitmap`, in order. */
static void gather_dense(uint64_t *out, const uint64_t *in, const uint64_t *bitmap, size_t nv)
{
    for (size_t v = 0; v < nv; v++)
        if (zkpipe__density_test(bitmap, v)) {
            memcpy(out, in + L4 * v, 8 * L4);
            out += L4;
        }
}

static size_t popcount(const uint64_t *words, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += (size_t)__builtin_popcountll(words[i]);
    return count;
}

/* The keys' points from the scalars (the setup's group side). */
static zkpipe_status points(zkpipe_groth16_pk *pk, zkpipe_groth16_vk *vk, setup_mem *m,
                            const zkpipe_cs *cs, const uint64_t *toxic, zkpipe_pool *pool,
                            const zkpipe_allocator *a)
{
    const zkpipe__curve_ops *c = cs->ops;
    size_t ni = cs->num_inputs, na = cs->num_aux, nv = ni + na, words = pk->words;
    size_t n = (size_t)1 << pk->log_n;
    const uint64_t *tau = toxic, *alpha = toxic + 4, *beta = toxic + 8, *gamma = toxic + 12,
                   *delta = toxic + 16;
    uint64_t gamma_inv[L4], delta_inv[L4], g1s[3 * ZKPIPE__G1A_WORDS], g2s[3 * ZKPIPE__G2A_WORDS];
    c->fr_inv(gamma_inv, gamma);
    c->fr_inv(delta_inv, delta);
    zkpipe_status st = zkpipe__setup_lagrange(c, m->L, m->tmp, tau, pk->log_n);
    if (st != ZKPIPE_OK)
        return st;
    zkpipe__setup_qap(m->uvw, cs, m->L);

    gather_dense(m->scal, m->uvw[0], pk->density, nv);
    st = c->g1_generator_mul(zkpipe__g16_w(pk->a), m->scal, pk->num_a, pool, a);
    if (st == ZKPIPE_OK) {
        gather_dense(m->scal, m->uvw[1], pk->density + words, nv);
        st = c->g1_generator_mul(zkpipe__g16_w(pk->b1), m->scal, pk->num_b, pool, a);
    }
    if (st == ZKPIPE_OK)
        st = c->g2_generator_mul(zkpipe__g16_w(pk->b2), m->scal, pk->num_b, pool, a);
    if (st == ZKPIPE_OK) {
        zkpipe__setup_combine(c, m->scal, m->uvw, alpha, beta, delta_inv, ni, nv);
        st = c->g1_generator_mul(zkpipe__g16_w(pk->l), m->scal, na, pool, a);
    }
    if (st == ZKPIPE_OK) {
        zkpipe__setup_combine(c, m->scal, m->uvw, alpha, beta, gamma_inv, 0, ni);
        st = c->g1_generator_mul(vk->ic, m->scal, ni, pool, a);
    }
    if (st == ZKPIPE_OK) {
        h_query_at(c, m->scal, tau, delta_inv, n);
        st = c->g1_generator_mul(zkpipe__g16_w(pk->h), m->scal, n - 1, pool, a);
    }
    if (st != ZKPIPE_OK)
        return st;
    /* alpha, beta, delta in G1; beta, gamma, delta in G2. */
    const uint64_t *k1[3] = {alpha, beta, delta}, *k2[3] = {beta, gamma, delta};
    uint64_t ks[6 * L4];
    for (int i = 0; i < 3; i++) {
        memcpy(ks + L4 * i, k1[i], 8 * L4);
        memcpy(ks + L4 * (3 + i), k2[i], 8 * L4);
    }
    if ((st = c->g1_generator_mul(g1s, ks, 3, pool, a)) != ZKPIPE_OK ||
        (st = c->g2_generator_mul(g2s, ks + 3 * L4, 3, pool, a)) != ZKPIPE_OK)
        return st;
    size_t w1 = c->g1a_words, w2 = c->g2a_words;
    memcpy(zkpipe__g16_w(pk->alpha1), g1s, 8 * w1);
    memcpy(vk->alpha1, g1s, 8 * w1);
    memcpy(zkpipe__g16_w(pk->beta1), g1s + w1, 8 * w1);
    memcpy(zkpipe__g16_w(pk->delta1), g1s + 2 * w1, 8 * w1);
    memcpy(zkpipe__g16_w(pk->beta2), g2s, 8 * w2);
    memcpy(vk->beta2, g2s, 8 * w2);
    memcpy(vk->gamma2, g2s + w2, 8 * w2);
    memcpy(zkpipe__g16_w(pk->delta2), g2s + 2 * w2, 8 * w2);
    memcpy(vk->delta2, g2s + 2 * w2, 8 * w2);
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_groth16_setup_insecure(zkpipe_groth16_pk **out_pk, zkpipe_groth16_vk **out_vk,
                                            const zkpipe_cs *cs, const uint8_t *seed,
                                            zkpipe_pool *pool, const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out_pk == NULL || out_vk == NULL || cs == NULL || seed == NULL || a == NULL)
        return ZKPIPE_EINVAL;
    uint64_t synth_bytes;
    unsigned log_n;
    zkpipe_status st = zkpipe_cs_synth_bytes(cs, &synth_bytes, &log_n);
    if (st != ZKPIPE_OK)
        return st;
    const zkpipe__curve_ops *c = cs->ops;
    size_t n = (size_t)1 << log_n, ni = cs->num_inputs, nv = ni + cs->num_aux;
    size_t words = zkpipe__density_words(nv);
    uint64_t toxic[5 * L4];
    zkpipe__fr_toxic_from_seed(toxic, c, seed, log_n);
    setup_mem m = {0};
    zkpipe_groth16_pk *pk = NULL;
    zkpipe_groth16_vk *vk = NULL;
    st = setup_mem_alloc(&m, n, nv, a);
    if (st == ZKPIPE_OK) {
        zkpipe__density_fill(m.density, cs);
        st = zkpipe__g16_pk_alloc(&pk, c, ni, cs->num_aux, log_n, popcount(m.density, words),
                                  popcount(m.density + words, words), a);
    }
    if (st == ZKPIPE_OK)
        st = zkpipe__g16_vk_alloc(&vk, c, ni, a);
    if (st == ZKPIPE_OK) {
        memcpy(zkpipe__g16_w(pk->density), m.density, 2 * words * sizeof(uint64_t));
        zkpipe__g16_pk_derive(pk);
        st = points(pk, vk, &m, cs, toxic, pool, a);
    }
    memset(toxic, 0, sizeof toxic);
    zkpipe__free(a, m.block);
    if (st != ZKPIPE_OK) {
        zkpipe_groth16_pk_destroy(pk);
        zkpipe_groth16_vk_destroy(vk);
        return st;
    }
    *out_pk = pk;
    *out_vk = vk;
    return ZKPIPE_OK;
}
