#include "ec/bn254_pairing.h"

/* 6x + 2 = 0x19d797039be763ba8 in non-adjacent form. */
static const char bn254__loop[] =
    "+0-0+000-0-000-0+0-00-00000+00-0+00-0000-0+000-0-00+000-00-0+0+000";

/* x = 4965661367192848881 in non-adjacent form: 24 digits that are not zero, against 28 bits
 * set, so four products fewer in each of the final exponentiation's three powers by x (an
 * inverse is a conjugate there). */
static const char bn254__x_naf[] =
    "+000+0+00-0+0+0-00+0+0-0-0-0+000+00+0+0+0-0+00+0000+0+0000-000+";

ZKPIPE__PAIRING_DEFINE(bn254, 4, 0)

/* π^k on the twist: Q untwists to (x w², y w³) and w^(p^k) = g_k w with g_k = ξ^((p^k - 1)/6),
 * so π^k(Q) is (x^(p^k) g_k², y^(p^k) g_k³) on the twist. */
static void bn254__twist_frobenius(bn254_g2_affine *r, const bn254_g2_affine *q, unsigned k)
{
    const bn254_fq2 g[12] = {ZKPIPE__BN254_FQ12_FROB_C1};
    bn254_fq2 g2, g3;
    bn254_fq2_sqr(&g2, &g[k]);
    bn254_fq2_mul(&g3, &g2, &g[k]);
    bn254_fq2_frobenius(&r->x, &q->x, k);
    bn254_fq2_mul(&r->x, &r->x, &g2);
    bn254_fq2_frobenius(&r->y, &q->y, k);
    bn254_fq2_mul(&r->y, &r->y, &g3);
}

/* q, -q, and the points the optimal ate loop adds at its end: π(q) and -π²(q). */
static void bn254__addends(bn254_g2_affine *a, const bn254_g2_affine *q)
{
    a[0] = *q;
    bn254_g2_affine_neg(&a[1], q);
    bn254__twist_frobenius(&a[2], q, 1);
    bn254__twist_frobenius(&a[3], q, 2);
    bn254_g2_affine_neg(&a[3], &a[3]);
}

/* D-type: the line is cy yp + (cx xp) w + c0 v w. */
static void bn254__mul_line(bn254_fq12 *f, const bn254_pairing_line *l, const bn254_g1_affine *p)
{
    bn254_fq2 a, b;
    bn254_fq2_mul_by_fq(&a, &l->cx, &p->x);
    bn254_fq2_mul_by_fq(&b, &l->cy, &p->y);
    bn254_fq12_mul_by_034(f, f, &b, &a, &l->c0);
}

/* The multiple m (p⁴ - p² + 1)/r, m = 2x(6x² + 3x + 1) prime to r, that gnark and noble
 * compute (so values match theirs): it is λ0 + λ1 p + λ2 p² + λ3 p³ with a = 12x³ + 6x² + 6x,
 * λ0 = a + 6x² + 1, λ1 = a - 2x, λ2 = a, λ3 = a - 2x - 1 (Fuentes-Castañeda, Knapp,
 * Rodríguez-Henríquez 2011), three exponentiations by x. */
static void bn254__final_exp_hard(bn254_fq12 *r, const bn254_fq12 *f)
{
    bn254_fq12 b, c, d, g, h, t;
    bn254__cyclotomic_pow(&b, f, bn254__x_naf); /* b = f^(2x) */
    bn254_fq12_cyclotomic_sqr(&b, &b);
    bn254_fq12_cyclotomic_sqr(&c, &b); /* c = f^(6x) */
    bn254_fq12_mul(&c, &c, &b);
    bn254__cyclotomic_pow(&d, &c, bn254__x_naf); /* d = f^(6x²) */
    bn254_fq12_cyclotomic_sqr(&g, &d);           /* g = f^(12x³) d c = f^a */
    bn254__cyclotomic_pow(&g, &g, bn254__x_naf);
    bn254_fq12_mul(&g, &g, &d);
    bn254_fq12_mul(&g, &g, &c);
    bn254_fq12_conjugate(&h, &b); /* h = f^(a - 2x) */
    bn254_fq12_mul(&h, &h, &g);
    bn254_fq12_mul(r, &g, &d); /* f^λ0 */
    bn254_fq12_mul(r, r, f);
    bn254_fq12_frobenius(&t, &h, 1);
    bn254_fq12_mul(r, r, &t);
    bn254_fq12_frobenius(&t, &g, 2);
    bn254_fq12_mul(r, r, &t);
    bn254_fq12_conjugate(&t, f); /* f^λ3 = h / f */
    bn254_fq12_mul(&t, &t, &h);
    bn254_fq12_frobenius(&t, &t, 3);
    bn254_fq12_mul(r, r, &t);
}
