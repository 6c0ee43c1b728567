/* The one Groth16 prover (groth16/prove.h says what it computes) and the zkey's source of a,
 * b and c. */
#include <pthread.h>
#include <string.h>

#include "acct/charged_alloc.h"
#include "core/alloc_internal.h"
#include "core/bytes.h"
#include "core/clock_internal.h"
#include "core/detail.h"
#include "core/kept_alloc.h"
#include "core/pool_internal.h"
#include "core/pages.h"
#include "groth16/prove.h"

#define ABC_ALIGN 64

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* The assignment's two parts as the MSMs take them: canonical inputs and aux. */
typedef struct assignment {
    const uint64_t *in, *aux;
} assignment;

/* The density bits of query k (0: A, 1: B) over the inputs and over the aux variables; NULL
 * for both when every variable is dense. */
static const uint64_t *in_bits(const zkpipe_groth16_pk *pk, int k)
{
    return pk->density != NULL ? pk->density + (size_t)k * pk->words : NULL;
}

static const uint64_t *aux_bits(const zkpipe_groth16_pk *pk, int k)
{
    return pk->aux_density != NULL ? pk->aux_density + (size_t)k * pk->words : NULL;
}

/* The prover reads each query (and the coefficients) in one pass: once past it, the pages of
 * a key mapped from a file go back (core/pages.h), so a proof holds one query resident at a
 * time, not the whole key; the next proof faults them in again from the page cache. */
static void done_with(const zkpipe_groth16_pk *pk, const void *p, size_t count, size_t words)
{
    zkpipe__pages_drop(pk->map, pk->map_len, p, count * words * sizeof(uint64_t));
}

/* sum z_i Q_i over query k's points `bases` (G1): the inputs' part on the CPU (a few points;
 * on `in_pool`), the aux part on the backend. */
static zkpipe_status query_g1(zkpipe__g1 *out, const uint64_t *bases, int k,
                              const zkpipe_groth16_pk *pk, const assignment *z,
                              const zkpipe__g16_backend *be, zkpipe_pool *pool,
                              zkpipe_pool *in_pool, zkpipe_ledger *ledger,
                              const zkpipe_allocator *work)
{
    const zkpipe__curve_ops *c = pk->c;
    zkpipe__g1 aux;
    zkpipe_status st = zkpipe__g16_backend_cpu.msm_g1(c, out, bases, z->in, in_bits(pk, k),
                                                      pk->num_inputs, in_pool, ledger, work);
    if (st == ZKPIPE_OK)
        st = be->msm_g1(c, &aux, bases + pk->inputs_dense[k] * c->g1a_words, z->aux,
                        aux_bits(pk, k), pk->num_aux, pool, ledger, work);
    if (st == ZKPIPE_OK)
        c->g1_add(out, out, &aux);
    done_with(pk, bases, k == 0 ? pk->num_a : pk->num_b, c->g1a_words);
    return st;
}

/* B in G2, on the backend `be` (which has a G2 MSM). Runs on the thread that owns the ledger,
 * or beside it with `work` a plain allocator (its scratch charged for it up front). */
typedef struct g2_job {
    const zkpipe_groth16_pk *pk;
    const assignment *z;
    const zkpipe__g16_backend *be;
    zkpipe_pool *pool;
    zkpipe_ledger *ledger;
    const zkpipe_allocator *work;
    zkpipe__g2 out;
    zkpipe_status st;
    double secs;
} g2_job;

static void *g2_run(void *arg)
{
    g2_job *job = (g2_job *)arg;
    const zkpipe_groth16_pk *pk = job->pk;
    const zkpipe__curve_ops *c = pk->c;
    double t0 = zkpipe__seconds();
    zkpipe__g2 aux;
    job->st = job->be->msm_g2(c, &job->out, pk->b2, job->z->in, in_bits(pk, 1), pk->num_inputs,
                              job->pool, job->ledger, job->work);
    if (job->st == ZKPIPE_OK)
        job->st = job->be->msm_g2(c, &aux, pk->b2 + pk->inputs_dense[1] * c->g2a_words, job->z->aux,
                                  aux_bits(pk, 1), pk->num_aux, job->pool, job->ledger, job->work);
    if (job->st == ZKPIPE_OK)
        c->g2_add(&job->out, &job->out, &aux);
    done_with(pk, pk->b2, pk->num_b, c->g2a_words);
    job->secs = zkpipe__seconds() - t0;
    return NULL;
}

