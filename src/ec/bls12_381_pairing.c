#include "ec/bls12_381_pairing.h"

/* |x| = 0xd201000000010000 in binary; x < 0, so the loop's result is conjugated. The final
 * exponentiation's powers by |x| read it too (its non-adjacent form has as many digits that
 * are not zero). */
static const char bls12_381__loop[] =
    "++0+00+00000000+0000000000000000000000000000000+0000000000000000";

ZKPIPE__PAIRING_DEFINE(bls12_381, 2, 1)

static void bls12_381__addends(bls12_381_g2_affine *a, const bls12_381_g2_affine *q)
{
    a[0] = *q;
    bls12_381_g2_affine_neg(&a[1], q);
}

/* M-type: the line is c0 + (cx xp) v + (cy yp) v w. */
static void bls12_381__mul_line(bls12_381_fq12 *f, const bls12_381_pairing_line *l,
                                const bls12_381_g1_affine *p)
{
    bls12_381_fq2 a, b;
    bls12_381_fq2_mul_by_fq(&a, &l->cx, &p->x);
    bls12_381_fq2_mul_by_fq(&b, &l->cy, &p->y);
    bls12_381_fq12_mul_by_014(f, f, &l->c0, &a, &b);
}

/* r = a^x for the negative x: the inverse of a^|x|, which in the cyclotomic subgroup is the
 * conjugate. */
static void bls12_381__pow_x(bls12_381_fq12 *r, const bls12_381_fq12 *a)
{
    bls12_381__cyclotomic_pow(r, a, bls12_381__loop);
    bls12_381_fq12_conjugate(r, r);
}

/* r = a^(x - 1) */
static void bls12_381__pow_x_minus_1(bls12_381_fq12 *r, const bls12_381_fq12 *a)
{
    bls12_381_fq12 t;
    bls12_381_fq12_conjugate(&t, a);
    bls12_381__pow_x(r, a);
    bls12_381_fq12_mul(r, r, &t);
}

/* Three times the hard part, as noble computes it (so values match):
 * 3 (p⁴ - p² + 1)/r = (x - 1)² (x + p)(x² + p² - 1) + 3, which follows from
 * p = (x - 1)² r / 3 + x and only needs exponentiations by x. */
static void bls12_381__final_exp_hard(bls12_381_fq12 *r, const bls12_381_fq12 *f)
{
    bls12_381_fq12 t0, t1, t2;
    bls12_381__pow_x_minus_1(&t0, f);
    bls12_381__pow_x_minus_1(&t0, &t0);
    bls12_381__pow_x(&t1, &t0); /* t0^(x + p) */
    bls12_381_fq12_frobenius(&t2, &t0, 1);
    bls12_381_fq12_mul(&t0, &t1, &t2);
    bls12_381__pow_x(&t1, &t0); /* t0^(x² + p² - 1) */
    bls12_381__pow_x(&t1, &t1);
    bls12_381_fq12_frobenius(&t2, &t0, 2);
    bls12_381_fq12_mul(&t1, &t1, &t2);
    bls12_381_fq12_conjugate(&t2, &t0);
    bls12_381_fq12_mul(&t1, &t1, &t2);
    bls12_381_fq12_cyclotomic_sqr(&t2, f); /* f³ */
    bls12_381_fq12_mul(&t2, &t2, f);
    bls12_381_fq12_mul(r, &t1, &t2);
}
