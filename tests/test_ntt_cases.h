/* The NTT tests written once for every field: test_ntt.c defines NTT_F to a field type and
 * includes this file, which defines static test functions named <field>_<case>. */
#define NTT_CAT_(a, b) a##b
#define NTT_CAT(a, b) NTT_CAT_(a, b)
#define FE NTT_F
#define FOP(op) NTT_CAT(NTT_F, _##op)
#define API(name) NTT_CAT(NTT_CAT(zkpipe__, NTT_F), _##name)
#define T(name) NTT_CAT(NTT_F, _##name)
#define DOMAIN API(domain)
#define LIMBS NTT_CAT(NTT_F, _LIMBS)
#define TWO_ADICITY NTT_CAT(NTT_F, _TWO_ADICITY)

/* A uniformly random element (rejection sampling below the modulus). */
static void T(random)(FE *r, uint64_t *rng)
{
    uint64_t limbs[LIMBS];
    do {
        for (int i = 0; i < LIMBS; i++)
            limbs[i] = next_u64(rng);
        limbs[LIMBS - 1] &= UINT64_MAX >> 1;
    } while (!FOP(from_canonical)(r, limbs));
}

static FE *T(random_vector)(size_t n, uint64_t seed)
{
    FE *v = malloc(n * sizeof *v);
    assert_non_null(v);
    uint64_t rng = seed;
    for (size_t i = 0; i < n; i++)
        T(random)(&v[i], &rng);
    return v;
}

static FE *T(copy)(const FE *v, size_t n)
{
    FE *c = malloc(n * sizeof *c);
    assert_non_null(c);
    memcpy(c, v, n * sizeof *c);
    return c;
}

static void T(assert_vectors_equal)(const FE *x, const FE *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!FOP(eq)(&x[i], &y[i]))
            fail_msg("element %zu of %zu differs", i, n);
}

/* p(x) = sum_i c_i x^i by Horner's rule. */
static void T(evaluate)(FE *out, const FE *c, size_t n, const FE *x)
{
    FE acc;
    FOP(set_zero)(&acc);
    for (size_t i = n; i-- > 0;) {
        FOP(mul)(&acc, &acc, x);
        FOP(add)(&acc, &acc, &c[i]);
    }
    *out = acc;
}

static void T(power)(FE *r, const FE *base, uint64_t e)
{
    FOP(pow)(r, base, &e, 1);
}

static DOMAIN *T(domain)(unsigned log_n)
{
    DOMAIN *d = NULL;
    assert_int_equal(API(domain_create)(&d, log_n, NULL, NULL), ZKPIPE_OK);
    assert_non_null(d);
    return d;
}

static void T(roots_have_their_order)(void **state)
{
    (void)state;
    FE one, minus_one, w, x, prev;
    FOP(set_one)(&one);
    prev = one;
    FOP(neg)(&minus_one, &one);
    for (unsigned k = 0; k <= TWO_ADICITY; k++) {
        assert_int_equal(API(root_of_unity)(&w, k), ZKPIPE_OK);
        x = w;
        for (unsigned i = 0; i < k; i++) {
            if (i == k - 1)
                assert_true(FOP(eq)(&x, &minus_one)); /* w^(n/2) = -1 */
            FOP(sqr)(&x, &x);
        }
        assert_true(FOP(eq)(&x, &one)); /* w^n = 1 */
        if (k > 0) {
            FOP(sqr)(&x, &w);
            assert_true(FOP(eq)(&x, &prev)); /* each root squares to the previous one */
        }
        prev = w;
    }
    FE top = NTT_CAT(NTT_F, _ROOT_OF_UNITY);
    assert_true(FOP(eq)(&prev, &top));
    assert_int_equal(API(root_of_unity)(&w, TWO_ADICITY + 1), ZKPIPE_ETOOBIG);
    assert_int_equal(API(root_of_unity)(NULL, 1), ZKPIPE_EINVAL);
}

