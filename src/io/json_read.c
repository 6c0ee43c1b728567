/* snarkjs's verification_key.json, proof.json and public.json, read with jansson (Debian's
 * libjansson). A verifier must never disagree with snarkjs, which reads these files with
 * JavaScript's JSON.parse: jansson is at least as strict as JSON.parse (RFC 8259 grammar, only
 * space, tab, CR and LF as whitespace, nothing but whitespace after the value), and refuses
 * duplicate keys, which JSON.parse would resolve to the last one. Its arrays are indexed in
 * constant time and its objects hashed, so every walk below is linear.
 *
 * Before parsing, each text is held to its kind's limits (zkpipe/io.h): its bytes, and its
 * values and nesting as a scan that does not parse reads them, so that the parse tree (about
 * 100 bytes per counted unit at most) stays within what the largest legitimate file of the kind
 * needs, and jansson's recursion within a few KiB of the caller's stack.
 * The tree is allocated by jansson (the C library's malloc unless the program has changed
 * jansson's allocator) and freed before each call returns. */
#include <jansson.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "groth16/keys.h"
#include "io/io_internal.h"

/* A kind of file: its name, its limits, and what they are for detail lines. */
typedef struct kind {
    const char *file;
    size_t max_bytes, max_units;
    const char *bytes_limit, *units_limit;
} kind;

#define STR_(x) #x
#define STR(x) STR_(x)
#define MAX_PUBLIC_TEXT STR(ZKPIPE_SNARKJS_MAX_PUBLIC) " (ZKPIPE_SNARKJS_MAX_PUBLIC)"

/* A key: 5 units per IC point ("[" counts 2, two commas inside, one before it), and room for
 * the fixed members (about 70 units) and unknown ones. */
static const kind vk_kind = {"verification_key.json", ZKPIPE_SNARKJS_VK_MAX_BYTES,
                             5 * ((size_t)ZKPIPE_SNARKJS_MAX_PUBLIC + 1) + 4096,
                             "ZKPIPE_SNARKJS_VK_MAX_BYTES",
                             "a key of at most " MAX_PUBLIC_TEXT " public inputs holds"};
/* A proof: its bytes bound its units. */
static const kind proof_kind = {"proof.json", ZKPIPE_SNARKJS_PROOF_MAX_BYTES,
                                3 * (size_t)ZKPIPE_SNARKJS_PROOF_MAX_BYTES + 1,
                                "ZKPIPE_SNARKJS_PROOF_MAX_BYTES", "its bytes allow"};
/* Public signals: 3 units for the array, one per signal after the first (the comma before
 * it), so at most ZKPIPE_SNARKJS_MAX_PUBLIC scalars. */
static const kind public_kind = {
    "public.json", ZKPIPE_SNARKJS_PUBLIC_MAX_BYTES, (size_t)ZKPIPE_SNARKJS_MAX_PUBLIC + 2,
    "ZKPIPE_SNARKJS_PUBLIC_MAX_BYTES", "at most " MAX_PUBLIC_TEXT " scalars make"};

/* What a scan that does not parse reads of a text, for the limits checked before parsing. */
typedef struct shape {
    size_t units; /* an upper bound on the parse tree's size, in units of about 100 bytes */
    size_t depth; /* the deepest nesting of arrays and objects, the outermost one counting 1 */
} shape;

/* The units: 1 for the root, 1 per comma, 2 per array and 3 per object opened (jansson's empty
 * array and object take about 135 and 230 bytes, a member or an element at most about 100).
 * Every value but the root is the first of its container or follows a comma, so for the valid
 * prefix of any text (all jansson builds before it stops) this is at least the tree's size.
 * The depth: jansson parses nested values by recursion, so the nesting it reaches is bounded
 * by the deepest of the text's valid prefix, which this scan sees (a closing bracket outside
 * a string only ever lowers it; brackets inside strings are skipped). */
