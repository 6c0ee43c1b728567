/* Curves, the constraint-system builder, check, synthesis and the built-in test circuit.
 *
 * `test_circuit --large` (ctest's slow test_circuit_large) builds, checks and synthesizes
 * the test circuit at 2^20 rows on both curves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fail_alloc.h"
#include "circuit/synth.h"
#include "zkpipe/testcircuit.h"
#include "zkpipe/zkpipe.h"

static const zkpipe_curve curves[] = {ZKPIPE_CURVE_BLS12_381, ZKPIPE_CURVE_BN254};
#define NCURVES 2

/* The field orders as canonical limbs. */
static const zkpipe_scalar order[NCURVES] = {
    {{0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48}},
    {{0x43e1f593f0000001, 0x2833e84879b97091, 0xb85045b68181585d, 0x30644e72e131a029}},
};

static zkpipe_scalar small(uint64_t v)
{
    zkpipe_scalar s = {{v, 0, 0, 0}};
    return s;
}

static zkpipe_term term(zkpipe_var var, uint64_t coeff)
{
    zkpipe_term t;
    t.var = var;
    t.coeff = small(coeff);
    return t;
}

static void curve_names_round_trip(void **state)
{
    (void)state;
    zkpipe_curve c = ZKPIPE_CURVE_COUNT;
    assert_string_equal(zkpipe_curve_name(ZKPIPE_CURVE_BLS12_381), "bls12-381");
    assert_string_equal(zkpipe_curve_name(ZKPIPE_CURVE_BN254), "bn254");
    assert_null(zkpipe_curve_name(ZKPIPE_CURVE_COUNT));
    for (int i = 0; i < NCURVES; i++) {
        assert_int_equal(zkpipe_curve_parse(&c, zkpipe_curve_name(curves[i])), ZKPIPE_OK);
        assert_int_equal(c, curves[i]);
    }
    assert_int_equal(zkpipe_curve_parse(&c, "BLS12_381"), ZKPIPE_OK);
    assert_int_equal(c, ZKPIPE_CURVE_BLS12_381);
    assert_int_equal(zkpipe_curve_parse(&c, "alt_bn128"), ZKPIPE_OK);
    assert_int_equal(c, ZKPIPE_CURVE_BN254);
    c = ZKPIPE_CURVE_COUNT;
    assert_int_equal(zkpipe_curve_parse(&c, "bn25"), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_curve_parse(&c, "bn2544"), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_curve_parse(&c, ""), ZKPIPE_EINVAL);
    assert_int_equal(c, ZKPIPE_CURVE_COUNT);
    assert_int_equal(zkpipe_curve_parse(NULL, "bn254"), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_curve_parse(&c, NULL), ZKPIPE_EINVAL);
}

static void create_rejects_bad_arguments(void **state)
{
    (void)state;
    zkpipe_cs *cs = NULL;
    zkpipe_allocator half = {NULL, NULL, NULL};
    assert_int_equal(zkpipe_cs_create(NULL, ZKPIPE_CURVE_BN254, ZKPIPE_CS_WITNESS, NULL),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_cs_create(&cs, ZKPIPE_CURVE_COUNT, ZKPIPE_CS_WITNESS, NULL),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_cs_create(&cs, ZKPIPE_CURVE_BN254, (zkpipe_cs_mode)7, NULL),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_cs_create(&cs, ZKPIPE_CURVE_BN254, ZKPIPE_CS_WITNESS, &half),
                     ZKPIPE_EINVAL);
    assert_null(cs);
    zkpipe_cs_destroy(NULL);
    assert_int_equal(zkpipe_cs_num_inputs(NULL), 0);
    assert_int_equal(zkpipe_cs_num_aux(NULL), 0);
    assert_int_equal(zkpipe_cs_num_constraints(NULL), 0);
    assert_int_equal(zkpipe_cs_sizeof(NULL), 0);
    assert_int_equal(zkpipe_cs_curve(NULL), ZKPIPE_CURVE_COUNT);
    assert_int_equal(zkpipe_cs_get_mode(NULL), ZKPIPE_CS_SHAPE);
}

