/* The MSM benchmarks' bases: BENCH_DEFINE_BASES(G) defines
 *   static void G_bench_bases(G_affine *out, size_t n)
 * writing the n points start + i·step (start a fixed multiple of the generator, step the
 * generator), in batches of 4096 so the Jacobian temporary stays small; and the scalars. */
#ifndef ZKPIPE_BENCH_BASES_H
#define ZKPIPE_BENCH_BASES_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_DEFINE_BASES(G)                                                                      \
    static void G##_bench_bases(G##_affine *out, size_t n)                                         \
    {                                                                                              \
        enum { BATCH = 4096 };                                                                     \
        static G jac[BATCH];                                                                       \
        G##_affine g;                                                                              \
        G p, step;                                                                                 \
        uint64_t k[4] = {0x1234567890abcdefu, 0x0fedcba987654321u, 7, 0};                          \
        G##_generator(&g);                                                                         \
        G##_from_affine(&step, &g);                                                                \
        G##_mul_limbs(&p, &step, k, 4);                                                            \
        for (size_t i = 0; i < n; i += BATCH) {                                                    \
            size_t m = n - i < BATCH ? n - i : BATCH;                                              \
            for (size_t j = 0; j < m; j++) {                                                       \
                jac[j] = p;                                                                        \
                G##_add(&p, &p, &step);                                                            \
            }                                                                                      \
            G##_batch_to_affine(out + i, jac, m);                                                  \
        }                                                                                          \
    }

/* n random 4-limb scalars below r: random limbs with the top limb cut below r's. */
static inline void bench_fill_scalars(uint64_t *k, size_t n, const uint64_t *r)
{
    uint64_t s = 0x853c49e6748fea9bu;
    for (size_t i = 0; i < n * 4; i++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        k[i] = s ^ (s >> 29);
        if (i % 4 == 3)
            k[i] %= r[3];
    }
}

#endif
