/* The 8-lane NTT butterflies, written once for both scalar fields: a .c file defines X8_F (the
 * field, whose F_x8 lanes ntt_x8.h includes) and includes this file, which defines
 * zkpipe__ntt_<X8_F>_butterflies_x8 and zkpipe__ntt_<X8_F>_first3_x8, both on one lane
 * butterfly.
 *
 * Each group of eight consecutive butterflies is loaded into lanes, the twiddles shifted into
 * the lanes' Montgomery form (fp_x8.h), so that t = hi w comes out in fp.h's form and no value
 * needs converting back. Bounds, with fp_x8.h's kappa = r / 2^256 (0.19 for BN254, 0.46 for
 * BLS12-381): lo, hi < r and w < 2^4 r give t < (kappa + 1) r < 1.5 r; lo + t < 2.5 r and
 * lo - t + 2 r < 3 r, both below 4 r < 2^260, reduced once each to below r. */
#include "poly/ntt_x8.h"

#define X8_CAT_(a, b) a##b
#define X8_CAT(a, b) X8_CAT_(a, b)
#define X8_LANES X8_CAT(X8_F, _x8)
#define FX(op) X8_CAT(X8_F, _x8_##op)

/* One radix-2 butterfly on lanes: (x, y) = (x + y w, x - y w), w in R'-form below 2^S r. */
ZKPIPE__X8_INLINE void X8_CAT(X8_F, _x8_butterfly)(X8_LANES *x, X8_LANES *y, const X8_LANES *w)
{
    X8_LANES t;
    FX(mul)(&t, y, w);
    FX(sub)(y, x, &t, 2);
    FX(reduce4)(y, y);
    FX(add)(x, x, &t);
    FX(reduce4)(x, x);
}

ZKPIPE__X8_TARGET void X8_CAT(X8_CAT(zkpipe__ntt_, X8_F), _butterflies_x8)(X8_F *lo, X8_F *hi,
                                                                           const X8_F *w, size_t n)
{
    for (size_t k = 0; k < n; k += 8) {
        const X8_F *x[8], *y[8], *tw[8];
        X8_F *ox[8], *oy[8];
        X8_LANES a, b, t;
        for (int i = 0; i < 8; i++) {
            x[i] = ox[i] = &lo[k + (size_t)i];
            y[i] = oy[i] = &hi[k + (size_t)i];
            tw[i] = &w[k + (size_t)i];
        }
        FX(load)(&a, x, 0);
        FX(load)(&b, y, 0);
        FX(load)(&t, tw, 1);
        X8_CAT(X8_F, _x8_butterfly)(&a, &b, &t);
        FX(store)(ox, &a, 8);
        FX(store)(oy, &b, 8);
    }
}

ZKPIPE__X8_TARGET void X8_CAT(X8_CAT(zkpipe__ntt_, X8_F), _first3_x8)(X8_F *a, size_t n,
                                                                      const X8_F *w8)
{
    X8_LANES v[8], w[4];
    for (int j = 0; j < 4; j++) { /* w8^j in every lane */
        const X8_F *tw[8];
        for (int i = 0; i < 8; i++)
            tw[i] = &w8[j];
        FX(load)(&w[j], tw, 1);
    }
    for (size_t b = 0; b < n; b += 64) {
        /* lane i holds block i of eight elements; vector j its element j */
        X8_F *e[8][8];
        for (int j = 0; j < 8; j++) {
            for (int i = 0; i < 8; i++)
                e[j][i] = &a[b + 8 * (size_t)i + (size_t)j];
            FX(load)(&v[j], (const X8_F *const *)e[j], 0);
        }
        for (int j = 0; j < 8; j += 2) /* half-size 1: w = 1 */
            X8_CAT(X8_F, _x8_butterfly)(&v[j], &v[j + 1], &w[0]);
        for (int j = 0; j < 8; j += 4) { /* half-size 2: w4^k = w8^(2k) */
            X8_CAT(X8_F, _x8_butterfly)(&v[j], &v[j + 2], &w[0]);
            X8_CAT(X8_F, _x8_butterfly)(&v[j + 1], &v[j + 3], &w[2]);
        }
        for (int k = 0; k < 4; k++) /* half-size 4: w8^k */
            X8_CAT(X8_F, _x8_butterfly)(&v[k], &v[k + 4], &w[k]);
        for (int j = 0; j < 8; j++)
            FX(store)(e[j], &v[j], 8);
    }
}
