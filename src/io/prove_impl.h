/* The prover on a zkey and a witness, computing what snarkjs's `groth16 prove` computes (part
 * of curve_impl.h's template):
 *   a_i, b_i = Σ coefficient · w_wire over the zkey's A and B entries of row i; c_i = a_i b_i;
 *   each of a, b, c: iNTT over the domain of n, coefficient j times ω_2n^j, NTT: the values on
 *   the odd coset ω_2n ω_n^k; h_k = a_k b_k − c_k there, used as the H query's scalars as they
 *   are (the zkey's H points already hold the division by Z, in the coset's Lagrange basis);
 *   A = α1 + Σ w_i A_i + r δ1,  B = β2 + Σ w_i B2_i + s δ2,  B1 = β1 + Σ w_i B1_i + s δ1,
 *   C = Σ_{i > nPublic} w_i C_i + Σ h_k H_k + s A + r B1 − r s δ1.
 * The witness is canonical, the MSMs take it as plain integers. */

/* a and b from the coefficient entries (u32 matrix, u32 row, u32 wire, value). A value is
 * stored as v R^2 mod r, so its Montgomery product with the canonical w is v w R: the
 * Montgomery form of v w, with no conversion of either. */
static void abc_build(FR *a, FR *b, FR *c, size_t n, const zkpipe__io_zkey_view *z,
                      const uint64_t *witness)
{
    memset(a, 0, n * sizeof(FR));
    memset(b, 0, n * sizeof(FR));
    const uint8_t *e = z->coeffs;
    for (size_t i = 0; i < z->num_coeffs; i++, e += 44) {
        FR v, w;
        zkpipe__io_limbs_le(v.l, e + 12, 4);
        memcpy(w.l, witness + 4 * (size_t)zkpipe__io_u32(e + 8), sizeof w.l);
        FRF(mul)(&v, &v, &w);
        FR *row = (zkpipe__io_u32(e) == 0 ? a : b) + zkpipe__io_u32(e + 4);
        FRF(add)(row, row, &v);
    }
    for (size_t i = 0; i < n; i++)
        FRF(mul)(&c[i], &a[i], &b[i]);
}

/* h_k = a_k b_k - c_k, into a as canonical integers (the H MSM's scalars), once a, b and c
 * hold their values on the odd coset. */
static void h_combine(FR *a, const FR *b, const FR *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        FRF(mul)(&a[i], &a[i], &b[i]);
        FRF(sub)(&a[i], &a[i], &c[i]);
        FRF(to_canonical)(a[i].l, &a[i]);
    }
}

/* h (into a) from a, b, c on the domain, as the header comment says. */
static zkpipe_status h_build(FR *a, FR *b, FR *c, const zkpipe__io_zkey_view *z, zkpipe_pool *pool,
                             zkpipe_ledger *ledger, const zkpipe_allocator *al)
{
    DOMAIN *d;
    FR shift;
    (void)ledger;
    zkpipe_status st = NTT(root_of_unity)(&shift, (unsigned)z->log_n + 1);
    if (st == ZKPIPE_OK)
        st = NTT(domain_create)(&d, (unsigned)z->log_n, pool, al);
    if (st != ZKPIPE_OK)
        return st;
    FR *v[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        NTT(intt)(v[k], d, pool);
        NTT(coset_ntt)(v[k], d, &shift, pool);
    }
    h_combine(a, b, c, NTT(domain_size)(d));
    NTT(domain_destroy)(d);
    return ZKPIPE_OK;
}

static void g1_at(G1 *out, const uint64_t *p)
{
    G1A a;
    memcpy(&a, p, sizeof a);
    G1F(from_affine)(out, &a);
}

/* out += p + k q for affine p, q. */
static void g1_add_blind(G1 *out, const uint64_t *p, const uint64_t *q, const FR *k)
{
    G1 t;
    G1A pa;
    memcpy(&pa, p, sizeof pa);
    G1F(add_affine)(out, out, &pa);
    g1_at(&t, q);
    G1F(mul)(&t, &t, k);
    G1F(add)(out, out, &t);
}

/* The MSM sums: A = Σ w_i A_i, B1, B (G2), C = Σ w_i C_i (private i) and H = Σ h_k H_k. */
typedef struct sums {
    G1 A, B1, C, H;
    G2 B;
} sums;

/* The sums on the CPU, one MSM after another, each on the whole pool: the G2 one alone costs
 * about as much as the four G1 ones together, and on a thread of its own it left a core idle
 * once those were done (measured at 2^16 on 2 threads, see the commit). */
