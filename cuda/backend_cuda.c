/* The CUDA backend of the prover's table (groth16/prove.h), and the plug-in's entry point that
 * hands it to the core (groth16/backend_plugin.h): h and the G1 MSMs on the device
 * through the launchers of cuda_backend.h; no G2 MSM, so the prover runs the CPU's beside the
 * device (cuda/msm_impl.cuh says why G2 stays on the CPU). The device computes the same field
 * and group elements as the CPU, so a proof's bytes do not depend on the backend. */
#include <string.h>

#include "cuda/cuda_backend.h"
#include "groth16/backend_plugin.h"
#include "groth16/prove.h"
#include "zkpipe/version.h"

/* The core's functions, copied by the entry point, which the core calls (once) before it
 * reaches anything else here. A launcher called before that (a test calling one directly
 * without resolving a backend first) cannot charge: ZKPIPE_ESTATE. */
static zkpipe__plugin_host host;

zkpipe_status zkpipe__cuda_charge(zkpipe_ledger *ledger, uint32_t kind, uint64_t bytes)
{
    return host.ledger_charge != NULL ? host.ledger_charge(ledger, kind, bytes) : ZKPIPE_ESTATE;
}

zkpipe_status zkpipe__cuda_release(zkpipe_ledger *ledger, uint32_t kind, uint64_t bytes)
{
    return host.ledger_release != NULL ? host.ledger_release(ledger, kind, bytes) : ZKPIPE_ESTATE;
}

static zkpipe_status cuda_h(const zkpipe__curve_ops *c, uint64_t *a, uint64_t *b, uint64_t *cc,
                            unsigned log_n, const uint64_t *shift, int coefficients,
                            zkpipe_pool *pool, zkpipe_ledger *ledger, const zkpipe_allocator *work)
{
    (void)pool;
    (void)work;
    switch (c->curve) {
    case ZKPIPE_CURVE_BLS12_381:
        return zkpipe__cuda_h_bls12_381_fr(a, a, b, cc, log_n, shift, coefficients, ledger);
    case ZKPIPE_CURVE_BN254:
        return zkpipe__cuda_h_bn254_fr(a, a, b, cc, log_n, shift, coefficients, ledger);
    default:
        return ZKPIPE_EINVAL;
    }
}

static zkpipe_status cuda_msm_g1(const zkpipe__curve_ops *c, zkpipe__g1 *out, const uint64_t *bases,
                                 const uint64_t *scalars, const uint64_t *density, size_t nvars,
                                 zkpipe_pool *pool, zkpipe_ledger *ledger,
                                 const zkpipe_allocator *work)
{
    zkpipe_status st = ZKPIPE_EINVAL;
    (void)pool;
    (void)work;
    if (c->curve == ZKPIPE_CURVE_BLS12_381) {
        bls12_381_g1 r;
        st = zkpipe__cuda_msm_bls12_381_g1(&r, (const bls12_381_g1_affine *)bases, scalars, density,
                                           nvars, 0, ledger);
        if (st == ZKPIPE_OK)
            memcpy(out->w, &r, sizeof r);
    } else if (c->curve == ZKPIPE_CURVE_BN254) {
        bn254_g1 r;
        st = zkpipe__cuda_msm_bn254_g1(&r, (const bn254_g1_affine *)bases, scalars, density, nvars,
                                       0, ledger);
        if (st == ZKPIPE_OK)
            memcpy(out->w, &r, sizeof r);
    }
    return st;
}

static const zkpipe__g16_backend cuda_backend = {
    .id = ZKPIPE_BACKEND_CUDA,
    .name = "cuda",
    .device = 1,
    .h = cuda_h,
    .msm_g1 = cuda_msm_g1,
    .msm_g2 = NULL,
    .last_error = zkpipe__cuda_last_error,
    .probe = zkpipe__cuda_probe,
};

/* The one symbol the shared plug-in exports (cuda/plugin.map); in the static library, what
 * zkpipe::cuda_static's link options pull in and the core's weak reference finds. */
__attribute__((visibility("default"))) zkpipe__plugin_entry_fn zkpipe__cuda_plugin_entry;

zkpipe_status zkpipe__cuda_plugin_entry(const zkpipe__plugin_host *h,
                                        const zkpipe__g16_backend **out, const char **why)
{
    if (h == NULL || out == NULL || why == NULL)
        return ZKPIPE_EINVAL;
    if (h->struct_size < sizeof host || h->abi != ZKPIPE__PLUGIN_ABI || h->version == NULL ||
        strcmp(h->version, ZKPIPE_VERSION_STRING) != 0) {
        *why = "this plug-in serves only zkpipe " ZKPIPE_VERSION_STRING
               " (the release it was built with)";
        return ZKPIPE_EUNSUPPORTED;
    }
    memcpy(&host, h, sizeof host);
    *out = &cuda_backend;
    return ZKPIPE_OK;
}