static shape scan(const char *s, size_t len)
{
    shape sh = {1, 0};
    size_t depth = 0;
    for (size_t i = 0; i < len; i++) {
        switch (s[i]) {
        case '"': /* skip the string: an escape's next byte is never its end */
            for (i++; i < len && s[i] != '"'; i++)
                i += s[i] == '\\';
            break;
        case ',':
            sh.units += 1;
            break;
        case '[':
        case '{':
            sh.units += s[i] == '[' ? 2 : 3;
            if (++depth > sh.depth)
                sh.depth = depth;
            break;
        case ']':
        case '}':
            depth -= depth > 0;
            break;
        }
    }
    return sh;
}

static zkpipe_status parse_text(json_t **root, char *detail, size_t cap, const char *json,
                                size_t len, const kind *k)
{
    if (json == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_EINVAL, "invalid argument");
    if (len > k->max_bytes)
        return zkpipe__fail(detail, cap, ZKPIPE_ETOOBIG,
                            "%zu bytes, more than the %zu a %s may have (%s)", len, k->max_bytes,
                            k->file, k->bytes_limit);
    shape sh = scan(json, len);
    if (sh.depth > ZKPIPE_SNARKJS_MAX_DEPTH)
        return zkpipe__fail(detail, cap, ZKPIPE_ETOOBIG,
                            "arrays and objects nested %zu deep, more than the %d a %s may have "
                            "(ZKPIPE_SNARKJS_MAX_DEPTH)",
                            sh.depth, ZKPIPE_SNARKJS_MAX_DEPTH, k->file);
    if (sh.units > k->max_units)
        return zkpipe__fail(detail, cap, ZKPIPE_ETOOBIG,
                            "more JSON values than %s (%zu units, at most %zu)", k->units_limit,
                            sh.units, k->max_units);
    json_error_t e;
    *root = json_loadb(json, len, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL,
                       &e);
    if (*root != NULL)
        return ZKPIPE_OK;
    if (json_error_code(&e) == json_error_out_of_memory)
        return zkpipe__fail(detail, cap, ZKPIPE_ENOMEM, "out of memory");
    return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "not valid JSON: %s (line %d, column %d)",
                        e.text, e.line, e.column);
}

/* The text of a JSON string that holds no NUL, or NULL. */
static const char *text_of(const json_t *item)
{
    if (!json_is_string(item))
        return NULL;
    const char *s = json_string_value(item);
    return strlen(s) == json_string_length(item) ? s : NULL;
}

static int is_text(const json_t *item, const char *want)
{
    const char *s = text_of(item);
    return s != NULL && strcmp(s, want) == 0;
}

/* A decimal string into n limbs (any value that fits; the caller checks the range). A JSON
 * number is named as such: JSON.parse rounds integers past 2^53, so its text and the value
 * snarkjs reads can differ. */
static zkpipe_status number(uint64_t *limbs, size_t n, const json_t *item, char *detail, size_t cap,
                            const char *what)
{
    const char *s = text_of(item);
    if (json_is_number(item))
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "%s: a JSON number, not a decimal string",
                            what);
    if (s == NULL || !zkpipe__io_dec_read(limbs, n, s))
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "%s: not a decimal string (digits, no leading zero) in range", what);
    return ZKPIPE_OK;
}

/* "0" or "1": the z coordinate (or its c0); *one tells which. */
static zkpipe_status z_coord(int *one, const json_t *item, char *detail, size_t cap,
                             const char *what)
{
    if (is_text(item, "1"))
        *one = 1;
    else if (is_text(item, "0"))
        *one = 0;
    else
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "%s: z is not \"1\" or \"0\"", what);
    return ZKPIPE_OK;
}

static const json_t *array_of(const json_t *item, size_t n)
{
    return json_is_array(item) && json_array_size(item) == n ? item : NULL;
}

static int all_zero(const uint64_t *limbs, size_t n)
{
    uint64_t any = 0;
    for (size_t i = 0; i < n; i++)
        any |= limbs[i];
    return any == 0;
}