static zkpipe_status sums_cpu(sums *o, zkpipe_zkey_timings *t, const zkpipe__io_zkey_view *z,
                              const uint64_t *w, const FR *h, zkpipe_pool *pool,
                              zkpipe_ledger *ledger, const zkpipe_allocator *al,
                              const zkpipe_allocator *plain)
{
    size_t n = (size_t)1 << z->log_n, first_private = z->num_public + 1;
    (void)ledger;
    (void)plain;
    double t0 = zkpipe__g16_now();
    zkpipe_status st = MSM1(&o->A, (const G1A *)z->a, w, NULL, z->num_vars, NULL, pool, al);
    double t1 = zkpipe__g16_now();
    if (st == ZKPIPE_OK)
        st = MSM1(&o->B1, (const G1A *)z->b1, w, NULL, z->num_vars, NULL, pool, al);
    double t2 = zkpipe__g16_now();
    if (st == ZKPIPE_OK)
        st = MSM1(&o->C, (const G1A *)z->c, w + 4 * first_private, NULL,
                  z->num_vars - first_private, NULL, pool, al);
    if (st == ZKPIPE_OK)
        st = MSM1(&o->H, (const G1A *)z->h, (const uint64_t *)h, NULL, n, NULL, pool, al);
    double t3 = zkpipe__g16_now();
    if (st == ZKPIPE_OK)
        st = MSM2(&o->B, (const G2A *)z->b2, w, NULL, z->num_vars, NULL, pool, al);
    t->msm_a = t1 - t0;
    t->msm_b1 = t2 - t1;
    t->msm_c = t3 - t2;
    t->msm_b2 = zkpipe__g16_now() - t3;
    return st;
}

/* Where h and the sums are computed: the CPU here, CUDA in gpu_prove_impl.h. `al` charges
 * the ledger (kind WORKSPACE) when there is one, so only the calling thread may use it;
 * `plain` is the zkey's own allocator, for other threads. */
typedef struct zkey_backend {
    zkpipe_status (*h)(FR *a, FR *b, FR *c, const zkpipe__io_zkey_view *z, zkpipe_pool *pool,
                       zkpipe_ledger *ledger, const zkpipe_allocator *al);
    zkpipe_status (*sums)(sums *o, zkpipe_zkey_timings *t, const zkpipe__io_zkey_view *z,
                          const uint64_t *w, const FR *h, zkpipe_pool *pool, zkpipe_ledger *ledger,
                          const zkpipe_allocator *al, const zkpipe_allocator *plain);
    const char *name;
    int device; /* 1: a device computes, so a wrong proof may be a device fault */
} zkey_backend;

static const zkey_backend cpu_backend = {h_build, sums_cpu, "cpu", 0};

/* The blinding on the sums: the proof's three points. */
static zkpipe_status blind(uint64_t *pa, uint64_t *pb, uint64_t *pc, sums *o,
                           const zkpipe__io_zkey_view *z, const FR *r, const FR *s)
{
    G1 tmp;
    G2 t2g, *B = &o->B;
    G1 *A = &o->A, *B1 = &o->B1, *C = &o->C;
    G2A p2;
    FR rs;
    g1_add_blind(A, z->alpha1, z->delta1, r);
    g1_add_blind(B1, z->beta1, z->delta1, s);
    memcpy(&p2, z->beta2, sizeof p2);
    G2F(add_affine)(B, B, &p2);
    memcpy(&p2, z->delta2, sizeof p2);
    G2F(from_affine)(&t2g, &p2);
    G2F(mul)(&t2g, &t2g, s);
    G2F(add)(B, B, &t2g);
    G1F(add)(C, C, &o->H);
    G1F(mul)(&tmp, A, s);
    G1F(add)(C, C, &tmp);
    G1F(mul)(&tmp, B1, r);
    G1F(add)(C, C, &tmp);
    FRF(mul)(&rs, r, s);
    g1_at(&tmp, z->delta1);
    G1F(mul)(&tmp, &tmp, &rs);
    G1F(neg)(&tmp, &tmp);
    G1F(add)(C, C, &tmp);
    G1A a1, c1;
    G2A b2;
    G1F(to_affine)(&a1, A);
    G2F(to_affine)(&b2, B);
    G1F(to_affine)(&c1, C);
    /* Only a query point outside the subgroup (a zkey opened with ZKPIPE_IO_DEFER_SUBGROUP)
     * can put a proof point there. */
    if (!G1F(is_in_subgroup)(&a1) || !G2F(is_in_subgroup)(&b2) || !G1F(is_in_subgroup)(&c1))
        return ZKPIPE_ENOTINSUBGROUP;
    memcpy(pa, &a1, sizeof a1);
    memcpy(pb, &b2, sizeof b2);
    memcpy(pc, &c1, sizeof c1);
    return ZKPIPE_OK;
}

/* The ledger's ABC and H charges, undone in one place whatever happened. */
typedef struct charges {
    zkpipe_ledger *ledger;
    size_t bytes;
    int abc, h;
} charges;

static zkpipe_status charge(charges *c, int *count, uint32_t kind)
{
    if (c->ledger == NULL)
        return ZKPIPE_OK;
    zkpipe_status st = zkpipe_ledger_charge(c->ledger, kind, c->bytes);
    if (st == ZKPIPE_OK)
        (*count)++;
    return st;
}

static void release(charges *c, int *count, uint32_t kind)
{
    for (; *count > 0; (*count)--)
        zkpipe_ledger_release(c->ledger, kind, c->bytes);
}