static void scalars_and_values(void **state)
{
    (void)state;
    for (int i = 0; i < NCURVES; i++) {
        zkpipe_scalar s, minus_one = order[i];
        minus_one.l[0]--;
        assert_int_equal(zkpipe_scalar_from_i64(&s, curves[i], -1), ZKPIPE_OK);
        assert_memory_equal(&s, &minus_one, sizeof s);
        assert_int_equal(zkpipe_scalar_from_i64(&s, curves[i], INT64_MIN), ZKPIPE_OK);
        assert_int_equal(s.l[0], order[i].l[0] - ((uint64_t)1 << 63));
        assert_int_equal(zkpipe_scalar_from_i64(&s, curves[i], 42), ZKPIPE_OK);
        assert_true(s.l[0] == 42 && s.l[1] == 0 && s.l[2] == 0 && s.l[3] == 0);
        assert_int_equal(zkpipe_scalar_from_i64(NULL, curves[i], 1), ZKPIPE_EINVAL);
        assert_int_equal(zkpipe_scalar_from_i64(&s, ZKPIPE_CURVE_COUNT, 1), ZKPIPE_EINVAL);

        zkpipe_cs *cs;
        assert_int_equal(zkpipe_cs_create(&cs, curves[i], ZKPIPE_CS_WITNESS, NULL), ZKPIPE_OK);
        assert_int_equal(zkpipe_cs_curve(cs), curves[i]);
        assert_int_equal(zkpipe_cs_get_mode(cs), ZKPIPE_CS_WITNESS);
        assert_int_equal(zkpipe_cs_num_inputs(cs), 1);
        assert_int_equal(zkpipe_cs_num_aux(cs), 0);
        assert_int_equal(zkpipe_cs_num_constraints(cs), 0);
        assert_true(zkpipe_cs_sizeof(cs) > sizeof(zkpipe_scalar));

        zkpipe_var in = 0, aux = 0;
        assert_int_equal(zkpipe_cs_alloc_input(cs, &in, &minus_one), ZKPIPE_OK);
        assert_int_equal(in, 1);
        zkpipe_scalar seven = small(7);
        assert_int_equal(zkpipe_cs_alloc_aux(cs, &aux, &seven), ZKPIPE_OK);
        assert_int_equal(aux, ZKPIPE_VAR_AUX | 0);
        assert_int_equal(zkpipe_cs_alloc_aux(cs, NULL, &seven), ZKPIPE_OK);
        assert_int_equal(zkpipe_cs_num_inputs(cs), 2);
        assert_int_equal(zkpipe_cs_num_aux(cs), 2);

        assert_int_equal(zkpipe_cs_value(cs, &s, ZKPIPE_VAR_ONE), ZKPIPE_OK);
        assert_true(s.l[0] == 1 && s.l[1] == 0 && s.l[2] == 0 && s.l[3] == 0);
        assert_int_equal(zkpipe_cs_value(cs, &s, in), ZKPIPE_OK);
        assert_memory_equal(&s, &minus_one, sizeof s);
        assert_int_equal(zkpipe_cs_value(cs, &s, aux), ZKPIPE_OK);
        assert_memory_equal(&s, &seven, sizeof s);
        assert_int_equal(zkpipe_cs_value(cs, &s, 2), ZKPIPE_EINVAL);
        assert_int_equal(zkpipe_cs_value(cs, &s, ZKPIPE_VAR_AUX | 2), ZKPIPE_EINVAL);
        assert_int_equal(zkpipe_cs_value(cs, NULL, in), ZKPIPE_EINVAL);
        assert_int_equal(zkpipe_cs_value(NULL, &s, in), ZKPIPE_EINVAL);

        /* Values at or above r are refused and change nothing. */
        assert_int_equal(zkpipe_cs_alloc_input(cs, &in, &order[i]), ZKPIPE_ENONCANONICAL);
        zkpipe_scalar huge = {{0, 0, 0, UINT64_MAX}};
        assert_int_equal(zkpipe_cs_alloc_aux(cs, &aux, &huge), ZKPIPE_ENONCANONICAL);
        assert_int_equal(zkpipe_cs_alloc_aux(cs, &aux, NULL), ZKPIPE_EINVAL);
        assert_int_equal(zkpipe_cs_alloc_input(NULL, &in, &seven), ZKPIPE_EINVAL);
        assert_int_equal(zkpipe_cs_alloc_aux(NULL, &aux, &seven), ZKPIPE_EINVAL);
        assert_int_equal(zkpipe_cs_num_inputs(cs), 2);
        assert_int_equal(zkpipe_cs_num_aux(cs), 2);
        zkpipe_cs_destroy(cs);
    }
}

