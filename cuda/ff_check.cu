/* Proof that the field headers compile as device code: one kernel touching every field and
 * tower level. It is built (never launched) whenever the CUDA backend is. */
#include "ff/bls12_381_fq12.h"
#include "ff/bls12_381_fr.h"
#include "ff/bn254_fq12.h"
#include "ff/bn254_fr.h"

/* Per thread: prime-field arithmetic, square roots and encodings on elements of `in`, and the
 * Fq12 operations the pairing uses; writes 0 or 1 per thread so nothing is optimised away. */
__global__ void __launch_bounds__(128)
    zkpipe__ff_check_kernel(int *out, const bls12_381_fq12 *x, const bn254_fq12 *y, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int ok = 1;

    bls12_381_fq12 a = x[i], b;
    bls12_381_fq12_cyclotomic_sqr(&b, &a);
    bls12_381_fq12_mul_by_014(&b, &b, &a.c0.c0, &a.c0.c1, &a.c1.c1);
    bls12_381_fq12_frobenius(&b, &b, 2);
    ok &= bls12_381_fq12_inv(&b, &b);
    bls12_381_fq12_mul(&b, &b, &a);
    ok &= bls12_381_fq2_sqrt(&b.c0.c0, &a.c0.c0);
    uint8_t bytes[bls12_381_fq_BYTES];
    bls12_381_fq_to_bytes_be(bytes, &b.c0.c0.c0);
    ok &= bls12_381_fq_from_bytes_be(&b.c0.c0.c1, bytes);
    bls12_381_fr s, t;
    bls12_381_fr_from_u64(&s, i);
    ok &= bls12_381_fr_sqrt(&t, &s);
    ok &= bls12_381_fr_inv(&t, &t);

    bn254_fq12 c = y[i], d;
    bn254_fq12_cyclotomic_sqr(&d, &c);
    bn254_fq12_mul_by_034(&d, &d, &c.c0.c0, &c.c1.c0, &c.c1.c1);
    bn254_fq12_frobenius(&d, &d, 3);
    bn254_fq12_sqr(&d, &d);
    ok &= bn254_fq12_inv(&d, &d);
    ok &= bn254_fq2_sqrt(&d.c0.c0, &c.c0.c0);
    bn254_fr u, v, scratch;
    bn254_fr_from_u64(&u, i);
    ok &= bn254_fr_sqrt(&v, &u);
    bn254_fr_batch_inv(&u, &v, 1, &scratch);
    ok &= bn254_fq_legendre(&d.c0.c0.c0) >= 0;

    out[i] = ok & bls12_381_fq12_is_one(&b) & bn254_fq12_is_zero(&d);
}
