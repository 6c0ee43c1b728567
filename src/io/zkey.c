/* The Groth16 .zkey reader (version 1): protocol, header with the verifying key's points, IC,
 * the A and B coefficients, and the A, B1, B2, C and H queries, used in place from the file as
 * a snarkjs-form proving key (groth16/keys.h). */
#include <string.h>

#include "core/alloc_internal.h"
#include "groth16/keys.h"
#include "io/io_internal.h"

struct zkpipe_zkey {
    zkpipe__io_src src; /* first: zkpipe__io_reader_open sets it up */
    const zkpipe__curve_ops *curve;
    zkpipe_zkey_info info;
    zkpipe_groth16_pk pk; /* borrowing the sections below and header_points */
    const uint64_t *ic;   /* num_public + 1 */
    const uint64_t *gamma2;
    /* the header's points, copied: alpha1, beta1, beta2, gamma2, delta1, delta2 */
    uint64_t header_points[3 * ZKPIPE__G1A_WORDS + 3 * ZKPIPE__G2A_WORDS];
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

/* Checks n points of section `id` (canonical, on the curve: the subgroup is the key
 * validation's) and hands out the section, aligned: in place, or the copy the check makes as it
 * reads (snarkjs's B1 and C sections are not 8-byte aligned). Either way the mapped pages are
 * given back once read; the prover faults them in again from the page cache. */
static zkpipe_status points(const uint64_t **out, zkpipe_zkey *z, char *detail, size_t cap,
                            uint32_t id, size_t n, int g2, const zkpipe_io_options *opts)
{
    size_t bytes = n * 8 * (g2 ? z->curve->g2a_words : z->curve->g1a_words);
    const uint8_t *p;
    uint8_t *copy;
    size_t bad;
    zkpipe_status st = zkpipe__io_section(&p, NULL, &z->src, detail, cap, id, bytes);
    if (st != ZKPIPE_OK)
        return st;
    if ((st = zkpipe__io_copy_slot(&copy, &z->src, p, bytes)) != ZKPIPE_OK)
        return zkpipe__fail(detail, cap, st, "cannot copy section %u: %s", (unsigned)id,
                            zkpipe_status_str(st));
    st = z->curve->check_points(&bad, p, copy, n, g2, 0, opts->pool);
    zkpipe__io_drop(&z->src, p, bytes);
    if (st != ZKPIPE_OK)
        return zkpipe__fail(detail, cap, st, "section %u: point %zu %s", (unsigned)id, bad,
                            point_problem(st));
    *out = (const uint64_t *)(copy != NULL ? (const void *)copy : (const void *)p);
    return ZKPIPE_OK;
}

/* The zkey section of each of the key's point arrays (zkpipe__g16_query's order). */
static const unsigned query_section[] = {3, 5, 6, 7, 8, 9};

/* The key's subgroup checks (groth16's key validation), once every point is on the curve and
 * aligned, named by section as the file has them. */
static zkpipe_status validate(zkpipe_zkey *z, char *detail, size_t cap,
                              const zkpipe_io_options *opts)
{
    zkpipe__g16_bad_point bad;
    zkpipe_status st = zkpipe__g16_key_validate(&bad, &z->pk, z->ic, z->info.num_public + 1,
                                                opts->pool, opts->allocator);
    if (st == ZKPIPE_OK)
        return st;
    if (bad.query == ZKPIPE__G16_Q_NONE && st == ZKPIPE_ENOTINSUBGROUP)
        return zkpipe__fail(detail, cap, st, "a query point is not in the prime-order subgroup");
    if (bad.query == ZKPIPE__G16_Q_NONE)
        return zkpipe__fail(detail, cap, st, "cannot check the query sections' subgroup: %s",
                            zkpipe_status_str(st));
    return zkpipe__fail(detail, cap, st, "section %u: point %zu %s", query_section[bad.query],
                        bad.index, point_problem(st));
}

/* Section 2: the sizes, the primes, the counts and the verifying key's points. */
static zkpipe_status header(zkpipe_zkey *z, char *detail, size_t cap)
{
    const uint8_t *h;
    uint64_t size;
    zkpipe_status st = zkpipe__io_section(&h, &size, &z->src, detail, cap, 2, UINT64_MAX);
    if (st != ZKPIPE_OK)
        return st;
    uint32_t n8q = size >= 4 ? zkpipe__get_le32(h) : 0;
    if (size < 4 || (n8q != 32 && n8q != 48) || size < 4 + (uint64_t)n8q + 4 + 32)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "section 2: bad header size");
    z->curve = zkpipe__curve_ops_by_prime(h + 4, n8q, 0);
    if (z->curve == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "section 2: q is neither bls12381's nor bn128's");
    size_t g1 = 2 * (size_t)n8q, g2 = 4 * (size_t)n8q, off = 4 + n8q;
    if (size != off + 4 + 32 + 12 + 3 * g1 + 3 * g2)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "section 2 has %llu bytes, expected %zu",
                            (unsigned long long)size, off + 4 + 32 + 12 + 3 * g1 + 3 * g2);
    if (zkpipe__get_le32(h + off) != 32 ||
        zkpipe__curve_ops_by_prime(h + off + 4, 32, 1) != z->curve)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "section 2: r is not the order of %s",
                            z->curve->snarkjs_name);
    off += 36;
    zkpipe_zkey_info *i = &z->info;
    i->curve = z->curve->curve;
    i->num_vars = zkpipe__get_le32(h + off);
    i->num_public = zkpipe__get_le32(h + off + 4);
    i->domain_size = zkpipe__get_le32(h + off + 8);
    off += 12;
    if ((uint64_t)i->num_public + 1 > i->num_vars)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "section 2: %u public signals need more than %u variables",
                            (unsigned)i->num_public, (unsigned)i->num_vars);
    if (i->domain_size < 2 || (i->domain_size & (i->domain_size - 1)) != 0)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "section 2: domain size %u is not a power of two above 1",
                            (unsigned)i->domain_size);
    z->pk.log_n = (unsigned)__builtin_ctz(i->domain_size);
    if (z->pk.log_n + 1 > z->curve->two_adicity)
        return zkpipe__fail(detail, cap, ZKPIPE_EUNSUPPORTED,
                            "section 2: domain size 2^%u is too large for the odd coset",
                            z->pk.log_n);
    /* The points in file order: G1, G1, G2, G2, G1, G2. */
    static const char *names[6] = {"alpha1", "beta1", "beta2", "gamma2", "delta1", "delta2"};
    static const int is_g2[6] = {0, 0, 1, 1, 0, 1};
    const uint64_t **dst[6] = {&z->pk.alpha1, &z->pk.beta1,  &z->pk.beta2,
                               &z->gamma2,    &z->pk.delta1, &z->pk.delta2};
    uint64_t *store = z->header_points;
    for (int k = 0; k < 6; k++) {
        size_t bytes = is_g2[k] ? g2 : g1, bad;
        if ((st = z->curve->check_points(&bad, h + off, NULL, 1, is_g2[k], 1, NULL)) != ZKPIPE_OK)
            return zkpipe__fail(detail, cap, st, "section 2: %s %s", names[k], point_problem(st));
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
    uint32_t n = size >= 4 ? zkpipe__get_le32(p) : 0;
    if (size < 4 || (size - 4) / 44 != n || (size - 4) % 44 != 0)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "section 4 has %llu bytes, not a count and entries of 44",
                            (unsigned long long)size);
    z->info.num_coeffs = n;
    z->pk.num_coeffs = n;
    z->pk.coeffs = p + 4;
    for (uint32_t k = 0; k < n; k++) {
        const uint8_t *e = p + 4 + 44 * (size_t)k;
        uint32_t m = zkpipe__get_le32(e), row = zkpipe__get_le32(e + 4),
                 wire = zkpipe__get_le32(e + 8);
        uint64_t v[4];
        zkpipe__get_limbs(v, e + 12, 4);
        if (m > 1)
            return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                                "section 4: entry %u names matrix %u (only A = 0, B = 1)",
                                (unsigned)k, (unsigned)m);
        if (row >= z->info.domain_size)
            return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                                "section 4: entry %u: row %u is outside the domain of %u",
                                (unsigned)k, (unsigned)row, (unsigned)z->info.domain_size);
        if (wire >= z->info.num_vars)
            return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "section 4: entry %u: wire %u of %u",
                                (unsigned)k, (unsigned)wire, (unsigned)z->info.num_vars);
        if (!zkpipe__limbs_below(v, z->curve->r, 4))
            return zkpipe__fail(detail, cap, ZKPIPE_ENONCANONICAL,
                                "section 4: entry %u: the value is not below r", (unsigned)k);
    }
    zkpipe__io_drop(&z->src, p, size); /* read again only when a, b, c are computed */
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
    if (zkpipe__get_le32(p) != 1)
        return zkpipe__fail(detail, cap, ZKPIPE_EUNSUPPORTED,
                            "section 1: protocol %u is not Groth16 (1)",
                            (unsigned)zkpipe__get_le32(p));
    if ((st = header(z, detail, cap)) != ZKPIPE_OK ||
        (st = coefficients(z, detail, cap)) != ZKPIPE_OK)
        return st;
    size_t nv = z->info.num_vars, np = z->info.num_public;
    zkpipe_groth16_pk *pk = &z->pk;
    if ((st = points(&z->ic, z, detail, cap, 3, np + 1, 0, opts)) != ZKPIPE_OK ||
        (st = points(&pk->a, z, detail, cap, 5, nv, 0, opts)) != ZKPIPE_OK ||
        (st = points(&pk->b1, z, detail, cap, 6, nv, 0, opts)) != ZKPIPE_OK ||
        (st = points(&pk->b2, z, detail, cap, 7, nv, 1, opts)) != ZKPIPE_OK ||
        (st = points(&pk->l, z, detail, cap, 8, nv - np - 1, 0, opts)) != ZKPIPE_OK ||
        (st = points(&pk->h, z, detail, cap, 9, z->info.domain_size, 0, opts)) != ZKPIPE_OK)
        return st;
    /* The wires: the one, the public signals, then the private ones (snarkjs's C query). */
    pk->allocator = z->src.allocator;
    pk->c = z->curve;
    pk->num_inputs = np + 1;
    pk->num_aux = nv - np - 1;
    pk->subgroup_unchecked = (opts->flags & ZKPIPE_IO_DEFER_SUBGROUP) != 0;
    zkpipe__g16_pk_borrow(pk);
    pk->map = z->src.mapped ? z->src.data : NULL;
    pk->map_len = z->src.mapped ? z->src.len : 0;
    if ((st = validate(z, detail, cap, opts)) != ZKPIPE_OK)
        return st;
    /* Every section has been read once and given back as it went (points()); the
     * key's batched subgroup check read the query sections together again. */
    zkpipe__io_drop(&z->src, z->src.data, z->src.len);
    for (size_t k = 0; k < z->src.ncopies; k++)
        z->info.copied_bytes += z->src.copy_bytes[k];
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_zkey_open(zkpipe_zkey **out, char *detail, size_t detail_cap, const char *path,
                               const zkpipe_io_options *opts)
{
    if (path == NULL)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EINVAL, "invalid argument");
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

