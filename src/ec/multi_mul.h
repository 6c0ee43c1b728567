/* Interleaved multi-scalar multiplication for a handful of points (the verifier's
 * IC = IC_0 + sum x_i IC_i): ZKPIPE__EC_DEFINE_MULTI_MUL(G, SPLIT, ENDO) defines
 *
 *   void G_multi_mul(G *r, const G_affine *p, const uint64_t *k, size_t n)
 *       : r = sum k_i p_i for n points in the subgroup of prime order r (or infinity) and
 *         canonical scalars k_i < r (4 limbs each, k_i at k[4 i .. 4 i + 4)).
 *
 * Each scalar is split by the curve's GLV split (SPLIT, ec/glv.h) into k1 + k2 lambda with
 * |k1|, |k2| < 2^127, so k P = k1 P + k2 phi(P) (ENDO: phi on affine points). Points go in
 * chunks of ZKPIPE__EC_MULTI_CHUNK: for each the odd multiples P, 3P, .., 15P, made affine with
 * one inversion for the whole chunk, their images under phi (one multiplication each), and the
 * width-5 NAF digits of |k1| and |k2|; then one loop of about 128 doublings shared by the chunk,
 * with a mixed addition for each non-zero digit (about 2 * 128 / 6 per point). Against one
 * 255-bit sliding-window multiplication per point (ec/group.h) that is about a third of the
 * work for one point and less for more. Pippenger (msm/) wins from a few dozen points on.
 *
 * Not constant-time (as group.h). No allocation (a few KB of stack), no global state. */
#ifndef ZKPIPE_EC_MULTI_MUL_H
#define ZKPIPE_EC_MULTI_MUL_H

#include <stddef.h>
#include <stdint.h>

/* Points per chunk: the stack holds their tables (8 Jacobian and 8 affine points each). */
#define ZKPIPE__EC_MULTI_CHUNK 8
/* NAF width: odd digits up to 2^(W-1) - 1 in magnitude, a table of 2^(W-2) multiples. */
#define ZKPIPE__EC_MULTI_W 5
#define ZKPIPE__EC_MULTI_TABLE (1 << (ZKPIPE__EC_MULTI_W - 2))
/* Digits of a magnitude below 2^127: at most 128. */
#define ZKPIPE__EC_MULTI_DIGITS 129

/* d[0..n) = the width-W NAF of the 2-limb k < 2^127 (k = sum d[i] 2^i, each d[i] 0 or odd with
 * |d[i]| < 2^(W-1), of any W consecutive digits at most one non-zero); returns n. */
static inline int zkpipe__ec_wnaf(signed char *d, const uint64_t *k)
{
    __extension__ typedef unsigned __int128 u128;
    u128 v = (u128)k[1] << 64 | k[0];
    int n = 0;
    while (v != 0) {
        int digit = 0;
        if (v & 1) {
            digit = (int)(v & ((1u << ZKPIPE__EC_MULTI_W) - 1));
            if (digit >= 1 << (ZKPIPE__EC_MULTI_W - 1))
                digit -= 1 << ZKPIPE__EC_MULTI_W;
            v = digit > 0 ? v - (u128)digit : v + (u128)-digit;
        }
        d[n++] = (signed char)digit;
        v >>= 1;
    }
    return n;
}

