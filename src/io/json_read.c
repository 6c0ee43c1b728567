/* snarkjs's verification_key.json, proof.json and public.json, read with cJSON (Debian's
 * libcjson: small, C89, no dependencies; its parse tree is the only thing allocated, through
 * its own hooks, and freed before each call returns). */
#include <cjson/cJSON.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "groth16/keys.h"
#include "io/io_internal.h"

static zkpipe_status parse_text(cJSON **root, char *detail, size_t cap, const char *json,
                                size_t len)
{
    if (json == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_EINVAL, "invalid argument");
    *root = cJSON_ParseWithLength(json, len);
    if (*root == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "not valid JSON");
    return ZKPIPE_OK;
}

/* A decimal string into n limbs (any value that fits; the caller checks the range). */
static zkpipe_status number(uint64_t *limbs, size_t n, const cJSON *item, char *detail, size_t cap,
                            const char *what)
{
    if (!cJSON_IsString(item) || !zkpipe__io_dec_read(limbs, n, item->valuestring))
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "%s: not a decimal string in range", what);
    return ZKPIPE_OK;
}

/* "0" or "1": the z coordinate (or its c0); *one tells which. */
static zkpipe_status z_coord(int *one, const cJSON *item, char *detail, size_t cap,
                             const char *what)
{
    if (cJSON_IsString(item) && strcmp(item->valuestring, "1") == 0)
        *one = 1;
    else if (cJSON_IsString(item) && strcmp(item->valuestring, "0") == 0)
        *one = 0;
    else
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "%s: z is not \"1\" or \"0\"", what);
    return ZKPIPE_OK;
}

static const cJSON *array_of(const cJSON *item, int n)
{
    return cJSON_IsArray(item) && cJSON_GetArraySize(item) == n ? item : NULL;
}

/* A point [x, y, z] (G1) or [[x0, x1], [y0, y1], [z0, z1]] (G2) with z = 1, or z = 0 for
 * infinity, into the Montgomery layout, validated. */
static zkpipe_status point(uint64_t *out, const zkpipe__curve_ops *c, const cJSON *item, int g2,
                           char *detail, size_t cap, const char *what)
{
    uint64_t coords[24] = {0};
    size_t l = c->fq_limbs, per = g2 ? 2 : 1;
    const cJSON *arr = array_of(item, 3);
    if (arr == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "%s: not an array of 3", what);
    zkpipe_status st = ZKPIPE_OK;
    int one = 0;
    for (int k = 0; k < 3 && st == ZKPIPE_OK; k++) {
        const cJSON *e = cJSON_GetArrayItem(arr, k);
        if (g2 && (e = array_of(e, 2)) == NULL)
            return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "%s: not pairs of 2", what);
        for (size_t j = 0; j < per && st == ZKPIPE_OK; j++) {
            const cJSON *v = g2 ? cJSON_GetArrayItem(e, (int)j) : e;
            if (k < 2)
                st = number(coords + (k * per + j) * l, l, v, detail, cap, what);
            else if (j == 0)
                st = z_coord(&one, v, detail, cap, what);
            else if (!cJSON_IsString(v) || strcmp(v->valuestring, "0") != 0)
                st = zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "%s: z.c1 is not \"0\"", what);
        }
    }
    if (st != ZKPIPE_OK)
        return st;
    if (!one) {
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

/* "protocol" (groth16 when present) and "curve". */
static zkpipe_status header(const zkpipe__curve_ops **c, const cJSON *root, char *detail,
                            size_t cap)
{
    const cJSON *protocol = cJSON_GetObjectItemCaseSensitive(root, "protocol");
    const cJSON *curve = cJSON_GetObjectItemCaseSensitive(root, "curve");
    zkpipe_curve id;
    if (!cJSON_IsObject(root))
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "not a JSON object");
    if (protocol != NULL &&
        (!cJSON_IsString(protocol) || strcmp(protocol->valuestring, "groth16") != 0))
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "\"protocol\" is not \"groth16\"");
    if (!cJSON_IsString(curve) || zkpipe_curve_parse(&id, curve->valuestring) != ZKPIPE_OK)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "\"curve\" is missing or not bls12381 or bn128");
    *c = zkpipe__curve_ops_for(id);
    return ZKPIPE_OK;
}

