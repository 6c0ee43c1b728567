/* The Groth16 .zkey reader (version 1): protocol, header with the verifying key's points, IC,
 * the A and B coefficients, and the A, B1, B2, C and H queries, used in place from the file. */
#include <string.h>

#include "core/alloc_internal.h"
#include "groth16/groth16_internal.h"
#include "io/io_internal.h"

struct zkpipe_zkey {
    zkpipe__io_src src; /* first: zkpipe__io_reader_open sets it up */
    const zkpipe__io_curve *curve;
    zkpipe_zkey_info info;
    zkpipe__io_zkey_view view;
    /* the header's points, copied: alpha1, beta1, beta2, gamma2, delta1, delta2 */
    uint64_t header_points[3 * 12 + 3 * 24];
};

static const char *point_problem(zkpipe_status st)
{
    switch (st) {
    case ZKPIPE_ENONCANONICAL:
        return "has a coordinate not below the field's prime";
    case ZKPIPE_ENOTONCURVE:
        return "is not on the curve";
    default:
        return "is not in the prime-order subgroup";
    }
}

/* Checks n points of section `id` and hands out the (aligned) section. */
static zkpipe_status points(const uint64_t **out, zkpipe_zkey *z, char *detail, size_t cap,
                            uint32_t id, size_t n, int g2, const zkpipe_io_options *opts)
{
    size_t bytes = n * (g2 ? 4 : 2) * z->curve->fq_bytes;
    const uint8_t *p;
    const void *aligned;
    size_t bad;
    zkpipe_status st = zkpipe__io_section(&p, NULL, &z->src, detail, cap, id, bytes);
    if (st != ZKPIPE_OK)
        return st;
    /* IC (section 3) is always checked in full: the verifier uses it as it is. The query
     * sections' subgroup checks are batched once their points are on the curve and aligned;
     * a batch that fails is rechecked point by point to name the first bad point. */
    int subgroup = id == 3 || !(opts->flags & ZKPIPE_IO_DEFER_SUBGROUP), batch = id != 3;
    if ((st = z->curve->check_points(&bad, p, n, g2, subgroup && !batch, opts->pool)) != ZKPIPE_OK)
        return zkpipe__io_fail(detail, cap, st, "section %u: point %zu %s", (unsigned)id, bad,
                               point_problem(st));
    if ((st = zkpipe__io_aligned(&aligned, &z->src, p, bytes)) != ZKPIPE_OK)
        return zkpipe__io_fail(detail, cap, st, "cannot copy section %u: %s", (unsigned)id,
                               zkpipe_status_str(st));
    if (subgroup && batch) {
        int all = 0;
        st = z->curve->subgroup_batch(&all, (const uint64_t *)aligned, n, g2, opts->pool,
                                      opts->allocator);
        if (st != ZKPIPE_OK)
            return zkpipe__io_fail(detail, cap, st, "section %u: cannot check the subgroup: %s",
                                   (unsigned)id, zkpipe_status_str(st));
        if (!all && (st = z->curve->check_points(&bad, p, n, g2, 1, opts->pool)) != ZKPIPE_OK)
            return zkpipe__io_fail(detail, cap, st, "section %u: point %zu %s", (unsigned)id, bad,
                                   point_problem(st));
        if (!all) /* cannot happen: a failing batch holds a point outside */
            return zkpipe__io_fail(detail, cap, ZKPIPE_ENOTINSUBGROUP,
                                   "section %u: a point is not in the prime-order subgroup",
                                   (unsigned)id);
    }
    *out = (const uint64_t *)aligned;
    return ZKPIPE_OK;
}

