/* The key readers' point check (curve_ops.h check_points), which takes eight points at a time
 * on the IFMA lanes where the CPU has them: on both curves and groups, valid points (points at
 * infinity among them) pass, and a point off the curve or with a coordinate not below q is
 * found at every place in a group of eight and across groups, the lowest of two, with the
 * status the one-point check gives; from an unaligned file image with a copy, on one thread and
 * on two; and with the lanes off, the same answers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arith/curve_ops.h"
#include "core/alloc_internal.h"
#include "ff/fp_x8.h"
#include "zkpipe/pool.h"

enum { N = 150 };

static const size_t places[] = {0, 5, 7, 8, 13, 63, 64, 100, 143, 149};

/* n valid packed points of the group (k G for k = 2, 3, ...). */
static uint64_t *valid_points(const zkpipe__curve_ops *c, int g2, size_t n)
{
    size_t w = g2 ? c->g2a_words : c->g1a_words;
    uint64_t *k = malloc(4 * n * sizeof *k), *out = malloc(w * n * sizeof *out);
    assert_true(k != NULL && out != NULL);
    for (size_t i = 0; i < n; i++)
        c->fr_from_u64(k + 4 * i, 2 + 7 * i);
    const zkpipe_allocator *a = zkpipe__allocator_or_default(NULL);
    assert_int_equal(g2 ? c->g2_generator_mul(out, k, n, NULL, a)
                        : c->g1_generator_mul(out, k, n, NULL, a),
                     ZKPIPE_OK);
    free(k);
    return out;
}

/* check_points on a copy of `pts` placed one byte past an 8-byte boundary (as snarkjs's B1 and
 * C sections are), with an aligned copy made on the way, on `pool`; the copy must equal the
 * points when they pass. */
static zkpipe_status check(size_t *bad, const zkpipe__curve_ops *c, const uint64_t *pts, int g2,
                           zkpipe_pool *pool)
{
    size_t bytes = N * 8 * (g2 ? c->g2a_words : c->g1a_words);
    uint8_t *file = malloc(bytes + 1);
    uint64_t *copy = malloc(bytes);
    assert_true(file != NULL && copy != NULL);
    memcpy(file + 1, pts, bytes);
    zkpipe_status st = c->check_points(bad, file + 1, (uint8_t *)copy, N, g2, 0, pool);
    if (st == ZKPIPE_OK)
        assert_memory_equal(copy, pts, bytes);
    size_t bad_in_place;
    zkpipe_status in_place =
        c->check_points(&bad_in_place, (const uint8_t *)pts, NULL, N, g2, 0, pool);
    assert_int_equal(in_place, st);
    if (st != ZKPIPE_OK)
        assert_int_equal(bad_in_place, *bad);
    free(copy);
    free(file);
    return st;
}

/* Every case on one curve's group, on `pool`. */
static void cases(const zkpipe__curve_ops *c, int g2, zkpipe_pool *pool)
{
    size_t w = g2 ? c->g2a_words : c->g1a_words, fq = c->fq_limbs, bad;
    uint64_t *pts = valid_points(c, g2, N);
    /* Points at infinity (all zero words) pass, in and out of lane groups. */
    memset(pts + 3 * w, 0, w * sizeof *pts);
    memset(pts + 70 * w, 0, w * sizeof *pts);
    assert_int_equal(check(&bad, c, pts, g2, pool), ZKPIPE_OK);
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        size_t k = places[i];
        uint64_t *p = malloc(N * w * sizeof *p);
        assert_non_null(p);
        /* Off the curve: y's lowest bit flipped (y stays below q: y is even or below q - 1). */
        memcpy(p, pts, N * w * sizeof *p);
        size_t y = k * w + (g2 ? 2 : 1) * fq;
        p[y] ^= p[y] & 1 ? 1 : 2;
        if (k + 9 < N)
            p[(k + 9) * w + (g2 ? 2 : 1) * fq] ^= 4;
        assert_int_equal(check(&bad, c, p, g2, pool), ZKPIPE_ENOTONCURVE);
        assert_int_equal(bad, k);
        /* Not canonical: x's top limb all ones (above q on both curves). */
        memcpy(p, pts, N * w * sizeof *p);
        p[k * w + fq - 1] = UINT64_MAX;
        assert_int_equal(check(&bad, c, p, g2, pool), ZKPIPE_ENONCANONICAL);
        assert_int_equal(bad, k);
        free(p);
    }
    free(pts);
}

static void both_curves(void **state)
{
    (void)state;
    zkpipe_pool *pool;
    assert_int_equal(zkpipe_pool_create(&pool, 2, NULL), ZKPIPE_OK);
    const zkpipe_curve curves[] = {ZKPIPE_CURVE_BN254, ZKPIPE_CURVE_BLS12_381};
    for (int lanes = 1; lanes >= 0; lanes--) {
#if ZKPIPE__FF_X86
        int had = zkpipe__ff_x86_ifma;
        if (!lanes)
            zkpipe__ff_x86_ifma = 0;
#else
        if (lanes)
            continue; /* no lanes here: the one-point path only */
#endif
        for (size_t ci = 0; ci < 2; ci++) {
            const zkpipe__curve_ops *c = zkpipe__curve_ops_for(curves[ci]);
            assert_non_null(c);
            for (int g2 = 0; g2 <= 1; g2++) {
                cases(c, g2, NULL);
                cases(c, g2, pool);
            }
        }
#if ZKPIPE__FF_X86
        zkpipe__ff_x86_ifma = had;
#endif
    }
    zkpipe_pool_destroy(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(both_curves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