/* The most the CPU's G2 MSMs allocate at once (the two parts run one after the other). */
static uint64_t g2_scratch_bytes(const zkpipe_groth16_pk *pk, unsigned threads)
{
    const zkpipe__curve_ops *c = pk->c;
    size_t in_dense = pk->inputs_dense[1];
    return max_u64(c->msm_g2_scratch_bytes(pk->num_inputs, in_dense, 0, threads),
                   c->msm_g2_scratch_bytes(pk->num_aux, pk->num_b - in_dense, 0, threads));
}

/* The largest scratch of the G1 MSMs and of the G2 MSMs on the CPU, one at a time. */
static void msm_scratch(const zkpipe_groth16_pk *pk, unsigned threads, uint64_t *g1_max,
                        uint64_t *g2_max)
{
    const zkpipe__curve_ops *c = pk->c;
    size_t ni = pk->num_inputs, na = pk->num_aux;
    size_t in_a = pk->inputs_dense[0], in_b = pk->inputs_dense[1];
    size_t g1[] = {
        c->msm_g1_scratch_bytes(ni, in_a, 0, threads),
        c->msm_g1_scratch_bytes(na, pk->num_a - in_a, 0, threads),
        c->msm_g1_scratch_bytes(ni, in_b, 0, threads),
        c->msm_g1_scratch_bytes(na, pk->num_b - in_b, 0, threads),
        c->msm_g1_scratch_bytes(na, na, 0, threads),
        c->msm_g1_scratch_bytes(pk->num_h, pk->num_h, 0, threads),
    };
    *g1_max = 0;
    for (size_t i = 0; i < sizeof g1 / sizeof g1[0]; i++)
        *g1_max = max_u64(*g1_max, g1[i]);
    *g2_max = g2_scratch_bytes(pk, threads);
}

/* UINT64_MAX for sizes no MSM would accept (they fail before allocating), else v. */
static uint64_t sane(uint64_t v)
{
    return v >= UINT64_MAX / 4 ? UINT64_MAX : v;
}

uint64_t zkpipe__g16_workspace_bytes(const zkpipe_groth16_pk *pk, unsigned threads)
{
    uint64_t g1, g2, domain = pk->c->domain_bytes(pk->log_n);
    msm_scratch(pk, threads, &g1, &g2);
    return sane(max_u64(domain, max_u64(g1, g2))) + ZKPIPE__CURVE_BLOCK_HEADER;
}

uint64_t zkpipe__g16_prove_peak_bytes(const zkpipe_groth16_pk *pk, unsigned threads, uint64_t held)
{
    uint64_t g1, g2, domain = sane(pk->c->domain_bytes(pk->log_n));
    uint64_t h = ZKPIPE__FR_BYTES * ((uint64_t)1 << pk->log_n), bc = 2 * h;
    msm_scratch(pk, threads, &g1, &g2);
    if (held >= UINT64_MAX / 4 || domain == UINT64_MAX || sane(g1) == UINT64_MAX ||
        sane(g2) == UINT64_MAX)
        return UINT64_MAX;
    /* b and c are gone during every MSM; h is gone too by the G2 MSM (msms()). */
    uint64_t during_h = held + domain, during_g1 = (held > bc ? held - bc : 0) + g1;
    uint64_t during_g2 = (held > bc + h ? held - bc - h : 0) + g2;
    return max_u64(during_h, max_u64(during_g1, during_g2)) + ZKPIPE__CURVE_BLOCK_HEADER;
}

/* The MSM sums. */
typedef struct sums {
    zkpipe__g1 A, B1, L, H;
    zkpipe__g2 B;
} sums;

/* The proof's points from the sums and r, s, written to `proof` (step 4). The products go
 * through the interleaved multi_mul (ec/multi_mul.h: the endomorphism split, shared doublings),
 * a third of a plain multiplication's work each: r delta and s delta alone (s delta in G2 too),
 * then s A + r B1 - rs delta as one sum over the three points, made affine first (A is
 * anyway). */
