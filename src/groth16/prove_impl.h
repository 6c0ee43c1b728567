/* The prover on a synthesis result: satisfaction check, h on the NTT (quotient_impl.h), the
 * five MSMs and the blinding. Part of the per-curve template.
 *
 * A = alpha + sum z_i A_i + r delta          (G1)
 * B = beta + sum z_i B_i + s delta           (G2, and in G1 for C)
 * C = sum aux_i L_i + sum h_i H_i + s A + r B1 - r s delta   (G1)
 * z is the full assignment: inputs (synthesis's `input`, input 0 = 1) then aux.
 *
 * The prover owns the synthesis result, so once the constraints are checked it turns input,
 * aux and h from Montgomery form into plain integers in place, once: the MSMs then read them
 * as they are instead of each converting a copy. Its working memory is charged to the
 * result's ledger as kind WORKSPACE while it exists: the NTT domain, the G1 MSMs' buckets
 * (through a charging allocator) and the G2 MSM's (charged for it by the prover's thread,
 * which owns the ledger, from zkpipe__msm_*_scratch_bytes). */

static void canonical_rows(void *arg, size_t begin, size_t end, unsigned worker)
{
    uint64_t *v = (uint64_t *)arg;
    (void)worker;
    for (size_t i = begin; i < end; i++) {
        FR e;
        memcpy(e.l, v + 4 * i, sizeof e.l);
        FRF(to_canonical)(v + 4 * i, &e);
    }
}

/* The `count` Montgomery elements at `v` become plain integers, in place. */
static void to_canonical_in_place(uint64_t *v, size_t count, zkpipe_pool *pool)
{
    zkpipe_pool_parallel_for(pool, count, 0, canonical_rows, v);
}

/* sum z_i Q_i over the variables dense in query k (0: A, 1: B) of the key, whose points are
 * `bases`; as two MSMs because inputs and aux live apart. */
static zkpipe_status msm_z_g1(G1 *out, const G1A *bases, int k, const PK *pk,
                              const zkpipe__synth_result *res, zkpipe_pool *pool,
                              const zkpipe_allocator *a)
{
    const uint64_t *in_bits = pk->density + (size_t)k * pk->words;
    const uint64_t *aux_bits = pk->aux_density + (size_t)k * pk->words;
    G1 aux;
    zkpipe_status st = MSM1(out, bases, res->input, in_bits, res->num_inputs, NULL, pool, a);
    if (st == ZKPIPE_OK)
        st = MSM1(&aux, bases + pk->inputs_dense[k], res->aux, aux_bits, res->num_aux, NULL, pool,
                  a);
    if (st == ZKPIPE_OK)
        G1F(add)(out, out, &aux);
    return st;
}

/* The B (G2) MSM: after the G1 MSMs on the pool (CPU backend), or on its own thread with the
 * pool while the GPU computes the G1 MSMs (CUDA backend). */
typedef struct g2_job {
    G2 out;
    const PK *pk;
    const zkpipe__synth_result *res;
    zkpipe_pool *pool;
    zkpipe_status st;
    double secs;
} g2_job;