static void enforce_validates_terms(void **state)
{
    (void)state;
    zkpipe_cs *cs;
    assert_int_equal(zkpipe_cs_create(&cs, ZKPIPE_CURVE_BLS12_381, ZKPIPE_CS_WITNESS, NULL),
                     ZKPIPE_OK);
    zkpipe_scalar three = small(3), nine = small(9);
    zkpipe_var x, y;
    assert_int_equal(zkpipe_cs_alloc_aux(cs, &x, &three), ZKPIPE_OK);
    assert_int_equal(zkpipe_cs_alloc_input(cs, &y, &nine), ZKPIPE_OK);
    zkpipe_term a = term(x, 1), c = term(y, 1);

    assert_int_equal(zkpipe_cs_enforce(NULL, &a, 1, &a, 1, &c, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_cs_enforce(cs, NULL, 1, &a, 1, &c, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_cs_enforce(cs, &a, 1, NULL, 1, &c, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_cs_enforce(cs, &a, 1, &a, 1, NULL, 1), ZKPIPE_EINVAL);
    zkpipe_term bad[3] = {term(x, 1), term(ZKPIPE_VAR_AUX | 1, 1), term(2, 1)};
    assert_int_equal(zkpipe_cs_enforce(cs, bad, 2, &a, 1, &c, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_cs_enforce(cs, &a, 1, &a, 1, &bad[2], 1), ZKPIPE_EINVAL);
    zkpipe_term noncanonical = {x, order[0]};
    assert_int_equal(zkpipe_cs_enforce(cs, &a, 1, &noncanonical, 1, &c, 1), ZKPIPE_ENONCANONICAL);
    assert_int_equal(zkpipe_cs_num_constraints(cs), 0);

    /* x * x = y, with a zero-coefficient term that is dropped, then the empty combination. */
    zkpipe_term b2[2] = {term(x, 1), term(y, 0)};
    assert_int_equal(zkpipe_cs_enforce(cs, &a, 1, b2, 2, &c, 1), ZKPIPE_OK);
    assert_int_equal(cs->m[ZKPIPE__MAT_B].row_start[1], 1);
    assert_int_equal(zkpipe_cs_enforce(cs, NULL, 0, &a, 1, NULL, 0), ZKPIPE_OK);
    assert_int_equal(zkpipe_cs_num_constraints(cs), 2);
    size_t first = 99;
    assert_int_equal(zkpipe_cs_check(cs, &first), ZKPIPE_OK);
    assert_int_equal(first, 99);
    assert_int_equal(zkpipe_cs_check(NULL, &first), ZKPIPE_EINVAL);
    zkpipe_cs_destroy(cs);
}

/* x_{i+1} = x_i^2 over `len` constraints; aux i holds x_i. */
static zkpipe_cs *squaring_chain(zkpipe_curve curve, zkpipe_cs_mode mode, int len)
{
    zkpipe_cs *cs;
    assert_int_equal(zkpipe_cs_create(&cs, curve, mode, NULL), ZKPIPE_OK);
    zkpipe_scalar v = small(3);
    zkpipe_var prev;
    assert_int_equal(zkpipe_cs_alloc_aux(cs, &prev, &v), ZKPIPE_OK);
    for (int i = 0; i < len; i++) {
        zkpipe_var next;
        if (mode == ZKPIPE_CS_WITNESS) {
            const zkpipe__curve_ops *ops = cs->ops;
            uint64_t m[4];
            ops->fr_from_canonical(m, v.l);
            ops->fr_mul(m, m, m);
            ops->fr_to_canonical(v.l, m);
        }
        assert_int_equal(zkpipe_cs_alloc_aux(cs, &next, mode == ZKPIPE_CS_WITNESS ? &v : NULL),
                         ZKPIPE_OK);
        zkpipe_term a = term(prev, 1), c = term(next, 1);
        assert_int_equal(zkpipe_cs_enforce(cs, &a, 1, &a, 1, &c, 1), ZKPIPE_OK);
        prev = next;
    }
    return cs;
}

static void check_finds_first_failing_constraint(void **state)
{
    (void)state;
    for (int i = 0; i < NCURVES; i++) {
        zkpipe_cs *cs = squaring_chain(curves[i], ZKPIPE_CS_WITNESS, 40);
        assert_int_equal(zkpipe_cs_check(cs, NULL), ZKPIPE_OK);
        /* Corrupting x_j breaks constraint j - 1 (where it is the product) first. */
        for (uint32_t j = 1; j <= 40; j += 13) {
            uint64_t *value = cs->aux_values + 4 * j;
            value[0] ^= 1;
            size_t first = 12345;
            assert_int_equal(zkpipe_cs_check(cs, &first), ZKPIPE_EUNSATISFIED);
            assert_int_equal(first, j - 1);
            assert_int_equal(zkpipe_cs_check(cs, NULL), ZKPIPE_EUNSATISFIED);
            value[0] ^= 1;
        }
        assert_int_equal(zkpipe_cs_check(cs, NULL), ZKPIPE_OK);
        zkpipe_cs_destroy(cs);
    }
}

/* The size limits, reached by faking the counters (restored before destroy). */
static void limits_are_reported(void **state)
{
    (void)state;
    zkpipe_cs *cs = squaring_chain(ZKPIPE_CURVE_BN254, ZKPIPE_CS_WITNESS, 3);
    zkpipe_scalar one = small(1), big = small(123456789);
    zkpipe_term t = term(ZKPIPE_VAR_ONE, 1);

    size_t saved = cs->num_aux;
    cs->num_aux = (size_t)ZKPIPE_VAR_AUX - 1;
    assert_int_equal(zkpipe_cs_alloc_aux(cs, NULL, &one), ZKPIPE_ETOOBIG);
    cs->num_aux = saved;
    saved = cs->num_inputs;
    cs->num_inputs = (size_t)ZKPIPE_VAR_AUX - 1;
    assert_int_equal(zkpipe_cs_alloc_input(cs, NULL, &one), ZKPIPE_ETOOBIG);
    cs->num_inputs = saved;

    saved = cs->num_constraints;
    cs->num_constraints = UINT32_MAX - 1;
    assert_int_equal(zkpipe_cs_enforce(cs, &t, 1, &t, 1, &t, 1), ZKPIPE_ETOOBIG);
    cs->num_constraints = saved;

    uint32_t num = cs->num_coeffs, cap = cs->coeffs_cap;
    cs->num_coeffs = cs->coeffs_cap = UINT32_MAX / 4;
    t.coeff = big;
    assert_int_equal(zkpipe_cs_enforce(cs, &t, 1, &t, 1, &t, 1), ZKPIPE_ETOOBIG);
    cs->num_coeffs = num;
    cs->coeffs_cap = cap;
    assert_int_equal(zkpipe_cs_num_constraints(cs), 3);

    /* 2^28 rows is BN254's largest domain: one more row does not fit. */
    zkpipe__synth_result r;
    cs->num_constraints = ((size_t)1 << 28) - cs->num_inputs + 1;
    assert_int_equal(zkpipe__synth(&r, cs, NULL, NULL), ZKPIPE_ETOOBIG);
    cs->num_constraints = 3;
    assert_int_equal(zkpipe__synth(&r, cs, NULL, NULL), ZKPIPE_OK);
    zkpipe__synth_free(&r);
    zkpipe_cs_destroy(cs);
}

static void shape_mode_has_no_values(void **state)
{
    (void)state;
    zkpipe_cs *shape = squaring_chain(ZKPIPE_CURVE_BN254, ZKPIPE_CS_SHAPE, 20);
    zkpipe_cs *witness = squaring_chain(ZKPIPE_CURVE_BN254, ZKPIPE_CS_WITNESS, 20);
    assert_int_equal(zkpipe_cs_get_mode(shape), ZKPIPE_CS_SHAPE);
    assert_int_equal(zkpipe_cs_num_aux(shape), 21);
    assert_int_equal(zkpipe_cs_num_constraints(shape), 20);
    assert_null(shape->aux_values);
    for (int k = 0; k < 3; k++) {
        assert_memory_equal(shape->m[k].row_start, witness->m[k].row_start, 21 * 8);
        assert_memory_equal(shape->m[k].terms, witness->m[k].terms,
                            shape->m[k].row_start[20] * sizeof(zkpipe__term));
    }
    zkpipe_scalar s;
    size_t first;
    zkpipe__synth_result r;
    assert_int_equal(zkpipe_cs_value(shape, &s, ZKPIPE_VAR_ONE), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe_cs_check(shape, &first), ZKPIPE_ESTATE);
    assert_int_equal(zkpipe__synth(&r, shape, NULL, NULL), ZKPIPE_ESTATE);
    uint64_t bytes;
    assert_int_equal(zkpipe_cs_synth_bytes(shape, &bytes, NULL), ZKPIPE_OK);
    assert_true(bytes > 0);
    zkpipe_cs_destroy(shape);
    zkpipe_cs_destroy(witness);
}

static void estimate_counts_every_buffer(void **state)
{
    (void)state;
    uint64_t bytes = 0;
    unsigned log_n = 0;
    /* 10 constraints + 3 inputs -> 16 rows; 70 variables -> 2 words per bitmap. */
    assert_int_equal(zkpipe_synth_estimate(&bytes, &log_n, ZKPIPE_CURVE_BN254, 10, 3, 67),
                     ZKPIPE_OK);
    assert_int_equal(log_n, 4);
    assert_int_equal(bytes, 3 * 16 * 32 + 70 * 32 + 2 * 2 * 8);
    assert_int_equal(zkpipe_synth_estimate(&bytes, &log_n, ZKPIPE_CURVE_BN254, 0, 1, 0), ZKPIPE_OK);
    assert_int_equal(log_n, 0);
    assert_int_equal(bytes, 3 * 32 + 32 + 2 * 8);
    assert_int_equal(
        zkpipe_synth_estimate(&bytes, NULL, ZKPIPE_CURVE_BLS12_381, ((size_t)1 << 28) + 1, 1, 0),
        ZKPIPE_OK);
    assert_int_equal(
        zkpipe_synth_estimate(&bytes, NULL, ZKPIPE_CURVE_BN254, ((size_t)1 << 28), 1, 0),
        ZKPIPE_ETOOBIG);
    assert_int_equal(
        zkpipe_synth_estimate(&bytes, NULL, ZKPIPE_CURVE_BLS12_381, ((size_t)1 << 32), 1, 0),
        ZKPIPE_ETOOBIG);
    assert_int_equal(zkpipe_synth_estimate(&bytes, NULL, ZKPIPE_CURVE_BN254, SIZE_MAX, 1, 0),
                     ZKPIPE_EOVERFLOW);
    assert_int_equal(zkpipe_synth_estimate(&bytes, NULL, ZKPIPE_CURVE_BN254, 1, 1, SIZE_MAX),
                     ZKPIPE_EOVERFLOW);
    assert_int_equal(zkpipe_synth_estimate(&bytes, NULL, ZKPIPE_CURVE_BN254, 1, 1, SIZE_MAX / 32),
                     ZKPIPE_EOVERFLOW);
    assert_int_equal(zkpipe_synth_estimate(NULL, NULL, ZKPIPE_CURVE_BN254, 1, 1, 0), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_synth_estimate(&bytes, NULL, ZKPIPE_CURVE_COUNT, 1, 1, 0),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_synth_estimate(&bytes, NULL, ZKPIPE_CURVE_BN254, 1, 0, 0),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_cs_synth_bytes(NULL, &bytes, NULL), ZKPIPE_EINVAL);
}

static int fe_equal_small(const zkpipe_cs *cs, const uint64_t *fe, uint64_t v)
{
    uint64_t canonical[4];
    cs->ops->fr_to_canonical(canonical, fe);
    return canonical[0] == v && canonical[1] == 0 && canonical[2] == 0 && canonical[3] == 0;
}

static void synth_hand_circuit(void **state)
{
    (void)state;
    /* Inputs one, p = 5; aux u = 2, v = 7, w = 35, unused = 4. Constraint 0:
     * (p + 2 u - 4) v = w; constraint 1: u (3 one) = 3 u. A mentions one, p and u; B one, v. */
    zkpipe_cs *cs;
    assert_int_equal(zkpipe_cs_create(&cs, ZKPIPE_CURVE_BLS12_381, ZKPIPE_CS_WITNESS, NULL),
                     ZKPIPE_OK);
    zkpipe_var p, u, v, w, unused;
    zkpipe_scalar five = small(5), two = small(2), seven = small(7), s35 = small(35),
                  four = small(4);
    assert_int_equal(zkpipe_cs_alloc_input(cs, &p, &five), ZKPIPE_OK);
    assert_int_equal(zkpipe_cs_alloc_aux(cs, &u, &two), ZKPIPE_OK);
    assert_int_equal(zkpipe_cs_alloc_aux(cs, &v, &seven), ZKPIPE_OK);
    assert_int_equal(zkpipe_cs_alloc_aux(cs, &w, &s35), ZKPIPE_OK);
    assert_int_equal(zkpipe_cs_alloc_aux(cs, &unused, &four), ZKPIPE_OK);
    zkpipe_term a0[3] = {term(p, 1), term(u, 2), {ZKPIPE_VAR_ONE, {{0}}}};
    assert_int_equal(zkpipe_scalar_from_i64(&a0[2].coeff, ZKPIPE_CURVE_BLS12_381, -4), ZKPIPE_OK);
    zkpipe_term b0 = term(v, 1), c0 = term(w, 1);
    assert_int_equal(zkpipe_cs_enforce(cs, a0, 3, &b0, 1, &c0, 1), ZKPIPE_OK);
    zkpipe_term a1 = term(u, 1), b1 = term(ZKPIPE_VAR_ONE, 3), c1 = term(u, 3);
    assert_int_equal(zkpipe_cs_enforce(cs, &a1, 1, &b1, 1, &c1, 1), ZKPIPE_OK);
    assert_int_equal(zkpipe_cs_check(cs, NULL), ZKPIPE_OK);
    /* Coefficients 1, -1 (always), 2, -4 and 3 (used twice, stored once). */
    assert_int_equal(cs->num_coeffs, 5);
    size_t count;
    const zkpipe__term *c_row1 = zkpipe__cs_row(cs, ZKPIPE__MAT_C, 1, &count);
    assert_int_equal(count, 1);
    assert_int_equal(c_row1->var, u);
    assert_int_equal(c_row1->coeff, zkpipe__cs_row(cs, ZKPIPE__MAT_B, 1, &count)->coeff);
    assert_true(fe_equal_small(cs, zkpipe__cs_coeff(cs, c_row1->coeff), 3));

    zkpipe__synth_result r;
    assert_int_equal(zkpipe__synth(&r, cs, NULL, NULL), ZKPIPE_OK);
    /* 2 constraints + 2 inputs = 4 rows. */
    assert_int_equal(r.n, 4);
    assert_int_equal(r.log_n, 2);
    assert_int_equal(r.num_constraints, 2);
    assert_int_equal(r.num_inputs, 2);
    assert_int_equal(r.num_aux, 4);
    assert_true(fe_equal_small(cs, r.a + 0, 5));
    assert_true(fe_equal_small(cs, r.b + 0, 7));
    assert_true(fe_equal_small(cs, r.c + 0, 35));
    assert_true(fe_equal_small(cs, r.a + 4, 2));
    assert_true(fe_equal_small(cs, r.b + 4, 3));
    assert_true(fe_equal_small(cs, r.c + 4, 6));
    /* Input-consistency rows: a = input_j, b = c = 0. */
    assert_true(fe_equal_small(cs, r.a + 8, 1));
    assert_true(fe_equal_small(cs, r.a + 12, 5));
    for (int row = 2; row < 4; row++) {
        assert_true(fe_equal_small(cs, r.b + 4 * row, 0));
        assert_true(fe_equal_small(cs, r.c + 4 * row, 0));
    }
    assert_true(fe_equal_small(cs, r.input + 0, 1));
    assert_true(fe_equal_small(cs, r.input + 4, 5));
    assert_true(fe_equal_small(cs, r.aux + 0, 2));
    assert_true(fe_equal_small(cs, r.aux + 12, 4));
    /* Full order: one, p, u, v, w, unused. A: one, p, u. B: one, v. */
    assert_int_equal(r.density_words, 1);
    assert_int_equal(r.density[0], 0x7);
    assert_int_equal(r.density[1], 0x9);
    assert_true(zkpipe__density_test(r.density, 2));
    assert_false(zkpipe__density_test(r.density, 3));
    zkpipe__synth_free(&r);
    assert_null(r.a);
    zkpipe__synth_free(&r);
    zkpipe__synth_free(NULL);
    zkpipe__synth_free_abc(NULL);
    assert_int_equal(zkpipe__synth(NULL, cs, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe__synth(&r, NULL, NULL, NULL), ZKPIPE_EINVAL);
    zkpipe_cs_destroy(cs);
}

static zkpipe_cs *test_circuit(zkpipe_curve curve, zkpipe_cs_mode mode, unsigned log_rows,
                               uint64_t seed, size_t num_public, const zkpipe_allocator *a)
{
    zkpipe_cs *cs;
    assert_int_equal(zkpipe_cs_create(&cs, curve, mode, a), ZKPIPE_OK);
    assert_int_equal(zkpipe_testcircuit_build(cs, log_rows, seed, num_public), ZKPIPE_OK);
    return cs;
}

/* a_i b_i = c_i on every row, the input rows hold the inputs, the padding is zero. */
static void assert_rows_hold(const zkpipe_cs *cs, const zkpipe__synth_result *r)
{
    const zkpipe__curve_ops *ops = cs->ops;
    size_t m = r->num_constraints;
    for (size_t i = 0; i < r->n; i++) {
        uint64_t ab[4];
        ops->fr_mul(ab, r->a + 4 * i, r->b + 4 * i);
        assert_memory_equal(ab, r->c + 4 * i, 32);
        if (i >= m && i < m + r->num_inputs)
            assert_memory_equal(r->a + 4 * i, cs->input_values + 4 * (i - m), 32);
        if (i >= m + r->num_inputs)
            assert_true(fe_equal_small(cs, r->a + 4 * i, 0));
        if (i >= m)
            assert_true(fe_equal_small(cs, r->b + 4 * i, 0));
    }
}

static void testcircuit_sizes_and_satisfaction(void **state)
{
    (void)state;
    const size_t publics[] = {0, 1, 4};
    for (int i = 0; i < NCURVES; i++) {
        for (unsigned k = 4; k <= 12; k += 2) {
            for (size_t p = 0; p < 3; p++) {
                zkpipe_cs *cs = test_circuit(curves[i], ZKPIPE_CS_WITNESS, k, k, publics[p], NULL);
                assert_int_equal(zkpipe_cs_num_inputs(cs), 1 + publics[p]);
                assert_int_equal(zkpipe_cs_num_constraints(cs) + zkpipe_cs_num_inputs(cs),
                                 (size_t)1 << k);
                assert_int_equal(zkpipe_cs_check(cs, NULL), ZKPIPE_OK);
                unsigned log_n;
                uint64_t bytes;
                assert_int_equal(zkpipe_cs_synth_bytes(cs, &bytes, &log_n), ZKPIPE_OK);
                assert_int_equal(log_n, k);
                if (k == 10) {
                    zkpipe__synth_result r;
                    assert_int_equal(zkpipe__synth(&r, cs, NULL, NULL), ZKPIPE_OK);
                    assert_rows_hold(cs, &r);
                    zkpipe__synth_free(&r);
                }
                zkpipe_cs_destroy(cs);
            }
        }
    }
}

static void testcircuit_is_realistic_and_deterministic(void **state)
{
    (void)state;
    zkpipe_cs *a = test_circuit(ZKPIPE_CURVE_BN254, ZKPIPE_CS_WITNESS, 11, 7, 2, NULL);
    zkpipe_cs *b = test_circuit(ZKPIPE_CURVE_BN254, ZKPIPE_CS_WITNESS, 11, 7, 2, NULL);
    zkpipe_cs *other = test_circuit(ZKPIPE_CURVE_BN254, ZKPIPE_CS_WITNESS, 11, 8, 2, NULL);
    zkpipe_cs *shape = test_circuit(ZKPIPE_CURVE_BN254, ZKPIPE_CS_SHAPE, 11, 7, 2, NULL);
    assert_int_equal(zkpipe_cs_num_aux(a), zkpipe_cs_num_aux(b));
    assert_int_equal(zkpipe_cs_num_aux(a), zkpipe_cs_num_aux(shape));
    assert_memory_equal(a->aux_values, b->aux_values, 32 * a->num_aux);
    assert_memory_equal(a->input_values, b->input_values, 32 * a->num_inputs);
    assert_memory_not_equal(a->aux_values, other->aux_values, 32 * a->num_aux);
    for (int k = 0; k < 3; k++) {
        size_t rows = a->num_constraints + 1;
        assert_memory_equal(a->m[k].row_start, shape->m[k].row_start, 8 * rows);
        assert_memory_equal(a->m[k].terms, shape->m[k].terms,
                            sizeof(zkpipe__term) * a->m[k].row_start[rows - 1]);
    }
    /* The last input is the chain's output; many values are bits; constants are shared. */
    size_t bits = 0;
    for (size_t v = 0; v < a->num_aux; v++)
        bits += fe_equal_small(a, a->aux_values + 4 * v, 0) ||
                fe_equal_small(a, a->aux_values + 4 * v, 1);
    assert_true(bits * 3 >= a->num_aux);
    assert_true(a->num_coeffs < 200);
    zkpipe_cs_destroy(a);
    zkpipe_cs_destroy(b);
    zkpipe_cs_destroy(other);
    zkpipe_cs_destroy(shape);
}

static void testcircuit_corruption_is_located(void **state)
{
    (void)state;
    zkpipe_cs *cs = test_circuit(ZKPIPE_CURVE_BLS12_381, ZKPIPE_CS_WITNESS, 9, 3, 3, NULL);
    for (uint32_t aux = 0; aux < cs->num_aux; aux += 37) {
        /* The first row mentioning the variable anywhere is the first that fails. */
        size_t expect = SIZE_MAX;
        for (int k = 0; k < 3; k++) {
            for (size_t row = 0; row < cs->num_constraints && row < expect; row++) {
                size_t count;
                const zkpipe__term *terms = zkpipe__cs_row(cs, k, row, &count);
                for (size_t t = 0; t < count; t++) {
                    if (terms[t].var == (ZKPIPE_VAR_AUX | aux))
                        expect = row;
                }
            }
        }
        assert_true(expect != SIZE_MAX);
        uint64_t *value = cs->aux_values + 4 * aux, saved[4];
        memcpy(saved, value, 32);
        cs->ops->fr_from_u64(value, 2);
        size_t first = SIZE_MAX;
        assert_int_equal(zkpipe_cs_check(cs, &first), ZKPIPE_EUNSATISFIED);
        assert_int_equal(first, expect);
        memcpy(value, saved, 32);
    }
    assert_int_equal(zkpipe_cs_check(cs, NULL), ZKPIPE_OK);
    zkpipe_cs_destroy(cs);
}

static void testcircuit_rejects_bad_arguments(void **state)
{
    (void)state;
    zkpipe_cs *cs;
    assert_int_equal(zkpipe_cs_create(&cs, ZKPIPE_CURVE_BN254, ZKPIPE_CS_WITNESS, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_testcircuit_build(NULL, 8, 1, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_testcircuit_build(cs, 3, 1, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_testcircuit_build(cs, 29, 1, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_testcircuit_build(cs, 6, 1, 17), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_testcircuit_build(cs, 6, 1, 16), ZKPIPE_OK);
    assert_int_equal(zkpipe_cs_check(cs, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_testcircuit_build(cs, 6, 1, 16), ZKPIPE_ESTATE);
    zkpipe_cs_destroy(cs);
    assert_int_equal(zkpipe_cs_create(&cs, ZKPIPE_CURVE_BN254, ZKPIPE_CS_WITNESS, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_cs_alloc_aux(cs, NULL, &order[1]), ZKPIPE_ENONCANONICAL);
    zkpipe_scalar one = small(1);
    assert_int_equal(zkpipe_cs_alloc_aux(cs, NULL, &one), ZKPIPE_OK);
    assert_int_equal(zkpipe_testcircuit_build(cs, 6, 1, 0), ZKPIPE_ESTATE);
    zkpipe_cs_destroy(cs);
}

static void synth_charges_the_ledger(void **state)
{
    (void)state;
    zkpipe_acct *acct;
    zkpipe_pool *pool;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    assert_int_equal(zkpipe_pool_create(&pool, 2, NULL), ZKPIPE_OK);
    zkpipe_cs *cs = test_circuit(ZKPIPE_CURVE_BLS12_381, ZKPIPE_CS_WITNESS, 12, 5, 3, NULL);
    /* Fewer constraints than the domain leaves padding rows. */
    zkpipe_scalar z = small(0);
    assert_int_equal(zkpipe_cs_alloc_aux(cs, NULL, &z), ZKPIPE_OK);
    zkpipe_ledger ledger;
    assert_int_equal(zkpipe_ledger_open(&ledger, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
    uint64_t expect;
    assert_int_equal(zkpipe_cs_synth_bytes(cs, &expect, NULL), ZKPIPE_OK);

    zkpipe__synth_result r, serial;
    assert_int_equal(zkpipe__synth(&r, cs, pool, &ledger), ZKPIPE_OK);
    zkpipe_snapshot snap;
    assert_int_equal(zkpipe_acct_snapshot(acct, &snap), ZKPIPE_OK);
    const zkpipe_snapshot_stage *st = &snap.stage[ZKPIPE_STAGE_SYNTH];
    assert_int_equal(snap.live_bytes, expect);
    assert_int_equal(st->kind[ZKPIPE_KIND_ABC].live_buffers, 3);
    assert_int_equal(st->kind[ZKPIPE_KIND_ABC].live_bytes, 3 * 32 * r.n);
    assert_int_equal(st->kind[ZKPIPE_KIND_INPUT].live_bytes, 32 * r.num_inputs);
    assert_int_equal(st->kind[ZKPIPE_KIND_AUX].live_bytes, 32 * r.num_aux);
    assert_int_equal(st->kind[ZKPIPE_KIND_DENSITY].live_buffers, 1);
    assert_int_equal(st->kind[ZKPIPE_KIND_DENSITY].live_bytes, 16 * r.density_words);

    /* The pool does not change a bit of the result. */
    assert_int_equal(zkpipe__synth(&serial, cs, NULL, NULL), ZKPIPE_OK);
    assert_memory_equal(r.a, serial.a, 32 * r.n);
    assert_memory_equal(r.b, serial.b, 32 * r.n);
    assert_memory_equal(r.c, serial.c, 32 * r.n);
    assert_memory_equal(r.density, serial.density, 16 * r.density_words);
    assert_rows_hold(cs, &serial);
    zkpipe__synth_free(&serial);

    zkpipe__synth_free_abc(&r);
    zkpipe__synth_free_abc(&r);
    assert_null(r.a);
    assert_int_equal(zkpipe_acct_snapshot(acct, &snap), ZKPIPE_OK);
    assert_int_equal(snap.stage[ZKPIPE_STAGE_SYNTH].kind[ZKPIPE_KIND_ABC].live_bytes, 0);
    assert_int_equal(snap.live_bytes, expect - 3 * 32 * r.n);
    zkpipe__synth_free(&r);
    assert_int_equal(zkpipe_acct_snapshot(acct, &snap), ZKPIPE_OK);
    assert_int_equal(snap.live_bytes, 0);
    assert_int_equal(snap.peak_bytes, expect);

    /* A closed ledger refuses the first charge: nothing stays allocated or charged. */
    zkpipe_ledger_close(&ledger);
    assert_int_equal(zkpipe__synth(&r, cs, pool, &ledger), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_acct_snapshot(acct, &snap), ZKPIPE_OK);
    assert_int_equal(snap.live_bytes, 0);
    zkpipe_cs_destroy(cs);
    zkpipe_pool_destroy(pool);
    zkpipe_acct_destroy(acct);
}

/* Every allocation of create, a few growing builder calls, the test circuit and a charged
 * synthesis fails in turn; each failure leaves nothing allocated or charged. */
static int build_and_synth(void *arg, const zkpipe_allocator *a)
{
    zkpipe_acct *acct = arg;
    zkpipe_cs *cs;
    zkpipe_status st = zkpipe_cs_create(&cs, ZKPIPE_CURVE_BN254, ZKPIPE_CS_WITNESS, a);
    if (st != ZKPIPE_OK)
        return st;
    if ((st = zkpipe_testcircuit_build(cs, 7, 1, 2)) == ZKPIPE_OK) {
        zkpipe_scalar coeff = small(12345);
        zkpipe_term t[20];
        for (int i = 0; i < 20; i++) {
            t[i].var = ZKPIPE_VAR_AUX | (uint32_t)i;
            t[i].coeff = coeff;
            coeff.l[0]++;
        }
        for (int i = 0; i < 30 && st == ZKPIPE_OK; i++) {
            zkpipe_scalar v = small(0);
            if ((st = zkpipe_cs_alloc_input(cs, NULL, &v)) == ZKPIPE_OK)
                st = zkpipe_cs_enforce(cs, t, 20, t, 20, NULL, 0);
        }
    }
    if (st == ZKPIPE_OK) {
        zkpipe_ledger ledger;
        zkpipe__synth_result r;
        assert_int_equal(zkpipe_ledger_open(&ledger, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
        if ((st = zkpipe__synth(&r, cs, NULL, &ledger)) == ZKPIPE_OK)
            zkpipe__synth_free(&r);
        zkpipe_snapshot snap;
        assert_int_equal(zkpipe_acct_snapshot(acct, &snap), ZKPIPE_OK);
        assert_int_equal(snap.live_bytes, 0);
        zkpipe_ledger_close(&ledger);
    }
    zkpipe_cs_destroy(cs);
    return st;
}

static void every_allocation_failure_is_clean(void **state)
{
    (void)state;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    long sites = fail_alloc_walk(build_and_synth, NULL, acct);
    assert_true(sites > 20);
    zkpipe_acct_destroy(acct);
}

static void large_testcircuit(void **state)
{
    (void)state;
    zkpipe_pool *pool;
    assert_int_equal(zkpipe_pool_create(&pool, 2, NULL), ZKPIPE_OK);
    for (int i = 0; i < NCURVES; i++) {
        zkpipe_cs *cs = test_circuit(curves[i], ZKPIPE_CS_WITNESS, 20, 11, 8, NULL);
        assert_int_equal(zkpipe_cs_num_constraints(cs) + 9, (size_t)1 << 20);
        assert_int_equal(zkpipe_cs_check(cs, NULL), ZKPIPE_OK);
        zkpipe__synth_result r;
        assert_int_equal(zkpipe__synth(&r, cs, pool, NULL), ZKPIPE_OK);
        assert_int_equal(r.n, (size_t)1 << 20);
        assert_rows_hold(cs, &r);
        zkpipe__synth_free(&r);
        zkpipe_cs_destroy(cs);
    }
    zkpipe_pool_destroy(pool);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(curve_names_round_trip),
        cmocka_unit_test(create_rejects_bad_arguments),
        cmocka_unit_test(scalars_and_values),
        cmocka_unit_test(enforce_validates_terms),
        cmocka_unit_test(check_finds_first_failing_constraint),
        cmocka_unit_test(limits_are_reported),
        cmocka_unit_test(shape_mode_has_no_values),
        cmocka_unit_test(estimate_counts_every_buffer),
        cmocka_unit_test(synth_hand_circuit),
        cmocka_unit_test(testcircuit_sizes_and_satisfaction),
        cmocka_unit_test(testcircuit_is_realistic_and_deterministic),
        cmocka_unit_test(testcircuit_corruption_is_located),
        cmocka_unit_test(testcircuit_rejects_bad_arguments),
        cmocka_unit_test(synth_charges_the_ledger),
        cmocka_unit_test(every_allocation_failure_is_clean),
    };
    const struct CMUnitTest large[] = {
        cmocka_unit_test(large_testcircuit),
    };
    if (argc > 1 && strcmp(argv[1], "--large") == 0)
        return cmocka_run_group_tests(large, NULL, NULL);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