static void blind(uint8_t *proof, const zkpipe_groth16_pk *pk, sums *o, const uint64_t *r,
                  const uint64_t *s, uint64_t *pa, uint64_t *pb, uint64_t *pc)
{
    const zkpipe__curve_ops *c = pk->c;
    zkpipe__g1 t, C;
    zkpipe__g2 t2;
    uint64_t rs[ZKPIPE__FR_LIMBS], k[3 * ZKPIPE__FR_LIMBS], pts[3 * ZKPIPE__G1A_WORDS];
    const size_t w = c->g1a_words;
    c->fr_mul(rs, r, s);
    c->fr_to_canonical(k, s);
    c->fr_to_canonical(k + ZKPIPE__FR_LIMBS, r);
    c->fr_to_canonical(k + 2 * ZKPIPE__FR_LIMBS, rs);
    c->g1_add_affine(&o->A, &o->A, pk->alpha1);
    c->g1_multi_mul(&t, pk->delta1, k + ZKPIPE__FR_LIMBS, 1);
    c->g1_add(&o->A, &o->A, &t);
    c->g2_add_affine(&o->B, &o->B, pk->beta2);
    c->g2_multi_mul(&t2, pk->delta2, k, 1);
    c->g2_add(&o->B, &o->B, &t2);
    c->g1_add_affine(&o->B1, &o->B1, pk->beta1);
    c->g1_multi_mul(&t, pk->delta1, k, 1);
    c->g1_add(&o->B1, &o->B1, &t);
    c->g1_to_affine(pts, &o->A);
    c->g1_to_affine(pts + w, &o->B1);
    c->g1_affine_neg(pts + 2 * w, pk->delta1);
    c->g1_multi_mul(&t, pts, k, 3);
    c->g1_add(&C, &o->L, &o->H);
    c->g1_add(&C, &C, &t);
    memcpy(pa, pts, w * sizeof(uint64_t));
    c->g2_to_affine(pb, &o->B);
    c->g1_to_affine(pc, &C);
    c->proof_point_write(proof, pa, 0);
    c->proof_point_write(proof + c->proof_g1_bytes, pb, 1);
    c->proof_point_write(proof + c->proof_g1_bytes + c->proof_g2_bytes, pc, 0);
}

/* Step 2: h into a's buffer (returned in *h, charged as kind H), b and c freed. */
static zkpipe_status compute_h(uint64_t **h, const zkpipe_groth16_pk *pk, zkpipe__synth_result *res,
                               const zkpipe__g16_prove_args *args, const zkpipe_allocator *work)
{
    const zkpipe__curve_ops *c = pk->c;
    uint64_t shift[ZKPIPE__FR_LIMBS];
    int bellman = pk->form == ZKPIPE__G16_BELLMAN;
    zkpipe_status st = ZKPIPE_OK;
    /* 5 generates both scalar fields' multiplicative groups (ffjavascript's choice, from which
     * ff's roots of unity come), so 5^n != 1 for every domain; w_2n is off the domain too. */
    if (bellman)
        c->fr_from_u64(shift, 5);
    else
        st = c->fr_root_of_unity(shift, res->log_n + 1);
    if (st == ZKPIPE_OK)
        st = args->backend->h(c, res->a, res->b, res->c, res->log_n, shift, bellman, args->pool,
                              res->ledger, work);
    if (st != ZKPIPE_OK)
        return st;
    /* a's buffer now holds h: its charge changes kind; b and c are done with. */
    size_t bytes = res->n * ZKPIPE__FR_BYTES;
    zkpipe_ledger *ledger = res->ledger;
    uint64_t *a = res->a;
    res->a = NULL;
    if (ledger != NULL) {
        zkpipe_ledger_release(ledger, ZKPIPE_KIND_ABC, bytes);
        if ((st = zkpipe_ledger_charge(ledger, ZKPIPE_KIND_H, bytes)) != ZKPIPE_OK) {
            zkpipe__free(&res->allocator, a);
            return st;
        }
    }
    *h = a;
    zkpipe__synth_free_abc(res);
    c->fr_vec_to_canonical(a, res->n, args->pool);
    return ZKPIPE_OK;
}

