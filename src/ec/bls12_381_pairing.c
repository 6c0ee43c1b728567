#include "ec/bls12_381_pairing.h"

#include "ec/miller.h"

/* The curve parameter is x = -X_ABS; the Miller loop runs over the bits of |x|. */
#define X_ABS BLS12_381_X_ABS

ZKPIPE__EC_DEFINE_MILLER_STEPS(bls12_381, bls12_381_fq2, bls12_381_fq, bls12_381_fq12)

/* M-type twist: the line's constant, xP and yP terms land on 1, v and v·w. */
static void bls12_381__ell(bls12_381_fq12 *f, const bls12_381__line *l,
                           const bls12_381_g1_affine *p)
{
    bls12_381_fq2 b, c;
    bls12_381_fq2_mul_by_fq(&b, &l->b, &p->x);
    bls12_381_fq2_mul_by_fq(&c, &l->c, &p->y);
    bls12_381_fq12_mul_by_014(f, f, &l->a, &b, &c);
}

ZKPIPE__EC_DEFINE_MILLER_LOOP(bls12_381, bls12_381_fq2, bls12_381_fq, bls12_381_fq12, bls12_381_g1,
                              bls12_381_g2)

void bls12_381_miller_loop(bls12_381_fq12 *f, const bls12_381_g1_affine *p,
                           const bls12_381_g2_affine *q, size_t n)
{
    const uint64_t loop[1] = {X_ABS};
    bls12_381__miller_product(f, p, q, n, loop, 63, NULL);
    /* x < 0: f_{x} is 1/f_{|x|} up to factors the final exponentiation removes, and the
     * conjugate is that inverse once f is unitary. */
    bls12_381_fq12_conjugate(f, f);
}

/* a^x for a in the cyclotomic subgroup, where inversion is conjugation. */
static void pow_x(bls12_381_fq12 *r, const bls12_381_fq12 *a)
{
    bls12_381__cyclotomic_pow(r, a, X_ABS);
    bls12_381_fq12_conjugate(r, r);
}

void bls12_381_final_exp(bls12_381_fq12 *r, const bls12_381_fq12 *f)
{
    bls12_381_fq12 m, t0, t1, t2;
    /* Easy part: m = f^((q^6 - 1)(q^2 + 1)), unitary from here on. */
    bls12_381_fq12_inv(&t0, f);
    bls12_381_fq12_conjugate(&m, f);
    bls12_381_fq12_mul(&m, &m, &t0);
    bls12_381_fq12_frobenius(&t0, &m, 2);
    bls12_381_fq12_mul(&m, &t0, &m);
    /* Hard part: m^(3 (q^4 - q^2 + 1)/r), using 3 (q^4 - q^2 + 1)/r =
     * (x - 1)² (x + q) (x² + q² - 1) + 3. */
    bls12_381_fq12_conjugate(&t1, &m); /* t0 = m^(x - 1) */
    pow_x(&t0, &m);
    bls12_381_fq12_mul(&t0, &t0, &t1);
    bls12_381_fq12_conjugate(&t1, &t0); /* t0 = m^((x - 1)²) */
    pow_x(&t0, &t0);
    bls12_381_fq12_mul(&t0, &t0, &t1);
    bls12_381_fq12_frobenius(&t1, &t0, 1); /* t0 = t0^(x + q) */
    pow_x(&t0, &t0);
    bls12_381_fq12_mul(&t0, &t0, &t1);
    bls12_381_fq12_frobenius(&t1, &t0, 2); /* t0 = t0^(x² + q² - 1) */
    bls12_381_fq12_conjugate(&t2, &t0);
    bls12_381_fq12_mul(&t1, &t1, &t2);
    pow_x(&t0, &t0);
    pow_x(&t0, &t0);
    bls12_381_fq12_mul(&t0, &t0, &t1);
    bls12_381_fq12_cyclotomic_sqr(&t1, &m); /* times m³ */
    bls12_381_fq12_mul(&t1, &t1, &m);
    bls12_381_fq12_mul(r, &t0, &t1);
}

void bls12_381_pairing(bls12_381_fq12 *r, const bls12_381_g1_affine *p,
                       const bls12_381_g2_affine *q, size_t n)
{
    bls12_381_fq12 f;
    bls12_381_miller_loop(&f, p, q, n);
    bls12_381_final_exp(r, &f);
}
