/* The per-curve code behind zkpipe__io_curve, written once: point checks, conversions, proof
 * encodings, the pairing check, the r1cs check and the snarkjs-compatible prover. Included by
 * curve_<curve>.c after groth16/groth16_names.h, with FQ (the base field), G16_C, CURVE,
 * SNARKJS_NAME and the proof codecs (proof_g1_write/_read, proof_g2_write/_read,
 * PROOF_G1_BYTES, PROOF_G2_BYTES) defined. Every name here is static but the table. */
#include <stdatomic.h>
#include <string.h>

#include "acct/charged_alloc.h"
#include "core/alloc_internal.h"
#include "groth16/groth16_internal.h"
#include "io/io_internal.h"
#include "msm/msm.h"
#include "poly/ntt.h"

#define FQ_LIMBS G16_CAT(FQ, _LIMBS)
#define FQ_MODULUS G16_CAT(FQ, _MODULUS)
#define FQF(op) G16_CAT(FQ, _##op)
#define TABLE G16_CAT(zkpipe__io_, G16_C)
/* uint64_t words per point */
#define G1_WORDS (2 * FQ_LIMBS)
#define G2_WORDS (4 * FQ_LIMBS)

/* A point (2 or 4 coordinates) from Montgomery limbs: every coordinate below q, on the curve,
 * and in the subgroup when `subgroup`. */
static zkpipe_status check_one(const uint8_t *p, int g2, int subgroup)
{
    uint64_t w[G2_WORDS];
    size_t coords = g2 ? 4 : 2;
    memcpy(w, p, coords * FQ_LIMBS * sizeof(uint64_t));
    for (size_t i = 0; i < coords; i++)
        if (!zkpipe__io_lt(w + i * FQ_LIMBS, FQ_MODULUS, FQ_LIMBS))
            return ZKPIPE_ENONCANONICAL;
    if (g2) {
        G2A pt;
        memcpy(&pt, w, sizeof pt);
        if (!G2F(is_on_curve)(&pt))
            return ZKPIPE_ENOTONCURVE;
        return !subgroup || G2F(is_in_subgroup)(&pt) ? ZKPIPE_OK : ZKPIPE_ENOTINSUBGROUP;
    }
    G1A pt;
    memcpy(&pt, w, sizeof pt);
    if (!G1F(is_on_curve)(&pt))
        return ZKPIPE_ENOTONCURVE;
    return !subgroup || G1F(is_in_subgroup)(&pt) ? ZKPIPE_OK : ZKPIPE_ENOTINSUBGROUP;
}

typedef struct check_ctx {
    const uint8_t *p;
    size_t stride;
    int g2, subgroup;
    atomic_size_t bad; /* the lowest bad index found so far */
} check_ctx;

static void check_range(void *arg, size_t begin, size_t end, unsigned worker)
{
    check_ctx *ctx = (check_ctx *)arg;
    (void)worker;
    for (size_t i = begin; i < end; i++) {
        if (i >= atomic_load_explicit(&ctx->bad, memory_order_relaxed))
            return;
        if (check_one(ctx->p + i * ctx->stride, ctx->g2, ctx->subgroup) == ZKPIPE_OK)
            continue;
        size_t cur = atomic_load(&ctx->bad);
        while (i < cur && !atomic_compare_exchange_weak(&ctx->bad, &cur, i)) {
        }
        return;
    }
}

static zkpipe_status check_points(size_t *bad, const uint8_t *p, size_t n, int g2, int subgroup,
                                  zkpipe_pool *pool)
{
    check_ctx ctx = {p, (g2 ? G2_WORDS : G1_WORDS) * sizeof(uint64_t), g2, subgroup, n};
    zkpipe_pool_parallel_for(pool, n, 256, check_range, &ctx);
    *bad = atomic_load(&ctx.bad);
    return *bad < n ? check_one(p + *bad * ctx.stride, g2, subgroup) : ZKPIPE_OK;
}

static zkpipe_status subgroup_batch(int *all, const uint64_t *p, size_t n, int g2,
                                    zkpipe_pool *pool, const zkpipe_allocator *a)
{
    if (g2)
        return G16_CAT(G16_CAT(zkpipe__msm_, G2), _subgroup_check)(all, (const G2A *)p, n,
                                                                   zkpipe__g16_os_random, pool, a);
    return G16_CAT(G16_CAT(zkpipe__msm_, G1), _subgroup_check)(all, (const G1A *)p, n,
                                                               zkpipe__g16_os_random, pool, a);
}

static zkpipe_status point_from_canonical(uint64_t *out, const uint64_t *coords, int g2)
{
    FQ f[4];
    size_t ncoords = g2 ? 4 : 2;
    for (size_t i = 0; i < ncoords; i++)
        if (!FQF(from_canonical)(&f[i], coords + i * FQ_LIMBS))
            return ZKPIPE_ENONCANONICAL;
    zkpipe_status st = check_one((const uint8_t *)f, g2, 1);
    if (st == ZKPIPE_OK)
        memcpy(out, f, ncoords * sizeof(FQ));
    return st;
}

static void point_to_canonical(uint64_t *coords, const uint64_t *point, int g2)
{
    size_t ncoords = g2 ? 4 : 2;
    for (size_t i = 0; i < ncoords; i++) {
        FQ f;
        memcpy(&f, point + i * FQ_LIMBS, sizeof f);
        FQF(to_canonical)(coords + i * FQ_LIMBS, &f);
    }
}