static void h_free(uint64_t *h, const zkpipe__synth_result *res)
{
    if (h == NULL)
        return;
    if (res->ledger != NULL)
        zkpipe_ledger_release(res->ledger, ZKPIPE_KIND_H, res->n * ZKPIPE__FR_BYTES);
    zkpipe__free(&res->allocator, h);
}

/* Step 3: every MSM, G2 beside the backend when it has none; h freed (and *h set to NULL) as
 * soon as the H MSM is done, so the G2 MSM's scratch never sits on top of it. */
static zkpipe_status msms_with(sums *o, const zkpipe_groth16_pk *pk,
                               const zkpipe__synth_result *res, const assignment *z, uint64_t **h,
                               const zkpipe__g16_prove_args *args, zkpipe_groth16_timings *t,
                               const zkpipe_allocator *work)
{
    const zkpipe__curve_ops *c = pk->c;
    const zkpipe__g16_backend *be = args->backend;
    zkpipe_ledger *ledger = res->ledger;
    zkpipe_pool *pool = args->pool;
    int beside = be->msm_g2 == NULL;
    /* The G2 thread shares the pool; the inputs' few points then take the caller alone. */
    zkpipe_pool *in_pool = beside ? NULL : pool;
    g2_job job = {
        .pk = pk, .z = z, .be = beside ? &zkpipe__g16_backend_cpu : be, .pool = pool, .work = work};
    uint64_t g2_scratch = 0;
    zkpipe_status st = ZKPIPE_OK;
    pthread_t thread;
    int threaded = 0;
    if (beside) {
        /* The thread must not charge the ledger the caller charges meanwhile. */
        job.work = &res->allocator;
        g2_scratch = g2_scratch_bytes(pk, zkpipe_pool_threads(pool));
        if (ledger != NULL &&
            (st = zkpipe_ledger_charge(ledger, ZKPIPE_KIND_WORKSPACE, g2_scratch)) != ZKPIPE_OK)
            return st;
        threaded = pthread_create(&thread, NULL, g2_run, &job) == 0;
    } else {
        job.ledger = ledger;
    }
    double t0 = zkpipe__seconds();
    st = query_g1(&o->A, pk->a, 0, pk, z, be, pool, in_pool, ledger, work);
    double t1 = zkpipe__seconds();
    if (st == ZKPIPE_OK)
        st = query_g1(&o->B1, pk->b1, 1, pk, z, be, pool, in_pool, ledger, work);
    double t2 = zkpipe__seconds();
    if (st == ZKPIPE_OK)
        st = be->msm_g1(c, &o->L, pk->l, z->aux, NULL, pk->num_aux, pool, ledger, work);
    done_with(pk, pk->l, pk->num_aux, c->g1a_words);
    if (st == ZKPIPE_OK)
        st = be->msm_g1(c, &o->H, pk->h, *h, NULL, pk->num_h, pool, ledger, work);
    done_with(pk, pk->h, pk->num_h, c->g1a_words);
    h_free(*h, res);
    *h = NULL;
    t->msm_a = t1 - t0;
    t->msm_b1 = t2 - t1;
    t->msm_c = zkpipe__seconds() - t2;
    if (threaded)
        pthread_join(thread, NULL);
    else if (st == ZKPIPE_OK)
        g2_run(&job); /* no G2 thread could be started, or none was wanted */
    else
        job.st = st;
    if (g2_scratch > 0 && ledger != NULL)
        zkpipe_ledger_release(ledger, ZKPIPE_KIND_WORKSPACE, g2_scratch);
    t->msm_b2 = job.secs;
    o->B = job.out;
    return st != ZKPIPE_OK ? st : job.st;
}

/* msms_with, the sums' scratch on the CPU backend one kept block (core/kept_alloc.h): they run
 * one after another on this thread, and each faulted its fresh scratch in (a few MiB at 2^16
 * constraints) where the block now stays mapped from the first G1 sum to the G2 sum. It is
 * charged for all that time, as large as the largest G1 sum's scratch (the most that
 * zkpipe__g16_prove_peak_bytes counts for them), and given back to `work` for a larger G2
 * scratch; other backends allocate as before. */
