/* The .wtns reader (version 2): a header (n8, the prime r, the count) and the values. */
#include <string.h>

#include "core/alloc_internal.h"
#include "io/io_internal.h"

struct zkpipe_wtns {
    zkpipe__io_src src; /* first: zkpipe__io_reader_open sets it up */
    const zkpipe__curve_ops *curve;
    size_t count;
    const uint64_t *values; /* canonical, 4 limbs each, 8-byte aligned */
};

static zkpipe_status parse(void *reader, char *detail, size_t cap, const zkpipe_io_options *opts)
{
    zkpipe_wtns *w = (zkpipe_wtns *)reader;
    (void)opts;
    const uint8_t *hdr, *vals;
    uint64_t size;
    zkpipe_status st = zkpipe__io_sections(&w->src, detail, cap, "wtns", 2);
    if (st == ZKPIPE_OK)
        st = zkpipe__io_section(&hdr, &size, &w->src, detail, cap, 1, UINT64_MAX);
    if (st != ZKPIPE_OK)
        return st;
    if (size < 4 || zkpipe__get_le32(hdr) != 32 || size != 4 + 32 + 4)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "section 1: the header is not n8 = 32, a prime and a count");
    w->curve = zkpipe__curve_ops_by_prime(hdr + 4, 32, 1);
    if (w->curve == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "section 1: the prime is neither bls12381's nor bn128's r");
    w->count = zkpipe__get_le32(hdr + 36);
    if (w->count == 0)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "section 1: no witness values");
    st = zkpipe__io_section(&vals, NULL, &w->src, detail, cap, 2, (uint64_t)w->count * 32);
    if (st != ZKPIPE_OK)
        return st;
    for (size_t i = 0; i < w->count; i++) {
        uint64_t v[4];
        zkpipe__get_limbs(v, vals + 32 * i, 4);
        if (!zkpipe__limbs_below(v, w->curve->r, 4))
            return zkpipe__fail(detail, cap, ZKPIPE_ENONCANONICAL,
                                "section 2: value %zu is not below the field order", i);
        if (i == 0 && (v[0] != 1 || v[1] != 0 || v[2] != 0 || v[3] != 0))
            return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                                "section 2: value 0 (the constant wire) is not 1");
    }
    const void *aligned;
    st = zkpipe__io_aligned(&aligned, &w->src, vals, w->count * 32);
    if (st != ZKPIPE_OK)
        return zkpipe__fail(detail, cap, st, "cannot copy the values: %s", zkpipe_status_str(st));
    w->values = (const uint64_t *)aligned;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_wtns_open(zkpipe_wtns **out, char *detail, size_t detail_cap, const char *path,
                               const zkpipe_io_options *opts)
{
    if (path == NULL)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EINVAL, "invalid argument");
    return zkpipe__io_reader_open((void **)out, sizeof(zkpipe_wtns), "wtns", parse, detail,
                                  detail_cap, path, NULL, 0, opts);
}

zkpipe_status zkpipe_wtns_open_mem(zkpipe_wtns **out, char *detail, size_t detail_cap,
                                   const void *data, size_t len, const zkpipe_io_options *opts)
{
    return zkpipe__io_reader_open((void **)out, sizeof(zkpipe_wtns), "wtns", parse, detail,
                                  detail_cap, NULL, data, len, opts);
}

void zkpipe_wtns_destroy(zkpipe_wtns *wtns)
{
    zkpipe__io_reader_destroy(wtns);
}

zkpipe_curve zkpipe_wtns_curve(const zkpipe_wtns *wtns)
{
    return wtns != NULL ? wtns->curve->curve : ZKPIPE_CURVE_COUNT;
}

size_t zkpipe_wtns_count(const zkpipe_wtns *wtns)
{
    return wtns != NULL ? wtns->count : 0;
}

zkpipe_status zkpipe_wtns_get(zkpipe_scalar *out, const zkpipe_wtns *wtns, size_t i)
{
    if (out == NULL || wtns == NULL || i >= wtns->count)
        return ZKPIPE_EINVAL;
    memcpy(out->l, wtns->values + 4 * i, sizeof out->l);
    return ZKPIPE_OK;
}

const zkpipe_scalar *zkpipe_wtns_values(const zkpipe_wtns *wtns)
{
    return wtns != NULL ? (const zkpipe_scalar *)wtns->values : NULL;
}
