/* snarkjs's `groth16 setup` hashes the bellman H query (tau^(i+n) - tau^i) G1 with wasmcurves'
 * g1m_subAffine, g1m_batchToAffine and g1m_batchLEMtoU (zkey_new.js, hashHPointsThread), and
 * from n = 2^15 on its last point is read past the end of the ptau's tauG1 section
 * (groth16/setup_ptau.c): bytes that are no point, whose coordinates may be q or more. There the
 * wasm field arithmetic (wasmcurves build_f1m.js, build_int.js) works on the raw n-limb
 * integers, not on residues: f1m_add and f1m_sub correct by q once and wrap mod 2^(64 n), so
 * they need not keep the residue. This file computes g1m_subAffine (g1m_negAffine then
 * g1m_addAffine, build_curve_jacobian_a0.js) integer for integer, so that zkpipe's circuit hash
 * is snarkjs's there too.
 *
 * What comes after g1m_addAffine needs no such care: f1m_mul and f1m_square (Montgomery, with
 * one final conditional subtraction) give a value congruent to the product for any inputs below
 * 2^(64 n), and below q when one factor is below q. g1m_batchToAffine multiplies the point's z
 * by a reduced running product (f1m_batchInverse's, started from one), inverts a reduced value,
 * and multiplies each coordinate by a reduced factor: its outputs are the reduced affine
 * coordinates of the residues of x, y, z, which zkpipe's normalisation gives as well. (A z that
 * is q or 2q, not zero as an integer but zero as a residue, would differ; it has probability
 * about 2^-250 and is not handled.) */
#include "arith/snarkjs_sub_affine.h"

#include <string.h>

#include "ff/limbs.h"

#define N_MAX ZKPIPE__FF_MAX_LIMBS

typedef struct wasm_field {
    const uint64_t *q;
    uint64_t inv; /* -q^-1 mod 2^64 */
    int n;
} wasm_field;

/* f1m_add: the n-limb sum, less q when it carried out or is q or more, wrapping mod 2^(64 n). */
ZKPIPE__FF_INLINE void w_add(const wasm_field *f, uint64_t *r, const uint64_t *x, const uint64_t *y)
{
    uint64_t carry = zkpipe__limbs_add(r, x, y, f->n);
    if (carry || !zkpipe__limbs_lt(r, f->q, f->n))
        zkpipe__limbs_sub(r, r, f->q, f->n);
}

/* f1m_sub: the n-limb difference, plus q (mod 2^(64 n)) when it borrowed. */
ZKPIPE__FF_INLINE void w_sub(const wasm_field *f, uint64_t *r, const uint64_t *x, const uint64_t *y)
{
    if (zkpipe__limbs_sub(r, x, y, f->n))
        zkpipe__limbs_add(r, r, f->q, f->n);
}

/* f1m_mul and f1m_square: (x y + m q) / 2^(64 n) exactly, m the Montgomery multiplier that
 * makes it exact (what the wasm's 32-bit column-wise loop computes, its carries kept in full),
 * then less q once when that is q or more (it is below 2^(64 n) + q). r may alias x or y. */
ZKPIPE__FF_INLINE void w_mul(const wasm_field *f, uint64_t *r, const uint64_t *x, const uint64_t *y)
{
    int n = f->n;
    uint64_t t[2 * N_MAX + 1];
    zkpipe__limbs_mul_wide(t, x, y, n);
    t[2 * n] = 0;
    for (int i = 0; i < n; i++) {
        uint64_t m = t[i] * f->inv, carry = 0;
        for (int j = 0; j < n; j++)
            t[i + j] = zkpipe__mac(m, f->q[j], t[i + j], &carry);
        for (int k = i + n; k <= 2 * n && carry != 0; k++) {
            t[k] += carry;
            carry = t[k] < carry;
        }
    }
    if (t[2 * n] != 0 || !zkpipe__limbs_lt(t + n, f->q, n))
        zkpipe__limbs_sub(t + n, t + n, f->q, n);
    memcpy(r, t + n, 8 * (size_t)n);
}

/* The residue of an n-limb integer, for the hand-over to zkpipe's normalisation. */
ZKPIPE__FF_INLINE void reduce(const wasm_field *f, uint64_t *r)
{
    while (!zkpipe__limbs_lt(r, f->q, f->n))
        zkpipe__limbs_sub(r, r, f->q, f->n);
}

ZKPIPE__FF_INLINE int is_zero_affine(const uint64_t *p, int n)
{
    return zkpipe__limbs_is_zero(p, n) && zkpipe__limbs_is_zero(p + n, n);
}