static zkpipe_status prove_on(const zkey_backend *be, uint8_t *proof, zkpipe_zkey_timings *t,
                              char *detail, size_t cap, const zkpipe__io_zkey_view *z,
                              const uint64_t *w, const uint64_t *r_c, const uint64_t *s_c,
                              zkpipe_pool *pool, zkpipe_ledger *ledger, const zkpipe_allocator *al)
{
    size_t n = (size_t)1 << z->log_n;
    charges ch = {ledger, n * sizeof(FR), 0, 0};
    FR *v[3] = {NULL, NULL, NULL};
    FR r, s;
    uint64_t pa[G1_WORDS], pb[G2_WORDS], pc[G1_WORDS];
    sums sum;
    zkpipe__charged charged = {*al, ledger, ZKPIPE_KIND_WORKSPACE};
    zkpipe_allocator work = zkpipe__charged_allocator(&charged);
    double t0 = zkpipe__g16_now();
    zkpipe_status st = ZKPIPE_OK;
    if (!FRF(from_canonical)(&r, r_c) || !FRF(from_canonical)(&s, s_c))
        return zkpipe__io_fail(detail, cap, ZKPIPE_EINVAL, "r or s is not below the field order");
    if (ledger != NULL && (st = zkpipe_ledger_move(ledger, ZKPIPE_STAGE_PROVING)) != ZKPIPE_OK)
        return zkpipe__io_fail(detail, cap, st, "accounting: cannot move the ledger");
    for (int k = 0; k < 3 && st == ZKPIPE_OK; k++) {
        v[k] = (FR *)zkpipe__alloc(al, ch.bytes, 64);
        st = v[k] == NULL ? ZKPIPE_ENOMEM : charge(&ch, &ch.abc, ZKPIPE_KIND_ABC);
    }
    if (st == ZKPIPE_OK) {
        abc_build(v[0], v[1], v[2], n, z, w);
        t->abc = zkpipe__g16_now() - t0;
        st = be->h(v[0], v[1], v[2], z, pool, ledger, &work);
    }
    if (st == ZKPIPE_OK) {
        /* h now lives in a's buffer; b and c are done with. */
        zkpipe__free(al, v[1]);
        zkpipe__free(al, v[2]);
        v[1] = v[2] = NULL;
        release(&ch, &ch.abc, ZKPIPE_KIND_ABC);
        st = charge(&ch, &ch.h, ZKPIPE_KIND_H);
        t->h = zkpipe__g16_now() - t0 - t->abc;
    }
    if (st == ZKPIPE_OK)
        st = be->sums(&sum, t, z, w, v[0], pool, ledger, &work, al);
    if (st == ZKPIPE_OK)
        st = blind(pa, pb, pc, &sum, z, &r, &s);
    release(&ch, &ch.abc, ZKPIPE_KIND_ABC);
    release(&ch, &ch.h, ZKPIPE_KIND_H);
    for (int k = 0; k < 3; k++)
        zkpipe__free(al, v[k]);
    if (st == ZKPIPE_ENOTINSUBGROUP)
        return zkpipe__io_fail(detail, cap, st,
                               "a proof point is outside the prime-order subgroup: the zkey's "
                               "query points are not all in it");
    if (st != ZKPIPE_OK)
        return zkpipe__io_fail(detail, cap, st, "proving failed on the %s backend: %s", be->name,
                               zkpipe_status_str(st));
    if (ledger != NULL && (st = zkpipe_ledger_move(ledger, ZKPIPE_STAGE_FINALIZE)) != ZKPIPE_OK)
        return zkpipe__io_fail(detail, cap, st, "accounting: cannot move the ledger");

    double t1 = zkpipe__g16_now();
    zkpipe__io_vk_view vk = {z->alpha1, z->beta2, z->gamma2, z->delta2, z->ic, z->num_public};
    st = verify(&vk, w + 4, pa, pb, pc);
    t->verify = zkpipe__g16_now() - t1;
    /* On the CPU a failing proof can only come from the witness; a device fault is another
     * possibility on CUDA, and then the CPU backend tells the two apart. */
    if (st != ZKPIPE_OK && be->device)
        return zkpipe__io_fail(detail, cap, ZKPIPE_EUNSATISFIED,
                               "the proof computed on the %s backend fails the zkey's "
                               "verification key: the witness does not satisfy the circuit, or "
                               "the device computed wrongly (the cpu backend tells which)",
                               be->name);
    if (st != ZKPIPE_OK)
        return zkpipe__io_fail(detail, cap, ZKPIPE_EUNSATISFIED,
                               "the witness does not satisfy the circuit (the proof fails the "
                               "zkey's verification key; pass the .r1cs to find the constraint)");
    proof_pack(proof, pa, pb, pc);
    t->total = zkpipe__g16_now() - t0;
    return ZKPIPE_OK;
}

static zkpipe_status prove(uint8_t *proof, zkpipe_zkey_timings *t, char *detail, size_t cap,
                           const zkpipe__io_zkey_view *z, const uint64_t *w, const uint64_t *r,
                           const uint64_t *s, zkpipe_pool *pool, zkpipe_ledger *ledger,
                           const zkpipe_allocator *al)
{
    return prove_on(&cpu_backend, proof, t, detail, cap, z, w, r, s, pool, ledger, al);
}