static zkpipe_status msms(sums *o, const zkpipe_groth16_pk *pk, const zkpipe__synth_result *res,
                          const assignment *z, uint64_t **h, const zkpipe__g16_prove_args *args,
                          zkpipe_groth16_timings *t, const zkpipe_allocator *work)
{
    if (args->backend != &zkpipe__g16_backend_cpu)
        return msms_with(o, pk, res, z, h, args, t, work);
    uint64_t g1, g2;
    msm_scratch(pk, zkpipe_pool_threads(args->pool), &g1, &g2);
    zkpipe__kept kept = {.base = *work, .min_size = sane(g1) < SIZE_MAX ? (size_t)g1 : 0};
    zkpipe_allocator scratch = zkpipe__kept_allocator(&kept);
    zkpipe_status st = msms_with(o, pk, res, z, h, args, t, &scratch);
    zkpipe__kept_release(&kept);
    return st;
}

/* Describes a failure of the backend's in the detail line. */
static zkpipe_status backend_fail(const zkpipe__g16_prove_args *args, zkpipe_status st)
{
    const char *why = args->backend->last_error != NULL ? args->backend->last_error() : "";
    return zkpipe__fail(args->detail, args->detail_cap, st,
                        "proving failed on the %s backend: %s%s%s", args->backend->name,
                        zkpipe_status_str(st), *why ? ": " : "", why);
}

static zkpipe_status prove_steps(zkpipe_groth16_proof *out, const zkpipe_groth16_pk *pk,
                                 zkpipe__synth_result *res, const zkpipe__g16_prove_args *args,
                                 zkpipe_groth16_timings *t)
{
    const zkpipe__curve_ops *c = pk->c;
    zkpipe_ledger *ledger = res->ledger;
    char *detail = args->detail;
    size_t cap = args->detail_cap;
    zkpipe_status st;
    if (ledger != NULL && zkpipe_ledger_stage(ledger) != ZKPIPE_STAGE_PROVING &&
        (st = zkpipe_ledger_move(ledger, ZKPIPE_STAGE_PROVING)) != ZKPIPE_OK)
        return zkpipe__fail(detail, cap, st, "accounting: cannot move the ledger");
    double t0 = zkpipe__seconds();
    /* Rows computed independently (a synthesized circuit) and found to hold: a proof that fails
     * the check below cannot be the witness's fault. */
    const int rows_checked = res->num_constraints > 0;
    size_t bad = c->fr_vec_first_mismatch(res->a, res->b, res->c, res->num_constraints);
    if (bad < res->num_constraints) {
        if (args->first_failing != NULL)
            *args->first_failing = bad;
        return zkpipe__fail(detail, cap, ZKPIPE_EUNSATISFIED, "constraint %zu is not satisfied",
                            bad);
    }
    assignment z = {res->assignment, NULL};
    if (res->assignment != NULL) {
        z.aux = res->assignment + ZKPIPE__FR_LIMBS * res->num_inputs;
    } else {
        c->fr_vec_to_canonical(res->input, res->num_inputs, args->pool);
        c->fr_vec_to_canonical(res->aux, res->num_aux, args->pool);
        z.in = res->input;
        z.aux = res->aux;
    }
    zkpipe__charged charged = {res->allocator, ledger, ZKPIPE_KIND_WORKSPACE};
    zkpipe_allocator work = zkpipe__charged_allocator(&charged);
    uint64_t *h = NULL;
    if ((st = compute_h(&h, pk, res, args, &work)) != ZKPIPE_OK)
        return backend_fail(args, st);
    t->h = zkpipe__seconds() - t0;

    sums o;
    st = msms(&o, pk, res, &z, &h, args, t, &work);
    h_free(h, res); /* NULL unless msms failed before freeing it */
    if (st != ZKPIPE_OK)
        return backend_fail(args, st);
    if (ledger != NULL && (st = zkpipe_ledger_move(ledger, ZKPIPE_STAGE_FINALIZE)) != ZKPIPE_OK)
        return zkpipe__fail(detail, cap, st, "accounting: cannot move the ledger");

    zkpipe_groth16_proof proof;
    uint64_t pa[ZKPIPE__G1A_WORDS], pb[ZKPIPE__G2A_WORDS], pc[ZKPIPE__G1A_WORDS];
    memset(&proof, 0, sizeof proof);
    proof.curve = c->curve;
    proof.size = zkpipe__g16_proof_bytes(c);
    blind(proof.bytes, pk, &o, args->r, args->s, pa, pb, pc);
    /* Only a key point outside the subgroup can put a proof point there: a query point (a
     * zkey's are checked at open only when asked) or, in a key built or changed in memory
     * rather than read, alpha, beta or delta. Checked for every key, as the self-check below
     * takes the points without decoding them. */
    if (!c->g1_in_subgroup(pa) || !c->g2_in_subgroup(pb) || !c->g1_in_subgroup(pc))
        return zkpipe__fail(detail, cap, ZKPIPE_ENOTINSUBGROUP,
                            "a proof point is outside the prime-order subgroup: the key's "
                            "points are not all in it");
    if (args->check != NULL) {
        double t1 = zkpipe__seconds();
        /* The points as computed here, not decoded again (they are on the curve, as the key's
         * points are, and were just found in the subgroup), unless a device computed the sums:
         * then they are checked as any proof's are. */
        st = args->check->num_inputs != pk->num_inputs ? ZKPIPE_EMISMATCH
             : args->backend->device ? zkpipe__g16_verify(args->check, z.in + 4, &proof)
                                     : zkpipe__g16_verify_points(args->check, z.in + 4, pa, pb, pc);
        t->verify = zkpipe__seconds() - t1;
        if (st == ZKPIPE_EMISMATCH)
            return zkpipe__fail(detail, cap, st,
                                "the verifying key has %zu inputs, the proving key %zu",
                                args->check->num_inputs, pk->num_inputs);
        /* Every row held: the proving key's points do not match the verifying key (a valid
         * point where another belongs), or a device computed wrongly. */
        if (st != ZKPIPE_OK && rows_checked)
            return zkpipe__fail(
                detail, cap, ZKPIPE_EVERIFY,
                "the witness satisfies every constraint, yet the proof computed on "
                "the %s backend fails the verifying key: the proving key's points "
                "do not match it%s",
                args->backend->name,
                args->backend->device
                    ? ", or the device computed wrongly (the cpu backend tells which)"
                    : "");
        /* From a zkey (c is a b by construction) a witness that breaks a constraint's C side
         * fails only here, and cannot be told from a key whose points are wrong: the witness
         * is the likelier cause, and an .r1cs checked first rules it out. On a device, a
         * device fault is a third, which the cpu backend tells apart. */
        if (st != ZKPIPE_OK && args->backend->device)
            return zkpipe__fail(detail, cap, ZKPIPE_EUNSATISFIED,
                                "the proof computed on the %s backend fails the verifying key: the "
                                "witness does not satisfy the circuit, the proving key does not "
                                "match the verifying key, or the device computed wrongly (the cpu "
                                "backend tells which)",
                                args->backend->name);
        if (st != ZKPIPE_OK)
            return zkpipe__fail(detail, cap, ZKPIPE_EUNSATISFIED,
                                "the witness does not satisfy the circuit (the proof fails the "
                                "verifying key; the .r1cs names the constraint), or the proving "
                                "key does not match the verifying key (if the .r1cs holds)");
    }
    *out = proof;
    return ZKPIPE_OK;
}