/* The body for n limbs; inlined into one function per curve so that n is a constant there, as
 * limbs.h's unrolled loops need. */
ZKPIPE__FF_INLINE void sub_affine(zkpipe__g1 *out, const zkpipe__curve_ops *c, const uint64_t *p1,
                                  const uint64_t *p2, int n)
{
    wasm_field fd = {c->q, 0, n};
    const wasm_field *f = &fd;
    /* -q^-1 mod 2^64 by Newton's iteration: q0 is its own inverse mod 8, and each step doubles
     * the bits that are right. */
    uint64_t q0 = c->q[0], qi = q0;
    for (int k = 0; k < 5; k++)
        qi *= 2 - q0 * qi;
    fd.inv = 0 - qi;

    uint64_t zero[N_MAX] = {0}, one[N_MAX] = {0};
    /* f1m_one: 2^(64 n) mod q. */
    zkpipe__limbs_sub(one, zero, f->q, n);
    reduce(f, one);

    /* g1m_negAffine: x copied, y = f1m_sub(0, y). */
    uint64_t aux[2 * N_MAX];
    memcpy(aux, p2, 8 * (size_t)n);
    w_sub(f, aux + n, zero, p2 + n);

    const uint64_t *x1 = p1, *y1 = p1 + n, *x2 = aux, *y2 = aux + n;
    uint64_t x3[N_MAX], y3[N_MAX], z3[N_MAX];
    if (is_zero_affine(p1, n) || is_zero_affine(aux, n)) {
        /* g1m_addAffine with an input (0, 0): the other one, z = one. */
        const uint64_t *p = is_zero_affine(p1, n) ? aux : p1;
        memcpy(x3, p, 8 * (size_t)n);
        memcpy(y3, p + n, 8 * (size_t)n);
        memcpy(z3, one, 8 * (size_t)n);
    } else if (zkpipe__limbs_eq(x1, x2, n) && zkpipe__limbs_eq(y1, y2, n)) {
        /* g1m_doubleAffine: p1 is then the valid point -p2, whose double zkpipe's own addition
         * gives. */
        c->g1_from_affine(out, aux);
        c->g1_add_affine(out, out, aux);
        return;
    } else {
        /* g1m_addAffine's sequence of field operations, in its order. */
        uint64_t h[N_MAX], hh[N_MAX], dy[N_MAX], i4[N_MAX], j[N_MAX], r[N_MAX], r2[N_MAX];
        uint64_t v[N_MAX], v2[N_MAX], y1j2[N_MAX];
        w_sub(f, h, x2, x1);
        w_sub(f, dy, y2, y1);
        w_mul(f, hh, h, h);
        w_add(f, i4, hh, hh);
        w_add(f, i4, i4, i4);
        w_mul(f, j, h, i4);
        w_add(f, r, dy, dy);
        w_mul(f, v, x1, i4);
        w_mul(f, r2, r, r);
        w_add(f, v2, v, v);
        w_sub(f, x3, r2, j);
        w_sub(f, x3, x3, v2);
        w_mul(f, y1j2, y1, j);
        w_add(f, y1j2, y1j2, y1j2);
        w_sub(f, y3, v, x3);
        w_mul(f, y3, y3, r);
        w_sub(f, y3, y3, y1j2);
        w_add(f, z3, h, h);
    }
    reduce(f, x3);
    reduce(f, y3);
    reduce(f, z3);
    memset(out, 0, sizeof *out);
    memcpy(out->w, x3, 8 * (size_t)n);
    memcpy(out->w + n, y3, 8 * (size_t)n);
    memcpy(out->w + 2 * n, z3, 8 * (size_t)n);
}

static void sub_affine_4(zkpipe__g1 *out, const zkpipe__curve_ops *c, const uint64_t *p1,
                         const uint64_t *p2)
{
    sub_affine(out, c, p1, p2, 4);
}

static void sub_affine_6(zkpipe__g1 *out, const zkpipe__curve_ops *c, const uint64_t *p1,
                         const uint64_t *p2)
{
    sub_affine(out, c, p1, p2, 6);
}

void zkpipe__snarkjs_sub_affine(zkpipe__g1 *out, const zkpipe__curve_ops *c, const uint64_t *p1,
                                const uint64_t *p2)
{
    if (c->fq_limbs == 4)
        sub_affine_4(out, c, p1, p2);
    else
        sub_affine_6(out, c, p1, p2);
}