/* Section 2: the sizes, the primes, the counts and the verifying key's points. */
static zkpipe_status header(zkpipe_zkey *z, char *detail, size_t cap)
{
    const uint8_t *h;
    uint64_t size;
    zkpipe_status st = zkpipe__io_section(&h, &size, &z->src, detail, cap, 2, UINT64_MAX);
    if (st != ZKPIPE_OK)
        return st;
    uint32_t n8q = size >= 4 ? zkpipe__io_u32(h) : 0;
    if (size < 4 || (n8q != 32 && n8q != 48) || size < 4 + (uint64_t)n8q + 4 + 32)
        return zkpipe__io_fail(detail, cap, ZKPIPE_EFORMAT, "section 2: bad header size");
    z->curve = zkpipe__io_curve_by_prime(h + 4, n8q, 0);
    if (z->curve == NULL)
        return zkpipe__io_fail(detail, cap, ZKPIPE_EFORMAT,
                               "section 2: q is neither bls12381's nor bn128's");
    size_t g1 = 2 * (size_t)n8q, g2 = 4 * (size_t)n8q, off = 4 + n8q;
    if (size != off + 4 + 32 + 12 + 3 * g1 + 3 * g2)
        return zkpipe__io_fail(detail, cap, ZKPIPE_EFORMAT,
                               "section 2 has %llu bytes, expected %zu", (unsigned long long)size,
                               off + 4 + 32 + 12 + 3 * g1 + 3 * g2);
    if (zkpipe__io_u32(h + off) != 32 || zkpipe__io_curve_by_prime(h + off + 4, 32, 1) != z->curve)
        return zkpipe__io_fail(detail, cap, ZKPIPE_EFORMAT, "section 2: r is not the order of %s",
                               z->curve->name);
    off += 36;
    zkpipe_zkey_info *i = &z->info;
    i->curve = z->curve->curve;
    i->num_vars = zkpipe__io_u32(h + off);
    i->num_public = zkpipe__io_u32(h + off + 4);
    i->domain_size = zkpipe__io_u32(h + off + 8);
    off += 12;
    if ((uint64_t)i->num_public + 1 > i->num_vars)
        return zkpipe__io_fail(detail, cap, ZKPIPE_EFORMAT,
                               "section 2: %u public signals need more than %u variables",
                               (unsigned)i->num_public, (unsigned)i->num_vars);
    if (i->domain_size < 2 || (i->domain_size & (i->domain_size - 1)) != 0)
        return zkpipe__io_fail(detail, cap, ZKPIPE_EFORMAT,
                               "section 2: domain size %u is not a power of two above 1",
                               (unsigned)i->domain_size);
    z->view.log_n = (size_t)__builtin_ctz(i->domain_size);
    if (z->view.log_n + 1 > z->curve->two_adicity)
        return zkpipe__io_fail(detail, cap, ZKPIPE_EUNSUPPORTED,
                               "section 2: domain size 2^%zu is too large for the odd coset",
                               z->view.log_n);
    /* The points in file order: G1, G1, G2, G2, G1, G2. */
    static const char *names[6] = {"alpha1", "beta1", "beta2", "gamma2", "delta1", "delta2"};
    static const int is_g2[6] = {0, 0, 1, 1, 0, 1};
    const uint64_t **dst[6] = {&z->view.alpha1, &z->view.beta1,  &z->view.beta2,
                               &z->view.gamma2, &z->view.delta1, &z->view.delta2};
    uint64_t *store = z->header_points;
    for (int k = 0; k < 6; k++) {
        size_t bytes = is_g2[k] ? g2 : g1, bad;
        if ((st = z->curve->check_points(&bad, h + off, 1, is_g2[k], 1, NULL)) != ZKPIPE_OK)
            return zkpipe__io_fail(detail, cap, st, "section 2: %s %s", names[k],
                                   point_problem(st));
        memcpy(store, h + off, bytes);
        *dst[k] = store;
        store += bytes / 8;
        off += bytes;
    }
    return ZKPIPE_OK;
}

/* Section 4: every entry's matrix, row, wire and value in range. */
static zkpipe_status coefficients(zkpipe_zkey *z, char *detail, size_t cap)
{
    const uint8_t *p;
    uint64_t size;
    zkpipe_status st = zkpipe__io_section(&p, &size, &z->src, detail, cap, 4, UINT64_MAX);
    if (st != ZKPIPE_OK)
        return st;
    uint32_t n = size >= 4 ? zkpipe__io_u32(p) : 0;
    if (size < 4 || (size - 4) / 44 != n || (size - 4) % 44 != 0)
        return zkpipe__io_fail(detail, cap, ZKPIPE_EFORMAT,
                               "section 4 has %llu bytes, not a count and entries of 44",
                               (unsigned long long)size);
    z->info.num_coeffs = n;
    z->view.num_coeffs = n;
    z->view.coeffs = p + 4;
    for (uint32_t k = 0; k < n; k++) {
        const uint8_t *e = p + 4 + 44 * (size_t)k;
        uint32_t m = zkpipe__io_u32(e), row = zkpipe__io_u32(e + 4), wire = zkpipe__io_u32(e + 8);
        uint64_t v[4];
        zkpipe__io_limbs_le(v, e + 12, 4);
        if (m > 1)
            return zkpipe__io_fail(detail, cap, ZKPIPE_EFORMAT,
                                   "section 4: entry %u names matrix %u (only A = 0, B = 1)",
                                   (unsigned)k, (unsigned)m);
        if (row >= z->info.domain_size)
            return zkpipe__io_fail(detail, cap, ZKPIPE_EFORMAT,
                                   "section 4: entry %u: row %u is outside the domain of %u",
                                   (unsigned)k, (unsigned)row, (unsigned)z->info.domain_size);
        if (wire >= z->info.num_vars)
            return zkpipe__io_fail(detail, cap, ZKPIPE_EFORMAT,
                                   "section 4: entry %u: wire %u of %u", (unsigned)k,
                                   (unsigned)wire, (unsigned)z->info.num_vars);
        if (!zkpipe__io_lt(v, z->curve->r, 4))
            return zkpipe__io_fail(detail, cap, ZKPIPE_ENONCANONICAL,
                                   "section 4: entry %u: the value is not below r", (unsigned)k);
    }
    return ZKPIPE_OK;
}