#define ZKPIPE__EC_DEFINE_MULTI_MUL(G, SPLIT, ENDO)                                                \
    /* acc += sum over the chunk's m points (infinity and zero scalars already left out). */       \
    static void G##__multi_chunk(G *acc, const G##_affine *const *p, const uint64_t *const *k,     \
                                 size_t m)                                                         \
    {                                                                                              \
        G jac[ZKPIPE__EC_MULTI_CHUNK * ZKPIPE__EC_MULTI_TABLE], p2, sum;                           \
        G##_affine tab[2][ZKPIPE__EC_MULTI_CHUNK * ZKPIPE__EC_MULTI_TABLE];                        \
        signed char d[2][ZKPIPE__EC_MULTI_CHUNK][ZKPIPE__EC_MULTI_DIGITS];                         \
        int len[2][ZKPIPE__EC_MULTI_CHUNK], top = 0;                                               \
        if (m == 0 || m > ZKPIPE__EC_MULTI_CHUNK)                                                  \
            return;                                                                                \
        for (size_t i = 0; i < m; i++) {                                                           \
            G *t = jac + i * ZKPIPE__EC_MULTI_TABLE;                                               \
            uint64_t half[4];                                                                      \
            unsigned neg;                                                                          \
            G##_from_affine(&t[0], p[i]);                                                          \
            G##_dbl(&p2, &t[0]);                                                                   \
            for (int j = 1; j < ZKPIPE__EC_MULTI_TABLE; j++)                                       \
                G##_add(&t[j], &t[j - 1], &p2);                                                    \
            SPLIT(half, &neg, k[i]);                                                               \
            for (int h = 0; h < 2; h++) {                                                          \
                len[h][i] = zkpipe__ec_wnaf(d[h][i], half + 2 * h);                                \
                if (neg >> h & 1) /* -|k_h| */                                                     \
                    for (int b = 0; b < len[h][i]; b++)                                            \
                        d[h][i][b] = (signed char)-d[h][i][b];                                     \
                top = len[h][i] > top ? len[h][i] : top;                                           \
            }                                                                                      \
        }                                                                                          \
        G##_batch_to_affine(tab[0], jac, m *ZKPIPE__EC_MULTI_TABLE);                               \
        for (size_t j = 0; j < m * ZKPIPE__EC_MULTI_TABLE; j++)                                    \
            ENDO(&tab[1][j], &tab[0][j]);                                                          \
        G##_set_infinity(&sum);                                                                    \
        for (int b = top; b-- > 0;) {                                                              \
            if (!G##_is_infinity(&sum))                                                            \
                G##_dbl(&sum, &sum);                                                               \
            for (size_t i = 0; i < m; i++)                                                         \
                for (int h = 0; h < 2; h++) {                                                      \
                    int digit = b < len[h][i] ? d[h][i][b] : 0;                                    \
                    if (digit == 0)                                                                \
                        continue;                                                                  \
                    G##_affine q = tab[h][i * ZKPIPE__EC_MULTI_TABLE +                             \
                                          (size_t)((digit < 0 ? -digit : digit) / 2)];             \
                    if (digit < 0)                                                                 \
                        G##_affine_neg(&q, &q);                                                    \
                    G##_add_affine(&sum, &sum, &q);                                                \
                }                                                                                  \
        }                                                                                          \
        G##_add(acc, acc, &sum);                                                                   \
    }                                                                                              \
    void G##_multi_mul(G *r, const G##_affine *p, const uint64_t *k, size_t n)                     \
    {                                                                                              \
        const G##_affine *cp[ZKPIPE__EC_MULTI_CHUNK];                                              \
        const uint64_t *ck[ZKPIPE__EC_MULTI_CHUNK];                                                \
        size_t m = 0;                                                                              \
        G acc;                                                                                     \
        G##_set_infinity(&acc);                                                                    \
        for (size_t i = 0; i < n; i++) {                                                           \
            const uint64_t *ki = k + 4 * i;                                                        \
            if (G##_affine_is_infinity(&p[i]) || (ki[0] | ki[1] | ki[2] | ki[3]) == 0)             \
                continue;                                                                          \
            cp[m] = &p[i];                                                                         \
            ck[m++] = ki;                                                                          \
            if (m == ZKPIPE__EC_MULTI_CHUNK) {                                                     \
                G##__multi_chunk(&acc, cp, ck, m);                                                 \
                m = 0;                                                                             \
            }                                                                                      \
        }                                                                                          \
        if (m > 0)                                                                                 \
            G##__multi_chunk(&acc, cp, ck, m);                                                     \
        *r = acc;                                                                                  \
    }

#endif
