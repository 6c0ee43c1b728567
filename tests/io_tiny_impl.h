/* A tiny circom-shaped circuit written as .r1cs, .wtns and a Groth16 .zkey the way snarkjs
 * lays them out, with a trusted setup done here from fixed toxic values (insecure, test only).
 * Expanded once per curve by test_io.c after groth16/groth16_names.h, with G16_C, FQ and
 * the byte buffer helpers (bb_*) defined. The circuit (tiny_rows, tiny_witness) is shared.
 *
 * snarkjs's setup, as the prover expects it: over the domain of n = 2^log_n rows (the
 * constraints, then one extra A row per public wire and the one), with Lagrange values L_j(τ),
 *   A_i = Σ_j A_ji L_j(τ) G1, B1_i / B2_i likewise with B, in G1 / G2;
 *   IC_i (i <= nPublic) = (β a_i + α b_i + c_i)/γ G1, C_i (i > nPublic) = (...)/δ G1;
 *   H_k = L'_{2k+1}(τ)/δ G1 with L' the Lagrange values of the domain of 2n. */
#define TINY(name) G16_CAT(name##_, G16_C)
#define FQ_LIMBS G16_CAT(FQ, _LIMBS)
#define FQF(op) G16_CAT(FQ, _##op)

static void TINY(lagrange)(FR *out, const FR *tau, unsigned log_n)
{
    size_t n = (size_t)1 << log_n;
    uint64_t e = n;
    FR w, wj, tn, num, den, nf;
    NTT(root_of_unity)(&w, log_n);
    FRF(pow)(&tn, tau, &e, 1);
    FRF(set_one)(&num);
    FRF(sub)(&num, &tn, &num);
    FRF(from_u64)(&nf, n);
    FRF(set_one)(&wj);
    for (size_t j = 0; j < n; j++) {
        FRF(sub)(&den, tau, &wj);
        FRF(mul)(&den, &den, &nf);
        FRF(inv)(&den, &den);
        FRF(mul)(&out[j], &num, &wj);
        FRF(mul)(&out[j], &out[j], &den);
        FRF(mul)(&wj, &wj, &w);
    }
}

static void TINY(put_g1)(bytebuf *b, const FR *k)
{
    G1A g, r;
    G1 t;
    G1F(generator)(&g);
    G1F(from_affine)(&t, &g);
    G1F(mul)(&t, &t, k);
    G1F(to_affine)(&r, &t);
    bb_put(b, &r, sizeof r);
}

static void TINY(put_g2)(bytebuf *b, const FR *k)
{
    G2A g, r;
    G2 t;
    G2F(generator)(&g);
    G2F(from_affine)(&t, &g);
    G2F(mul)(&t, &t, k);
    G2F(to_affine)(&r, &t);
    bb_put(b, &r, sizeof r);
}

static void TINY(put_fr_canonical)(bytebuf *b, const FR *v)
{
    uint64_t l[4];
    FRF(to_canonical)(l, v);
    bb_put(b, l, sizeof l);
}

static void TINY(put_prime)(bytebuf *b, const uint64_t *p, size_t limbs)
{
    bb_u32(b, (uint32_t)(8 * limbs));
    bb_put(b, p, 8 * limbs);
}

/* Evaluations of wire i's A, B, C polynomials at τ (extra A rows included). */
static void TINY(wire_polys)(FR *a, FR *bv, FR *c, const FR *lag)
{
    for (size_t i = 0; i < TINY_VARS; i++) {
        FRF(set_zero)(&a[i]);
        FRF(set_zero)(&bv[i]);
        FRF(set_zero)(&c[i]);
    }
    for (size_t t = 0; t < sizeof tiny_rows / sizeof tiny_rows[0]; t++) {
        const tiny_term *e = &tiny_rows[t];
        FR v, k;
        FRF(from_u64)(&k, e->coef);
        FRF(mul)(&v, &k, &lag[e->row]);
        FR *dst = e->m == 0 ? a : e->m == 1 ? bv : c;
        FRF(add)(&dst[e->wire], &dst[e->wire], &v);
    }
}

