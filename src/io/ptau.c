/* The snarkjs powers of tau reader (.ptau, version 1): the header, the powers (sections 2 to 6)
 * and, once prepared for phase 2, their Lagrange bases (12 to 15), which a zkey setup takes
 * (zkpipe_groth16_ptau). Levels: section 12 holds the bases of the domains of size 2^0 ..
 * 2^(power + 1) one after the other, 13 to 15 those of 2^0 .. 2^power, so the level of size
 * 2^k starts at point 2^k - 1. */
#include <string.h>

#include "io/io_internal.h"

/* snarkjs's largest ceremony. */
#define PTAU_MAX_POWER 28

struct zkpipe_ptau {
    zkpipe__io_src src; /* first: zkpipe__io_reader_open sets it up */
    const zkpipe__curve_ops *curve;
    zkpipe_ptau_info info;
};

static zkpipe_status sized(const uint8_t **out, zkpipe_ptau *p, char *detail, size_t cap,
                           uint32_t id, uint64_t points, int g2)
{
    uint64_t bytes = points * 8 * (g2 ? p->curve->g2a_words : p->curve->g1a_words);
    return zkpipe__io_section(out, NULL, &p->src, detail, cap, id, bytes);
}

static zkpipe_status parse(void *reader, char *detail, size_t cap, const zkpipe_io_options *opts)
{
    zkpipe_ptau *p = (zkpipe_ptau *)reader;
    (void)opts;
    const uint8_t *h, *s;
    uint64_t size;
    zkpipe_status st = zkpipe__io_sections(&p->src, detail, cap, "ptau", 1);
    if (st == ZKPIPE_OK)
        st = zkpipe__io_section(&h, &size, &p->src, detail, cap, 1, UINT64_MAX);
    if (st != ZKPIPE_OK)
        return st;
    uint32_t n8 = size >= 4 ? zkpipe__get_le32(h) : 0;
    if ((n8 != 32 && n8 != 48) || size != 4 + (uint64_t)n8 + 8)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "section 1: the header is not n8, q, the power and the ceremony's");
    p->curve = zkpipe__curve_ops_by_prime(h + 4, n8, 0);
    if (p->curve == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "section 1: q is neither bls12381's nor bn128's");
    p->info.curve = p->curve->curve;
    p->info.power = zkpipe__get_le32(h + 4 + n8);
    p->info.ceremony_power = zkpipe__get_le32(h + 8 + n8);
    uint64_t n = (uint64_t)1 << (p->info.power < 63 ? p->info.power : 0);
    if (p->info.power < 1 || p->info.power > PTAU_MAX_POWER)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "section 1: power %u is not 1 to %d",
                            (unsigned)p->info.power, PTAU_MAX_POWER);
    if ((st = sized(&s, p, detail, cap, 2, 2 * n - 1, 0)) != ZKPIPE_OK ||
        (st = sized(&s, p, detail, cap, 3, n, 1)) != ZKPIPE_OK ||
        (st = sized(&s, p, detail, cap, 4, n, 0)) != ZKPIPE_OK ||
        (st = sized(&s, p, detail, cap, 5, n, 0)) != ZKPIPE_OK ||
        (st = sized(&s, p, detail, cap, 6, 1, 1)) != ZKPIPE_OK)
        return st;
    p->info.prepared = p->src.size[12] != UINT64_MAX;
    if (p->info.prepared && ((st = sized(&s, p, detail, cap, 12, 4 * n - 1, 0)) != ZKPIPE_OK ||
                             (st = sized(&s, p, detail, cap, 13, 2 * n - 1, 1)) != ZKPIPE_OK ||
                             (st = sized(&s, p, detail, cap, 14, 2 * n - 1, 0)) != ZKPIPE_OK ||
                             (st = sized(&s, p, detail, cap, 15, 2 * n - 1, 0)) != ZKPIPE_OK))
        return st;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_ptau_open(zkpipe_ptau **out, char *detail, size_t detail_cap, const char *path,
                               const zkpipe_io_options *opts)
{
    if (path == NULL)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EINVAL, "invalid argument");
    return zkpipe__io_reader_open((void **)out, sizeof(zkpipe_ptau), "ptau", parse, detail,
                                  detail_cap, path, NULL, 0, opts);
}

