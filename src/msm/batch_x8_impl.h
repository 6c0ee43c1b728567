/* The 8-lane batch-affine kernel, written once for every group and both lane families: a .c
 * file defines X8_G (the group), X8_F (the field the batch inverts in), X8_LANE (the lanes'
 * suffix: _x8 for fp_x8.h's IFMA lanes, _x8f for fp_x8f.h's AVX-512F ones, whose headers it
 * includes) and for a G2 group X8_F2 (the coordinates' field over X8_F, fp2_x8.h), and includes
 * this file, which defines zkpipe__msm_<X8_G>_batch<X8_LANE> (batch_x8.h).
 *
 * The scalar batch (batch_affine.h) runs one chain of prefix products over what it inverts (the
 * denominators, or over Fq2 their norms), inverts their product, and walks back. Here addition
 * i goes to lane i mod 8 of group i / 8, so the lanes run eight interleaved chains: the forward
 * pass is one lane product per group; the eight chain totals are brought back to fp.h's form
 * and inverted together with the scalar Montgomery trick (one inversion, as before); the back
 * pass then does each group's eight additions at once, gathering the buckets' and points'
 * coordinates into lanes and scattering the sums back. Lanes past n in the last group run on
 * dummy inputs (denominator one) and store nothing.
 *
 * Forms (fp_x8.h): the inverted values and the chains are R'-form (shifted on load); the
 * coordinates, the numerators and lambda are R-form, so lambda = num * inv and every product
 * after it pairs an R-form factor with an R'-form one (lambda shifted) and yields R-form, the
 * form the buckets keep. Bounds, with fp_x8.h's kappa < 0.19: inv < 2^S p; num = ±y_p - y_q + p
 * < 2 p, or 3 x^2 reduced for a doubling.
 * - G1: lambda < (2 kappa + 1) p < 1.4 p; lambda^2 < 1.4 p, so x3 = lambda^2 - x_q - x_p + 2 p
 *   < 3.4 p before its reduction; x_q - x3 + p < 2 p, and y3 = lambda (x_q - x3) - y_q + p
 *   < 2.6 p before its reduction.
 * - G2 (fp2_x8.h's bounds): lambda = (num conj(d)) / N(d), num conj(d) < (4 kappa + 1) p
 *   < 1.8 p and lambda < (1.8 kappa + 1) p < 1.35 p; lambda^2 comes reduced, so x3 < 3 p before
 *   its reduction; x_q - x3 + p < 2 p, and y3 = lambda (x_q - x3) - y_q + p < (5.4 kappa + 2) p
 *   < 3.1 p before its reduction. */
#include "msm/batch_x8.h"

#define X8_CAT_(a, b) a##b
#define X8_CAT(a, b) X8_CAT_(a, b)
#ifdef X8_F2
#define X8_E X8_F2 /* the coordinates' field */
#else
#define X8_E X8_F
#endif
#define X8_AFFINE X8_CAT(X8_G, _affine)
#define X8_OP X8_CAT(X8_G, _batch_op)
#define X8_LANES X8_CAT(X8_F, X8_LANE)
#define X8_ELANES X8_CAT(X8_E, X8_LANE)
#define FS(op) X8_CAT(X8_F, _##op)
#define FX(op) X8_CAT(X8_LANES, _##op)
#define ES(op) X8_CAT(X8_E, _##op)
#define EX(op) X8_CAT(X8_ELANES, _##op)
/* The family's attributes: ZKPIPE__X8_TARGET and _INLINE, or ZKPIPE__X8F_... */
#define X8_TARGET X8_CAT(ZKPIPE__LANES_TARGET, X8_LANE)
#define X8_INLINE X8_CAT(ZKPIPE__LANES_INLINE, X8_LANE)

/* The backward pass's inputs for group g > 0 (batch_x8.h's scratch): the chains' products before
 * the group and the group's factor, kept from the forward pass rather than made again (on G2 a
 * factor, a norm, is one and a half products). */
typedef struct x8_step {
    X8_LANES prefix, factor;
} x8_step;

/* Group g's denominators as lanes (one past n), shifted into R'-form when `shift` is set. */
X8_INLINE void load_den_lanes(X8_ELANES *dl, const X8_E *den, size_t g, size_t n, const X8_E *one,
                              int shift)
{
    const X8_E *e[8];
    for (size_t i = 0; i < 8; i++)
        e[i] = 8 * g + i < n ? &den[8 * g + i] : one;
    EX(load)(dl, e, shift);
}

/* What group g's chains multiply by, in R'-form: on G1 the denominators, on G2 their norms
 * N(d) = d0^2 + d1^2, made here with one F_x8_mul2 rather than with two scalar squares each:
 * below (2 kappa + 1) p < 1.4 p, so below 1.4 2^S p shifted, and the chain's products of two such
 * factors stay below (1.96 kappa + 2^-S) 2^S p < 2^S p (fp_x8.h). */
