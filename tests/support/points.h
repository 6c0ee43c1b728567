/* Random inputs shared by the MSM and GPU tests (test_msm, test_cuda, test_cuda_host): a
 * splitmix64 stream and, per group G of ec/, TEST_POINTS_DEFINE(G) defining
 *   static void G_test_points(G_affine *out, size_t n, uint64_t *seed)
 * : n distinct points start + i step (none at infinity) from random start and step, made with
 * n additions and one batch inversion (cheap enough for 2^16 points). */
#ifndef ZKPIPE_TESTS_POINTS_H
#define ZKPIPE_TESTS_POINTS_H

#include <stdint.h>
#include <stdlib.h>

static inline uint64_t test_splitmix64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

#define TEST_POINTS_DEFINE(G)                                                                      \
    static void G##_test_points(G##_affine *out, size_t n, uint64_t *seed)                         \
    {                                                                                              \
        G start, step, *jac = (G *)malloc((n ? n : 1) * sizeof(G));                                \
        G##_affine g;                                                                              \
        uint64_t k[4] = {test_splitmix64(seed), 0, 0, 0};                                          \
        assert_non_null(jac);                                                                      \
        G##_generator(&g);                                                                         \
        G##_from_affine(&start, &g);                                                               \
        G##_mul_limbs(&step, &start, k, 4);                                                        \
        k[0] = test_splitmix64(seed);                                                              \
        G##_mul_limbs(&start, &start, k, 4);                                                       \
        for (size_t i = 0; i < n; i++) {                                                           \
            jac[i] = start;                                                                        \
            G##_add(&start, &start, &step);                                                        \
        }                                                                                          \
        G##_batch_to_affine(out, jac, n);                                                          \
        free(jac);                                                                                 \
    }

#endif
