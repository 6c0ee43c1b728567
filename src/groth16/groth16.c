/* The public Groth16 API (zkpipe/groth16.h): argument checks, then dispatch to the curve's
 * code through its ops table. */
#include <string.h>

#include "core/alloc_internal.h"
#include "core/clock_internal.h"
#include "groth16/groth16_internal.h"

const zkpipe__g16_ops *zkpipe__g16_ops_for(zkpipe_curve curve)
{
    switch (curve) {
    case ZKPIPE_CURVE_BLS12_381:
        return &zkpipe__g16_bls12_381_ops;
    case ZKPIPE_CURVE_BN254:
        return &zkpipe__g16_bn254_ops;
    default:
        return NULL;
    }
}

double zkpipe__g16_now(void)
{
    struct timespec ts = zkpipe__clock_now();
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

zkpipe_status zkpipe_groth16_setup_insecure(zkpipe_groth16_pk **out_pk, zkpipe_groth16_vk **out_vk,
                                            const zkpipe_cs *cs, const uint8_t *seed,
                                            zkpipe_pool *pool, const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out_pk == NULL || out_vk == NULL || cs == NULL || seed == NULL || a == NULL)
        return ZKPIPE_EINVAL;
    uint64_t bytes;
    unsigned log_n;
    zkpipe_status st = zkpipe_cs_synth_bytes(cs, &bytes, &log_n);
    if (st != ZKPIPE_OK)
        return st;
    uint64_t toxic[20];
    zkpipe__g16_toxic_from_seed(toxic, cs->curve, seed, log_n);
    st = zkpipe__g16_ops_for(cs->curve)->setup(out_pk, out_vk, cs, toxic, pool, a);
    memset(toxic, 0, sizeof toxic);
    return st;
}

void zkpipe_groth16_pk_destroy(zkpipe_groth16_pk *pk)
{
    if (pk != NULL)
        zkpipe__free(&pk->allocator, pk);
}

void zkpipe_groth16_vk_destroy(zkpipe_groth16_vk *vk)
{
    if (vk != NULL)
        zkpipe__free(&vk->allocator, vk);
}

void zkpipe_groth16_pvk_destroy(zkpipe_groth16_pvk *pvk)
{
    if (pvk != NULL)
        zkpipe__free(&pvk->allocator, pvk);
}

zkpipe_curve zkpipe_groth16_pk_curve(const zkpipe_groth16_pk *pk)
{
    return pk != NULL ? pk->ops->curve : ZKPIPE_CURVE_COUNT;
}

zkpipe_curve zkpipe_groth16_vk_curve(const zkpipe_groth16_vk *vk)
{
    return vk != NULL ? vk->ops->curve : ZKPIPE_CURVE_COUNT;
}

size_t zkpipe_groth16_pk_num_inputs(const zkpipe_groth16_pk *pk)
{
    return pk != NULL ? pk->num_inputs : 0;
}

size_t zkpipe_groth16_pk_num_aux(const zkpipe_groth16_pk *pk)
{
    return pk != NULL ? pk->num_aux : 0;
}

size_t zkpipe_groth16_pk_num_a(const zkpipe_groth16_pk *pk)
{
    return pk != NULL ? pk->num_a : 0;
}

size_t zkpipe_groth16_pk_num_b(const zkpipe_groth16_pk *pk)
{
    return pk != NULL ? pk->num_b : 0;
}

size_t zkpipe_groth16_vk_num_inputs(const zkpipe_groth16_vk *vk)
{
    return vk != NULL ? vk->num_inputs : 0;
}

size_t zkpipe_groth16_pk_sizeof(const zkpipe_groth16_pk *pk)
{
    return pk != NULL ? pk->bytes : 0;
}

zkpipe_status zkpipe__groth16_prove_synth(zkpipe_groth16_proof *out, size_t *first_failing,
                                          zkpipe_groth16_timings *timings,
                                          const zkpipe_groth16_pk *pk, zkpipe__synth_result *res,
                                          const uint64_t *r, const uint64_t *s, zkpipe_pool *pool,
                                          zkpipe_backend backend)
{
    /* CUDA only where it is built and a device is present (then prove_cuda exists). */
    if (backend != ZKPIPE_BACKEND_CPU &&
        zkpipe_backend_resolve(&backend, backend, NULL) != ZKPIPE_OK) {
        zkpipe__synth_free(res);
        return ZKPIPE_ENODEVICE;
    }
    zkpipe_groth16_proof proof;
    proof.curve = pk->ops->curve;
    proof.size = pk->ops->proof_bytes;
    memset(proof.bytes, 0, sizeof proof.bytes);
    zkpipe_status st = (backend == ZKPIPE_BACKEND_CUDA ? pk->ops->prove_cuda : pk->ops->prove)(
        proof.bytes, first_failing, timings, pk, res, r, s, pool);
    if (st == ZKPIPE_OK)
        *out = proof;
    return st;
}

