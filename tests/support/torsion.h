/* Points with a component outside the prime-order subgroup, for the subgroup checks' tests
 * (test_ec, test_msm). */
#ifndef ZKPIPE_TESTS_TORSION_H
#define ZKPIPE_TESTS_TORSION_H

#include <stddef.h>
#include <stdint.h>

/* The cofactor h = #E / r of each group with one, as its prime factors (sympy's factorint of
 * #E / r, #E from the curve's trace: h1 = (x - 1)^2 / 3 for BLS12-381, the twists' orders from
 * the sextic twist formula; gen_endo.py's CURVES hold the parameters). */
typedef struct cofactor_prime {
    uint64_t l[7]; /* the prime, little-endian limbs */
    size_t nlimbs;
    int e; /* its exponent in h */
} cofactor_prime;

static const cofactor_prime bls12_381_g1_cofactor[] = {
    {{3}, 1, 1}, {{11}, 1, 2}, {{10177}, 1, 2}, {{859267}, 1, 2}, {{52437899}, 1, 2},
};
static const cofactor_prime bls12_381_g2_cofactor[] = {
    {{13}, 1, 2},
    {{23}, 1, 2},
    {{2713}, 1, 1},
    {{11953}, 1, 1},
    {{262069}, 1, 1},
    {{UINT64_C(0x826d177200c0d3b1), UINT64_C(0x77d87384d026cd73), UINT64_C(0xfab9c0da5cf222c3),
      UINT64_C(0xa9d75bb98b95878a), UINT64_C(0xe0490c5afca1eeb2), UINT64_C(0x423572788bea4d6a),
      UINT64_C(0x8d9f503deeeb5d5c)},
     7,
     1},
};
static const cofactor_prime bn254_g2_cofactor[] = {
    {{10069}, 1, 1},
    {{5864401}, 1, 1},
    {{UINT64_C(1875725156269)}, 1, 1},
    {{UINT64_C(0x9b6e0b358e0d894d), UINT64_C(0xe9dab9240f0c6ab8), UINT64_C(0x000210315729f570)},
     3,
     1},
};

/* TEST_TORSION_DEFINE(G, F, FR) defines, for a group with a table G_cofactor:
 *   static void G_mul_prime(G *p, const cofactor_prime *c, int times) : p = [l^times] p.
 *   static void G_torsion_point(G *t, G_affine *q, size_t i)
 *       : t = [r h / l_i^e_i] Q != O for the next point Q on the curve after *q (x walked up
 *         from q's, *q left at Q): a point of order dividing l_i^e_i. */
#define TEST_TORSION_DEFINE(G, F, FR)                                                              \
    static void G##_mul_prime(G *p, const cofactor_prime *c, int times)                            \
    {                                                                                              \
        for (int i = 0; i < times; i++)                                                            \
            G##_mul_limbs(p, p, c->l, c->nlimbs);                                                  \
    }                                                                                              \
    static void G##_torsion_point(G *t, G##_affine *q, size_t i)                                   \
    {                                                                                              \
        const size_t nprimes = sizeof G##_cofactor / sizeof G##_cofactor[0];                       \
        F one, y2;                                                                                 \
        F##_set_one(&one);                                                                         \
        for (;;) {                                                                                 \
            F##_add(&q->x, &q->x, &one);                                                           \
            G##_rhs(&y2, &q->x);                                                                   \
            if (!F##_sqrt(&q->y, &y2))                                                             \
                continue;                                                                          \
            G##_from_affine(t, q);                                                                 \
            G##_mul_limbs(t, t, FR##_MODULUS, FR##_LIMBS);                                         \
            for (size_t j = 0; j < nprimes; j++)                                                   \
                if (j != i)                                                                        \
                    G##_mul_prime(t, &G##_cofactor[j], G##_cofactor[j].e);                         \
            if (!G##_is_infinity(t))                                                               \
                return;                                                                            \
        }                                                                                          \
    }

#endif