/* Every transform against its definition, O(n^2), for n = 1 .. 64, inline and on a pool. */
static void T(matches_naive_dft)(void **state)
{
    zkpipe_pool *pool = *state;
    for (unsigned log_n = 0; log_n <= 6; log_n++) {
        size_t n = (size_t)1 << log_n;
        DOMAIN *d = T(domain)(log_n);
        assert_int_equal(API(domain_size)(d), n);
        assert_int_equal(API(domain_log_size)(d), log_n);
        FE w, w_check, shifts[2];
        API(domain_generator)(&w, d);
        assert_int_equal(API(root_of_unity)(&w_check, log_n), ZKPIPE_OK);
        assert_true(FOP(eq)(&w, &w_check));
        uint64_t rng = 7 + log_n;
        T(random)(&shifts[0], &rng);
        assert_int_equal(API(root_of_unity)(&shifts[1], log_n + 1), ZKPIPE_OK);

        FE *coeffs = T(random_vector)(n, 100 + log_n);
        FE *expect = malloc(n * sizeof *expect);
        assert_non_null(expect);
        for (int coset = -1; coset < 2; coset++) {
            FE x;
            FOP(set_one)(&x);
            if (coset >= 0)
                x = shifts[coset];
            for (size_t j = 0; j < n; j++) { /* x = g w^j */
                T(evaluate)(&expect[j], coeffs, n, &x);
                FOP(mul)(&x, &x, &w);
            }
            for (int use_pool = 0; use_pool < 2; use_pool++) {
                zkpipe_pool *p = use_pool ? pool : NULL;
                FE *a = T(copy)(coeffs, n);
                if (coset < 0)
                    assert_int_equal(API(ntt)(a, d, p), ZKPIPE_OK);
                else
                    assert_int_equal(API(coset_ntt)(a, d, &shifts[coset], p), ZKPIPE_OK);
                T(assert_vectors_equal)(a, expect, n);
                if (coset < 0)
                    assert_int_equal(API(intt)(a, d, p), ZKPIPE_OK);
                else
                    assert_int_equal(API(coset_intt)(a, d, &shifts[coset], p), ZKPIPE_OK);
                T(assert_vectors_equal)(a, coeffs, n);
                free(a);
            }
        }
        free(expect);
        free(coeffs);
        API(domain_destroy)(d);
    }
}

/* Round trips up to 2^16 (smaller under sanitizers), with output spot-checked by Horner. */
static void T(round_trips)(void **state)
{
    zkpipe_pool *pool = *state;
    for (unsigned log_n = 7; log_n <= max_log_n; log_n += 3) {
        size_t n = (size_t)1 << log_n;
        DOMAIN *d = T(domain)(log_n);
        FE *coeffs = T(random_vector)(n, 200 + log_n);
        FE *a = T(copy)(coeffs, n);
        FE g, w, x, y;
        uint64_t rng = 300 + log_n;
        T(random)(&g, &rng);
        API(domain_generator)(&w, d);

        assert_int_equal(API(ntt)(a, d, pool), ZKPIPE_OK);
        for (size_t j = 1; j < n; j = j * 5 + 3) {
            T(power)(&x, &w, j);
            T(evaluate)(&y, coeffs, n, &x);
            assert_true(FOP(eq)(&a[j], &y));
        }
        assert_int_equal(API(intt)(a, d, pool), ZKPIPE_OK);
        T(assert_vectors_equal)(a, coeffs, n);

        assert_int_equal(API(coset_ntt)(a, d, &g, pool), ZKPIPE_OK);
        for (size_t j = 0; j < n; j = j * 7 + 1) {
            T(power)(&x, &w, j);
            FOP(mul)(&x, &x, &g);
            T(evaluate)(&y, coeffs, n, &x);
            assert_true(FOP(eq)(&a[j], &y));
        }
        assert_int_equal(API(coset_intt)(a, d, &g, pool), ZKPIPE_OK);
        T(assert_vectors_equal)(a, coeffs, n);
        free(a);
        free(coeffs);
        API(domain_destroy)(d);
    }
}

/* The pool and its thread count never change a single bit of the result. */
static void T(threads_give_identical_results)(void **state)
{
    (void)state;
    const unsigned log_n = max_log_n;
    size_t n = (size_t)1 << log_n;
    DOMAIN *d = T(domain)(log_n);
    FE *coeffs = T(random_vector)(n, 400);
    FE *single = T(copy)(coeffs, n);
    FE g;
    uint64_t rng = 401;
    T(random)(&g, &rng);
    assert_int_equal(API(coset_ntt)(single, d, &g, NULL), ZKPIPE_OK);
    for (unsigned threads = 1; threads <= 4; threads++) {
        zkpipe_pool *pool = NULL;
        assert_int_equal(zkpipe_pool_create(&pool, threads, NULL), ZKPIPE_OK);
        DOMAIN *pd = NULL;
        assert_int_equal(API(domain_create)(&pd, log_n, pool, NULL), ZKPIPE_OK);
        FE *multi = T(copy)(coeffs, n);
        assert_int_equal(API(coset_ntt)(multi, pd, &g, pool), ZKPIPE_OK);
        T(assert_vectors_equal)(multi, single, n);
        free(multi);
        API(domain_destroy)(pd);
        zkpipe_pool_destroy(pool);
    }
    free(single);
    free(coeffs);
    API(domain_destroy)(d);
}

/* Where the CPU has the IFMA lanes, every transform with them equals the one without (every
 * group of stages takes the lanes at 2^12 and above). */