/* The queries hold points for the key's dense variables only: a witness whose constraints use
 * other variables in A or B would be proved against the wrong points. */
static int matches(const zkpipe_groth16_pk *pk, const zkpipe__synth_result *res)
{
    if (res->curve != pk->c->curve || res->num_inputs != pk->num_inputs ||
        res->num_aux != pk->num_aux || res->log_n != pk->log_n)
        return 0;
    if (pk->density == NULL)
        return 1;
    return res->density != NULL && res->density_words == pk->words &&
           memcmp(res->density, pk->density, 2 * pk->words * sizeof(uint64_t)) == 0;
}

zkpipe_status zkpipe__g16_prove(zkpipe_groth16_proof *out, const zkpipe_groth16_pk *pk,
                                zkpipe__synth_result *res, const zkpipe__g16_prove_args *args)
{
    zkpipe_groth16_timings unused, *t = args->timings != NULL ? args->timings : &unused;
    double t0 = zkpipe__seconds();
    zkpipe_status st;
    if (matches(pk, res))
        st = prove_steps(out, pk, res, args, t);
    else
        st = zkpipe__fail(args->detail, args->detail_cap, ZKPIPE_EMISMATCH,
                          "the witness (%s, %zu inputs, %zu aux, 2^%u rows) is not the key's "
                          "circuit (%s, %zu inputs, %zu aux, 2^%u rows, or another density)",
                          zkpipe_curve_name(res->curve), res->num_inputs, res->num_aux, res->log_n,
                          zkpipe_curve_name(pk->c->curve), pk->num_inputs, pk->num_aux, pk->log_n);
    zkpipe__synth_free(res);
    t->total = zkpipe__seconds() - t0;
    return st;
}

