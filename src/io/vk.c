/* snarkjs verifying keys (from verification_key.json or a zkey's header) and the verifier. */
#include <string.h>

#include "core/alloc_internal.h"
#include "io/io_internal.h"

zkpipe_status zkpipe__io_vk_alloc(zkpipe_snarkjs_vk **out, const zkpipe__io_curve *curve,
                                  size_t num_public, const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (a == NULL)
        return ZKPIPE_EINVAL;
    size_t g1 = 2 * curve->fq_limbs, g2 = 4 * curve->fq_limbs;
    if (num_public >= (SIZE_MAX / 8 - 3 * g2 - sizeof(zkpipe_snarkjs_vk)) / g1 - 2)
        return ZKPIPE_EOVERFLOW;
    size_t words = g1 + 3 * g2 + (num_public + 1) * g1;
    zkpipe_snarkjs_vk *vk =
        (zkpipe_snarkjs_vk *)zkpipe__alloc(a, sizeof *vk + words * sizeof(uint64_t), 64);
    if (vk == NULL)
        return ZKPIPE_ENOMEM;
    memset(vk, 0, sizeof *vk);
    vk->allocator = *a;
    vk->curve = curve;
    vk->points = (uint64_t *)(vk + 1);
    vk->view.alpha1 = vk->points;
    vk->view.beta2 = vk->points + g1;
    vk->view.gamma2 = vk->view.beta2 + g2;
    vk->view.delta2 = vk->view.gamma2 + g2;
    vk->view.ic = vk->view.delta2 + g2;
    vk->view.num_public = num_public;
    *out = vk;
    return ZKPIPE_OK;
}

void zkpipe_snarkjs_vk_destroy(zkpipe_snarkjs_vk *vk)
{
    if (vk != NULL) {
        zkpipe_allocator a = vk->allocator;
        zkpipe__free(&a, vk);
    }
}

zkpipe_curve zkpipe_snarkjs_vk_curve(const zkpipe_snarkjs_vk *vk)
{
    return vk != NULL ? vk->curve->curve : ZKPIPE_CURVE_COUNT;
}

size_t zkpipe_snarkjs_vk_num_public(const zkpipe_snarkjs_vk *vk)
{
    return vk != NULL ? vk->view.num_public : 0;
}

zkpipe_status zkpipe_snarkjs_verify(const zkpipe_snarkjs_vk *vk, const zkpipe_scalar *inputs,
                                    size_t n, const zkpipe_groth16_proof *proof)
{
    if (vk == NULL || proof == NULL || (inputs == NULL && n > 0))
        return ZKPIPE_EINVAL;
    if (n != vk->view.num_public || proof->curve != vk->curve->curve ||
        proof->size != vk->curve->proof_bytes)
        return ZKPIPE_EMISMATCH;
    uint64_t a[12], b[24], c[12];
    zkpipe_status st = vk->curve->proof_unpack(a, b, c, proof->bytes);
    if (st != ZKPIPE_OK)
        return st;
    return vk->curve->verify(&vk->view, n > 0 ? inputs[0].l : NULL, a, b, c);
}