static zkpipe_status vk_from(zkpipe_groth16_vk **out, const cJSON *root, char *detail, size_t cap,
                             const zkpipe_allocator *allocator)
{
    const zkpipe__curve_ops *c;
    zkpipe_status st = header(&c, root, detail, cap);
    if (st != ZKPIPE_OK)
        return st;
    const cJSON *np = cJSON_GetObjectItemCaseSensitive(root, "nPublic");
    const cJSON *ic = cJSON_GetObjectItemCaseSensitive(root, "IC");
    if (!cJSON_IsNumber(np) || np->valuedouble < 0 || np->valuedouble > 1e7 ||
        np->valuedouble != (double)np->valueint)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT, "\"nPublic\" is not a count");
    size_t n = (size_t)np->valueint;
    if (array_of(ic, np->valueint + 1) == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_EFORMAT,
                            "\"IC\" is not an array of nPublic + 1 = %zu points", n + 1);
    zkpipe_groth16_vk *vk;
    if ((st = zkpipe__g16_vk_alloc(&vk, c, n + 1, allocator)) != ZKPIPE_OK)
        return zkpipe__fail(detail, cap, st, "cannot allocate the key: %s", zkpipe_status_str(st));
    static const char *names[4] = {"vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2"};
    uint64_t *dst[4] = {vk->alpha1, vk->beta2, vk->gamma2, vk->delta2};
    for (int k = 0; k < 4 && st == ZKPIPE_OK; k++)
        st = point(dst[k], c, cJSON_GetObjectItemCaseSensitive(root, names[k]), k > 0, detail, cap,
                   names[k]);
    for (size_t i = 0; i <= n && st == ZKPIPE_OK; i++) {
        char what[32];
        snprintf(what, sizeof what, "IC[%zu]", i);
        st = point(vk->ic + c->g1a_words * i, c, cJSON_GetArrayItem(ic, (int)i), 0, detail, cap,
                   what);
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
    cJSON *root;
    allocator = zkpipe__allocator_or_default(allocator);
    if (out == NULL || allocator == NULL)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EINVAL, "invalid argument");
    zkpipe_status st = parse_text(&root, detail, detail_cap, json, len);
    if (st != ZKPIPE_OK)
        return st;
    st = vk_from(out, root, detail, detail_cap, allocator);
    cJSON_Delete(root);
    return st;
}

static zkpipe_status proof_from(zkpipe_groth16_proof *out, const cJSON *root, char *detail,
                                size_t cap)
{
    const zkpipe__curve_ops *c;
    uint64_t a[ZKPIPE__G1A_WORDS], b[ZKPIPE__G2A_WORDS], cc[ZKPIPE__G1A_WORDS];
    zkpipe_status st = header(&c, root, detail, cap);
    if (st == ZKPIPE_OK)
        st = point(a, c, cJSON_GetObjectItemCaseSensitive(root, "pi_a"), 0, detail, cap, "pi_a");
    if (st == ZKPIPE_OK)
        st = point(b, c, cJSON_GetObjectItemCaseSensitive(root, "pi_b"), 1, detail, cap, "pi_b");
    if (st == ZKPIPE_OK)
        st = point(cc, c, cJSON_GetObjectItemCaseSensitive(root, "pi_c"), 0, detail, cap, "pi_c");
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
                                         const char *json, size_t len)
{
    cJSON *root;
    if (out == NULL)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EINVAL, "invalid argument");
    zkpipe_status st = parse_text(&root, detail, detail_cap, json, len);
    if (st != ZKPIPE_OK)
        return st;
    st = proof_from(out, root, detail, detail_cap);
    cJSON_Delete(root);
    return st;
}

zkpipe_status zkpipe_snarkjs_public_parse(zkpipe_scalar *out, size_t cap, size_t *out_n,
                                          char *detail, size_t detail_cap, zkpipe_curve curve,
                                          const char *json, size_t len)
{
    const zkpipe__curve_ops *c = zkpipe__curve_ops_for(curve);
    cJSON *root;
    if (out_n == NULL || (out == NULL && cap > 0) || c == NULL)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EINVAL, "invalid argument");
    zkpipe_status st = parse_text(&root, detail, detail_cap, json, len);
    if (st != ZKPIPE_OK)
        return st;
    if (!cJSON_IsArray(root)) {
        st = zkpipe__fail(detail, detail_cap, ZKPIPE_EFORMAT, "not a JSON array");
    } else {
        size_t n = (size_t)cJSON_GetArraySize(root);
        *out_n = n;
        for (size_t i = 0; i < n && st == ZKPIPE_OK; i++) {
            char what[32];
            zkpipe_scalar v;
            snprintf(what, sizeof what, "entry %zu", i);
            st = number(v.l, 4, cJSON_GetArrayItem(root, (int)i), detail, detail_cap, what);
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
    cJSON_Delete(root);
    return st;
}