/* a and b from the coefficients, on the pool (zkpipe__g16_coeffs_add): one range of entries per
 * thread, cut where the row changes, when every range's rows come after the range's before it
 * (snarkjs writes the entries constraint by constraint, A's then B's, so rows never decrease).
 * Then no two ranges add into one row, and each range adds into its own rows alone (the rows it
 * held when they were checked: a file rewritten meanwhile has its other entries skipped, as an
 * I/O error). A key whose rows go back and forth is added on one thread. */
#define ABC_MAX_PARTS 64
/* The fewest entries worth a range of their own: a few hundred microseconds of products, where
 * handing the ranges to the pool costs tens (with 512, rangesum's 2,297 entries took 165 us
 * against 124 on one thread; a 4,093-row chain's 8,189 entries gained nothing). */
#define ABC_MIN_PART 16384

typedef struct abc_ctx {
    const zkpipe__curve_ops *c;
    const uint8_t *entries;
    size_t count, parts, rows, wires;
    const uint64_t *w;
    uint64_t *a, *b;
    size_t cut[ABC_MAX_PARTS + 1];                 /* range k: entries [cut[k], cut[k + 1]) */
    uint32_t lo[ABC_MAX_PARTS], hi[ABC_MAX_PARTS]; /* each range's first and last row */
    unsigned char ordered[ABC_MAX_PARTS];
    size_t skipped[ABC_MAX_PARTS];
} abc_ctx;

static uint32_t entry_row(const abc_ctx *x, size_t i)
{
    return zkpipe__get_le32(x->entries + i * ZKPIPE__G16_COEFF_BYTES + 4);
}

/* The ranges' bounds, last first: range k starts at the first row change in its even share of
 * the entries, or is empty when its share has none (a row that long goes to the range before).
 * Each search stays within its share, so cutting reads each entry's row once at most. */
static void abc_cut(abc_ctx *x)
{
    x->cut[0] = 0;
    x->cut[x->parts] = x->count;
    for (size_t k = x->parts - 1; k > 0; k--) {
        size_t i = zkpipe__pool_share(x->count, x->parts, k);
        size_t next = zkpipe__pool_share(x->count, x->parts, k + 1);
        while (i < next && entry_row(x, i) == entry_row(x, i - 1))
            i++;
        x->cut[k] = i < next ? i : x->cut[k + 1];
    }
}

static void abc_zero(void *arg, size_t begin, size_t end, unsigned worker)
{
    abc_ctx *x = (abc_ctx *)arg;
    (void)worker;
    memset(x->a + 4 * begin, 0, (end - begin) * ZKPIPE__FR_BYTES);
    memset(x->b + 4 * begin, 0, (end - begin) * ZKPIPE__FR_BYTES);
}

static void abc_check(void *arg, size_t begin, size_t end, unsigned worker)
{
    abc_ctx *x = (abc_ctx *)arg;
    (void)worker;
    for (size_t k = begin; k < end; k++) {
        size_t i0 = x->cut[k], i1 = x->cut[k + 1];
        int ok = i0 == 0 || i0 >= i1 || entry_row(x, i0) > entry_row(x, i0 - 1);
        for (size_t i = i0 + 1; ok && i < i1; i++)
            ok = entry_row(x, i) >= entry_row(x, i - 1);
        x->ordered[k] = (unsigned char)ok;
        x->lo[k] = i0 < i1 ? entry_row(x, i0) : 0;
        x->hi[k] = i0 < i1 ? entry_row(x, i1 - 1) : 0;
    }
}