/* (β a_i + α b_i + c_i) / x in G1, x = γ (IC) or δ (C); inv_x is 1/x. */
static void TINY(put_ic_or_c)(bytebuf *z, size_t i, const FR *a, const FR *bv, const FR *c,
                              const FR *alpha, const FR *beta, const FR *inv_x)
{
    FR v, t;
    FRF(mul)(&v, beta, &a[i]);
    FRF(mul)(&t, alpha, &bv[i]);
    FRF(add)(&v, &v, &t);
    FRF(add)(&v, &v, &c[i]);
    FRF(mul)(&v, &v, inv_x);
    TINY(put_g1)(z, &v);
}

static void TINY(build)(tiny_files *f)
{
    FR tau, alpha, beta, gamma, delta, lag[TINY_N], lag2[2 * TINY_N];
    FR a[TINY_VARS], bv[TINY_VARS], c[TINY_VARS];
    FRF(from_u64)(&tau, 1234567);
    FRF(from_u64)(&alpha, 11111);
    FRF(from_u64)(&beta, 22222);
    FRF(from_u64)(&gamma, 33333);
    FRF(from_u64)(&delta, 44444);
    TINY(lagrange)(lag, &tau, TINY_LOG_N);
    TINY(lagrange)(lag2, &tau, TINY_LOG_N + 1);
    TINY(wire_polys)(a, bv, c, lag);
    FR gi, di;
    FRF(inv)(&gi, &gamma);
    FRF(inv)(&di, &delta);

    bytebuf *z = &f->zkey;
    bb_header(z, "zkey", 1, 9);
    size_t s = bb_section(z, 1);
    bb_u32(z, 1);
    bb_end(z, s);
    s = bb_section(z, 2);
    TINY(put_prime)(z, G16_CAT(FQ, _MODULUS), FQ_LIMBS);
    TINY(put_prime)(z, G16_CAT(FR, _MODULUS), 4);
    bb_u32(z, TINY_VARS);
    bb_u32(z, TINY_PUBLIC);
    bb_u32(z, TINY_N);
    TINY(put_g1)(z, &alpha);
    TINY(put_g1)(z, &beta);
    TINY(put_g2)(z, &beta);
    TINY(put_g2)(z, &gamma);
    TINY(put_g1)(z, &delta);
    TINY(put_g2)(z, &delta);
    bb_end(z, s);
    s = bb_section(z, 3);
    for (size_t i = 0; i <= TINY_PUBLIC; i++)
        TINY(put_ic_or_c)(z, i, a, bv, c, &alpha, &beta, &gi);
    bb_end(z, s);
    /* Section 4: A and B entries, values as v R^2 mod r. */
    s = bb_section(z, 4);
    size_t count = 0, at = z->len;
    bb_u32(z, 0);
    for (size_t t = 0; t < sizeof tiny_rows / sizeof tiny_rows[0]; t++) {
        const tiny_term *e = &tiny_rows[t];
        FR k, kk;
        if (e->m > 1)
            continue;
        FRF(from_u64)(&k, e->coef);
        FRF(from_canonical)(&kk, k.l);
        bb_u32(z, e->m);
        bb_u32(z, e->row);
        bb_u32(z, e->wire);
        bb_put(z, kk.l, sizeof kk.l);
        count++;
    }
    bb_patch_u32(z, at, (uint32_t)count);
    bb_end(z, s);
    s = bb_section(z, 5);
    for (size_t i = 0; i < TINY_VARS; i++)
        TINY(put_g1)(z, &a[i]);
    bb_end(z, s);
    s = bb_section(z, 6);
    for (size_t i = 0; i < TINY_VARS; i++)
        TINY(put_g1)(z, &bv[i]);
    bb_end(z, s);
    s = bb_section(z, 7);
    for (size_t i = 0; i < TINY_VARS; i++)
        TINY(put_g2)(z, &bv[i]);
    bb_end(z, s);
    s = bb_section(z, 8);
    for (size_t i = TINY_PUBLIC + 1; i < TINY_VARS; i++)
        TINY(put_ic_or_c)(z, i, a, bv, c, &alpha, &beta, &di);
    bb_end(z, s);
    s = bb_section(z, 9);
    for (size_t k = 0; k < TINY_N; k++) {
        FR v;
        FRF(mul)(&v, &lag2[2 * k + 1], &di);
        TINY(put_g1)(z, &v);
    }
    bb_end(z, s);

    bytebuf *w = &f->wtns;
    bb_header(w, "wtns", 2, 2);
    s = bb_section(w, 1);
    TINY(put_prime)(w, G16_CAT(FR, _MODULUS), 4);
    bb_u32(w, TINY_VARS);
    bb_end(w, s);
    s = bb_section(w, 2);
    for (size_t i = 0; i < TINY_VARS; i++) {
        FR v;
        FRF(from_u64)(&v, tiny_witness[i]);
        TINY(put_fr_canonical)(w, &v);
    }
    bb_end(w, s);

    /* The r1cs, sections in circom's order 2, 1, 3. */
    bytebuf *r = &f->r1cs;
    bb_header(r, "r1cs", 1, 3);
    s = bb_section(r, 2);
    for (uint32_t row = 0; row < TINY_CONSTRAINTS; row++)
        for (uint32_t m = 0; m < 3; m++) {
            size_t at = r->len;
            uint32_t terms = 0;
            bb_u32(r, 0);
            for (size_t t = 0; t < sizeof tiny_rows / sizeof tiny_rows[0]; t++) {
                const tiny_term *e = &tiny_rows[t];
                if (e->row != row || e->m != m)
                    continue;
                FR k;
                FRF(from_u64)(&k, e->coef);
                bb_u32(r, e->wire);
                TINY(put_fr_canonical)(r, &k);
                terms++;
            }
            bb_patch_u32(r, at, terms);
        }
    bb_end(r, s);
    s = bb_section(r, 1);
    TINY(put_prime)(r, G16_CAT(FR, _MODULUS), 4);
    bb_u32(r, TINY_VARS);
    bb_u32(r, 1); /* outputs */
    bb_u32(r, 1); /* public inputs */
    bb_u32(r, 1); /* private inputs */
    bb_u64(r, TINY_VARS);
    bb_u32(r, TINY_CONSTRAINTS);
    bb_end(r, s);
    s = bb_section(r, 3);
    for (uint64_t i = 0; i < TINY_VARS; i++)
        bb_u64(r, i);
    bb_end(r, s);
}

