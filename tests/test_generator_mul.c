/* The setup's fixed-base multiplication of the generator (arith/fixed_base_impl.h) against the
 * plain double-and-add of the group law, on both curves and both groups, at counts of scalars
 * that pick every window width from 1 to 8 bits (zkpipe__fb_window), with the scalars 0, 1 and
 * r - 1 among random ones below 2^253, on one thread and on a pool of two. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arith/curve_ops.h"
#include "arith/fixed_base_impl.h"
#include "core/alloc_internal.h"
#include "sanitize.h"
#include "zkpipe/pool.h"

/* One count per window width, 1 to 8 bits, and none. */
static const size_t counts[] = {0, 1, 3, 10, 40, 160, 300, 600, 1100};

static const zkpipe_allocator *heap(void)
{
    return zkpipe__allocator_or_default(NULL);
}

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* n Montgomery scalars: 0, 1 and r - 1 first, then random ones below 2^253 (below r on both
 * curves). */
static uint64_t *scalars(const zkpipe__curve_ops *c, size_t n, uint64_t *seed)
{
    uint64_t *k = calloc(n ? 4 * n : 1, sizeof *k);
    assert_non_null(k);
    uint64_t zero[4] = {0}, one[4];
    c->fr_from_u64(one, 1);
    for (size_t i = 0; i < n; i++) {
        if (i == 0) {
            memcpy(k, zero, sizeof zero);
        } else if (i == 1) {
            memcpy(k + 4, one, sizeof one);
        } else if (i == 2) {
            c->fr_sub(k + 8, zero, one);
        } else {
            uint64_t v[4] = {next(seed), next(seed), next(seed), next(seed) >> 3};
            assert_int_equal(c->fr_from_canonical(k + 4 * i, v), 1);
        }
    }
    return k;
}

/* The indices checked against the plain product: the first three, the last and a spread
 * between (all of them for small n; a thinner spread when slowed down). */
static int checked(size_t i, size_t n)
{
    size_t step = n / (ZKPIPE_TEST_SANITIZED ? 4 : 12) + 1;
    return i < 3 || i + 1 == n || i % step == 0;
}

/* g1_case and g2_case: n scalars times the generator of group g (g1 or g2, of point type T and
 * W affine words), checked against g_mul of the generator. */
#define GROUP_CASE(g, T, W)                                                                        \
    static void g##_case(const zkpipe__curve_ops *c, zkpipe_pool *pool, size_t n, uint64_t *seed)  \
    {                                                                                              \
        const size_t w = c->g##a_words;                                                            \
        uint64_t one[4], gen[W], want[W];                                                          \
        c->fr_from_u64(one, 1);                                                                    \
        /* 1 G: the one window's first table entry, the generator itself. */                       \
        assert_int_equal(c->g##_generator_mul(gen, one, 1, NULL, heap()), ZKPIPE_OK);              \
        T base, p;                                                                                 \
        c->g##_from_affine(&base, gen);                                                            \
        uint64_t *k = scalars(c, n, seed);                                                         \
        uint64_t *out = malloc((n ? n : 1) * w * sizeof *out);                                     \
        assert_non_null(out);                                                                      \
        assert_int_equal(c->g##_generator_mul(out, k, n, pool, heap()), ZKPIPE_OK);                \
        for (size_t i = 0; i < n; i++) {                                                           \
            if (!checked(i, n))                                                                    \
                continue;                                                                          \
            c->g##_mul(&p, &base, k + 4 * i);                                                      \
            c->g##_to_affine(want, &p);                                                            \
            if (memcmp(want, out + i * w, w * sizeof *out) != 0)                                   \
                fail_msg("%s %s: n %zu (%u-bit windows), scalar %zu differs", c->snarkjs_name, #g, \
                         n, zkpipe__fb_window(n).bits, i);                                         \
        }                                                                                          \
        free(out);                                                                                 \
        free(k);                                                                                   \
    }

GROUP_CASE(g1, zkpipe__g1, ZKPIPE__G1A_WORDS)
GROUP_CASE(g2, zkpipe__g2, ZKPIPE__G2A_WORDS)

/* Every width is picked by one of `counts`, and the widths grow with n. */
static void window_widths(void **state)
{
    (void)state;
    unsigned seen = 0, last = 0;
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        zkpipe__fb_shape s = zkpipe__fb_window(counts[i]);
        assert_true(s.bits >= 1 && s.bits <= FB_MAX_BITS && s.bits >= last);
        assert_int_equal(s.windows, (256 + s.bits - 1) / s.bits);
        assert_int_equal(s.digits, ((size_t)1 << s.bits) - 1);
        assert_int_equal(s.points, s.windows * s.digits);
        seen |= 1u << s.bits;
        last = s.bits;
    }
    assert_int_equal(seen, 0x1feu); /* 1 to 8 */
    assert_int_equal(zkpipe__fb_window((size_t)1 << 22).bits, FB_MAX_BITS);
}

/* Digits across limb boundaries, and past bit 255. */
static void digits(void **state)
{
    (void)state;
    const uint64_t k[4] = {0xf000000000000001u, 0x5u, 0, 0x8000000000000000u};
    assert_int_equal(zkpipe__fb_digit(k, 0, 1), 1);
    assert_int_equal(zkpipe__fb_digit(k, 60, 4), 0xf);
    assert_int_equal(zkpipe__fb_digit(k, 60, 7), 0x5f); /* 1111 from limb 0, 101 from limb 1 */
    assert_int_equal(zkpipe__fb_digit(k, 62, 3), 0x7);
    assert_int_equal(zkpipe__fb_digit(k, 255, 1), 1);
    assert_int_equal(zkpipe__fb_digit(k, 255, 3), 1); /* bits 256 and 257 read as 0 */
    assert_int_equal(zkpipe__fb_digit(k, 252, 8), 0x8);
}

static void both_groups(void **state)
{
    (void)state;
    zkpipe_pool *pool;
    assert_int_equal(zkpipe_pool_create(&pool, 2, NULL), ZKPIPE_OK);
    const zkpipe_curve curves[] = {ZKPIPE_CURVE_BN254, ZKPIPE_CURVE_BLS12_381};
    uint64_t seed = 0x9e3779b97f4a7c15u;
    for (size_t ci = 0; ci < 2; ci++) {
        const zkpipe__curve_ops *c = zkpipe__curve_ops_for(curves[ci]);
        assert_non_null(c);
        for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
            zkpipe_pool *p = i % 2 ? pool : NULL;
            g1_case(c, p, counts[i], &seed);
            /* Slowed down, G2 stops at 6-bit windows: the wider ones run the same lines, which
             * G1 checks there. */
            if (!ZKPIPE_TEST_SANITIZED || counts[i] < 500)
                g2_case(c, p, counts[i], &seed);
        }
    }
    zkpipe_pool_destroy(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(window_widths),
        cmocka_unit_test(digits),
        cmocka_unit_test(both_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
