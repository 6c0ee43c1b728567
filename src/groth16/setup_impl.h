/* The setup's group side: the QAP scalars (qap_impl.h) times the generators, with fixed-base
 * window tables and batch normalisation. Part of the per-curve template. */

typedef struct setup_mem {
    FR *L, *tmp, *uvw[3], *scal; /* n, n, 3 x num_vars, max(num_vars, n) */
    uint64_t *density;           /* the two bitmaps */
    G1A *table1;
    G2A *table2;
    G2 *jac; /* Jacobian scratch, also used as G1 (a G2 point is larger) */
    void *fr_block, *group_block;
} setup_mem;

static zkpipe_status setup_mem_alloc(setup_mem *m, size_t n, size_t nv, unsigned threads,
                                     const zkpipe_allocator *a)
{
    size_t most = nv > n ? nv : n;
    size_t frs = add_array(0, 2 * (size_t)n + most, sizeof(FR));
    frs = add_array(frs, 3, add_array(0, nv, sizeof(FR)));
    size_t off_density = frs;
    frs = add_array(frs, 2 * zkpipe__density_words(nv), sizeof(uint64_t));
    size_t jac = (size_t)threads * ZKPIPE__G16_FB_CHUNK;
    jac = jac > ZKPIPE__G16_FB_POINTS ? jac : ZKPIPE__G16_FB_POINTS;
    size_t off_t2 = add_array(0, ZKPIPE__G16_FB_POINTS, sizeof(G1A));
    size_t off_jac = add_array(off_t2, ZKPIPE__G16_FB_POINTS, sizeof(G2A));
    size_t group = add_array(off_jac, jac, sizeof(G2));
    if (frs == SIZE_MAX || group == SIZE_MAX)
        return ZKPIPE_EOVERFLOW;
    m->fr_block = zkpipe__calloc(a, 1, frs, KEY_ALIGN);
    m->group_block = zkpipe__alloc(a, group, KEY_ALIGN);
    if (m->fr_block == NULL || m->group_block == NULL) {
        zkpipe__free(a, m->fr_block);
        zkpipe__free(a, m->group_block);
        m->fr_block = m->group_block = NULL;
        return ZKPIPE_ENOMEM;
    }
    FR *f = (FR *)m->fr_block;
    size_t nv_stride = add_array(0, nv, sizeof(FR)) / sizeof(FR);
    m->L = f;
    m->tmp = f + n;
    m->scal = f + 2 * n;
    for (int k = 0; k < 3; k++)
        m->uvw[k] = f + 2 * n + most + (size_t)k * nv_stride;
    m->density = (uint64_t *)((unsigned char *)m->fr_block + off_density);
    unsigned char *g = (unsigned char *)m->group_block;
    m->table1 = (G1A *)g;
    m->table2 = (G2A *)(g + off_t2);
    m->jac = (G2 *)(g + off_jac);
    return ZKPIPE_OK;
}

/* out = the elements of in[0 .. nv) whose bit is set in `bitmap`, in order. */
static void gather_dense(FR *out, const FR *in, const uint64_t *bitmap, size_t nv)
{
    for (size_t v = 0; v < nv; v++)
        if (zkpipe__density_test(bitmap, v))
            *out++ = in[v];
}