/* A point on the curve (G1) that is not in the subgroup, in the zkey's layout; BN254 G1 has
 * none (cofactor 1): returns 0 then. */
static int TINY(g1_outside_subgroup)(uint8_t *out)
{
    for (uint64_t x = 1; x < 1000; x++) {
        G1A p;
        FQ rhs;
        FQF(from_u64)(&p.x, x);
        G1F(rhs)(&rhs, &p.x);
        if (FQF(sqrt)(&p.y, &rhs) && !G1F(is_in_subgroup)(&p)) {
            memcpy(out, &p, sizeof p);
            return 1;
        }
    }
    return 0;
}

/* A point on the twist (G2) that is not in the subgroup, in the zkey's layout (x = k + u for the
 * first k that gives one). */
static void TINY(g2_outside_subgroup)(uint8_t *out)
{
    for (uint64_t x = 1;; x++) {
        G2A p;
        G16_CAT(G16_C, _fq2) rhs;
        FQF(from_u64)(&p.x.c0, x);
        FQF(from_u64)(&p.x.c1, 1);
        G2F(rhs)(&rhs, &p.x);
        if (G16_CAT(G16_C, _fq2_sqrt)(&p.y, &rhs) && !G2F(is_in_subgroup)(&p)) {
            memcpy(out, &p, sizeof p);
            return;
        }
    }
}

#undef TINY
#undef FQ_LIMBS
#undef FQF
