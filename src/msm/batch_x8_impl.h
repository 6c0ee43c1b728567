/* The 8-lane batch-affine kernel, written once for every G1 group: a .c file defines X8_G (the
 * group) and X8_F (its field, whose F_x8 lanes it includes) and includes this file, which
 * defines zkpipe__msm_<X8_G>_batch_x8 (batch_x8.h).
 *
 * The scalar batch (batch_affine.h) runs one chain of prefix products over the denominators,
 * inverts their product, and walks back. Here addition i goes to lane i mod 8 of group i / 8,
 * so the lanes run eight interleaved chains: the forward pass is one lane product per group;
 * the eight chain totals are brought back to fp.h's form and inverted together with the scalar
 * Montgomery trick (one inversion, as before); the back pass then does each group's eight
 * additions at once, gathering the buckets' and points' coordinates into lanes and scattering
 * the sums back. Lanes past n in the last group run on dummy inputs (denominator one) and store
 * nothing.
 *
 * Forms (fp_x8.h): the denominators and the chains are R'-form (shifted on load); the
 * coordinates, the numerators and lambda are R-form, so lambda = num * inv and every product
 * after it pairs an R-form factor with an R'-form one (lambda shifted) and yields R-form, the
 * form the buckets keep. Bounds, with fp_x8.h's kappa < 0.19: inv < 2^S p; num <= 2 p, or
 * 3 x^2 < 3.6 p for a doubling; lambda < (3.6 kappa + 1) p < 1.7 p; lambda^2 < 1.6 p, so
 * x3 = lambda^2 - x_q - x_p + 2 p < 3.6 p before its reduction; x_q - x3 + p < 2 p, and
 * y3 = lambda (x_q - x3) - y_q + p < 2.7 p before its reduction. */
#include "msm/batch_x8.h"

#define X8_CAT_(a, b) a##b
#define X8_CAT(a, b) X8_CAT_(a, b)
#define X8_AFFINE X8_CAT(X8_G, _affine)
#define X8_OP X8_CAT(X8_G, _batch_op)
#define X8_LANES X8_CAT(X8_F, _x8)
#define FS(op) X8_CAT(X8_F, _##op)
#define FX(op) X8_CAT(X8_F, _x8_##op)

/* Group g's denominators shifted into R'-form, one past n. */
ZKPIPE__X8_INLINE void load_den(X8_LANES *r, const X8_F *den, size_t g, size_t n, const X8_F *one)
{
    const X8_F *e[8];
    for (size_t i = 0; i < 8; i++)
        e[i] = 8 * g + i < n ? &den[8 * g + i] : one;
    FX(load)(r, e, 1);
}

/* The additions ops[0..count) (count <= 8), given their inverse denominators in R'-form. */
ZKPIPE__X8_INLINE void add_lanes(X8_AFFINE *buckets, const X8_OP *ops, unsigned count,
                                 const X8_LANES *inv, const X8_F *zero)
{
    const X8_F *qx[8], *qy[8], *px[8], *py[8];
    X8_F *ox[8], *oy[8];
    __mmask8 neg = 0, dbl = 0;
    X8_LANES xq, yq, xp, yp, num, t, lambda, shifted, x3, y3;
    for (unsigned i = 0; i < 8; i++) {
        if (i < count) {
            X8_AFFINE *q = &buckets[ops[i].bucket];
            qx[i] = ox[i] = &q->x;
            qy[i] = oy[i] = &q->y;
            px[i] = ops[i].p.x;
            py[i] = ops[i].p.y;
            neg |= (__mmask8)((ops[i].flags & ZKPIPE__MSM_BATCH_NEG ? 1u : 0u) << i);
            dbl |= (__mmask8)((ops[i].flags & ZKPIPE__MSM_BATCH_DBL ? 1u : 0u) << i);
        } else {
            qx[i] = qy[i] = px[i] = py[i] = zero;
            ox[i] = oy[i] = NULL; /* not written */
        }
    }
    FX(load)(&xq, qx, 0);
    FX(load)(&yq, qy, 0);
    FX(load)(&xp, px, 0);
    FX(load)(&yp, py, 0);
    /* num = ±y_p - y_q, or 3 x_q^2 for a doubling */
    if (neg) {
        FX(neg)(&t, &yp);
        FX(blend)(&yp, neg, &yp, &t);
    }
    FX(sub)(&num, &yp, &yq, 1);
    if (dbl) {
        FX(shift)(&t, &xq);
        FX(mul)(&t, &xq, &t);
        FX(add3)(&t, &t);
        FX(blend)(&num, dbl, &num, &t);
    }
    FX(mul)(&lambda, &num, inv);
    FX(shift)(&shifted, &lambda);
    FX(mul)(&x3, &lambda, &shifted);
    FX(sub2)(&x3, &x3, &xq, &xp);
    FX(reduce4)(&x3, &x3);
    FX(sub)(&t, &xq, &x3, 1);
    FX(mul)(&y3, &t, &shifted);
    FX(sub)(&y3, &y3, &yq, 1);
    FX(reduce4)(&y3, &y3);
    FX(store)(ox, &x3, count);
    FX(store)(oy, &y3, count);
}

ZKPIPE__X8_TARGET void X8_CAT(X8_CAT(zkpipe__msm_, X8_G),
                              _batch_x8)(X8_AFFINE *buckets, const X8_OP *ops, const X8_F *den,
                                         size_t n, void *lanes)
{
    X8_LANES *prefix = (X8_LANES *)lanes; /* prefix[g - 1]: the chains before group g */
    size_t groups = (n + 7) / 8;
    X8_LANES acc, d;
    X8_F one, zero, tot[8], inv[8], scratch[8];
    const X8_F *in[8];
    X8_F *out[8];
    FS(set_one)(&one);
    FS(set_zero)(&zero);
    load_den(&acc, den, 0, n, &one);
    for (size_t g = 1; g < groups; g++) {
        prefix[g - 1] = acc;
        load_den(&d, den, g, n, &one);
        FX(mul)(&acc, &acc, &d);
    }
    for (int i = 0; i < 8; i++) {
        out[i] = &tot[i];
        in[i] = &inv[i];
    }
    FX(to_r)(&acc, &acc);
    FX(store)(out, &acc, 8);
    FS(batch_inv)(inv, tot, 8, scratch); /* non-zero: every denominator is */
    FX(load)(&acc, in, 1);
    for (size_t g = groups; g-- > 0;) {
        X8_LANES inv8 = acc;
        if (g > 0) {
            load_den(&d, den, g, n, &one);
            FX(mul)(&inv8, &acc, &prefix[g - 1]);
            FX(mul)(&acc, &acc, &d);
        }
        add_lanes(buckets, ops + 8 * g, n - 8 * g < 8 ? (unsigned)(n - 8 * g) : 8, &inv8, &zero);
    }
}