/* A point as snarkjs's fromObject reads it, [x, y, z] (G1) or [[x0, x1], [y0, y1], [z0, z1]]
 * (G2), or without z (arkworks-based exporters write [x, y]; z = 1 then), into the Montgomery
 * layout, validated. One encoding per point and form: z = 1 (or none) with canonical x, y on
 * the curve and in the subgroup; infinity as snarkjs writes it (x = 0, y = 1, z = 0) or as
 * ffjavascript holds it and arkworks prints it (x = y = 0 with z = 1 or none: on neither
 * curve, so no point's encoding). Any other z is refused: a Jacobian z would give each point
 * q - 1 encodings, and z = 0 with other x, y as many encodings of infinity. */
static zkpipe_status point(uint64_t *out, const zkpipe__curve_ops *c, const json_t *item, int g2,
                           char *detail, size_t cap, const char *what)
{
    uint64_t coords[24] = {0};
    size_t l = c->fq_limbs, per = g2 ? 2 : 1, nc = json_array_size(item);
    if (!json_is_array(item) || (nc != 2 && nc != 3))
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "%s: not an array of 2 or 3", what);
    zkpipe_status st = ZKPIPE_OK;
    int one = 1;
    for (size_t k = 0; k < nc && st == ZKPIPE_OK; k++) {
        const json_t *e = json_array_get(item, k);
        if (g2 && (e = array_of(e, 2)) == NULL)
            return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "%s: not pairs of 2", what);
        for (size_t j = 0; j < per && st == ZKPIPE_OK; j++) {
            const json_t *v = g2 ? json_array_get(e, j) : e;
            if (k < 2)
                st = number(coords + (k * per + j) * l, l, v, detail, cap, what);
            else if (j == 0)
                st = z_coord(&one, v, detail, cap, what);
            else if (!is_text(v, "0"))
                st = zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "%s: z.c1 is not \"0\"", what);
        }
    }
    if (st != ZKPIPE_OK)
        return st;
    const uint64_t *y = coords + per * l;
    if (!one && !(all_zero(coords, per * l) && y[0] == 1 && all_zero(y + 1, per * l - 1)))
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "%s: z = 0 (infinity) with x, y other than 0, 1", what);
    if (!one || all_zero(coords, 2 * per * l)) {
        memset(out, 0, (g2 ? 4 : 2) * l * sizeof(uint64_t));
        return ZKPIPE_OK;
    }
    for (size_t i = 0; i < 2 * per; i++)
        if (!zkpipe__limbs_below(coords + i * l, c->q, l))
            return zkpipe__fail(detail, cap, ZKPIPE_ENONCANONICAL,
                                "%s: a coordinate is not below q", what);
    st = c->point_from_canonical(out, coords, g2);
    if (st == ZKPIPE_ENOTONCURVE)
        return zkpipe__fail(detail, cap, st, "%s is not on the curve", what);
    if (st != ZKPIPE_OK)
        return zkpipe__fail(detail, cap, st, "%s is not in the prime-order subgroup", what);
    return ZKPIPE_OK;
}

/* The curve a "curve" member names as snarkjs reads it (getCurveFromName): upper-cased, every
 * character but letters and digits dropped, then BN128, BN254 or ALTBN128, or BLS12381. NULL
 * for anything else, and for a name with bytes outside ASCII (snarkjs upper-cases those by
 * Unicode's rules, under which a few become ASCII letters: refusing them is the safe side). */
static const zkpipe__curve_ops *curve_named(const json_t *item)
{
    if (!json_is_string(item))
        return NULL;
    const char *s = json_string_value(item);
    size_t n = json_string_length(item), m = 0;
    char norm[16];
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if ((unsigned char)ch >= 0x80)
            return NULL;
        if (ch >= 'a' && ch <= 'z')
            ch = (char)(ch - 'a' + 'A');
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')))
            continue;
        if (m == sizeof norm - 1)
            return NULL;
        norm[m++] = ch;
    }
    norm[m] = '\0';
    if (strcmp(norm, "BN128") == 0 || strcmp(norm, "BN254") == 0 || strcmp(norm, "ALTBN128") == 0)
        return zkpipe__curve_ops_for(ZKPIPE_CURVE_BN254);
    if (strcmp(norm, "BLS12381") == 0)
        return zkpipe__curve_ops_for(ZKPIPE_CURVE_BLS12_381);
    return NULL;
}

