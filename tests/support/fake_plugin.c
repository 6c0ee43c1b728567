/* A stand-in for libzkpipe_cuda that needs no CUDA (tests/test_plugin.c, mode `fake`): its
 * "device" is always usable and every call on it fails, after charging and releasing a
 * device-sized buffer through the core's ledger functions, so the test sees the core load a
 * plug-in, dispatch into its table, and relay its failure. With ZKPIPE_TEST_FAKE_REFUSE set
 * its entry point refuses the core, as a plug-in of another release does. */
#include <stdlib.h>
#include <string.h>

#include "groth16/backend_plugin.h"

/* The bytes each call charges as ZKPIPE_KIND_DEVICE before it fails. */
#define FAKE_DEVICE_BYTES (1u << 20)

static zkpipe__plugin_host host;

static zkpipe_status fail_after_charging(zkpipe_ledger *ledger)
{
    if (ledger != NULL) {
        zkpipe_status st = host.ledger_charge(ledger, ZKPIPE_KIND_DEVICE, FAKE_DEVICE_BYTES);
        if (st != ZKPIPE_OK)
            return st;
        host.ledger_release(ledger, ZKPIPE_KIND_DEVICE, FAKE_DEVICE_BYTES);
    }
    return ZKPIPE_EDEVICE;
}

static zkpipe_status fake_h(const zkpipe__curve_ops *c, uint64_t *a, uint64_t *b, uint64_t *cc,
                            unsigned log_n, const uint64_t *shift, int coefficients,
                            zkpipe_pool *pool, zkpipe_ledger *ledger, const zkpipe_allocator *work)
{
    (void)c, (void)a, (void)b, (void)cc, (void)log_n, (void)shift, (void)coefficients;
    (void)pool, (void)work;
    return fail_after_charging(ledger);
}

static zkpipe_status fake_msm_g1(const zkpipe__curve_ops *c, zkpipe__g1 *out, const uint64_t *bases,
                                 const uint64_t *scalars, const uint64_t *density, size_t nvars,
                                 zkpipe_pool *pool, zkpipe_ledger *ledger,
                                 const zkpipe_allocator *work)
{
    (void)c, (void)out, (void)bases, (void)scalars, (void)density, (void)nvars, (void)pool;
    (void)work;
    return fail_after_charging(ledger);
}

static const char *fake_last_error(void)
{
    return "fake device: every call fails";
}

static int fake_probe(const char **why)
{
    *why = "a fake CUDA device is present";
    return 1;
}

static const zkpipe__g16_backend fake_backend = {
    .id = ZKPIPE_BACKEND_CUDA,
    .name = "cuda",
    .device = 1,
    .h = fake_h,
    .msm_g1 = fake_msm_g1,
    .msm_g2 = NULL,
    .last_error = fake_last_error,
    .probe = fake_probe,
};

__attribute__((visibility("default"))) zkpipe__plugin_entry_fn zkpipe__cuda_plugin_entry;

zkpipe_status zkpipe__cuda_plugin_entry(const zkpipe__plugin_host *h,
                                        const zkpipe__g16_backend **out, const char **why)
{
    if (getenv("ZKPIPE_TEST_FAKE_REFUSE") != NULL) {
        *why = "this plug-in serves only zkpipe 9.9.9 (the release it was built with)";
        return ZKPIPE_EUNSUPPORTED;
    }
    memcpy(&host, h, sizeof host);
    *out = &fake_backend;
    return ZKPIPE_OK;
}