static zkpipe_status setup(zkpipe_groth16_pk **out_pk, zkpipe_groth16_vk **out_vk,
                           const zkpipe_cs *cs, const uint64_t *toxic, zkpipe_pool *pool,
                           const zkpipe_allocator *a)
{
    uint64_t synth_bytes;
    unsigned log_n;
    zkpipe_status st = zkpipe_cs_synth_bytes(cs, &synth_bytes, &log_n);
    if (st != ZKPIPE_OK)
        return st;
    size_t n = (size_t)1 << log_n, ni = cs->num_inputs, na = cs->num_aux, nv = ni + na;
    FR tau, alpha, beta, gamma, delta, gamma_inv, delta_inv;
    memcpy(tau.l, toxic, sizeof tau.l);
    memcpy(alpha.l, toxic + 4, sizeof alpha.l);
    memcpy(beta.l, toxic + 8, sizeof beta.l);
    memcpy(gamma.l, toxic + 12, sizeof gamma.l);
    memcpy(delta.l, toxic + 16, sizeof delta.l);
    FRF(inv)(&gamma_inv, &gamma);
    FRF(inv)(&delta_inv, &delta);

    DOMAIN *d = NULL;
    PK *pk = NULL;
    VK *vk = NULL;
    setup_mem m = {0};
    size_t words = zkpipe__density_words(nv), num_a = 0, num_b = 0;
    st = NTT(domain_create)(&d, log_n, pool, a);
    if (st == ZKPIPE_OK)
        st = setup_mem_alloc(&m, n, nv, zkpipe_pool_threads(pool), a);
    if (st == ZKPIPE_OK) {
        zkpipe__density_fill(m.density, cs);
        num_a = popcount(m.density, words);
        num_b = popcount(m.density + words, words);
        st = pk_alloc(&pk, ni, na, log_n, num_a, num_b, a);
    }
    if (st == ZKPIPE_OK)
        st = vk_alloc(&vk, ni, a);
    if (st != ZKPIPE_OK) {
        NTT(domain_destroy)(d);
        zkpipe__free(a, pk);
        zkpipe__free(a, vk);
        zkpipe__free(a, m.fr_block);
        zkpipe__free(a, m.group_block);
        return st;
    }
    memcpy(pk->density, m.density, 2 * words * sizeof(uint64_t));
    pk_density_derive(pk);

    lagrange_at(m.L, m.tmp, &tau, d);
    NTT(domain_destroy)(d);
    qap_at(m.uvw, cs, m.L);

    G1A gen1, one1[3];
    G2A gen2, one2[3];
    G1F(generator)(&gen1);
    G1FB(table)(m.table1, (G1 *)m.jac, &gen1);
    gather_dense(m.scal, m.uvw[0], pk->density, nv);
    G1FB(mul)(pk->a, m.scal, num_a, m.table1, (G1 *)m.jac, pool);
    gather_dense(m.scal, m.uvw[1], pk->density + words, nv);
    G1FB(mul)(pk->b1, m.scal, num_b, m.table1, (G1 *)m.jac, pool);
    combine_at(m.scal, m.uvw, &alpha, &beta, &delta_inv, ni, nv);
    G1FB(mul)(pk->l, m.scal, na, m.table1, (G1 *)m.jac, pool);
    combine_at(m.scal, m.uvw, &alpha, &beta, &gamma_inv, 0, ni);
    G1FB(mul)(vk->ic, m.scal, ni, m.table1, (G1 *)m.jac, pool);
    h_query_at(m.scal, &tau, &delta_inv, n);
    G1FB(mul)(pk->h, m.scal, n - 1, m.table1, (G1 *)m.jac, pool);
    m.scal[0] = alpha;
    m.scal[1] = beta;
    m.scal[2] = delta;
    G1FB(mul)(one1, m.scal, 3, m.table1, (G1 *)m.jac, pool);
    pk->alpha1 = vk->alpha1 = one1[0];
    pk->beta1 = one1[1];
    pk->delta1 = one1[2];

    G2F(generator)(&gen2);
    G2FB(table)(m.table2, m.jac, &gen2);
    gather_dense(m.scal, m.uvw[1], pk->density + words, nv);
    G2FB(mul)(pk->b2, m.scal, num_b, m.table2, m.jac, pool);
    m.scal[0] = beta;
    m.scal[1] = gamma;
    m.scal[2] = delta;
    G2FB(mul)(one2, m.scal, 3, m.table2, m.jac, pool);
    pk->beta2 = vk->beta2 = one2[0];
    vk->gamma2 = one2[1];
    pk->delta2 = vk->delta2 = one2[2];

    zkpipe__free(a, m.fr_block);
    zkpipe__free(a, m.group_block);
    *out_pk = &pk->base;
    *out_vk = &vk->base;
    return ZKPIPE_OK;
}
