/* The GPU NTT's per-thread steps, written once for the device kernels (ntt.cu) and for a host
 * test that runs them serially (tests/test_cuda_host.c) against src/poly's NTT.
 *
 * The transform is src/poly's (poly/ntt.h): a_j <- Σ_i a_i w_n^(ij) with the same root w_n,
 * so the results are equal bit for bit (field results are fully reduced, hence unique). Here it
 * is a bit-reversal permutation into a second buffer, then log_n radix-2 DIT stages, one
 * launch each: stage s combines halves of m = 2^s elements with w_{2m}^k = w_n^(k n / 2m),
 * read from one table of the n/2 powers w_n^k. The inverse is the forward transform read at
 * -j mod n, scaled by 1/n; the coset transforms scale a_i by g^i (g^-i and 1/n after the
 * inverse), snarkjs's convention as in src/poly.
 *
 * ZKPIPE__CUDA_NTT_DEFINE(F) defines zkpipe__cuda_F_<step> for a field F of ff/fp.h. Sizes
 * are below 2^32 (log_n <= 27 for the fields here). */
#ifndef ZKPIPE_CUDA_NTT_KERNEL_H
#define ZKPIPE_CUDA_NTT_KERNEL_H

#include <stdint.h>

#include "ff/hd.h"

/* Elements per thread in the steps that walk powers (twiddles, coset scaling): one
 * exponentiation then CHUNK - 1 multiplications. */
#define ZKPIPE__CUDA_NTT_CHUNK 32u

/* The low `bits` bits of i in reverse order. */
ZKPIPE_HD uint32_t zkpipe__cuda_bit_reverse(uint32_t i, unsigned bits)
{
    uint32_t r = 0;
    for (unsigned b = 0; b < bits; b++)
        r |= (i >> b & 1) << (bits - 1 - b);
    return r;
}

/* Butterfly t (of n/2) of stage s: the positions it combines and its twiddle's table index. */
ZKPIPE_HD void zkpipe__cuda_butterfly_index(uint32_t *lo, uint32_t *hi, uint32_t *w, uint32_t t,
                                            unsigned s, unsigned log_n)
{
    uint32_t m = (uint32_t)1 << s, k = t & (m - 1);
    *lo = (t >> s << (s + 1)) | k;
    *hi = *lo + m;
    *w = k << (log_n - 1 - s);
}

#define ZKPIPE__CUDA_NTT_DEFINE(F)                                                                 \
    /* a_i <- a_i factor ratio^i for i in chunk `chunk` of n. */                                   \
    ZKPIPE_HD void zkpipe__cuda_##F##_scale(F *a, uint32_t chunk, uint32_t n, const F *factor,     \
                                            const F *ratio)                                        \
    {                                                                                              \
        uint32_t i = chunk * ZKPIPE__CUDA_NTT_CHUNK;                                               \
        uint32_t end = n - i < ZKPIPE__CUDA_NTT_CHUNK ? n : i + ZKPIPE__CUDA_NTT_CHUNK;            \
        uint64_t e = i;                                                                            \
        F w;                                                                                       \
        F##_pow(&w, ratio, &e, 1);                                                                 \
        F##_mul(&w, &w, factor);                                                                   \
        for (; i < end; i++) {                                                                     \
            F##_mul(&a[i], &a[i], &w);                                                             \
            F##_mul(&w, &w, ratio);                                                                \
        }                                                                                          \
    }                                                                                              \
    /* The twiddle table, table[k] = w^k for k < count, chunk by chunk. */                         \
    ZKPIPE_HD void zkpipe__cuda_##F##_powers(F *table, uint32_t chunk, uint32_t count, const F *w) \
    {                                                                                              \
        F one;                                                                                     \
        F##_set_one(&one);                                                                         \
        uint32_t i = chunk * ZKPIPE__CUDA_NTT_CHUNK;                                               \
        for (uint32_t k = i; k < count && k < i + ZKPIPE__CUDA_NTT_CHUNK; k++)                     \
            table[k] = one;                                                                        \
        zkpipe__cuda_##F##_scale(table, chunk, count, &one, w);                                    \
    }                                                                                              \
    ZKPIPE_HD void zkpipe__cuda_##F##_permute(F *out, const F *in, uint32_t i, unsigned log_n)     \
    {                                                                                              \
        out[zkpipe__cuda_bit_reverse(i, log_n)] = in[i];                                           \
    }                                                                                              \
    ZKPIPE_HD void zkpipe__cuda_##F##_butterfly(F *a, const F *table, uint32_t t, unsigned s,      \
                                                unsigned log_n)                                    \
    {                                                                                              \
        uint32_t lo, hi, k;                                                                        \
        F x;                                                                                       \
        zkpipe__cuda_butterfly_index(&lo, &hi, &k, t, s, log_n);                                   \
        F##_mul(&x, &a[hi], &table[k]);                                                            \
        F##_sub(&a[hi], &a[lo], &x);                                                               \
        F##_add(&a[lo], &a[lo], &x);                                                               \
    }                                                                                              \
    /* out_j = in_{-j mod n} factor: a forward transform's output read as the inverse's. */        \
    ZKPIPE_HD void zkpipe__cuda_##F##_negate(F *out, const F *in, uint32_t j, uint32_t n,          \
                                             const F *factor)                                      \
    {                                                                                              \
        F##_mul(&out[j], &in[(n - j) & (n - 1)], factor);                                          \
    }                                                                                              \
    /* h_i = (a_i b_i - c_i) / Z, Z's inverse given: the quotient's pointwise step on the coset.   \
     */                                                                                            \
    ZKPIPE_HD void zkpipe__cuda_##F##_quotient(F *h, const F *a, const F *b, const F *c,           \
                                               uint32_t i, const F *z_inv)                         \
    {                                                                                              \
        F t;                                                                                       \
        F##_mul(&t, &a[i], &b[i]);                                                                 \
        F##_sub(&t, &t, &c[i]);                                                                    \
        F##_mul(&h[i], &t, z_inv);                                                                 \
    }

#endif