static void *g2_job_run(void *arg)
{
    g2_job *job = (g2_job *)arg;
    const zkpipe__synth_result *res = job->res;
    const PK *pk = job->pk;
    const zkpipe_allocator *a = &pk->base.allocator;
    const uint64_t *in_bits = pk->density + pk->words, *aux_bits = pk->aux_density + pk->words;
    double t0 = zkpipe__g16_now();
    G2 aux;
    job->st = MSM2(&job->out, pk->b2, res->input, in_bits, res->num_inputs, NULL, job->pool, a);
    if (job->st == ZKPIPE_OK)
        job->st = MSM2(&aux, pk->b2 + pk->inputs_dense[1], res->aux, aux_bits, res->num_aux, NULL,
                       job->pool, a);
    if (job->st == ZKPIPE_OK)
        G2F(add)(&job->out, &job->out, &aux);
    job->secs = zkpipe__g16_now() - t0;
    return NULL;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* The most scratch the G2 job's two MSMs allocate at once (one after the other). */
static uint64_t g2_scratch_bytes(const PK *pk, unsigned threads)
{
    size_t in_dense = pk->inputs_dense[1];
    return max_u64(MSM2_SCRATCH(pk->base.num_inputs, in_dense, NULL, threads),
                   MSM2_SCRATCH(pk->base.num_aux, pk->base.num_b - in_dense, NULL, threads));
}

/* The most the prover charges as kind WORKSPACE at once with pools of `threads` threads: the
 * NTT domain while h is computed, later the largest G1 MSM's scratch beside the G2 MSM's. */
static uint64_t workspace_bytes(const zkpipe_groth16_pk *base, unsigned threads)
{
    const PK *pk = (const PK *)base;
    size_t n = (size_t)1 << base->log_n, in_a = pk->inputs_dense[0], in_b = pk->inputs_dense[1];
    size_t g1[] = {
        MSM1_SCRATCH(base->num_inputs, in_a, NULL, threads),
        MSM1_SCRATCH(base->num_aux, base->num_a - in_a, NULL, threads),
        MSM1_SCRATCH(base->num_inputs, in_b, NULL, threads),
        MSM1_SCRATCH(base->num_aux, base->num_b - in_b, NULL, threads),
        MSM1_SCRATCH(base->num_aux, base->num_aux, NULL, threads),
        MSM1_SCRATCH(n - 1, n - 1, NULL, threads),
    };
    uint64_t g1_max = 0, g2 = g2_scratch_bytes(pk, threads);
    for (size_t i = 0; i < sizeof g1 / sizeof g1[0]; i++)
        g1_max = max_u64(g1_max, g1[i]);
    uint64_t domain = NTT(domain_estimate)(base->log_n);
    /* Overflowing sizes make the MSMs fail before they allocate; UINT64_MAX refuses them. */
    if (g1_max > UINT64_MAX - ZKPIPE__CHARGED_HEADER_MAX - g2 ||
        domain > UINT64_MAX - ZKPIPE__CHARGED_HEADER_MAX)
        return UINT64_MAX;
    return max_u64(domain + ZKPIPE__CHARGED_HEADER_MAX, g1_max + ZKPIPE__CHARGED_HEADER_MAX + g2);
}

/* The first row i < num_constraints with a_i b_i != c_i, or num_constraints. */
static size_t first_unsatisfied(const zkpipe__synth_result *res)
{
    const FR *a = (const FR *)res->a, *b = (const FR *)res->b, *c = (const FR *)res->c;
    for (size_t i = 0; i < res->num_constraints; i++) {
        FR p;
        FRF(mul)(&p, &a[i], &b[i]);
        if (!FRF(eq)(&p, &c[i]))
            return i;
    }
    return res->num_constraints;
}

/* h's buffer, charged to the ledger as kind H while it exists. */
static zkpipe_status h_take(FR **h, zkpipe__synth_result *res)
{
    size_t bytes = res->n * sizeof(FR);
    *h = (FR *)zkpipe__alloc(&res->allocator, bytes, KEY_ALIGN);
    if (*h == NULL)
        return ZKPIPE_ENOMEM;
    if (res->ledger != NULL) {
        zkpipe_status st = zkpipe_ledger_charge(res->ledger, ZKPIPE_KIND_H, bytes);
        if (st != ZKPIPE_OK) {
            zkpipe__free(&res->allocator, *h);
            *h = NULL;
            return st;
        }
    }
    return ZKPIPE_OK;
}

static void h_drop(FR **h, zkpipe__synth_result *res)
{
    if (*h == NULL)
        return;
    if (res->ledger != NULL)
        zkpipe_ledger_release(res->ledger, ZKPIPE_KIND_H, res->n * sizeof(FR));
    zkpipe__free(&res->allocator, *h);
    *h = NULL;
}

/* h from a, b, c, releasing a, b and c as soon as h exists. */
static zkpipe_status compute_h(FR **h, zkpipe__synth_result *res, zkpipe_pool *pool)
{
    zkpipe__charged charged = {res->allocator, res->ledger, ZKPIPE_KIND_WORKSPACE};
    zkpipe_allocator a = zkpipe__charged_allocator(&charged);
    DOMAIN *d;
    zkpipe_status st = NTT(domain_create)(&d, res->log_n, pool, &a);
    if (st != ZKPIPE_OK)
        return st;
    st = h_take(h, res);
    if (st == ZKPIPE_OK) {
        quotient_on_coset(*h, (FR *)res->a, (FR *)res->b, (FR *)res->c, d, pool);
        zkpipe__synth_free_abc(res);
        quotient_finish(*h, d, pool);
    }
    NTT(domain_destroy)(d);
    return st;
}

/* The G1 MSMs: A, B1 and the L + H part of C. */
static zkpipe_status msm_g1_all(G1 *A, G1 *B1, G1 *C, const PK *pk, const zkpipe__synth_result *res,
                                const FR *h, zkpipe_groth16_timings *t, zkpipe_pool *pool)
{
    zkpipe__charged charged = {pk->base.allocator, res->ledger, ZKPIPE_KIND_WORKSPACE};
    zkpipe_allocator a = zkpipe__charged_allocator(&charged);
    double t0 = zkpipe__g16_now();
    G1 hs;
    zkpipe_status st = msm_z_g1(A, pk->a, 0, pk, res, pool, &a);
    double t1 = zkpipe__g16_now();
    if (st == ZKPIPE_OK)
        st = msm_z_g1(B1, pk->b1, 1, pk, res, pool, &a);
    double t2 = zkpipe__g16_now();
    if (st == ZKPIPE_OK)
        st = MSM1(C, pk->l, res->aux, NULL, res->num_aux, NULL, pool, &a);
    if (st == ZKPIPE_OK)
        st = MSM1(&hs, pk->h, (const uint64_t *)h, NULL, res->n - 1, NULL, pool, &a);
    if (st == ZKPIPE_OK)
        G1F(add)(C, C, &hs);
    t->msm_a = t1 - t0;
    t->msm_b1 = t2 - t1;
    t->msm_c = zkpipe__g16_now() - t2;
    return st;
}

/* A, B, C from the MSM sums, r and s; written to `proof`. */
static void assemble(uint8_t *proof, const PK *pk, G1 *A, G2 *B, G1 *B1, G1 *C, const FR *r,
                     const FR *s)
{
    G1 d1, t1;
    G2 d2, t2;
    FR rs;
    G1F(from_affine)(&d1, &pk->delta1);
    G2F(from_affine)(&d2, &pk->delta2);
    G1F(add_affine)(A, A, &pk->alpha1);
    G1F(mul)(&t1, &d1, r);
    G1F(add)(A, A, &t1);
    G2F(add_affine)(B, B, &pk->beta2);
    G2F(mul)(&t2, &d2, s);
    G2F(add)(B, B, &t2);
    G1F(add_affine)(B1, B1, &pk->beta1);
    G1F(mul)(&t1, &d1, s);
    G1F(add)(B1, B1, &t1);
    G1F(mul)(&t1, A, s);
    G1F(add)(C, C, &t1);
    G1F(mul)(&t1, B1, r);
    G1F(add)(C, C, &t1);
    FRF(mul)(&rs, r, s);
    G1F(mul)(&t1, &d1, &rs);
    G1F(neg)(&t1, &t1);
    G1F(add)(C, C, &t1);
    G1A a1, c1;
    G2A b2;
    G1F(to_affine)(&a1, A);
    G2F(to_affine)(&b2, B);
    G1F(to_affine)(&c1, C);
    proof_g1_write(proof, &a1);
    proof_g2_write(proof + PROOF_G1_BYTES, &b2);
    proof_g1_write(proof + PROOF_G1_BYTES + PROOF_G2_BYTES, &c1);
}

/* Where h and the G1 MSMs are computed. g2_beside: B (G2) runs on a thread of its own with the
 * pool while the G1 MSMs run elsewhere (the device); otherwise it runs after them on the pool,
 * since on the CPU a G2 thread beside the pool's left a core idle once the G1 MSMs were done
 * (G2 alone costs about as much as the G1 MSMs together). */
typedef struct prove_backend {
    zkpipe_status (*h)(FR **h, zkpipe__synth_result *res, zkpipe_pool *pool);
    zkpipe_status (*g1)(G1 *A, G1 *B1, G1 *C, const PK *pk, const zkpipe__synth_result *res,
                        const FR *h, zkpipe_groth16_timings *t, zkpipe_pool *pool);
    int g2_beside;
} prove_backend;

static const prove_backend cpu_backend = {compute_h, msm_g1_all, 0};

static zkpipe_status prove_steps(uint8_t *proof, size_t *first_failing, zkpipe_groth16_timings *t,
                                 const PK *pk, zkpipe__synth_result *res, const FR *r, const FR *s,
                                 zkpipe_pool *pool, const prove_backend *be)
{
    zkpipe_status st;
    FR *h = NULL;
    if (res->ledger != NULL && (st = zkpipe_ledger_move(res->ledger, ZKPIPE_STAGE_PROVING)))
        return st;
    double t0 = zkpipe__g16_now();
    size_t bad = first_unsatisfied(res);
    if (bad < res->num_constraints) {
        if (first_failing != NULL)
            *first_failing = bad;
        return ZKPIPE_EUNSATISFIED;
    }
    to_canonical_in_place(res->input, res->num_inputs, pool);
    to_canonical_in_place(res->aux, res->num_aux, pool);
    if ((st = be->h(&h, res, pool)) != ZKPIPE_OK)
        return st;
    to_canonical_in_place((uint64_t *)h, res->n, pool);
    t->h = zkpipe__g16_now() - t0;

    g2_job job = {.pk = pk, .res = res, .pool = pool};
    uint64_t g2_scratch = g2_scratch_bytes(pk, zkpipe_pool_threads(job.pool));
    if (res->ledger != NULL &&
        (st = zkpipe_ledger_charge(res->ledger, ZKPIPE_KIND_WORKSPACE, g2_scratch)) != ZKPIPE_OK) {
        h_drop(&h, res);
        return st;
    }
    pthread_t thread;
    int threaded = be->g2_beside && pthread_create(&thread, NULL, g2_job_run, &job) == 0;
    G1 A, B1, C;
    st = be->g1(&A, &B1, &C, pk, res, h, t, pool);
    if (threaded)
        pthread_join(thread, NULL);
    else if (st == ZKPIPE_OK)
        g2_job_run(&job);
    t->msm_b2 = job.secs;
    if (st == ZKPIPE_OK)
        st = job.st;
    if (res->ledger != NULL)
        zkpipe_ledger_release(res->ledger, ZKPIPE_KIND_WORKSPACE, g2_scratch);
    h_drop(&h, res);
    if (st != ZKPIPE_OK)
        return st;
    if (res->ledger != NULL && (st = zkpipe_ledger_move(res->ledger, ZKPIPE_STAGE_FINALIZE)))
        return st;
    assemble(proof, pk, &A, &job.out, &B1, &C, r, s);
    return ZKPIPE_OK;
}

static zkpipe_status prove_with(const prove_backend *be, uint8_t *proof, size_t *first_failing,
                                zkpipe_groth16_timings *t, const zkpipe_groth16_pk *base,
                                zkpipe__synth_result *res, const uint64_t *r_limbs,
                                const uint64_t *s_limbs, zkpipe_pool *pool)
{
    const PK *pk = (const PK *)base;
    zkpipe_groth16_timings unused;
    zkpipe_status st = ZKPIPE_EMISMATCH;
    FR r, s;
    double t0 = zkpipe__g16_now();
    memcpy(r.l, r_limbs, sizeof r.l);
    memcpy(s.l, s_limbs, sizeof s.l);
    t = t != NULL ? t : &unused;
    /* The queries hold points for the key's dense variables only: a witness whose constraints
     * use other variables in A or B would be proved against the wrong points. */
    if (res->curve == OPS.curve && res->num_inputs == base->num_inputs &&
        res->num_aux == base->num_aux && res->log_n == base->log_n &&
        res->density_words == pk->words &&
        memcmp(res->density, pk->density, 2 * pk->words * sizeof(uint64_t)) == 0)
        st = prove_steps(proof, first_failing, t, pk, res, &r, &s, pool, be);
    zkpipe__synth_free(res);
    t->total = zkpipe__g16_now() - t0;
    return st;
}

static zkpipe_status prove(uint8_t *proof, size_t *first_failing, zkpipe_groth16_timings *t,
                           const zkpipe_groth16_pk *base, zkpipe__synth_result *res,
                           const uint64_t *r_limbs, const uint64_t *s_limbs, zkpipe_pool *pool)
{
    return prove_with(&cpu_backend, proof, first_failing, t, base, res, r_limbs, s_limbs, pool);
}