/* "protocol" (groth16 when present) and the curve: the "curve" member when `known` is
 * ZKPIPE_CURVE_COUNT; otherwise `known`, which a "curve" member, when present, must name. */
static zkpipe_status header(const zkpipe__curve_ops **c, const json_t *root, zkpipe_curve known,
                            char *detail, size_t cap)
{
    if (!json_is_object(root))
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "not a JSON object");
    const json_t *protocol = json_object_get(root, "protocol");
    const json_t *curve = json_object_get(root, "curve");
    if (protocol != NULL && !is_text(protocol, "groth16"))
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "\"protocol\" is not \"groth16\"");
    const zkpipe__curve_ops *named = curve_named(curve);
    if (curve != NULL && named == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "\"curve\" is not bls12381 or bn128 (nor a spelling snarkjs "
                            "takes for them)");
    if (known == ZKPIPE_CURVE_COUNT) {
        if (named == NULL)
            return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "\"curve\" is missing");
        *c = named;
        return ZKPIPE_OK;
    }
    *c = zkpipe__curve_ops_for(known);
    if (named != NULL && named != *c)
        return zkpipe__fail(detail, cap, ZKPIPE_EMISMATCH,
                            "\"curve\" is %s, the verifying key's curve is %s", named->snarkjs_name,
                            (*c)->snarkjs_name);
    return ZKPIPE_OK;
}

static zkpipe_status vk_from(zkpipe_groth16_vk **out, const json_t *root, char *detail, size_t cap,
                             const zkpipe_allocator *allocator)
{
    const zkpipe__curve_ops *c;
    zkpipe_status st = header(&c, root, ZKPIPE_CURVE_COUNT, detail, cap);
    if (st != ZKPIPE_OK)
        return st;
    const json_t *np = json_object_get(root, "nPublic");
    const json_t *ic = json_object_get(root, "IC");
    double v = json_is_number(np) ? json_number_value(np) : -1;
    if (!(v >= 0 && v <= ZKPIPE_SNARKJS_MAX_PUBLIC) || v != (double)(size_t)v)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "\"nPublic\" is not a count up to %d (ZKPIPE_SNARKJS_MAX_PUBLIC)",
                            ZKPIPE_SNARKJS_MAX_PUBLIC);
    size_t n = (size_t)v;
    /* snarkjs reads only as many IC points as there are public signals: a longer IC or an
     * nPublic that disagrees with it leaves the key's statement open to question. */
    if (array_of(ic, n + 1) == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "\"IC\" is not an array of nPublic + 1 = %zu points (it holds %zu)",
                            n + 1, json_array_size(ic));
    zkpipe_groth16_vk *vk;
    if ((st = zkpipe__g16_vk_alloc(&vk, c, n + 1, allocator)) != ZKPIPE_OK)
        return zkpipe__fail(detail, cap, st, "cannot allocate the key: %s", zkpipe_status_str(st));
    static const char *names[4] = {"vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2"};
    uint64_t *dst[4] = {vk->alpha1, vk->beta2, vk->gamma2, vk->delta2};
    for (int k = 0; k < 4 && st == ZKPIPE_OK; k++)
        st = point(dst[k], c, json_object_get(root, names[k]), k > 0, detail, cap, names[k]);
    for (size_t i = 0; i <= n && st == ZKPIPE_OK; i++) {
        char what[32];
        snprintf(what, sizeof what, "IC[%zu]", i);
        st = point(vk->ic + c->g1a_words * i, c, json_array_get(ic, i), 0, detail, cap, what);
    }
    if (st != ZKPIPE_OK) {
        zkpipe_groth16_vk_destroy(vk);
        return st;
    }
    *out = vk;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_snarkjs_vk_parse(zkpipe_groth16_vk **out, char *detail, size_t detail_cap,
                                      const char *json, size_t len,
                                      const zkpipe_allocator *allocator)
{
    json_t *root;
    allocator = zkpipe__allocator_or_default(allocator);
    if (out == NULL || allocator == NULL)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EINVAL, "invalid argument");
    zkpipe_status st = parse_text(&root, detail, detail_cap, json, len, &vk_kind);
    if (st != ZKPIPE_OK)
        return st;
    st = vk_from(out, root, detail, detail_cap, allocator);
    json_decref(root);
    return st;
}