X8_INLINE void load_den(X8_LANES *r, const X8_E *den, size_t g, size_t n, const X8_E *one)
{
#ifdef X8_F2
    X8_ELANES dl, ds;
    load_den_lanes(&dl, den, g, n, one, 0);
    EX(shift)(&ds, &dl);
    FX(mul2)(r, &dl.c0, &ds.c0, &dl.c1, &ds.c1);
    FX(shift)(r, r);
#else
    load_den_lanes(r, den, g, n, one, 1);
#endif
}

/* r = a^2 (R-form) given a and its R'-form as: below 1.4 p on G1 (a < 1.4 p), reduced on G2. */
X8_INLINE void coord_sqr(X8_ELANES *r, const X8_ELANES *a, const X8_ELANES *as)
{
#ifdef X8_F2
    EX(sqr)(r, a, as);
#else
    FX(mul)(r, a, as);
#endif
}

/* lambda = num / d for num < 2 p, given inv = 1 / d (G1) or 1 / N(d) (G2), R'-form; dl holds
 * the denominators d on G2 (load_den_lanes; not read on G1). */
X8_INLINE void slope(X8_ELANES *lambda, const X8_ELANES *num, const X8_ELANES *dl,
                     const X8_LANES *inv)
{
#ifdef X8_F2
    X8_ELANES conj; /* conj(d) = d0 - d1 u in R'-form, so num conj(d) is R-form */
    FX(shift)(&conj.c0, &dl->c0);
    FX(neg)(&conj.c1, &dl->c1);
    FX(shift)(&conj.c1, &conj.c1);
    EX(mul)(lambda, num, &conj);
    EX(mul_by_fp)(lambda, lambda, inv);
#else
    (void)dl;
    FX(mul)(lambda, num, inv);
#endif
}

/* The additions ops[0..count) (count <= 8), given their inverse denominators (or norms) inv in
 * R'-form and on G2 the denominators dl. */
X8_INLINE void add_lanes(X8_AFFINE *buckets, const X8_OP *ops, unsigned count, const X8_ELANES *dl,
                         const X8_LANES *inv, const X8_E *zero)
{
    const X8_E *qx[8], *qy[8], *px[8], *py[8];
    X8_E *ox[8], *oy[8];
    __mmask8 neg = 0, dbl = 0;
    X8_ELANES xq, yq, xp, yp, num, t, lambda, shifted, x3, y3;
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
    EX(load)(&xq, qx, 0);
    EX(load)(&yq, qy, 0);
    EX(load)(&xp, px, 0);
    EX(load)(&yp, py, 0);
    /* num = ±y_p - y_q, or 3 x_q^2 for a doubling */
    if (neg) {
        EX(neg)(&t, &yp);
        EX(blend)(&yp, neg, &yp, &t);
    }
    EX(sub)(&num, &yp, &yq, 1);
    if (dbl) {
        EX(shift)(&t, &xq);
        coord_sqr(&t, &xq, &t);
        EX(add3)(&t, &t);
        EX(reduce4)(&t, &t);
        EX(blend)(&num, dbl, &num, &t);
    }
    slope(&lambda, &num, dl, inv);
    EX(shift)(&shifted, &lambda);
    coord_sqr(&x3, &lambda, &shifted);
    EX(sub2)(&x3, &x3, &xq, &xp);
    EX(reduce4)(&x3, &x3);
    EX(sub)(&t, &xq, &x3, 1);
    EX(mul)(&y3, &t, &shifted);
    EX(sub)(&y3, &y3, &yq, 1);
    EX(reduce4)(&y3, &y3);
    EX(store)(ox, &x3, count);
    EX(store)(oy, &y3, count);
}

X8_TARGET void X8_CAT(X8_CAT(X8_CAT(zkpipe__msm_, X8_G), _batch),
                      X8_LANE)(X8_AFFINE *buckets, const X8_OP *ops, const X8_E *den, size_t n,
                               void *lanes)
{
    x8_step *step = (x8_step *)lanes;
    size_t groups = (n + 7) / 8;
    X8_LANES acc;
    X8_ELANES dl;
    X8_F tot[8], inv[8], scratch[8];
    X8_E zero, one;
    const X8_F *in[8];
    X8_F *out[8];
    ES(set_zero)(&zero);
    ES(set_one)(&one);
    load_den(&acc, den, 0, n, &one);
    for (size_t g = 1; g < groups; g++) {
        step[g].prefix = acc;
        load_den(&step[g].factor, den, g, n, &one);
        FX(mul)(&acc, &acc, &step[g].factor);
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
            FX(mul)(&inv8, &acc, &step[g].prefix);
            FX(mul)(&acc, &acc, &step[g].factor);
        }
#ifdef X8_F2
        load_den_lanes(&dl, den, g, n, &one, 0);
#endif
        add_lanes(buckets, ops + 8 * g, n - 8 * g < 8 ? (unsigned)(n - 8 * g) : 8, &dl, &inv8,
                  &zero);
    }
}
