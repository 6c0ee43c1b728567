/* The prover's steps on the CUDA backend (built with ZKPIPE_HAVE_CUDA): h's NTTs and the G1
 * MSMs run on the GPU (cuda/cuda_backend.h), B (G2) on a CPU thread with the pool meanwhile
 * (prove_impl.h's g2_job; cuda/msm_impl.cuh says why G2 stays on the CPU). The sums are the same
 * group elements as the CPU's, so the proof's bytes are too. Part of the per-curve template. */
#include "cuda/cuda_backend.h"

#define CUDA_QUOTIENT G16_CAT(zkpipe__cuda_quotient_, FR)
#define CUDA_MSM1 G16_CAT(zkpipe__cuda_msm_, G1)

/* h on the GPU; a, b and c are released once h exists, as on the CPU. */
static zkpipe_status compute_h_cuda(FR **h, zkpipe__synth_result *res, zkpipe_pool *pool)
{
    FR g;
    (void)pool;
    coset_shift(&g);
    zkpipe_status st = h_take(h, res);
    if (st == ZKPIPE_OK && (st = CUDA_QUOTIENT((*h)->l, res->a, res->b, res->c, res->log_n, g.l,
                                               res->ledger)) != ZKPIPE_OK)
        h_drop(h, res);
    if (st == ZKPIPE_OK)
        zkpipe__synth_free_abc(res);
    return st;
}

/* msm_z_g1 with the aux part on the GPU; the few inputs stay on the CPU. */
static zkpipe_status msm_z_g1_cuda(G1 *out, const G1A *bases, int k, const PK *pk,
                                   const zkpipe__synth_result *res)
{
    const uint64_t *in_bits = pk->density + (size_t)k * pk->words;
    const uint64_t *aux_bits = pk->aux_density + (size_t)k * pk->words;
    G1 aux;
    zkpipe_status st =
        MSM1(out, bases, res->input, in_bits, res->num_inputs, NULL, NULL, &pk->base.allocator);
    if (st == ZKPIPE_OK)
        st = CUDA_MSM1(&aux, bases + pk->inputs_dense[k], res->aux, aux_bits, res->num_aux, 0,
                       res->ledger);
    if (st == ZKPIPE_OK)
        G1F(add)(out, out, &aux);
    return st;
}

/* msm_g1_all on the GPU. */
static zkpipe_status msm_g1_all_cuda(G1 *A, G1 *B1, G1 *C, const PK *pk,
                                     const zkpipe__synth_result *res, const FR *h,
                                     zkpipe_groth16_timings *t, zkpipe_pool *pool)
{
    double t0 = zkpipe__g16_now();
    G1 hs;
    (void)pool;
    zkpipe_status st = msm_z_g1_cuda(A, pk->a, 0, pk, res);
    double t1 = zkpipe__g16_now();
    if (st == ZKPIPE_OK)
        st = msm_z_g1_cuda(B1, pk->b1, 1, pk, res);
    double t2 = zkpipe__g16_now();
    if (st == ZKPIPE_OK)
        st = CUDA_MSM1(C, pk->l, res->aux, NULL, res->num_aux, 0, res->ledger);
    if (st == ZKPIPE_OK)
        st = CUDA_MSM1(&hs, pk->h, (const uint64_t *)h, NULL, res->n - 1, 0, res->ledger);
    if (st == ZKPIPE_OK)
        G1F(add)(C, C, &hs);
    t->msm_a = t1 - t0;
    t->msm_b1 = t2 - t1;
    t->msm_c = zkpipe__g16_now() - t2;
    return st;
}

static const prove_backend cuda_backend = {compute_h_cuda, msm_g1_all_cuda, 1};

static zkpipe_status prove_cuda(uint8_t *proof, size_t *first_failing, zkpipe_groth16_timings *t,
                                const zkpipe_groth16_pk *base, zkpipe__synth_result *res,
                                const uint64_t *r_limbs, const uint64_t *s_limbs, zkpipe_pool *pool)
{
    return prove_with(&cuda_backend, proof, first_failing, t, base, res, r_limbs, s_limbs, pool);
}
