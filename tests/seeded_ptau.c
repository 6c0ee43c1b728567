/* zkpipe-test-seeded-ptau CURVE POWER SEED OUT.ptau: a phase-2-prepared powers of tau as
 * snarkjs's `powersoftau prepare phase2` writes it, for tau, alpha, beta derived from SEED
 * (INSECURE: for tests only; the secrets follow from the seed), with no contribution.
 *
 * Why: the circuit-hash case of test_setup_overrun.sh needs a ptau of power 15 or more, and
 * snarkjs's prepare phase2 takes its G1 and G2 FFTs about 2^p p group operations (tens of CPU
 * minutes at power 15). Here every point is a fixed-base multiple of the generator, its scalar
 * computed in Fr: sections 2-6 tau^i, alpha tau^i, beta tau^i, beta; sections 12-15 the
 * Lagrange bases at tau of the domains 2^0 .. 2^power, L_j(tau) = w^j (tau^M - 1) /
 * (M (tau - w^j)), and section 12's extra level M = 2^(power+1), which snarkjs computes from the
 * 2M - 1 powers it has with the missing tau^(M-1) taken as zero:
 * (1/M) sum_{i < M-1} w^(-ij) tau^i = L_j(tau) - tau^(M-1) w^j / M. snarkjs's `zkey verify`
 * checks H (level M) against section 2, and proofs check the levels below. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith/curve_ops.h"
#include "core/alloc_internal.h"
#include "zkpipe/pool.h"

#define FR ZKPIPE__FR_LIMBS

typedef struct writer {
    const zkpipe__curve_ops *c;
    zkpipe_pool *pool;
    FILE *f;
    int failed;
} writer;

static void put(writer *w, const void *p, size_t n)
{
    if (!w->failed && fwrite(p, 1, n, w->f) != n)
        w->failed = 1;
}

static void put_le(writer *w, uint64_t v, int bytes)
{
    uint8_t b[8];
    for (int i = 0; i < bytes; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(w, b, (size_t)bytes);
}

static void section_head(writer *w, uint32_t id, uint64_t bytes)
{
    put_le(w, id, 4);
    put_le(w, bytes, 8);
}

/* The points k[i] G (G2 when g2) for n scalars, written out. */
static int put_points(writer *w, const uint64_t *k, size_t n, int g2)
{
    const zkpipe__curve_ops *c = w->c;
    size_t words = g2 ? c->g2a_words : c->g1a_words;
    const zkpipe_allocator *a = zkpipe__allocator_or_default(NULL);
    uint64_t *pts = malloc(n * words * 8);
    if (pts == NULL)
        return -1;
    zkpipe_status st = g2 ? c->g2_generator_mul(pts, k, n, w->pool, a)
                          : c->g1_generator_mul(pts, k, n, w->pool, a);
    if (st == ZKPIPE_OK)
        put(w, pts, n * words * 8);
    free(pts);
    return st == ZKPIPE_OK ? 0 : -1;
}

/* out[i] = f tau^i for i < n. */
static void powers(const zkpipe__curve_ops *c, uint64_t *out, const uint64_t *f,
                   const uint64_t *tau, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i == 0)
            memcpy(out, f, 8 * FR);
        else
            c->fr_mul(out + FR * i, out + FR * (i - 1), tau);
    }
}

/* out[j] = f L_j(tau) over the domain of size 2^k, less f tau^(M-1) w^j / M when `short_last`
 * (section 12's level past the ceremony's power). */
static int lagrange(const zkpipe__curve_ops *c, uint64_t *out, const uint64_t *f,
                    const uint64_t *tau, unsigned k, int short_last)
{
    size_t m = (size_t)1 << k;
    uint64_t w[FR], wj[FR], mm[FR], inv_m[FR], tm[FR], tm1[FR], one[FR], num[FR], t[FR];
    uint64_t *den = malloc(m * 8 * FR), *scratch = malloc(m * 8 * FR);
    if (den == NULL || scratch == NULL || c->fr_root_of_unity(w, k) != ZKPIPE_OK) {
        free(den);
        free(scratch);
        return -1;
    }
    c->fr_from_u64(one, 1);
    c->fr_from_u64(mm, (uint64_t)m);
    c->fr_inv(inv_m, mm);
    /* tau^M and tau^(M-1) */
    memcpy(tm1, one, sizeof one);
    for (size_t i = 0; i + 1 < m; i++)
        c->fr_mul(tm1, tm1, tau);
    c->fr_mul(tm, tm1, tau);
    c->fr_sub(num, tm, one);
    c->fr_mul(num, num, f);
    memcpy(wj, one, sizeof one);
    for (size_t j = 0; j < m; j++) {
        c->fr_sub(den + FR * j, tau, wj);
        c->fr_mul(den + FR * j, den + FR * j, mm);
        c->fr_mul(wj, wj, w);
    }
    c->fr_batch_inv(den, den, m, scratch);
    memcpy(wj, one, sizeof one);
    for (size_t j = 0; j < m; j++) {
        uint64_t *o = out + FR * j;
        c->fr_mul(o, wj, num);
        c->fr_mul(o, o, den + FR * j);
        if (short_last) {
            c->fr_mul(t, tm1, wj);
            c->fr_mul(t, t, inv_m);
            c->fr_mul(t, t, f);
            c->fr_sub(o, o, t);
        }
        c->fr_mul(wj, wj, w);
    }
    free(den);
    free(scratch);
    return 0;
}