static void proof_pack(uint8_t *proof, const uint64_t *a, const uint64_t *b, const uint64_t *c)
{
    G1A pa, pc;
    G2A pb;
    memcpy(&pa, a, sizeof pa);
    memcpy(&pb, b, sizeof pb);
    memcpy(&pc, c, sizeof pc);
    proof_g1_write(proof, &pa);
    proof_g2_write(proof + PROOF_G1_BYTES, &pb);
    proof_g1_write(proof + PROOF_G1_BYTES + PROOF_G2_BYTES, &pc);
}

static zkpipe_status proof_unpack(uint64_t *a, uint64_t *b, uint64_t *c, const uint8_t *proof)
{
    G1A pa, pc;
    G2A pb;
    zkpipe_status st = proof_g1_read(&pa, proof);
    if (st == ZKPIPE_OK)
        st = proof_g2_read(&pb, proof + PROOF_G1_BYTES);
    if (st == ZKPIPE_OK)
        st = proof_g1_read(&pc, proof + PROOF_G1_BYTES + PROOF_G2_BYTES);
    if (st == ZKPIPE_OK) {
        memcpy(a, &pa, sizeof pa);
        memcpy(b, &pb, sizeof pb);
        memcpy(c, &pc, sizeof pc);
    }
    return st;
}

/* e(A, B) = e(alpha, beta) e(IC, gamma) e(C, delta), checked as a product of four pairings
 * (with -A) equal to 1. */
static zkpipe_status verify(const zkpipe__io_vk_view *vk, const uint64_t *inputs, const uint64_t *a,
                            const uint64_t *b, const uint64_t *c)
{
    G1A p[4];
    G2A q[4];
    G1 acc, t;
    G1A pt;
    memcpy(&pt, vk->ic, sizeof pt);
    G1F(from_affine)(&acc, &pt);
    for (size_t i = 0; i < vk->num_public; i++) {
        FR x;
        if (!FRF(from_canonical)(&x, inputs + 4 * i))
            return ZKPIPE_ENONCANONICAL;
        memcpy(&pt, vk->ic + (i + 1) * G1_WORDS, sizeof pt);
        G1F(from_affine)(&t, &pt);
        G1F(mul)(&t, &t, &x);
        G1F(add)(&acc, &acc, &t);
    }
    memcpy(&pt, a, sizeof pt);
    G1F(affine_neg)(&p[0], &pt);
    memcpy(&p[1], vk->alpha1, sizeof p[1]);
    G1F(to_affine)(&p[2], &acc);
    memcpy(&p[3], c, sizeof p[3]);
    memcpy(&q[0], b, sizeof q[0]);
    memcpy(&q[1], vk->beta2, sizeof q[1]);
    memcpy(&q[2], vk->gamma2, sizeof q[2]);
    memcpy(&q[3], vk->delta2, sizeof q[3]);
    return PAIRING(pairing_check)(p, q, 4) ? ZKPIPE_OK : ZKPIPE_EVERIFY;
}

/* <L, w> for the linear combination at *p (validated at open), advancing *p past it. */
static void lc_eval(FR *out, const uint8_t **p, const uint64_t *witness)
{
    const uint8_t *q = *p;
    uint32_t terms = zkpipe__io_u32(q);
    q += 4;
    FRF(set_zero)(out);
    for (uint32_t k = 0; k < terms; k++, q += 36) {
        uint64_t limbs[4];
        FR coef = {{0}}, w = {{0}}; /* both below r (checked at open), so always set */
        zkpipe__io_limbs_le(limbs, q + 4, 4);
        FRF(from_canonical)(&coef, limbs);
        FRF(from_canonical)(&w, witness + 4 * (size_t)zkpipe__io_u32(q));
        FRF(mul)(&coef, &coef, &w);
        FRF(add)(out, out, &coef);
    }
    *p = q;
}

static zkpipe_status r1cs_check(size_t *bad, const uint8_t *constraints, size_t num_constraints,
                                const uint64_t *witness)
{
    const uint8_t *p = constraints;
    for (size_t i = 0; i < num_constraints; i++) {
        FR a, b, c;
        lc_eval(&a, &p, witness);
        lc_eval(&b, &p, witness);
        lc_eval(&c, &p, witness);
        FRF(mul)(&a, &a, &b);
        if (!FRF(eq)(&a, &c)) {
            *bad = i;
            return ZKPIPE_EUNSATISFIED;
        }
    }
    return ZKPIPE_OK;
}

#include "io/prove_impl.h"
#ifdef ZKPIPE_HAVE_CUDA
#include "io/gpu_prove_impl.h"
#define PROVE_CUDA prove_cuda
#else
#define PROVE_CUDA NULL
#endif

const zkpipe__io_curve TABLE = {
    .curve = CURVE,
    .name = SNARKJS_NAME,
    .fq_limbs = FQ_LIMBS,
    .fq_bytes = 8 * FQ_LIMBS,
    .q = FQ_MODULUS,
    .r = G16_CAT(FR, _MODULUS),
    .proof_bytes = 2 * PROOF_G1_BYTES + PROOF_G2_BYTES,
    .two_adicity = FR_TWO_ADICITY,
    .check_points = check_points,
    .subgroup_batch = subgroup_batch,
    .point_from_canonical = point_from_canonical,
    .point_to_canonical = point_to_canonical,
    .proof_pack = proof_pack,
    .proof_unpack = proof_unpack,
    .verify = verify,
    .r1cs_check = r1cs_check,
    .prove = prove,
    .prove_cuda = PROVE_CUDA,
};