void zkpipe_ptau_destroy(zkpipe_ptau *ptau)
{
    zkpipe__io_reader_destroy(ptau);
}

zkpipe_status zkpipe_ptau_info_get(zkpipe_ptau_info *out, const zkpipe_ptau *ptau)
{
    if (out == NULL || ptau == NULL)
        return ZKPIPE_EINVAL;
    *out = ptau->info;
    return ZKPIPE_OK;
}

/* n points of section id from point `first`, checked canonical and on the curve. */
static zkpipe_status points(const uint8_t **out, const zkpipe_ptau *p, char *detail, size_t cap,
                            uint32_t id, uint64_t first, uint64_t n, int g2, zkpipe_pool *pool)
{
    size_t bytes = 8 * (g2 ? p->curve->g2a_words : p->curve->g1a_words), bad;
    const uint8_t *s = p->src.data + p->src.off[id] + first * bytes;
    zkpipe_status st = p->curve->check_points(&bad, s, NULL, (size_t)n, g2, 0, pool);
    if (st != ZKPIPE_OK)
        return zkpipe__fail(detail, cap, st, "section %u: point %llu %s", (unsigned)id,
                            (unsigned long long)(first + bad),
                            st == ZKPIPE_ENONCANONICAL ? "has a coordinate not below q"
                                                       : "is not on the curve");
    *out = s;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_ptau_points(zkpipe_groth16_ptau *out, char *detail, size_t detail_cap,
                                 const zkpipe_ptau *ptau, unsigned log_n, zkpipe_pool *pool)
{
    if (out == NULL || ptau == NULL)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EINVAL, "invalid argument");
    const zkpipe_ptau_info *i = &ptau->info;
    if (!i->prepared)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EFORMAT,
                            "not prepared for phase 2 (no Lagrange sections): run snarkjs "
                            "powersoftau prepare phase2 on it");
    if (log_n > i->power)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_ETOOBIG,
                            "the circuit needs 2^%u points, the powers of tau has 2^%u", log_n,
                            (unsigned)i->power);
    const zkpipe_ptau *p = ptau;
    uint64_t n = (uint64_t)1 << log_n;
    size_t g1 = 8 * p->curve->g1a_words;
    zkpipe_groth16_ptau v;
    memset(&v, 0, sizeof v);
    v.curve = i->curve;
    v.log_n = log_n;
    zkpipe_status st;
    if ((st = points(&v.alpha_g1, p, detail, detail_cap, 4, 0, 1, 0, pool)) != ZKPIPE_OK ||
        (st = points(&v.beta_g1, p, detail, detail_cap, 5, 0, 1, 0, pool)) != ZKPIPE_OK ||
        (st = points(&v.beta_g2, p, detail, detail_cap, 6, 0, 1, 1, pool)) != ZKPIPE_OK ||
        (st = points(&v.tau_g1, p, detail, detail_cap, 2, 0, 2 * n - 1, 0, pool)) != ZKPIPE_OK ||
        (st = points(&v.lagrange_tau_g1, p, detail, detail_cap, 12, n - 1, n, 0, pool)) !=
            ZKPIPE_OK ||
        (st = points(&v.lagrange_tau_g1_2n, p, detail, detail_cap, 12, 2 * n - 1, 2 * n, 0,
                     pool)) != ZKPIPE_OK ||
        (st = points(&v.lagrange_tau_g2, p, detail, detail_cap, 13, n - 1, n, 1, pool)) !=
            ZKPIPE_OK ||
        (st = points(&v.lagrange_alpha_g1, p, detail, detail_cap, 14, n - 1, n, 0, pool)) !=
            ZKPIPE_OK ||
        (st = points(&v.lagrange_beta_g1, p, detail, detail_cap, 15, n - 1, n, 0, pool)) !=
            ZKPIPE_OK)
        return st;
    /* snarkjs's circuit hash reads tau^i G1 up to about 2n, past section 2's end when the
     * ceremony's power is the circuit's (zkpipe_groth16_setup_zkey_ptau): what the file holds
     * from there on is what it reads. */
    v.tau_g1_count = (size_t)((p->src.len - p->src.off[2]) / g1);
    *out = v;
    return ZKPIPE_OK;
}
