/* The .r1cs reader (version 1): header, constraints, and the wire-to-label map's size. */
#include <string.h>

#include "core/alloc_internal.h"
#include "io/io_internal.h"

/* The most labels an .r1cs may declare: 2^53. */
#define ZKPIPE__R1CS_MAX_LABELS (UINT64_C(1) << 53)

struct zkpipe_r1cs {
    zkpipe__io_src src; /* first: zkpipe__io_reader_open sets it up */
    const zkpipe__curve_ops *curve;
    zkpipe_r1cs_info info;
    const uint8_t *constraints;
};

/* Walks one linear combination at *pos of the constraints section (end: its size). */
static zkpipe_status check_lc(uint64_t *pos, const zkpipe_r1cs *r, uint64_t end, size_t row, char m,
                              char *detail, size_t cap)
{
    const uint8_t *d = r->constraints;
    if (end - *pos < 4)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "section 2: constraint %zu is truncated",
                            row);
    uint64_t terms = zkpipe__get_le32(d + *pos);
    *pos += 4;
    if (terms > (end - *pos) / 36)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "section 2: constraint %zu is truncated",
                            row);
    for (uint64_t k = 0; k < terms; k++, *pos += 36) {
        uint32_t wire = zkpipe__get_le32(d + *pos);
        uint64_t v[4];
        if (wire >= r->info.num_wires)
            return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                                "section 2: constraint %zu: %c uses wire %u of %u", row, m,
                                (unsigned)wire, (unsigned)r->info.num_wires);
        zkpipe__get_limbs(v, d + *pos + 4, 4);
        if (!zkpipe__limbs_below(v, r->curve->r, 4))
            return zkpipe__fail(detail, cap, ZKPIPE_ENONCANONICAL,
                                "section 2: constraint %zu: a coefficient of %c is not below "
                                "the field order",
                                row, m);
    }
    return ZKPIPE_OK;
}

static zkpipe_status parse(void *reader, char *detail, size_t cap, const zkpipe_io_options *opts)
{
    zkpipe_r1cs *r = (zkpipe_r1cs *)reader;
    (void)opts;
    const uint8_t *h, *labels;
    uint64_t size;
    zkpipe_status st = zkpipe__io_sections(&r->src, detail, cap, "r1cs", 1);
    if (st == ZKPIPE_OK)
        st = zkpipe__io_section(&h, &size, &r->src, detail, cap, 1, UINT64_MAX);
    if (st != ZKPIPE_OK)
        return st;
    if (size < 4 || zkpipe__get_le32(h) != 32 || size != 64)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "section 1: the header is not n8 = 32 followed by 28 bytes");
    r->curve = zkpipe__curve_ops_by_prime(h + 4, 32, 1);
    if (r->curve == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "section 1: the prime is neither bls12381's nor bn128's r");
    zkpipe_r1cs_info *i = &r->info;
    i->curve = r->curve->curve;
    i->num_wires = zkpipe__get_le32(h + 36);
    i->num_outputs = zkpipe__get_le32(h + 40);
    i->num_pub_inputs = zkpipe__get_le32(h + 44);
    i->num_prv_inputs = zkpipe__get_le32(h + 48);
    i->num_labels = zkpipe__get_le64(h + 52);
    i->num_constraints = zkpipe__get_le32(h + 60);
    if ((uint64_t)i->num_outputs + i->num_pub_inputs + i->num_prv_inputs >= i->num_wires)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "section 1: %u wires cannot hold the one, %u outputs and %u inputs",
                            (unsigned)i->num_wires, (unsigned)i->num_outputs,
                            (unsigned)(i->num_pub_inputs + i->num_prv_inputs));
    /* Every wire is a signal with its own label; signals the compiler removed have labels
     * too but no bytes here, so nothing in the file bounds nLabels from above beyond the map
     * below: 2^53 is what snarkjs (a JavaScript number) reads exactly. */
    if (i->num_labels < i->num_wires || i->num_labels > ZKPIPE__R1CS_MAX_LABELS)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "section 1: %llu labels for %u wires (at least one a wire, at most "
                            "2^53)",
                            (unsigned long long)i->num_labels, (unsigned)i->num_wires);
    if (r->src.size[3] != UINT64_MAX) {
        if ((st = zkpipe__io_section(&labels, NULL, &r->src, detail, cap, 3,
                                     (uint64_t)i->num_wires * 8)) != ZKPIPE_OK)
            return st;
        for (uint32_t w = 0; w < i->num_wires; w++)
            if (zkpipe__get_le64(labels + 8 * (size_t)w) >= i->num_labels)
                return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                                    "section 3: wire %u has label %llu of %llu", (unsigned)w,
                                    (unsigned long long)zkpipe__get_le64(labels + 8 * (size_t)w),
                                    (unsigned long long)i->num_labels);
    }
    st = zkpipe__io_section(&r->constraints, &size, &r->src, detail, cap, 2, UINT64_MAX);
    uint64_t pos = 0;
    for (size_t row = 0; row < i->num_constraints && st == ZKPIPE_OK; row++)
        for (int m = 0; m < 3 && st == ZKPIPE_OK; m++)
            st = check_lc(&pos, r, size, row, "ABC"[m], detail, cap);
    if (st == ZKPIPE_OK && pos != size)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "section 2: %llu bytes after the last constraint",
                            (unsigned long long)(size - pos));
    return st;
}

zkpipe_status zkpipe_r1cs_open(zkpipe_r1cs **out, char *detail, size_t detail_cap, const char *path,
                               const zkpipe_io_options *opts)
{
    if (path == NULL)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EINVAL, "invalid argument");
    return zkpipe__io_reader_open((void **)out, sizeof(zkpipe_r1cs), "r1cs", parse, detail,
                                  detail_cap, path, NULL, 0, opts);
}