static zkpipe_status parse(void *reader, char *detail, size_t cap, const zkpipe_io_options *opts)
{
    zkpipe_zkey *z = (zkpipe_zkey *)reader;
    const uint8_t *p;
    zkpipe_status st = zkpipe__io_sections(&z->src, detail, cap, "zkey", 1);
    if (st == ZKPIPE_OK)
        st = zkpipe__io_section(&p, NULL, &z->src, detail, cap, 1, 4);
    if (st != ZKPIPE_OK)
        return st;
    if (zkpipe__io_u32(p) != 1)
        return zkpipe__io_fail(detail, cap, ZKPIPE_EUNSUPPORTED,
                               "section 1: protocol %u is not Groth16 (1)",
                               (unsigned)zkpipe__io_u32(p));
    if ((st = header(z, detail, cap)) != ZKPIPE_OK ||
        (st = coefficients(z, detail, cap)) != ZKPIPE_OK)
        return st;
    size_t nv = z->info.num_vars, np = z->info.num_public;
    zkpipe__io_zkey_view *v = &z->view;
    v->num_vars = nv;
    v->num_public = np;
    if ((st = points(&v->ic, z, detail, cap, 3, np + 1, 0, opts)) != ZKPIPE_OK ||
        (st = points(&v->a, z, detail, cap, 5, nv, 0, opts)) != ZKPIPE_OK ||
        (st = points(&v->b1, z, detail, cap, 6, nv, 0, opts)) != ZKPIPE_OK ||
        (st = points(&v->b2, z, detail, cap, 7, nv, 1, opts)) != ZKPIPE_OK ||
        (st = points(&v->c, z, detail, cap, 8, nv - np - 1, 0, opts)) != ZKPIPE_OK ||
        (st = points(&v->h, z, detail, cap, 9, z->info.domain_size, 0, opts)) != ZKPIPE_OK)
        return st;
    for (size_t k = 0; k < z->src.ncopies; k++)
        z->info.copied_bytes += z->src.copy_bytes[k];
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_zkey_open(zkpipe_zkey **out, char *detail, size_t detail_cap, const char *path,
                               const zkpipe_io_options *opts)
{
    if (path == NULL)
        return zkpipe__io_fail(detail, detail_cap, ZKPIPE_EINVAL, "invalid argument");
    return zkpipe__io_reader_open((void **)out, sizeof(zkpipe_zkey), "zkey", parse, detail,
                                  detail_cap, path, NULL, 0, opts);
}

zkpipe_status zkpipe_zkey_open_mem(zkpipe_zkey **out, char *detail, size_t detail_cap,
                                   const void *data, size_t len, const zkpipe_io_options *opts)
{
    return zkpipe__io_reader_open((void **)out, sizeof(zkpipe_zkey), "zkey", parse, detail,
                                  detail_cap, NULL, data, len, opts);
}

void zkpipe_zkey_destroy(zkpipe_zkey *zkey)
{
    zkpipe__io_reader_destroy(zkey);
}

zkpipe_status zkpipe_zkey_info_get(zkpipe_zkey_info *out, const zkpipe_zkey *zkey)
{
    if (out == NULL || zkey == NULL)
        return ZKPIPE_EINVAL;
    *out = zkey->info;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_zkey_vk(zkpipe_snarkjs_vk **out, const zkpipe_zkey *zkey,
                             const zkpipe_allocator *allocator)
{
    if (out == NULL || zkey == NULL)
        return ZKPIPE_EINVAL;
    const zkpipe__io_curve *c = zkey->curve;
    const zkpipe__io_zkey_view *v = &zkey->view;
    zkpipe_snarkjs_vk *vk;
    zkpipe_status st = zkpipe__io_vk_alloc(&vk, c, v->num_public, allocator);
    if (st != ZKPIPE_OK)
        return st;
    /* The key's block holds alpha1, beta2, gamma2, delta2, then IC, in that order. */
    size_t g1 = 2 * c->fq_limbs, g2 = 2 * g1;
    uint64_t *dst = vk->points;
    memcpy(dst, v->alpha1, g1 * sizeof(uint64_t));
    memcpy(dst += g1, v->beta2, g2 * sizeof(uint64_t));
    memcpy(dst += g2, v->gamma2, g2 * sizeof(uint64_t));
    memcpy(dst += g2, v->delta2, g2 * sizeof(uint64_t));
    memcpy(dst + g2, v->ic, (v->num_public + 1) * g1 * sizeof(uint64_t));
    *out = vk;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe__zkey_prove_rs(zkpipe_groth16_proof *out, zkpipe_zkey_timings *timings,
                                    char *detail, size_t cap, const zkpipe_zkey *zkey,
                                    const zkpipe_wtns *wtns, const zkpipe_scalar *r,
                                    const zkpipe_scalar *s, zkpipe_pool *pool,
                                    zkpipe_backend backend, zkpipe_ledger *ledger)
{
    zkpipe_zkey_timings unused;
    if (out == NULL || zkey == NULL || wtns == NULL || r == NULL || s == NULL ||
        (ledger != NULL && !zkpipe_ledger_is_open(ledger)))
        return zkpipe__io_fail(detail, cap, ZKPIPE_EINVAL, "invalid argument");
    if (zkpipe_wtns_curve(wtns) != zkey->info.curve)
        return zkpipe__io_fail(
            detail, cap, ZKPIPE_EMISMATCH, "the witness is for %s, the zkey for %s",
            zkpipe__io_curve_for(zkpipe_wtns_curve(wtns))->name, zkey->curve->name);
    if (zkpipe_wtns_count(wtns) != zkey->info.num_vars)
        return zkpipe__io_fail(detail, cap, ZKPIPE_EMISMATCH,
                               "the witness has %zu values, the zkey %u variables",
                               zkpipe_wtns_count(wtns), (unsigned)zkey->info.num_vars);
    zkpipe_backend on;
    const char *why = "";
    zkpipe_status st = zkpipe_backend_resolve(&on, backend, &why);
    if (st != ZKPIPE_OK)
        return zkpipe__io_fail(detail, cap, st, "backend %s: %s",
                               zkpipe_backend_name(backend) ? zkpipe_backend_name(backend) : "?",
                               why != NULL ? why : zkpipe_status_str(st));
    /* resolve says CUDA only when the library has the CUDA backend. */
    const zkpipe__io_prove_fn prove =
        on == ZKPIPE_BACKEND_CUDA ? zkey->curve->prove_cuda : zkey->curve->prove;
    uint8_t proof[ZKPIPE_GROTH16_PROOF_MAX_BYTES];
    st = prove(proof, timings != NULL ? timings : &unused, detail, cap, &zkey->view,
               zkpipe__wtns_values(wtns), r->l, s->l, pool, ledger, &zkey->src.allocator);
    if (st == ZKPIPE_OK) {
        out->curve = zkey->info.curve;
        out->size = zkey->curve->proof_bytes;
        memcpy(out->bytes, proof, out->size);
    }
    return st;
}

zkpipe_status zkpipe_zkey_prove(zkpipe_groth16_proof *out, zkpipe_zkey_timings *timings,
                                char *detail, size_t detail_cap, const zkpipe_zkey *zkey,
                                const zkpipe_wtns *wtns, zkpipe_pool *pool, zkpipe_backend backend,
                                zkpipe_ledger *ledger)
{
    zkpipe_scalar r, s;
    if (zkey == NULL)
        return zkpipe__io_fail(detail, detail_cap, ZKPIPE_EINVAL, "invalid argument");
    /* A uniform non-zero element's Montgomery form is itself uniform and non-zero, so its limbs
     * serve as canonical r and s. */
    zkpipe_status st = zkpipe__g16_random_scalar(r.l, zkey->info.curve);
    if (st == ZKPIPE_OK)
        st = zkpipe__g16_random_scalar(s.l, zkey->info.curve);
    if (st != ZKPIPE_OK)
        return zkpipe__io_fail(detail, detail_cap, st, "cannot draw r and s: %s",
                               zkpipe_status_str(st));
    return zkpipe__zkey_prove_rs(out, timings, detail, detail_cap, zkey, wtns, &r, &s, pool,
                                 backend, ledger);
}