static void T(lanes_match_scalar)(void **state)
{
    zkpipe_pool *pool = *state;
#if ZKPIPE__FF_X86
    if (!zkpipe__ff_x86_ifma)
        skip();
    for (unsigned log_n = 3; log_n <= max_log_n; log_n += log_n < 12 ? 3 : 4) {
        size_t n = (size_t)1 << log_n;
        DOMAIN *d = T(domain)(log_n);
        FE *coeffs = T(random_vector)(n, 500 + log_n), g;
        uint64_t rng = 501 + log_n;
        T(random)(&g, &rng);
        for (int op = 0; op < 4; op++) {
            FE *v[2] = {T(copy)(coeffs, n), T(copy)(coeffs, n)};
            for (int lanes = 0; lanes < 2; lanes++) {
                zkpipe__ff_x86_ifma = lanes;
                zkpipe_status st = op == 0   ? API(ntt)(v[lanes], d, pool)
                                   : op == 1 ? API(intt)(v[lanes], d, pool)
                                   : op == 2 ? API(coset_ntt)(v[lanes], d, &g, pool)
                                             : API(coset_intt)(v[lanes], d, &g, pool);
                zkpipe__ff_x86_ifma = 1;
                assert_int_equal(st, ZKPIPE_OK);
            }
            T(assert_vectors_equal)(v[1], v[0], n);
            free(v[0]);
            free(v[1]);
        }
        free(coeffs);
        API(domain_destroy)(d);
    }
#else
    (void)pool;
    skip();
#endif
}

struct T(nested_job) {
    FE **vectors;
    const DOMAIN *d;
    zkpipe_pool *pool;
    atomic_uint failures;
};

static void T(nested_body)(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    struct T(nested_job) *job = ctx;
    for (size_t i = begin; i < end; i++)
        if (API(ntt)(job->vectors[i], job->d, job->pool) != ZKPIPE_OK)
            atomic_fetch_add(&job->failures, 1);
}

/* Transforms started from loop bodies on the same pool (as a prover transforming a, b and c
 * at once would) run inline there and give the same results. */
static void T(transforms_inside_pool_bodies)(void **state)
{
    zkpipe_pool *pool = *state;
    enum { VECTORS = 5 };
    const unsigned log_n = 11;
    size_t n = (size_t)1 << log_n;
    DOMAIN *d = T(domain)(log_n);
    FE *vectors[VECTORS], *expect[VECTORS];
    for (int i = 0; i < VECTORS; i++) {
        vectors[i] = T(random_vector)(n, 700 + (uint64_t)i);
        expect[i] = T(copy)(vectors[i], n);
        assert_int_equal(API(ntt)(expect[i], d, NULL), ZKPIPE_OK);
    }
    struct T(nested_job) job = {vectors, d, pool, 0};
    assert_int_equal(zkpipe_pool_parallel_for(pool, VECTORS, 1, T(nested_body), &job), ZKPIPE_OK);
    assert_int_equal(atomic_load(&job.failures), 0);
    for (int i = 0; i < VECTORS; i++) {
        T(assert_vectors_equal)(vectors[i], expect[i], n);
        free(vectors[i]);
        free(expect[i]);
    }
    API(domain_destroy)(d);
}

static void T(vanishing_on_cosets)(void **state)
{
    zkpipe_pool *pool = *state;
    FE one, two, minus_two, g, w, x, z, zx, t;
    FOP(set_one)(&one);
    FOP(from_u64)(&two, 2);
    FOP(neg)(&minus_two, &two);
    for (unsigned log_n = 0; log_n <= 10; log_n += 2) {
        size_t n = (size_t)1 << log_n;
        DOMAIN *d = T(domain)(log_n);
        API(domain_generator)(&w, d);
        uint64_t rng = 500 + log_n;
        T(random)(&g, &rng);

        /* Z(x) = x^n - 1 computed directly at points of the coset. */
        assert_int_equal(API(vanishing_on_coset)(&z, d, &g), ZKPIPE_OK);
        for (size_t j = 0; j < n; j = j * 3 + 1) {
            T(power)(&x, &w, j);
            FOP(mul)(&x, &x, &g);
            T(power)(&zx, &x, n);
            FOP(sub)(&zx, &zx, &one);
            assert_true(FOP(eq)(&z, &zx));
        }

        FE *evals = T(random_vector)(n, 600 + log_n);
        FE *q = T(copy)(evals, n);
        assert_int_equal(API(divide_by_vanishing_on_coset)(q, d, &g, pool), ZKPIPE_OK);
        for (size_t j = 0; j < n; j++) {
            FOP(mul)(&t, &q[j], &z);
            assert_true(FOP(eq)(&t, &evals[j]));
        }

        /* snarkjs' coset: g = w_2n gives Z = g^n - 1 = -2. */
        assert_int_equal(API(root_of_unity)(&g, log_n + 1), ZKPIPE_OK);
        assert_int_equal(API(vanishing_on_coset)(&z, d, &g), ZKPIPE_OK);
        assert_true(FOP(eq)(&z, &minus_two));

        /* On the domain itself (g = w^k) Z vanishes: division is refused, a is untouched. */
        FE *before = T(copy)(q, n);
        T(power)(&g, &w, n / 2 + 1);
        assert_int_equal(API(vanishing_on_coset)(&z, d, &g), ZKPIPE_OK);
        assert_true(FOP(is_zero)(&z));
        assert_int_equal(API(divide_by_vanishing_on_coset)(q, d, &g, pool), ZKPIPE_EINVAL);
        T(assert_vectors_equal)(q, before, n);
        free(before);
        free(q);
        free(evals);
        API(domain_destroy)(d);
    }
}