zkpipe_status zkpipe_r1cs_open_mem(zkpipe_r1cs **out, char *detail, size_t detail_cap,
                                   const void *data, size_t len, const zkpipe_io_options *opts)
{
    return zkpipe__io_reader_open((void **)out, sizeof(zkpipe_r1cs), "r1cs", parse, detail,
                                  detail_cap, NULL, data, len, opts);
}

void zkpipe_r1cs_destroy(zkpipe_r1cs *r1cs)
{
    zkpipe__io_reader_destroy(r1cs);
}

zkpipe_status zkpipe_r1cs_info_get(zkpipe_r1cs_info *out, const zkpipe_r1cs *r1cs)
{
    if (out == NULL || r1cs == NULL)
        return ZKPIPE_EINVAL;
    *out = r1cs->info;
    return ZKPIPE_OK;
}

/* Appends the linear combination at *p (validated at open) to `terms`, advancing *p, with
 * wires below num_inputs as inputs and the rest as aux variables. */
static const uint8_t *read_lc(zkpipe_term *terms, size_t *count, const uint8_t *p,
                              size_t num_inputs)
{
    uint32_t n = zkpipe__get_le32(p);
    p += 4;
    for (uint32_t k = 0; k < n; k++, p += 36) {
        uint32_t wire = zkpipe__get_le32(p);
        terms[k].var =
            wire < num_inputs ? (zkpipe_var)wire : (zkpipe_var)(wire - num_inputs) | ZKPIPE_VAR_AUX;
        zkpipe__get_limbs(terms[k].coeff.l, p + 4, 4);
    }
    *count = n;
    return p;
}

/* The most terms one linear combination of the constraints section has. */
static size_t longest_lc(const zkpipe_r1cs *r)
{
    const uint8_t *p = r->constraints;
    size_t most = 0;
    for (size_t i = 0; i < 3 * (size_t)r->info.num_constraints; i++) {
        uint32_t n = zkpipe__get_le32(p);
        most = n > most ? n : most;
        p += 4 + 36 * (size_t)n;
    }
    return most;
}

static zkpipe_status fill(zkpipe_cs *cs, char *detail, size_t cap, const zkpipe_r1cs *r,
                          const zkpipe_wtns *wtns, const zkpipe_allocator *a)
{
    size_t wires = r->info.num_wires;
    size_t ni = 1 + (size_t)r->info.num_outputs + r->info.num_pub_inputs;
    const zkpipe_scalar *w = zkpipe_wtns_values(wtns);
    zkpipe_status st = ZKPIPE_OK;
    for (size_t v = 1; v < wires && st == ZKPIPE_OK; v++)
        st = v < ni ? zkpipe_cs_alloc_input(cs, NULL, w != NULL ? &w[v] : NULL)
                    : zkpipe_cs_alloc_aux(cs, NULL, w != NULL ? &w[v] : NULL);
    if (st != ZKPIPE_OK)
        return zkpipe__fail(detail, cap, st, "cannot add wire variables: %s",
                            zkpipe_status_str(st));
    size_t most = longest_lc(r);
    zkpipe_term *terms = zkpipe__calloc(a, 3 * (most > 0 ? most : 1), sizeof *terms, 64);
    if (terms == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_ENOMEM, "out of memory");
    const uint8_t *p = r->constraints;
    for (size_t i = 0; i < r->info.num_constraints && st == ZKPIPE_OK; i++) {
        size_t n[3];
        for (int k = 0; k < 3; k++)
            p = read_lc(terms + (size_t)k * most, &n[k], p, ni);
        st = zkpipe_cs_enforce(cs, terms, n[0], terms + most, n[1], terms + 2 * most, n[2]);
        if (st != ZKPIPE_OK)
            zkpipe__fail(detail, cap, st, "constraint %zu: %s", i, zkpipe_status_str(st));
    }
    zkpipe__free(a, terms);
    return st;
}

zkpipe_status zkpipe_r1cs_load(zkpipe_cs **out, char *detail, size_t detail_cap,
                               const zkpipe_r1cs *r1cs, const zkpipe_wtns *wtns,
                               const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out == NULL || r1cs == NULL || a == NULL)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EINVAL, "invalid argument");
    if (wtns != NULL && zkpipe_wtns_curve(wtns) != r1cs->info.curve)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EMISMATCH,
                            "the witness is for %s, the r1cs for %s",
                            zkpipe__curve_ops_for(zkpipe_wtns_curve(wtns))->snarkjs_name,
                            r1cs->curve->snarkjs_name);
    if (wtns != NULL && zkpipe_wtns_count(wtns) != r1cs->info.num_wires)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EMISMATCH,
                            "the witness has %zu values, the r1cs %u wires",
                            zkpipe_wtns_count(wtns), (unsigned)r1cs->info.num_wires);
    zkpipe_cs *cs;
    zkpipe_status st = zkpipe_cs_create(&cs, r1cs->info.curve,
                                        wtns != NULL ? ZKPIPE_CS_WITNESS : ZKPIPE_CS_SHAPE, a);
    if (st != ZKPIPE_OK)
        return zkpipe__fail(detail, detail_cap, st, "cannot create the system: %s",
                            zkpipe_status_str(st));
    if ((st = fill(cs, detail, detail_cap, r1cs, wtns, a)) != ZKPIPE_OK) {
        zkpipe_cs_destroy(cs);
        return st;
    }
    *out = cs;
    return ZKPIPE_OK;
}