static void abc_add(void *arg, size_t begin, size_t end, unsigned worker)
{
    abc_ctx *x = (abc_ctx *)arg;
    (void)worker;
    for (size_t k = begin; k < end; k++) {
        size_t i0 = x->cut[k], i1 = x->cut[k + 1];
        size_t lo = x->lo[k], hi = (size_t)x->hi[k] + 1;
        x->skipped[k] = x->c->fr_accumulate_entries(
            x->a, x->b, x->entries + i0 * ZKPIPE__G16_COEFF_BYTES, i1 - i0, ZKPIPE__G16_COEFF_BYTES,
            x->w, lo, hi < x->rows ? hi : x->rows, x->wires);
    }
}

size_t zkpipe__g16_coeffs_add(uint64_t *a, uint64_t *b, const zkpipe_groth16_pk *pk,
                              const uint64_t *witness, size_t rows, size_t min_part,
                              zkpipe_pool *pool)
{
    abc_ctx x = {.c = pk->c,
                 .entries = pk->coeffs,
                 .count = pk->num_coeffs,
                 .rows = rows,
                 .wires = pk->num_inputs + pk->num_aux,
                 .w = witness,
                 .a = a,
                 .b = b};
    size_t threads = zkpipe_pool_threads(pool), most = x.count / (min_part > 0 ? min_part : 1);
    x.parts = threads < most ? threads : most;
    if (x.parts > ABC_MAX_PARTS)
        x.parts = ABC_MAX_PARTS;
    zkpipe_pool_parallel_for(pool, rows, 4096, abc_zero, &x);
    int ordered = x.parts > 1;
    if (ordered) {
        abc_cut(&x);
        zkpipe_pool_parallel_for(pool, x.parts, 1, abc_check, &x);
        for (size_t k = 0; k < x.parts; k++)
            ordered &= x.ordered[k];
    }
    if (!ordered)
        return x.c->fr_accumulate_entries(a, b, x.entries, x.count, ZKPIPE__G16_COEFF_BYTES,
                                          witness, 0, rows, x.wires);
    zkpipe_pool_parallel_for(pool, x.parts, 1, abc_add, &x);
    size_t skipped = 0;
    for (size_t k = 0; k < x.parts; k++)
        skipped += x.skipped[k];
    return skipped;
}

zkpipe_status zkpipe__g16_witness_abc(zkpipe__synth_result *res, const zkpipe_groth16_pk *pk,
                                      const uint64_t *witness, zkpipe_pool *pool,
                                      zkpipe_ledger *ledger, const zkpipe_allocator *allocator)
{
    if (pk->coeffs == NULL)
        return ZKPIPE_EINVAL;
    const zkpipe__curve_ops *c = pk->c;
    zkpipe__synth_result r;
    memset(&r, 0, sizeof r);
    r.curve = c->curve;
    r.log_n = pk->log_n;
    r.n = (size_t)1 << pk->log_n;
    r.num_inputs = pk->num_inputs;
    r.num_aux = pk->num_aux;
    r.assignment = witness;
    r.ledger = ledger;
    r.allocator = *allocator;
    size_t bytes = r.n * ZKPIPE__FR_BYTES;
    uint64_t **v[3] = {&r.a, &r.b, &r.c};
    for (int k = 0; k < 3; k++) {
        zkpipe_status st = ZKPIPE_ENOMEM;
        uint64_t *p = (uint64_t *)zkpipe__alloc(allocator, bytes, ABC_ALIGN);
        if (p != NULL && ledger != NULL &&
            (st = zkpipe_ledger_charge(ledger, ZKPIPE_KIND_ABC, bytes)) != ZKPIPE_OK) {
            zkpipe__free(allocator, p);
            p = NULL;
        }
        if (p == NULL) {
            zkpipe__synth_free(&r);
            return st;
        }
        *v[k] = p;
    }
    if (zkpipe__g16_coeffs_add(r.a, r.b, pk, witness, r.n, ABC_MIN_PART, pool) != 0) {
        zkpipe__synth_free(&r);
        return ZKPIPE_EIO; /* the zkey was rewritten under its mapping */
    }
    zkpipe__pages_drop(pk->map, pk->map_len, pk->coeffs, pk->num_coeffs * ZKPIPE__G16_COEFF_BYTES);
    c->fr_vec_mul(r.c, r.a, r.b, r.n, pool);
    *res = r;
    return ZKPIPE_OK;
}