zkpipe_status zkpipe_groth16_prove(zkpipe_groth16_proof *out, size_t *first_failing,
                                   zkpipe_groth16_timings *timings, const zkpipe_groth16_pk *pk,
                                   const zkpipe_cs *cs, zkpipe_pool *pool, zkpipe_ledger *ledger)
{
    if (out == NULL || pk == NULL || cs == NULL)
        return ZKPIPE_EINVAL;
    if (cs->mode != ZKPIPE_CS_WITNESS)
        return ZKPIPE_ESTATE;
    if (cs->curve != pk->ops->curve || cs->num_inputs != pk->num_inputs ||
        cs->num_aux != pk->num_aux)
        return ZKPIPE_EMISMATCH;
    zkpipe_status st = zkpipe_cs_check(cs, first_failing);
    if (st != ZKPIPE_OK)
        return st;
    uint64_t r[4], s[4];
    if ((st = zkpipe__g16_random_scalar(r, cs->curve)) != ZKPIPE_OK ||
        (st = zkpipe__g16_random_scalar(s, cs->curve)) != ZKPIPE_OK)
        return st;
    double t0 = zkpipe__g16_now();
    zkpipe__synth_result res;
    if ((st = zkpipe__synth(&res, cs, pool, ledger)) != ZKPIPE_OK)
        return st;
    double t1 = zkpipe__g16_now();
    st = zkpipe__groth16_prove_synth(out, first_failing, timings, pk, &res, r, s, pool,
                                     ZKPIPE_BACKEND_CPU);
    if (timings != NULL && st == ZKPIPE_OK) {
        timings->synth = t1 - t0;
        timings->total += t1 - t0;
    }
    return st;
}

zkpipe_status zkpipe_groth16_pvk_create(zkpipe_groth16_pvk **out, const zkpipe_groth16_vk *vk,
                                        const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out == NULL || vk == NULL || a == NULL)
        return ZKPIPE_EINVAL;
    return vk->ops->pvk_create(out, vk, a);
}

zkpipe_status zkpipe_groth16_verify(const zkpipe_groth16_pvk *pvk, const zkpipe_scalar *inputs,
                                    size_t n, const zkpipe_groth16_proof *proof)
{
    if (pvk == NULL || proof == NULL || (inputs == NULL && n > 0) || n + 1 != pvk->num_inputs)
        return ZKPIPE_EINVAL;
    if (proof->curve != pvk->ops->curve)
        return ZKPIPE_EMISMATCH;
    if (proof->size != pvk->ops->proof_bytes)
        return ZKPIPE_EFORMAT;
    return pvk->ops->verify(pvk, inputs, proof->bytes);
}

size_t zkpipe_groth16_proof_size(zkpipe_curve curve)
{
    const zkpipe__g16_ops *ops = zkpipe__g16_ops_for(curve);
    return ops != NULL ? ops->proof_bytes : 0;
}

zkpipe_status zkpipe_groth16_proof_decode(zkpipe_groth16_proof *out, zkpipe_curve curve,
                                          const uint8_t *in, size_t len)
{
    const zkpipe__g16_ops *ops = zkpipe__g16_ops_for(curve);
    if (out == NULL || in == NULL || ops == NULL)
        return ZKPIPE_EINVAL;
    if (len != ops->proof_bytes)
        return ZKPIPE_EFORMAT;
    zkpipe_status st = ops->proof_check(in);
    if (st != ZKPIPE_OK)
        return st;
    out->curve = curve;
    out->size = len;
    memset(out->bytes, 0, sizeof out->bytes);
    memcpy(out->bytes, in, len);
    return ZKPIPE_OK;
}

/* The two-call encode pattern shared by both key kinds. */
static zkpipe_status encode(uint8_t *out, size_t cap, size_t *out_len, size_t need)
{
    *out_len = need;
    if (out == NULL)
        return ZKPIPE_OK;
    return cap < need ? ZKPIPE_ELIMIT : ZKPIPE_OK;
}

zkpipe_status zkpipe_groth16_vk_encode(uint8_t *out, size_t cap, size_t *out_len,
                                       const zkpipe_groth16_vk *vk)
{
    if (vk == NULL || out_len == NULL)
        return ZKPIPE_EINVAL;
    zkpipe_status st = encode(out, cap, out_len, vk->ops->vk_encoded_bytes(vk));
    if (st == ZKPIPE_OK && out != NULL)
        vk->ops->vk_encode(out, vk);
    return st;
}

zkpipe_status zkpipe_groth16_pk_encode(uint8_t *out, size_t cap, size_t *out_len,
                                       const zkpipe_groth16_pk *pk)
{
    if (pk == NULL || out_len == NULL)
        return ZKPIPE_EINVAL;
    zkpipe_status st = encode(out, cap, out_len, pk->ops->pk_encoded_bytes(pk));
    if (st == ZKPIPE_OK && out != NULL)
        pk->ops->pk_encode(out, pk);
    return st;
}

/* The ops of the curve named in a key file's header, or NULL. */
static const zkpipe__g16_ops *file_ops(const uint8_t *in, size_t len)
{
    if (len < ZKPIPE__G16_HEADER_BYTES)
        return NULL;
    uint64_t curve = zkpipe__g16_get_u64(in + 8) >> 32;
    return curve < ZKPIPE_CURVE_COUNT ? zkpipe__g16_ops_for((zkpipe_curve)curve) : NULL;
}

zkpipe_status zkpipe_groth16_vk_decode(zkpipe_groth16_vk **out, const uint8_t *in, size_t len,
                                       const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out == NULL || in == NULL || a == NULL)
        return ZKPIPE_EINVAL;
    const zkpipe__g16_ops *ops = file_ops(in, len);
    return ops != NULL ? ops->vk_decode(out, in, len, a) : ZKPIPE_EFORMAT;
}

zkpipe_status zkpipe_groth16_pk_decode(zkpipe_groth16_pk **out, const uint8_t *in, size_t len,
                                       const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out == NULL || in == NULL || a == NULL)
        return ZKPIPE_EINVAL;
    const zkpipe__g16_ops *ops = file_ops(in, len);
    return ops != NULL ? ops->pk_decode(out, in, len, a) : ZKPIPE_EFORMAT;
}
