/* The 8-lane NTT butterfly, written once for both scalar fields: a .c file defines X8_F (the
 * field, whose F_x8 lanes ntt_x8.h includes) and includes this file, which defines
 * zkpipe__ntt_<X8_F>_butterflies_x8.
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

ZKPIPE__X8_TARGET void X8_CAT(X8_CAT(zkpipe__ntt_, X8_F), _butterflies_x8)(X8_F *lo, X8_F *hi,
                                                                           const X8_F *w, size_t n)
{
    for (size_t k = 0; k < n; k += 8) {
        const X8_F *x[8], *y[8], *tw[8];
        X8_F *ox[8], *oy[8];
        X8_LANES a, b, s, t;
        for (int i = 0; i < 8; i++) {
            x[i] = ox[i] = &lo[k + (size_t)i];
            y[i] = oy[i] = &hi[k + (size_t)i];
            tw[i] = &w[k + (size_t)i];
        }
        FX(load)(&a, x, 0);
        FX(load)(&b, y, 0);
        FX(load)(&t, tw, 1);
        FX(mul)(&t, &b, &t);
        FX(add)(&s, &a, &t);
        FX(reduce4)(&s, &s);
        FX(sub)(&b, &a, &t, 2);
        FX(reduce4)(&b, &b);
        FX(store)(ox, &s, 8);
        FX(store)(oy, &b, 8);
    }
}