static void T(invalid_arguments)(void **state)
{
    (void)state;
    DOMAIN *d = NULL;
    FE a[4], g, zero;
    FOP(set_one)(&g);
    FOP(set_zero)(&zero);
    zkpipe_allocator half = {NULL, NULL, NULL};
    assert_int_equal(API(domain_create)(NULL, 2, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(API(domain_create)(&d, 2, NULL, &half), ZKPIPE_EINVAL);
    assert_int_equal(API(domain_create)(&d, TWO_ADICITY + 1, NULL, NULL), ZKPIPE_ETOOBIG);
    assert_int_equal(API(domain_create)(&d, 1000, NULL, NULL), ZKPIPE_ETOOBIG);
    assert_null(d);
    assert_int_equal(API(domain_estimate)(TWO_ADICITY + 1), 0);
    assert_int_equal(API(domain_sizeof)(NULL), 0);
    API(domain_destroy)(NULL);

    d = T(domain)(2);
    assert_int_equal(API(domain_sizeof)(d), API(domain_estimate)(2));
    assert_true(API(domain_estimate)(2) >= 3 * sizeof(FE));
    for (int i = 0; i < 4; i++)
        FOP(from_u64)(&a[i], (uint64_t)i + 1);
    assert_int_equal(API(ntt)(NULL, d, NULL), ZKPIPE_EINVAL);
    assert_int_equal(API(ntt)(a, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(API(intt)(NULL, d, NULL), ZKPIPE_EINVAL);
    assert_int_equal(API(intt)(a, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(API(coset_ntt)(NULL, d, &g, NULL), ZKPIPE_EINVAL);
    assert_int_equal(API(coset_ntt)(a, NULL, &g, NULL), ZKPIPE_EINVAL);
    assert_int_equal(API(coset_ntt)(a, d, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(API(coset_ntt)(a, d, &zero, NULL), ZKPIPE_EINVAL);
    assert_int_equal(API(coset_intt)(NULL, d, &g, NULL), ZKPIPE_EINVAL);
    assert_int_equal(API(coset_intt)(a, NULL, &g, NULL), ZKPIPE_EINVAL);
    assert_int_equal(API(coset_intt)(a, d, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(API(coset_intt)(a, d, &zero, NULL), ZKPIPE_EINVAL);
    assert_int_equal(API(vanishing_on_coset)(NULL, d, &g), ZKPIPE_EINVAL);
    assert_int_equal(API(vanishing_on_coset)(&g, NULL, &g), ZKPIPE_EINVAL);
    assert_int_equal(API(vanishing_on_coset)(&g, d, NULL), ZKPIPE_EINVAL);
    assert_int_equal(API(divide_by_vanishing_on_coset)(NULL, d, &g, NULL), ZKPIPE_EINVAL);
    assert_int_equal(API(divide_by_vanishing_on_coset)(a, NULL, &g, NULL), ZKPIPE_EINVAL);
    assert_int_equal(API(divide_by_vanishing_on_coset)(a, d, NULL, NULL), ZKPIPE_EINVAL);
    /* None of the refused calls touched the array. */
    for (int i = 0; i < 4; i++) {
        FE v;
        FOP(from_u64)(&v, (uint64_t)i + 1);
        assert_true(FOP(eq)(&a[i], &v));
    }
    API(domain_destroy)(d);
}

static int T(create_attempt)(void *arg, const zkpipe_allocator *a)
{
    DOMAIN **d = arg;
    return API(domain_create)(d, 5, NULL, a);
}

static void T(destroy_cleanup)(void *arg)
{
    DOMAIN **d = arg;
    API(domain_destroy)(*d);
    *d = NULL;
}

static void T(allocation_failures)(void **state)
{
    (void)state;
    DOMAIN *d = NULL;
    assert_int_equal(fail_alloc_walk(T(create_attempt), T(destroy_cleanup), &d), 1);
}

#undef NTT_CAT_
#undef NTT_CAT
#undef FE
#undef FOP
#undef API
#undef T
#undef DOMAIN
#undef LIMBS
#undef TWO_ADICITY
