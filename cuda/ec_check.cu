/* Proof that the curve headers compile as device code: one kernel running the header-only
 * point arithmetic of every group. It is built (never launched) whenever the CUDA backend is. */
#include "ec/bls12_381_g1.h"
#include "ec/bls12_381_g2.h"
#include "ec/bn254_g1.h"
#include "ec/bn254_g2.h"

/* Per thread, for each group: p = 2 (a + b) + c and q = p - c, compared so nothing is
 * optimised away; writes 0 or 1 per thread. (The MSM kernels use add, dbl and add_affine; the
 * rest is small enough not to be worth the device compile time here.) */
#define EC_CHECK(G, a, b, c, ok)                                                                   \
    do {                                                                                           \
        G p, q;                                                                                    \
        G##_affine na;                                                                             \
        G##_add(&p, &a, &b);                                                                       \
        G##_dbl(&p, &p);                                                                           \
        G##_add_affine(&p, &p, &c);                                                                \
        G##_affine_neg(&na, &c);                                                                   \
        G##_add_affine(&q, &p, &na);                                                               \
        ok &= !G##_eq(&p, &q) & !G##_is_infinity(&q);                                              \
    } while (0)

__global__ void __launch_bounds__(128)
    zkpipe__ec_check_kernel(int *out, const bls12_381_g1 *g1, const bls12_381_g2 *g2,
                            const bls12_381_g1_affine *a1, const bls12_381_g2_affine *a2,
                            const bn254_g1 *h1, const bn254_g2 *h2, const bn254_g1_affine *b1,
                            const bn254_g2_affine *b2, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1 >= n)
        return;
    int ok = 1;
    EC_CHECK(bls12_381_g1, g1[i], g1[i + 1], a1[i], ok);
    EC_CHECK(bls12_381_g2, g2[i], g2[i + 1], a2[i], ok);
    EC_CHECK(bn254_g1, h1[i], h1[i + 1], b1[i], ok);
    EC_CHECK(bn254_g2, h2[i], h2[i + 1], b2[i], ok);
    out[i] = ok;
}