zkpipe_status zkpipe_zkey_memory(zkpipe_zkey_memory_info *out, const zkpipe_zkey *zkey)
{
    if (out == NULL || zkey == NULL)
        return ZKPIPE_EINVAL;
    memset(out, 0, sizeof *out);
    const zkpipe__io_src *src = &zkey->src;
    for (size_t i = 0; i < src->ncopies; i++)
        out->copied_bytes += src->copy_bytes[i];
    if (!src->mapped) {
        out->resident_bytes = src->len;
        return ZKPIPE_OK;
    }
    out->mapped_bytes = src->len;
    return zkpipe__io_resident(&out->resident_bytes, src) == 0 ? ZKPIPE_OK : ZKPIPE_EIO;
}

const zkpipe_groth16_pk *zkpipe_zkey_pk(const zkpipe_zkey *zkey)
{
    return zkey != NULL ? &zkey->pk : NULL;
}

zkpipe_status zkpipe_zkey_vk(zkpipe_groth16_vk **out, const zkpipe_zkey *zkey,
                             const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out == NULL || zkey == NULL || a == NULL)
        return ZKPIPE_EINVAL;
    const zkpipe__curve_ops *c = zkey->curve;
    zkpipe_groth16_vk *vk;
    zkpipe_status st = zkpipe__g16_vk_alloc(&vk, c, zkey->pk.num_inputs, a);
    if (st != ZKPIPE_OK)
        return st;
    size_t g1 = 8 * c->g1a_words, g2 = 8 * c->g2a_words;
    memcpy(vk->alpha1, zkey->pk.alpha1, g1);
    memcpy(vk->beta2, zkey->pk.beta2, g2);
    memcpy(vk->gamma2, zkey->gamma2, g2);
    memcpy(vk->delta2, zkey->pk.delta2, g2);
    memcpy(vk->ic, zkey->ic, zkey->pk.num_inputs * g1);
    *out = vk;
    return ZKPIPE_OK;
}
