#include "ec/bn254_pairing.h"

#include "ec/miller.h"

/* The curve parameter x; the Miller loop runs over 6x + 2 = 0x1_9d797039_be763ba8. */
#define X UINT64_C(4965661367192848881)
static const uint64_t ate_loop[2] = {UINT64_C(0x9d797039be763ba8), 1};

ZKPIPE__EC_DEFINE_MILLER_STEPS(bn254, bn254_fq2, bn254_fq, bn254_fq12)

/* D-type twist: the line's yP, xP and constant terms land on 1, w and v·w. */
static void bn254__ell(bn254_fq12 *f, const bn254__line *l, const bn254_g1_affine *p)
{
    bn254_fq2 b, c;
    bn254_fq2_mul_by_fq(&b, &l->b, &p->x);
    bn254_fq2_mul_by_fq(&c, &l->c, &p->y);
    bn254_fq12_mul_by_034(f, f, &c, &b, &l->a);
}

ZKPIPE__EC_DEFINE_MILLER_LOOP(bn254, bn254_fq2, bn254_fq, bn254_fq12, bn254_g1, bn254_g2)

/* xi^e for xi = 9 + u and e = (q - 1)/d. */
static void xi_pow(bn254_fq2 *r, uint64_t d)
{
    uint64_t e[bn254_fq_LIMBS], rem = 0;
    bn254_fq2 xi;
    for (int i = bn254_fq_LIMBS - 1; i >= 0; i--) { /* long division of q - 1 (q is odd) */
        __extension__ unsigned __int128 cur =
            (unsigned __int128)rem << 64 | (bn254_fq_MODULUS[i] - (i == 0));
        e[i] = (uint64_t)(cur / d);
        rem = (uint64_t)(cur % d);
    }
    bn254_fq_from_u64(&xi.c0, 9);
    bn254_fq_from_u64(&xi.c1, 1);
    bn254_fq2_pow(r, &xi, e, bn254_fq_LIMBS);
}

/* The Frobenius endomorphism on the twist: (x, y) -> (x^q xi^((q-1)/3), y^q xi^((q-1)/2)). */
static void frobenius(bn254_g2_affine *r, const bn254_g2_affine *a, const bn254_fq2 *g3,
                      const bn254_fq2 *g2)
{
    bn254_fq2_frobenius(&r->x, &a->x, 1);
    bn254_fq2_mul(&r->x, &r->x, g3);
    bn254_fq2_frobenius(&r->y, &a->y, 1);
    bn254_fq2_mul(&r->y, &r->y, g2);
    r->infinity = a->infinity;
}

/* The two extra lines of the optimal ate pairing: T + π(Q), then T + π(Q) - π²(Q). */
static void frobenius_lines(bn254_fq12 *f, bn254__tpoint *t, const bn254_g1_affine *p,
                            const bn254_g2_affine *q, size_t n)
{
    bn254_fq2 g3, g2;
    bn254__line l;
    xi_pow(&g3, 3);
    xi_pow(&g2, 2);
    for (size_t i = 0; i < n; i++) {
        bn254_g2_affine q1, q2;
        frobenius(&q1, &q[i], &g3, &g2);
        frobenius(&q2, &q1, &g3, &g2);
        bn254_fq2_neg(&q2.y, &q2.y);
        bn254__add_step(&t[i], &l, &q1.x, &q1.y);
        bn254__ell(f, &l, &p[i]);
        bn254__add_step(&t[i], &l, &q2.x, &q2.y);
        bn254__ell(f, &l, &p[i]);
    }
}

void bn254_miller_loop(bn254_fq12 *f, const bn254_g1_affine *p, const bn254_g2_affine *q, size_t n)
{
    bn254__miller_product(f, p, q, n, ate_loop, 64, frobenius_lines);
}

void bn254_final_exp(bn254_fq12 *r, const bn254_fq12 *f)
{
    bn254_fq12 m, a, a2, a4, b, b2, b6, c, c4, c12, f1, f2, t;
    /* Easy part: m = f^((q^6 - 1)(q^2 + 1)), unitary from here on. */
    bn254_fq12_inv(&t, f);
    bn254_fq12_conjugate(&m, f);
    bn254_fq12_mul(&m, &m, &t);
    bn254_fq12_frobenius(&t, &m, 2);
    bn254_fq12_mul(&m, &t, &m);
    /* Hard part: m^(2x (6x² + 3x + 1)(q^4 - q^2 + 1)/r) = m^(l0 + l1 q + l2 q² + l3 q³) with
     * l0 = 1 + 6x + 12x² + 12x³, l1 = 4x + 6x² + 12x³, l2 = 6x + 6x² + 12x³,
     * l3 = -1 + 4x + 6x² + 12x³: with a = m^x, b = a^x, c = b^x,
     * f1 = a^4 b^6 c^12 = m^l1, f2 = f1 a² = m^l2, m^l3 = f1 / m and m^l0 = f2 b^6 m. */
    bn254__cyclotomic_pow(&a, &m, X);
    bn254__cyclotomic_pow(&b, &a, X);
    bn254__cyclotomic_pow(&c, &b, X);
    bn254_fq12_cyclotomic_sqr(&a2, &a);
    bn254_fq12_cyclotomic_sqr(&a4, &a2);
    bn254_fq12_cyclotomic_sqr(&b2, &b);
    bn254_fq12_cyclotomic_sqr(&b6, &b2);
    bn254_fq12_mul(&b6, &b6, &b2);
    bn254_fq12_cyclotomic_sqr(&c4, &c);
    bn254_fq12_cyclotomic_sqr(&c4, &c4);
    bn254_fq12_cyclotomic_sqr(&c12, &c4);
    bn254_fq12_mul(&c12, &c12, &c4);
    bn254_fq12_mul(&f1, &a4, &b6);
    bn254_fq12_mul(&f1, &f1, &c12);
    bn254_fq12_mul(&f2, &f1, &a2);
    bn254_fq12_conjugate(&t, &m); /* result = m^l0 · (m^l1)^q · (m^l2)^(q²) · (m^l3)^(q³) */
    bn254_fq12_mul(&t, &t, &f1);
    bn254_fq12_frobenius(&t, &t, 3);
    bn254_fq12_frobenius(&f1, &f1, 1);
    bn254_fq12_mul(&t, &t, &f1);
    bn254_fq12_mul(&f1, &f2, &b6);
    bn254_fq12_mul(&f1, &f1, &m);
    bn254_fq12_mul(&t, &t, &f1);
    bn254_fq12_frobenius(&f2, &f2, 2);
    bn254_fq12_mul(r, &t, &f2);
}

void bn254_pairing(bn254_fq12 *r, const bn254_g1_affine *p, const bn254_g2_affine *q, size_t n)
{
    bn254_fq12 f;
    bn254_miller_loop(&f, p, q, n);
    bn254_final_exp(r, &f);
}