static zkpipe_status proof_from(zkpipe_groth16_proof *out, const json_t *root, zkpipe_curve known,
                                char *detail, size_t cap)
{
    const zkpipe__curve_ops *c;
    uint64_t a[ZKPIPE__G1A_WORDS], b[ZKPIPE__G2A_WORDS], cc[ZKPIPE__G1A_WORDS];
    zkpipe_status st = header(&c, root, known, detail, cap);
    if (st == ZKPIPE_OK)
        st = point(a, c, json_object_get(root, "pi_a"), 0, detail, cap, "pi_a");
    if (st == ZKPIPE_OK)
        st = point(b, c, json_object_get(root, "pi_b"), 1, detail, cap, "pi_b");
    if (st == ZKPIPE_OK)
        st = point(cc, c, json_object_get(root, "pi_c"), 0, detail, cap, "pi_c");
    if (st != ZKPIPE_OK)
        return st;
    memset(out, 0, sizeof *out);
    out->curve = c->curve;
    out->size = 2 * c->proof_g1_bytes + c->proof_g2_bytes;
    c->proof_point_write(out->bytes, a, 0);
    c->proof_point_write(out->bytes + c->proof_g1_bytes, b, 1);
    c->proof_point_write(out->bytes + c->proof_g1_bytes + c->proof_g2_bytes, cc, 0);
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_snarkjs_proof_parse(zkpipe_groth16_proof *out, char *detail, size_t detail_cap,
                                         zkpipe_curve curve, const char *json, size_t len)
{
    json_t *root;
    if (out == NULL || (unsigned)curve > ZKPIPE_CURVE_COUNT)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EINVAL, "invalid argument");
    zkpipe_status st = parse_text(&root, detail, detail_cap, json, len, &proof_kind);
    if (st != ZKPIPE_OK)
        return st;
    st = proof_from(out, root, curve, detail, detail_cap);
    json_decref(root);
    return st;
}

zkpipe_status zkpipe_snarkjs_public_parse(zkpipe_scalar *out, size_t cap, size_t *out_n,
                                          char *detail, size_t detail_cap, zkpipe_curve curve,
                                          const char *json, size_t len)
{
    const zkpipe__curve_ops *c = zkpipe__curve_ops_for(curve);
    json_t *root;
    if (out_n == NULL || (out == NULL && cap > 0) || c == NULL)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EINVAL, "invalid argument");
    zkpipe_status st = parse_text(&root, detail, detail_cap, json, len, &public_kind);
    if (st != ZKPIPE_OK)
        return st;
    if (!json_is_array(root)) {
        st = zkpipe__fail(detail, detail_cap, ZKPIPE_EFORMAT, "not a JSON array");
    } else {
        size_t n = json_array_size(root);
        *out_n = n;
        for (size_t i = 0; i < n && st == ZKPIPE_OK; i++) {
            char what[32];
            zkpipe_scalar v;
            snprintf(what, sizeof what, "entry %zu", i);
            st = number(v.l, 4, json_array_get(root, i), detail, detail_cap, what);
            if (st == ZKPIPE_OK && !zkpipe__limbs_below(v.l, c->r, 4))
                st = zkpipe__fail(detail, detail_cap, ZKPIPE_ENONCANONICAL,
                                  "entry %zu is not below the field order", i);
            if (st == ZKPIPE_OK && i < cap)
                out[i] = v;
        }
        if (st == ZKPIPE_OK && n > cap)
            st = zkpipe__fail(detail, detail_cap, ZKPIPE_ELIMIT, "%zu entries, room for %zu", n,
                              cap);
    }
    json_decref(root);
    return st;
}
