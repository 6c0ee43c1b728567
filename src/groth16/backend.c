/* The CPU backend of the prover's table, and the one place a requested backend becomes a table:
 * the CPU's, or CUDA's from its plug-in (groth16/backend_plugin.h). */
#include "groth16/backend_plugin.h"
#include "groth16/prove.h"

static zkpipe_status cpu_h(const zkpipe__curve_ops *c, uint64_t *a, uint64_t *b, uint64_t *cc,
                           unsigned log_n, const uint64_t *shift, int coefficients,
                           zkpipe_pool *pool, zkpipe_ledger *ledger, const zkpipe_allocator *work)
{
    zkpipe__domain *d;
    (void)ledger;
    zkpipe_status st = c->domain_create(&d, log_n, pool, work);
    if (st != ZKPIPE_OK)
        return st;
    uint64_t *v[3] = {a, b, cc};
    for (int k = 0; k < 3 && st == ZKPIPE_OK; k++) {
        st = c->intt(v[k], d, pool);
        if (st == ZKPIPE_OK)
            st = c->coset_ntt(v[k], d, shift, pool);
    }
    if (st == ZKPIPE_OK)
        c->fr_vec_mul_sub(a, a, b, cc, (size_t)1 << log_n, pool);
    if (st == ZKPIPE_OK && coefficients) {
        st = c->divide_by_vanishing_on_coset(a, d, shift, pool);
        if (st == ZKPIPE_OK)
            st = c->coset_intt(a, d, shift, pool);
    }
    c->domain_destroy(d);
    return st;
}

static zkpipe_status cpu_msm_g1(const zkpipe__curve_ops *c, zkpipe__g1 *out, const uint64_t *bases,
                                const uint64_t *scalars, const uint64_t *density, size_t nvars,
                                zkpipe_pool *pool, zkpipe_ledger *ledger,
                                const zkpipe_allocator *work)
{
    (void)ledger;
    return c->msm_g1(out, bases, scalars, density, nvars, 0, pool, work);
}

static zkpipe_status cpu_msm_g2(const zkpipe__curve_ops *c, zkpipe__g2 *out, const uint64_t *bases,
                                const uint64_t *scalars, const uint64_t *density, size_t nvars,
                                zkpipe_pool *pool, zkpipe_ledger *ledger,
                                const zkpipe_allocator *work)
{
    (void)ledger;
    return c->msm_g2(out, bases, scalars, density, nvars, 0, pool, work);
}

const zkpipe__g16_backend zkpipe__g16_backend_cpu = {
    .id = ZKPIPE_BACKEND_CPU,
    .name = "cpu",
    .device = 0,
    .h = cpu_h,
    .msm_g1 = cpu_msm_g1,
    .msm_g2 = cpu_msm_g2,
    .last_error = NULL,
    .probe = NULL,
};

zkpipe_status zkpipe__g16_backend_resolve(const zkpipe__g16_backend **out, zkpipe_backend requested,
                                          const char **why)
{
    if (out == NULL || zkpipe_backend_name(requested) == NULL)
        return ZKPIPE_EINVAL;
    if (requested == ZKPIPE_BACKEND_CPU) {
        if (why != NULL)
            *why = "the CPU backend was requested";
        *out = &zkpipe__g16_backend_cpu;
        return ZKPIPE_OK;
    }
    const zkpipe__g16_backend *cuda;
    zkpipe__g16_cuda_backend(&cuda, requested, why);
    if (cuda == NULL && requested == ZKPIPE_BACKEND_CUDA)
        return ZKPIPE_ENODEVICE;
    *out = cuda != NULL ? cuda : &zkpipe__g16_backend_cpu;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_backend_resolve(zkpipe_backend *out, zkpipe_backend requested,
                                     const char **why)
{
    const zkpipe__g16_backend *be;
    if (out == NULL)
        return ZKPIPE_EINVAL;
    zkpipe_status st = zkpipe__g16_backend_resolve(&be, requested, why);
    if (st == ZKPIPE_OK)
        *out = be->id;
    return st;
}
