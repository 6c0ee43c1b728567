/* The quotient h = (a b - c) / Z on the NTT, as bellman computes it. Part of the per-curve
 * template.
 *
 * a, b, c are evaluations over the domain <w>; interpolating them (iNTT) and evaluating on the
 * coset g<w> (coset NTT) gives points where Z(x) = x^n - 1 is the non-zero constant g^n - 1,
 * so the division is pointwise; a coset iNTT then gives h's coefficients. a b - c has degree
 * at most 2n - 2 and vanishes on the domain, so h has degree at most n - 2: its last
 * coefficient is 0 and the H query has n - 1 points. */

/* The coset shift: 5 generates the multiplicative group of both scalar fields (ffjavascript's
 * choice, from which ff's roots of unity come), so g^n != 1 for every domain. */
static void coset_shift(FR *g)
{
    FRF(from_u64)(g, 5);
}

typedef struct quotient_ctx {
    FR *h;
    const FR *a, *b, *c;
} quotient_ctx;

static void quotient_rows(void *arg, size_t begin, size_t end, unsigned worker)
{
    const quotient_ctx *q = (const quotient_ctx *)arg;
    (void)worker;
    for (size_t j = begin; j < end; j++) {
        FRF(mul)(&q->h[j], &q->a[j], &q->b[j]);
        FRF(sub)(&q->h[j], &q->h[j], &q->c[j]);
    }
}

/* h = a b - c on the coset, transforming a, b and c in place (they are garbage afterwards). */
static void quotient_on_coset(FR *h, FR *a, FR *b, FR *c, const DOMAIN *d, zkpipe_pool *pool)
{
    FR g;
    coset_shift(&g);
    FR *abc[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        NTT(intt)(abc[k], d, pool);
        NTT(coset_ntt)(abc[k], d, &g, pool);
    }
    quotient_ctx q = {h, a, b, c};
    zkpipe_pool_parallel_for(pool, NTT(domain_size)(d), 0, quotient_rows, &q);
}

/* h's coefficients from its values on the coset. */
static void quotient_finish(FR *h, const DOMAIN *d, zkpipe_pool *pool)
{
    FR g;
    coset_shift(&g);
    NTT(divide_by_vanishing_on_coset)(h, d, &g, pool);
    NTT(coset_intt)(h, d, &g, pool);
}

static zkpipe_status quotient(uint64_t *h, zkpipe__synth_result *res, zkpipe_pool *pool)
{
    DOMAIN *d;
    zkpipe_status st = NTT(domain_create)(&d, res->log_n, pool, &res->allocator);
    if (st != ZKPIPE_OK)
        return st;
    quotient_on_coset((FR *)h, (FR *)res->a, (FR *)res->b, (FR *)res->c, d, pool);
    quotient_finish((FR *)h, d, pool);
    NTT(domain_destroy)(d);
    return ZKPIPE_OK;
}