/* A Lagrange section: levels 0 .. top, each 2^k points of f L_j(tau) (G2 when g2). */
static int put_lagrange_section(writer *w, uint32_t id, const uint64_t *f, const uint64_t *tau,
                                unsigned top, int g2, int extra, uint64_t *scalars)
{
    size_t words = g2 ? w->c->g2a_words : w->c->g1a_words;
    uint64_t points = ((uint64_t)2 << top) - 1 + (extra ? (uint64_t)2 << top : 0);
    section_head(w, id, points * words * 8);
    for (unsigned k = 0; k <= top + (extra ? 1u : 0u); k++)
        if (lagrange(w->c, scalars, f, tau, k, k == top + 1) != 0 ||
            put_points(w, scalars, (size_t)1 << k, g2) != 0)
            return -1;
    return 0;
}

static int write_ptau(writer *w, unsigned power, uint64_t seed)
{
    const zkpipe__curve_ops *c = w->c;
    size_t n = (size_t)1 << power;
    uint64_t tau[FR], alpha[FR], beta[FR], one[FR];
    c->fr_from_u64(one, 1);
    /* Secrets spread over Fr from the seed (cubes of distinct values); none is a root of
     * unity of a small domain in practice, which the Lagrange formula needs. */
    c->fr_from_u64(tau, seed * 0x9e3779b97f4a7c15u + 7);
    c->fr_mul(alpha, tau, tau);
    c->fr_mul(tau, alpha, tau);
    c->fr_from_u64(alpha, seed * 0xbf58476d1ce4e5b9u + 11);
    c->fr_mul(alpha, alpha, tau);
    c->fr_from_u64(beta, seed * 0x94d049bb133111ebu + 13);
    c->fr_mul(beta, beta, tau);
    uint64_t *k = malloc(2 * 2 * n * 8 * FR);
    if (k == NULL)
        return -1;
    size_t g1 = c->g1a_words * 8, g2 = c->g2a_words * 8;
    size_t n8q = c->fq_limbs * 8;

    put(w, "ptau", 4);
    put_le(w, 1, 4);
    put_le(w, 11, 4);
    section_head(w, 1, 4 + n8q + 8);
    put_le(w, n8q, 4);
    put(w, c->q, n8q);
    put_le(w, power, 4);
    put_le(w, power, 4);
    int bad = 0;
    section_head(w, 2, (2 * n - 1) * g1);
    powers(c, k, one, tau, 2 * n - 1);
    bad |= put_points(w, k, 2 * n - 1, 0);
    section_head(w, 3, n * g2);
    bad |= put_points(w, k, n, 1);
    section_head(w, 4, n * g1);
    powers(c, k, alpha, tau, n);
    bad |= put_points(w, k, n, 0);
    section_head(w, 5, n * g1);
    powers(c, k, beta, tau, n);
    bad |= put_points(w, k, n, 0);
    section_head(w, 6, g2);
    bad |= put_points(w, beta, 1, 1);
    section_head(w, 7, 4);
    put_le(w, 0, 4); /* no contributions */
    if (!bad)
        bad = put_lagrange_section(w, 12, one, tau, power, 0, 1, k) ||
              put_lagrange_section(w, 13, one, tau, power, 1, 0, k) ||
              put_lagrange_section(w, 14, alpha, tau, power, 0, 0, k) ||
              put_lagrange_section(w, 15, beta, tau, power, 0, 0, k);
    free(k);
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: zkpipe-test-seeded-ptau bn254|bls12-381 POWER SEED OUT.ptau\n");
        return 2;
    }
    zkpipe_curve curve;
    if (strcmp(argv[1], "bn254") == 0)
        curve = ZKPIPE_CURVE_BN254;
    else if (strcmp(argv[1], "bls12-381") == 0)
        curve = ZKPIPE_CURVE_BLS12_381;
    else {
        fprintf(stderr, "zkpipe-test-seeded-ptau: unknown curve %s\n", argv[1]);
        return 2;
    }
    char *end;
    unsigned long power = strtoul(argv[2], &end, 10);
    if (*end != '\0' || power < 1 || power > 20) {
        fprintf(stderr, "zkpipe-test-seeded-ptau: POWER is 1 to 20\n");
        return 2;
    }
    uint64_t seed = strtoull(argv[3], &end, 10);
    if (*end != '\0') {
        fprintf(stderr, "zkpipe-test-seeded-ptau: SEED is a number\n");
        return 2;
    }
    writer w = {zkpipe__curve_ops_for(curve), NULL, fopen(argv[4], "wb"), 0};
    if (w.f == NULL || zkpipe_pool_create(&w.pool, 2, NULL) != ZKPIPE_OK) {
        fprintf(stderr, "zkpipe-test-seeded-ptau: cannot write %s\n", argv[4]);
        if (w.f != NULL)
            fclose(w.f);
        return 1;
    }
    int rc = write_ptau(&w, (unsigned)power, seed);
    zkpipe_pool_destroy(w.pool);
    if (fclose(w.f) != 0 || w.failed || rc != 0) {
        fprintf(stderr, "zkpipe-test-seeded-ptau: failed writing %s\n", argv[4]);
        remove(argv[4]);
        return 1;
    }
    return 0;
}
