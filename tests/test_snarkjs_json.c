/* The snarkjs JSON readers (zkpipe/io.h) on hostile text: verdicts that must agree with
 * snarkjs's JSON.parse (duplicate keys, bytes after the value, the grammar, curve names),
 * rapidsnark's proofs without "curve", the size and value limits, linear walks of the
 * largest arrays allowed, and the parse tree's memory bound.
 * On the BN254 `multiplier` interop fixture (tests/interop/fixtures/bn128/multiplier).
 * `--large` adds the largest files the limits allow: 2^18 public signals and a key of 2^18
 * IC points, which a walk that is quadratic in their count does not finish, a key at its
 * byte limit, and the parse tree's bound for keys (too slow under valgrind otherwise). */
#include <jansson.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/sanitize.h"
#include "zkpipe/io.h"

/* The one verifier with a key fresh from JSON. */
static zkpipe_status vk_verify(const zkpipe_groth16_vk *vk, const zkpipe_scalar *in, size_t n,
                               const zkpipe_groth16_proof *proof)
{
    zkpipe_groth16_pvk *pvk;
    zkpipe_status st = zkpipe_groth16_pvk_create(&pvk, vk, NULL);
    if (st == ZKPIPE_OK)
        st = zkpipe_groth16_verify(pvk, in, n, proof);
    zkpipe_groth16_pvk_destroy(pvk);
    return st;
}

static int large;

/* A growable string. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (n > SIZE_MAX / 4 - t->len)
        fail_msg("text too long");
    if (t->len + n + 1 > t->cap) {
        size_t cap = (t->len + n + 1) * 2;
        char *bigger = realloc(t->s, cap);
        if (bigger == NULL)
            fail_msg("out of memory");
        t->s = bigger;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

static void puts_(text *t, const char *s)
{
    put(t, s, strlen(s));
}

static char *fixture(const char *name, size_t *len)
{
    const char *src = getenv("ZKPIPE_SOURCE_DIR");
    char path[2048];
    snprintf(path, sizeof path, "%s/tests/interop/fixtures/bn128/multiplier/%s",
             src != NULL ? src : ".", name);
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        fail_msg("cannot open %s (set ZKPIPE_SOURCE_DIR)", path);
    text t = {0};
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
        put(&t, buf, n);
    fclose(fp);
    *len = t.len;
    return t.s;
}

/* The fixture's three files, parsed once. */
typedef struct files {
    char *vk, *pub, *proof;
    size_t vk_len, pub_len, proof_len;
} files;

static files fx;

static int setup(void **state)
{
    (void)state;
    fx.vk = fixture("verification_key.json", &fx.vk_len);
    fx.pub = fixture("public.json", &fx.pub_len);
    fx.proof = fixture("proof.json", &fx.proof_len);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(fx.vk);
    free(fx.pub);
    free(fx.proof);
    return 0;
}

/* `base` with `before` put right after its first '{' (or '['), `after` after its end, and
 * the first occurrence of `cut` removed. */
static char *edit(const char *base, size_t len, const char *before, const char *after,
                  const char *cut, size_t *out_len)
{
    text t = {0};
    const char *open = strpbrk(base, "{[");
    assert_non_null(open);
    size_t at = (size_t)(open - base) + 1;
    const char *c = cut != NULL ? strstr(base + at, cut) : NULL;
    if (cut != NULL && c == NULL)
        fail_msg("no %s to cut", cut);
    put(&t, base, at);
    puts_(&t, before != NULL ? before : "");
    if (c != NULL) {
        put(&t, base + at, (size_t)(c - base) - at);
        puts_(&t, c + strlen(cut));
    } else {
        put(&t, base + at, len - at);
    }
    puts_(&t, after != NULL ? after : "");
    *out_len = t.len;
    return t.s;
}

static zkpipe_status proof_status(const char *json, size_t len, zkpipe_curve known, char *d)
{
    zkpipe_groth16_proof p;
    d[0] = '\0';
    return zkpipe_snarkjs_proof_parse(&p, d, ZKPIPE_IO_DETAIL_MAX, known, json, len);
}

static zkpipe_status vk_status(const char *json, size_t len, char *d)
{
    zkpipe_groth16_vk *vk = NULL;
    d[0] = '\0';
    zkpipe_status st = zkpipe_snarkjs_vk_parse(&vk, d, ZKPIPE_IO_DETAIL_MAX, json, len, NULL);
    zkpipe_groth16_vk_destroy(vk);
    return st;
}

static zkpipe_status public_status(const char *json, size_t len, size_t *n, char *d)
{
    size_t count = 0;
    d[0] = '\0';
    zkpipe_status st = zkpipe_snarkjs_public_parse(NULL, 0, &count, d, ZKPIPE_IO_DETAIL_MAX,
                                                   ZKPIPE_CURVE_BN254, json, len);
    if (n != NULL)
        *n = count;
    return st == ZKPIPE_ELIMIT ? ZKPIPE_OK : st;
}

/* The fixture verifies as it is; the proof reads the same without "curve" (rapidsnark's
 * shape) when the key's curve is given, and a "curve" that contradicts the key is refused. */
static void rapidsnark_proofs_take_the_keys_curve(void **state)
{
    (void)state;
    char d[ZKPIPE_IO_DETAIL_MAX];
    zkpipe_groth16_vk *vk;
    zkpipe_groth16_proof p, r;
    zkpipe_scalar in[8];
    size_t n;
    assert_int_equal(zkpipe_snarkjs_vk_parse(&vk, d, sizeof d, fx.vk, fx.vk_len, NULL), ZKPIPE_OK);
    assert_int_equal(
        zkpipe_snarkjs_public_parse(in, 8, &n, d, sizeof d, ZKPIPE_CURVE_BN254, fx.pub, fx.pub_len),
        ZKPIPE_OK);
    assert_int_equal(n, (zkpipe_groth16_vk_num_inputs(vk) - 1));
    assert_int_equal(
        zkpipe_snarkjs_proof_parse(&p, d, sizeof d, ZKPIPE_CURVE_COUNT, fx.proof, fx.proof_len),
        ZKPIPE_OK);
    assert_int_equal(vk_verify(vk, in, n, &p), ZKPIPE_OK);
    assert_int_equal(
        zkpipe_snarkjs_proof_parse(&r, d, sizeof d, ZKPIPE_CURVE_BN254, fx.proof, fx.proof_len),
        ZKPIPE_OK);
    assert_memory_equal(r.bytes, p.bytes, p.size);

    size_t len;
    char *bare = edit(fx.proof, fx.proof_len, NULL, NULL, ",\n \"curve\": \"bn128\"", &len);
    assert_null(strstr(bare, "curve"));
    memset(&r, 0, sizeof r);
    assert_int_equal(zkpipe_snarkjs_proof_parse(&r, d, sizeof d, ZKPIPE_CURVE_BN254, bare, len),
                     ZKPIPE_OK);
    assert_int_equal(r.curve, ZKPIPE_CURVE_BN254);
    assert_memory_equal(r.bytes, p.bytes, p.size);
    assert_int_equal(vk_verify(vk, in, n, &r), ZKPIPE_OK);
    /* Without a key there is no curve to read it on. */
    assert_int_equal(proof_status(bare, len, ZKPIPE_CURVE_COUNT, d), ZKPIPE_EFORMAT);
    assert_non_null(strstr(d, "\"curve\" is missing"));
    free(bare);

    /* A curve that contradicts the key, in any spelling snarkjs takes. */
    static const char *others[] = {"bls12381", "BLS12-381", "bls12_381"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        char cut[64];
        snprintf(cut, sizeof cut, "\"curve\":\"%s\",", others[i]);
        char *other = edit(fx.proof, fx.proof_len, cut, NULL, ",\n \"curve\": \"bn128\"", &len);
        if (proof_status(other, len, ZKPIPE_CURVE_BN254, d) != ZKPIPE_EMISMATCH ||
            strstr(d, "bls12381") == NULL)
            fail_msg("curve %s: %s", others[i], d);
        free(other);
    }
    assert_int_equal(proof_status(fx.proof, fx.proof_len, ZKPIPE_CURVE_BLS12_381, d),
                     ZKPIPE_EMISMATCH);
    assert_int_equal(proof_status(fx.proof, fx.proof_len, (zkpipe_curve)7, d), ZKPIPE_EINVAL);
    zkpipe_groth16_vk_destroy(vk);
}

/* Text JSON.parse refuses, or (`dup`) reads otherwise than a parser that keeps the first of
 * duplicate keys would: each of these, put into all three files, must be refused with
 * EFORMAT. JSON.parse takes the duplicates (the last of each). */
static const struct {
    const char *before, *after, *why;
    int dup;
} refused[] = {
    {"\"curve\":\"bls12381\",", NULL, "curve twice (JSON.parse takes the last)", 1},
    {"\"protocol\":\"groth16\",", NULL, "protocol twice, with the same value", 1},
    {"\"x\":{\"a\":1,\"a\":2},", NULL, "a duplicate key in an unknown member", 1},
    {"\"x\":1,\"x\":1,", NULL, "an unknown key twice, with the same value", 1},
    {NULL, "xyz", "bytes after the value", 0},
    {NULL, "}", "a second closing brace", 0},
    {NULL, ",", "a comma after the value", 0},
    {NULL, "{}", "a second value", 0},
    {NULL, "\f", "a form feed after the value (not JSON whitespace)", 0},
    {NULL, "\v", "a vertical tab after the value", 0},
    {"\f", NULL, "a form feed inside", 0},
    {"\"x\":01,", NULL, "a leading zero", 0},
    {"\"x\":1.,", NULL, "a fraction without digits", 0},
    {"\"x\":.5,", NULL, "a fraction without an integer part", 0},
    {"\"x\":+1,", NULL, "a plus sign", 0},
    {"\"x\":1e,", NULL, "an exponent without digits", 0},
    {"\"x\":0x10,", NULL, "hex", 0},
    {"\"x\":NaN,", NULL, "NaN", 0},
    {"\"x\":Infinity,", NULL, "Infinity", 0},
    {"\"x\":True,", NULL, "a capitalised literal", 0},
    {"\"x\":'a',", NULL, "single quotes", 0},
    {"'x':1,", NULL, "a single-quoted key", 0},
    {"x:1,", NULL, "a bare key", 0},
    {"\"x\":\"a\\x\",", NULL, "an unknown escape", 0},
    {"\"x\":\"a\tb\",", NULL, "a raw tab in a string", 0},
    {"\"x\":\"a\nb\",", NULL, "a raw newline in a string", 0},
    {"\"x\":[1,],", NULL, "a trailing comma in an array", 0},
    {"\"x\":{\"a\":1,},", NULL, "a trailing comma in an object", 0},
    {"/* c */", NULL, "a comment", 0},
    {"\"x\":1,,", NULL, "two commas", 0},
};

/* Text JSON.parse takes the same way, in unknown members: must not change the verdict. */
static const char *taken[] = {
    "\"x\":-0,",
    "\"x\":1E+2,",
    "\"x\":0.5e-3,",
    "\"x\":\"\\u00e9\\ud83d\\ude00\\\"\\\\\\/\\b\\f\\n\\r\\t\",",
    "\"x\":null,\"y\":true,\"z\":false,",
    "\"x\":[[[[[[[[[[[[[[[[[[[[{}]]]]]]]]]]]]]]]]]]]],",
    "\"x\":{\"a\":{\"a\":{\"a\":1}}},",
    "\"x\":\"a\\u0000b\",",
    " \t\r\n\"x\" \t\r\n: \t\r\n1 \t\r\n,",
    "\"\":1,",
};

static void verdicts_agree_with_json_parse(void **state)
{
    (void)state;
    char d[ZKPIPE_IO_DETAIL_MAX];
    size_t len;
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        const char *b = refused[i].before, *a = refused[i].after;
        char *p = edit(fx.proof, fx.proof_len, b, a, NULL, &len);
        char *v = edit(fx.vk, fx.vk_len, b, a, NULL, &len);
        size_t plen = strlen(p), vlen = strlen(v);
        zkpipe_status sp = proof_status(p, plen, ZKPIPE_CURVE_BN254, d);
        if (sp != ZKPIPE_EFORMAT)
            fail_msg("proof with %s: %s \"%s\"", refused[i].why, zkpipe_status_name(sp), d);
        zkpipe_status sv = vk_status(v, vlen, d);
        if (sv != ZKPIPE_EFORMAT)
            fail_msg("key with %s: %s \"%s\"", refused[i].why, zkpipe_status_name(sv), d);
        free(p);
        free(v);
        if (b == NULL) { /* public.json is an array: only what follows it applies */
            char *q = edit(fx.pub, fx.pub_len, NULL, a, NULL, &len);
            if (public_status(q, len, NULL, d) != ZKPIPE_EFORMAT)
                fail_msg("public.json with %s: \"%s\"", refused[i].why, d);
            free(q);
        }
    }
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
        char *p = edit(fx.proof, fx.proof_len, taken[i], " \t\r\n", NULL, &len);
        if (proof_status(p, len, ZKPIPE_CURVE_BN254, d) != ZKPIPE_OK)
            fail_msg("proof with %s: \"%s\"", taken[i], d);
        free(p);
        char *v = edit(fx.vk, fx.vk_len, taken[i], "\n", NULL, &len);
        if (vk_status(v, len, d) != ZKPIPE_OK)
            fail_msg("key with %s: \"%s\"", taken[i], d);
        free(v);
    }
    /* A known member twice, the first one valid. */
    char *p2 = edit(fx.proof, fx.proof_len, "\"pi_a\":[\"1\",\"2\",\"1\"],", NULL, NULL, &len);
    assert_int_equal(proof_status(p2, len, ZKPIPE_CURVE_BN254, d), ZKPIPE_EFORMAT);
    assert_non_null(strstr(d, "duplicate"));
    free(p2);
    p2 = edit(fx.vk, fx.vk_len, "\"IC\":[],", NULL, NULL, &len);
    assert_int_equal(vk_status(p2, len, d), ZKPIPE_EFORMAT);
    free(p2);
    /* A byte-order mark: JSON.parse refuses it. */
    text t = {0};
    puts_(&t, "\xef\xbb\xbf");
    put(&t, fx.proof, fx.proof_len);
    assert_int_equal(proof_status(t.s, t.len, ZKPIPE_CURVE_BN254, d), ZKPIPE_EFORMAT);
    free(t.s);
    /* A NUL after the value, and one inside a number's string. */
    t = (text){0};
    put(&t, fx.proof, fx.proof_len);
    put(&t, "", 1);
    assert_int_equal(proof_status(t.s, t.len, ZKPIPE_CURVE_BN254, d), ZKPIPE_EFORMAT);
    free(t.s);
    const char *nul_num = "{\"curve\":\"bn128\",\"pi_a\":[\"1\\u0000\",\"2\",\"1\"]}";
    assert_int_equal(proof_status(nul_num, strlen(nul_num), ZKPIPE_CURVE_COUNT, d), ZKPIPE_EFORMAT);
    assert_non_null(strstr(d, "pi_a: not a decimal"));
}

/* "curve" as snarkjs's getCurveFromName reads it; `stricter`: snarkjs takes it, zkpipe does
 * not (a byte outside ASCII). */
static const struct {
    const char *name;
    zkpipe_status st;
    int stricter;
} names[] = {
    {"bn128", ZKPIPE_OK, 0},       {"BN128", ZKPIPE_OK, 0},
    {"bn254", ZKPIPE_OK, 0},       {"BN-254", ZKPIPE_OK, 0},
    {"alt_bn128", ZKPIPE_OK, 0},   {"Alt-BN 128", ZKPIPE_OK, 0},
    {" bn128 ", ZKPIPE_OK, 0},     {"bn\\u0000128", ZKPIPE_OK, 0},
    {"bn256", ZKPIPE_EFORMAT, 0},  {"bn", ZKPIPE_EFORMAT, 0},
    {"", ZKPIPE_EFORMAT, 0},       {"---", ZKPIPE_EFORMAT, 0},
    {"bn128x", ZKPIPE_EFORMAT, 0}, {"bn128\\u00e9", ZKPIPE_EFORMAT, 1},
};

static void curve_names_are_snarkjs_names(void **state)
{
    (void)state;
    char d[ZKPIPE_IO_DETAIL_MAX];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char member[64];
        size_t len;
        snprintf(member, sizeof member, "\"curve\":\"%s\",", names[i].name);
        char *v = edit(fx.vk, fx.vk_len, member, NULL, "\"curve\": \"bn128\",", &len);
        zkpipe_status st = vk_status(v, len, d);
        if (st != names[i].st)
            fail_msg("key with curve \"%s\": %s \"%s\"", names[i].name, zkpipe_status_name(st), d);
        free(v);
    }
    /* A key that names no curve at all, or a number. */
    size_t len;
    char *v = edit(fx.vk, fx.vk_len, NULL, NULL, "\"curve\": \"bn128\",", &len);
    assert_int_equal(vk_status(v, len, d), ZKPIPE_EFORMAT);
    free(v);
    v = edit(fx.vk, fx.vk_len, "\"curve\":254,", NULL, "\"curve\": \"bn128\",", &len);
    assert_int_equal(vk_status(v, len, d), ZKPIPE_EFORMAT);
    free(v);
}

/* A text of `n` bytes: `head`, then spaces, then `tail`. */
static char *padded(const char *head, const char *tail, size_t n)
{
    size_t h = strlen(head), t = strlen(tail);
    assert_true(n >= h + t);
    char *s = malloc(n + 1);
    assert_non_null(s);
    memcpy(s, head, h);
    memset(s + h, ' ', n - h - t);
    memcpy(s + n - t, tail, t);
    s[n] = '\0';
    return s;
}

static void sizes_over_the_limits_are_refused_before_parsing(void **state)
{
    (void)state;
    char d[ZKPIPE_IO_DETAIL_MAX];
    /* proof.json: at the limit it parses, one byte more is refused, naming the limit. */
    char *p = padded(fx.proof, "", ZKPIPE_SNARKJS_PROOF_MAX_BYTES);
    assert_int_equal(proof_status(p, ZKPIPE_SNARKJS_PROOF_MAX_BYTES, ZKPIPE_CURVE_BN254, d),
                     ZKPIPE_OK);
    free(p);
    p = padded(fx.proof, "", ZKPIPE_SNARKJS_PROOF_MAX_BYTES + 1);
    assert_int_equal(proof_status(p, ZKPIPE_SNARKJS_PROOF_MAX_BYTES + 1, ZKPIPE_CURVE_BN254, d),
                     ZKPIPE_ETOOBIG);
    assert_non_null(strstr(d, "ZKPIPE_SNARKJS_PROOF_MAX_BYTES"));
    free(p);
    /* public.json and the key, one byte over (an unknown member's string that long) */
    p = padded("[\"1\"]", "", ZKPIPE_SNARKJS_PUBLIC_MAX_BYTES + 1);
    assert_int_equal(public_status(p, ZKPIPE_SNARKJS_PUBLIC_MAX_BYTES + 1, NULL, d),
                     ZKPIPE_ETOOBIG);
    assert_non_null(strstr(d, "ZKPIPE_SNARKJS_PUBLIC_MAX_BYTES"));
    free(p);
    p = padded(fx.vk, "", ZKPIPE_SNARKJS_VK_MAX_BYTES + 1);
    assert_int_equal(vk_status(p, ZKPIPE_SNARKJS_VK_MAX_BYTES + 1, d), ZKPIPE_ETOOBIG);
    assert_non_null(strstr(d, "ZKPIPE_SNARKJS_VK_MAX_BYTES"));
    free(p);
    /* the key at its byte limit: parsed (the padding is whitespace; --large only) */
    if (large) {
        p = padded(fx.vk, "", ZKPIPE_SNARKJS_VK_MAX_BYTES);
        assert_int_equal(vk_status(p, ZKPIPE_SNARKJS_VK_MAX_BYTES, d), ZKPIPE_OK);
        free(p);
    }
}

/* `depth` arrays nested in one another (the innermost empty), as an unknown member "x"
 * (member != 0: in the object after its '{') or bare. */
static char *nested(size_t depth, int member, size_t *len)
{
    text t = {0};
    if (member)
        puts_(&t, "\"x\":");
    for (size_t i = 0; i < depth; i++)
        put(&t, "[", 1);
    for (size_t i = 0; i < depth; i++)
        put(&t, "]", 1);
    if (member)
        put(&t, ",", 1);
    *len = t.len;
    return t.s;
}

/* One file of each kind with an unknown member nested `depth` deep in all (the object
 * counting 1, so the member `depth` - 1): the status of each, in vk, proof, public order;
 * public.json is the array itself, nested as deep. */
static void nested_statuses(size_t depth, zkpipe_status st[3], char d[3][ZKPIPE_IO_DETAIL_MAX])
{
    size_t n, len;
    char *m = nested(depth - 1, 1, &n);
    char *v = edit(fx.vk, fx.vk_len, m, NULL, NULL, &len);
    st[0] = vk_status(v, len, d[0]);
    free(v);
    char *p = edit(fx.proof, fx.proof_len, m, NULL, NULL, &len);
    st[1] = proof_status(p, len, ZKPIPE_CURVE_BN254, d[1]);
    free(p);
    free(m);
    char *q = nested(depth, 0, &len);
    st[2] = public_status(q, len, NULL, d[2]);
    free(q);
}

typedef struct deep_run {
    size_t depth;
    zkpipe_status st[3];
    char d[3][ZKPIPE_IO_DETAIL_MAX];
} deep_run;

static void *deep_thread(void *arg)
{
    deep_run *r = arg;
    nested_statuses(r->depth, r->st, r->d);
    return NULL;
}

/* Arrays and objects nested past ZKPIPE_SNARKJS_MAX_DEPTH are refused before parsing, naming
 * the limit, in every kind of file; at the limit they parse (an empty array in public.json is
 * no scalar: EFORMAT). Each text is read on a thread with a small stack (64 KiB; 128 KiB under
 * a sanitizer, whose frames are larger), as a host's worker may have: jansson parses nesting
 * by recursion, and a few thousand brackets overflow such a stack unless refused first. */
static void nesting_past_the_limit_is_refused(void **state)
{
    (void)state;
    static const size_t depths[] = {
        4, ZKPIPE_SNARKJS_MAX_DEPTH, ZKPIPE_SNARKJS_MAX_DEPTH + 1, 2048, 2049, 30000};
    for (size_t i = 0; i < sizeof depths / sizeof depths[0]; i++) {
        deep_run r = {.depth = depths[i]};
        pthread_attr_t attr;
        pthread_t th;
        assert_int_equal(pthread_attr_init(&attr), 0);
        assert_int_equal(
            pthread_attr_setstacksize(&attr, ZKPIPE_TEST_SANITIZED ? 128u << 10 : 64u << 10), 0);
        assert_int_equal(pthread_create(&th, &attr, deep_thread, &r), 0);
        assert_int_equal(pthread_join(th, NULL), 0);
        pthread_attr_destroy(&attr);
        int over = r.depth > ZKPIPE_SNARKJS_MAX_DEPTH;
        static const zkpipe_status at_limit[3] = {ZKPIPE_OK, ZKPIPE_OK, ZKPIPE_EFORMAT};
        for (int k = 0; k < 3; k++) {
            if (r.st[k] != (over ? ZKPIPE_ETOOBIG : at_limit[k]))
                fail_msg("file %d nested %zu deep: %s \"%s\"", k, r.depth,
                         zkpipe_status_name(r.st[k]), r.d[k]);
            if (over && strstr(r.d[k], "ZKPIPE_SNARKJS_MAX_DEPTH") == NULL)
                fail_msg("file %d nested %zu deep: the limit is not named: \"%s\"", k, r.depth,
                         r.d[k]);
        }
    }
    /* Brackets in strings do not nest; closing ones do not hide an opening one. */
    char d[ZKPIPE_IO_DETAIL_MAX];
    size_t len;
    text t = {0};
    puts_(&t, "\"x\":\"");
    for (int i = 0; i < 1000; i++)
        puts_(&t, "[{");
    puts_(&t, "\\\"\",");
    char *p = edit(fx.proof, fx.proof_len, t.s, NULL, NULL, &len);
    assert_int_equal(proof_status(p, len, ZKPIPE_CURVE_BN254, d), ZKPIPE_OK);
    free(p);
    free(t.s);
    /* Siblings do not add up: two members each at the limit parse. */
    size_t n;
    char *m = nested(ZKPIPE_SNARKJS_MAX_DEPTH - 1, 1, &n);
    t = (text){0};
    puts_(&t, m);
    puts_(&t, m);
    t.s[1] = 'y'; /* the first one named "y" */
    p = edit(fx.proof, fx.proof_len, t.s, NULL, NULL, &len);
    assert_int_equal(proof_status(p, len, ZKPIPE_CURVE_BN254, d), ZKPIPE_OK);
    free(p);
    free(t.s);
    free(m);
    /* Closing brackets with nothing open do not make room for more opening ones. */
    t = (text){0};
    puts_(&t, "\"y\":[]]]]]]]]],\"x\":");
    for (int i = 0; i < ZKPIPE_SNARKJS_MAX_DEPTH + 1; i++)
        puts_(&t, "[");
    p = edit(fx.proof, fx.proof_len, t.s, NULL, NULL, &len);
    assert_int_equal(proof_status(p, len, ZKPIPE_CURVE_BN254, d), ZKPIPE_ETOOBIG);
    free(p);
    free(t.s);
}

/* `count` copies of `item` separated by commas, between `head` and `tail`. */
static char *repeated(const char *head, const char *item, size_t count, const char *tail,
                      size_t *len)
{
    size_t h = strlen(head), i = strlen(item), t = strlen(tail);
    size_t n = h + count * (i + 1) + t;
    char *s = malloc(n + 1), *w = s;
    assert_non_null(s);
    memcpy(w, head, h);
    w += h;
    for (size_t k = 0; k < count; k++) {
        memcpy(w, item, i);
        w += i;
        *w++ = ',';
    }
    if (count > 0)
        w--;
    memcpy(w, tail, t);
    w += t;
    *w = '\0';
    *len = (size_t)(w - s);
    return s;
}

/* More values than the most public signals allow are refused before the tree is built. */
static void value_counts_over_the_limits_are_refused(void **state)
{
    (void)state;
    char d[ZKPIPE_IO_DETAIL_MAX];
    size_t len, n;
    char *p = repeated("[", "\"1\"", ZKPIPE_SNARKJS_MAX_PUBLIC + 1, "]", &len);
    assert_int_equal(public_status(p, len, &n, d), ZKPIPE_ETOOBIG);
    assert_non_null(strstr(d, "ZKPIPE_SNARKJS_MAX_PUBLIC"));
    free(p);
    /* Arrays and objects count for more: fewer of them are allowed. */
    p = repeated("[", "[]", ZKPIPE_SNARKJS_MAX_PUBLIC / 2, "]", &len);
    assert_int_equal(public_status(p, len, &n, d), ZKPIPE_ETOOBIG);
    free(p);
    /* Commas and brackets inside strings do not count. */
    p = repeated("[\"", ",[{", ZKPIPE_SNARKJS_MAX_PUBLIC, "\"]", &len);
    assert_int_equal(public_status(p, len, &n, d), ZKPIPE_EFORMAT);
    assert_non_null(strstr(d, "entry 0"));
    free(p);
    /* An unknown member in a key with more values than a key of the most IC points holds. */
    p = repeated("{\"x\":[", "0", 6 * (size_t)ZKPIPE_SNARKJS_MAX_PUBLIC, "]}", &len);
    assert_int_equal(vk_status(p, len, d), ZKPIPE_ETOOBIG);
    assert_non_null(strstr(d, "ZKPIPE_SNARKJS_MAX_PUBLIC"));
    free(p);
    /* nPublic over the limit. */
    const char *big = "{\"curve\":\"bn128\",\"nPublic\":262145,\"IC\":[]}";
    assert_int_equal(vk_status(big, strlen(big), d), ZKPIPE_EFORMAT);
    assert_non_null(strstr(d, "ZKPIPE_SNARKJS_MAX_PUBLIC"));
}

/* The largest arrays the limits allow are walked once (--large: a quadratic walk takes
 * minutes on them; 1/64 of that otherwise). */
static void largest_arrays_parse_in_linear_time(void **state)
{
    (void)state;
    char d[ZKPIPE_IO_DETAIL_MAX];
    size_t count = large ? ZKPIPE_SNARKJS_MAX_PUBLIC : ZKPIPE_SNARKJS_MAX_PUBLIC / 64, len, n;
    char *p = repeated("[",
                       "\"21888242871839275222246405745257275088548364400416034343698204186575"
                       "808495616\"",
                       count, "]\n", &len);
    assert_true(len <= ZKPIPE_SNARKJS_PUBLIC_MAX_BYTES);
    zkpipe_scalar *s = malloc(count * sizeof *s);
    assert_non_null(s);
    assert_int_equal(
        zkpipe_snarkjs_public_parse(s, count, &n, d, sizeof d, ZKPIPE_CURVE_BN254, p, len),
        ZKPIPE_OK);
    assert_int_equal(n, count);
    assert_int_equal(s[count - 1].l[0], 0x43e1f593f0000000ull);
    free(s);
    free(p);
    /* A key of `count` public inputs, every IC point the generator. */
    char head[512];
    snprintf(
        head, sizeof head,
        "{\"protocol\":\"groth16\",\"curve\":\"bn128\",\"nPublic\":%zu,\"vk_alpha_1\":[\"1\","
        "\"2\",\"1\"],\"vk_beta_2\":[[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]],\"vk_gamma_2\":[["
        "\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]],\"vk_delta_2\":[[\"0\",\"0\"],[\"1\",\"0\"],["
        "\"0\","
        "\"0\"]],\"IC\":[",
        count);
    p = repeated(head, "[\"1\",\"2\",\"1\"]", count + 1, "]}", &len);
    zkpipe_groth16_vk *vk;
    assert_int_equal(zkpipe_snarkjs_vk_parse(&vk, d, sizeof d, p, len, NULL), ZKPIPE_OK);
    assert_int_equal((zkpipe_groth16_vk_num_inputs(vk) - 1), count);
    zkpipe_groth16_vk_destroy(vk);
    free(p);
}

/* The parse tree's bytes, counted through jansson's allocator hooks (this test program's
 * own: the library leaves them alone). */
static size_t live, peak;

static void *count_malloc(size_t n)
{
    size_t *p = malloc(n + sizeof(max_align_t));
    if (p == NULL)
        return NULL;
    *p = n;
    live += n;
    peak = live > peak ? live : peak;
    return (char *)p + sizeof(max_align_t);
}

static void count_free(void *q)
{
    if (q == NULL)
        return;
    size_t *p = (size_t *)(void *)((char *)q - sizeof(max_align_t));
    live -= *p;
    free(p);
}

/* Text crafted for the most tree per byte, filled up to the value limits: the tree stays
 * within 100 bytes per unit, the bound zkpipe/io.h states. */
static void parse_tree_stays_within_its_bound(void **state)
{
    (void)state;
    char d[ZKPIPE_IO_DETAIL_MAX];
    static const struct {
        const char *item;
        size_t units; /* per item, its comma included */
    } shapes[] = {{"0", 1}, {"\"1\"", 1}, {"[]", 3}, {"{}", 4}, {"{\"a\":0}", 4}, {"[0]", 3}};
    json_set_alloc_funcs(count_malloc, count_free);
    for (int kind = 0; kind < (large ? 2 : 1); kind++) { /* the key's: --large only */
        size_t max_units = kind == 0 ? (size_t)ZKPIPE_SNARKJS_MAX_PUBLIC + 2
                                     : 5 * ((size_t)ZKPIPE_SNARKJS_MAX_PUBLIC + 1) + 4096;
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            size_t count = (max_units - (kind == 0 ? 3 : 6)) / shapes[i].units, len;
            char *p = repeated(kind == 0 ? "[" : "{\"x\":[", shapes[i].item, count,
                               kind == 0 ? "]" : "]}", &len);
            live = peak = 0;
            zkpipe_status st = kind == 0 ? public_status(p, len, NULL, d) : vk_status(p, len, d);
            if (st == ZKPIPE_ETOOBIG)
                fail_msg("%s x %zu refused by the limits: %s", shapes[i].item, count, d);
            assert_int_equal(live, 0);
            if (peak > 100 * max_units)
                fail_msg("%s: %s x %zu took %zu bytes of tree", kind == 0 ? "public" : "key",
                         shapes[i].item, count, peak);
            printf("# %s: %s x %zu (%zu bytes of text): %zu bytes of tree\n",
                   kind == 0 ? "public.json" : "key", shapes[i].item, count, len, peak);
            free(p);
        }
    }
    json_set_alloc_funcs(malloc, free);
}

/* zkpipe-verify's input rules (README.md, "What zkpipe-verify takes"): for each row of the
 * README's table, variants of the fixture that snarkjs takes, or that show why a form is
 * refused. `st` is zkpipe's verdict: the status of the file's parser, ZKPIPE_OK when the three
 * files verify, ZKPIPE_EVERIFY when they parse and do not verify. `expect` is the interop
 * test's: ok, no (snarkjs and zkpipe refuse it) or stricter (zkpipe refuses what snarkjs
 * takes). Each edit replaces, in the text after `anchor` (the whole text when NULL), the first
 * `from` with `to`; a NULL `from` stands for the first array there, whole. A `to` of
 * "<x+q>" is that array's first number plus q, "<jacobian>" the array [x, y, 1] written with
 * the Jacobian z = q - 1, "<nested>" an unknown member nested one level past
 * ZKPIPE_SNARKJS_MAX_DEPTH put before `from`. */
enum { KEY, PUBLIC, PROOF };

static const struct rule {
    const char *row, *name;
    int file;
    zkpipe_status st;
    const char *expect;
    struct {
        const char *anchor, *from, *to;
    } e[4];
} rules[] = {
    {"coordinate not below q",
     "x-plus-q",
     PROOF,
     ZKPIPE_ENONCANONICAL,
     "stricter",
     {{"\"pi_a\"", NULL, "<x+q>"}}},
    {"coordinate not below q",
     "public-plus-r",
     PUBLIC,
     ZKPIPE_ENONCANONICAL,
     "no",
     {{NULL, "\"33\"",
       "\"21888242871839275222246405745257275088548364400416034343698204186575808495650\""}}},
    {"hex number", "hex-z", PROOF, ZKPIPE_EFORMAT, "stricter", {{"\"pi_a\"", "\"1\"", "\"0x1\""}}},
    {"hex number",
     "hex-public",
     PUBLIC,
     ZKPIPE_EFORMAT,
     "stricter",
     {{NULL, "\"33\"", "\"0x21\""}}},
    {"leading zero",
     "leading-zero-x",
     PROOF,
     ZKPIPE_EFORMAT,
     "stricter",
     {{"\"pi_a\"", "\"", "\"0"}}},
    {"leading zero",
     "leading-zero-public",
     PUBLIC,
     ZKPIPE_EFORMAT,
     "stricter",
     {{NULL, "\"33\"", "\"033\""}}},
    {"public signal as a JSON number",
     "number-public",
     PUBLIC,
     ZKPIPE_EFORMAT,
     "stricter",
     {{NULL, "\"33\"", "33"}}},
    {"public signal as a JSON number",
     "number-public-rounded",
     PUBLIC,
     ZKPIPE_EFORMAT,
     "no",
     {{NULL, "\"21888242871839275222246405745257275088548364400416034343698204186575808495410\"",
       "21888242871839275222246405745257275088548364400416034343698204186575808495410"}}},
    {"point without z", "no-z-pi-a", PROOF, ZKPIPE_OK, "ok", {{"\"pi_a\"", ",\n  \"1\"", ""}}},
    {"point without z",
     "no-z-pi-b",
     PROOF,
     ZKPIPE_OK,
     "ok",
     {{"\"pi_b\"", ",\n  [\n   \"1\",\n   \"0\"\n  ]", ""}}},
    {"point without z", "no-z-key", KEY, ZKPIPE_OK, "ok", {{"\"vk_alpha_1\"", ",\n  \"1\"", ""}}},
    {"point without z",
     "arkworks-proof",
     PROOF,
     ZKPIPE_OK,
     "ok",
     {{"\"pi_a\"", ",\n  \"1\"", ""},
      {"\"pi_b\"", ",\n  [\n   \"1\",\n   \"0\"\n  ]", ""},
      {"\"pi_c\"", ",\n  \"1\"", ""},
      {NULL, ",\n \"curve\": \"bn128\"", ""}}},
    {"infinity as x = y = 0",
     "infinity-zero-xy",
     PROOF,
     ZKPIPE_EVERIFY,
     "no",
     {{"\"pi_c\"", NULL, "[\"0\",\"0\"]"}}},
    {"infinity with other x, y",
     "infinity-other-xy",
     PROOF,
     ZKPIPE_EFORMAT,
     "no",
     {{"\"pi_c\"", NULL, "[\"5\",\"7\",\"0\"]"}}},
    {"Jacobian z other than 1",
     "jacobian-pi-a",
     PROOF,
     ZKPIPE_EFORMAT,
     "stricter",
     {{"\"pi_a\"", NULL, "<jacobian>"}}},
    {"Jacobian z other than 1",
     "z-2",
     PROOF,
     ZKPIPE_EFORMAT,
     "no",
     {{"\"pi_a\"", "\"1\"", "\"2\""}}},
    {"IC longer than nPublic + 1",
     "ic-longer",
     KEY,
     ZKPIPE_EFORMAT,
     "stricter",
     {{"\"IC\"", "\n ]\n}", ",\n  [\"1\",\"2\",\"1\"]\n ]\n}"}}},
    {"nPublic wrong or a string",
     "npublic-wrong",
     KEY,
     ZKPIPE_EFORMAT,
     "stricter",
     {{NULL, "\"nPublic\": 7", "\"nPublic\": 8"}}},
    {"nPublic wrong or a string",
     "npublic-string",
     KEY,
     ZKPIPE_EFORMAT,
     "stricter",
     {{NULL, "\"nPublic\": 7", "\"nPublic\": \"7\""}}},
    {"proof \"curve\" naming another curve",
     "proof-curve-other",
     PROOF,
     ZKPIPE_EMISMATCH,
     "stricter",
     {{NULL, "\"bn128\"", "\"bls12381\""}}},
    {"\"protocol\" other than groth16",
     "protocol-plonk-proof",
     PROOF,
     ZKPIPE_EFORMAT,
     "stricter",
     {{NULL, "\"groth16\"", "\"plonk\""}}},
    {"\"protocol\" other than groth16",
     "protocol-plonk-key",
     KEY,
     ZKPIPE_EFORMAT,
     "stricter",
     {{NULL, "\"groth16\"", "\"plonk\""}}},
    {"duplicate key",
     "duplicate-last-valid",
     PROOF,
     ZKPIPE_EFORMAT,
     "stricter",
     {{NULL, "{", "{\"pi_a\":[\"1\",\"2\",\"1\"],"}}},
    {"duplicate key",
     "duplicate-last-wrong",
     PROOF,
     ZKPIPE_EFORMAT,
     "no",
     {{NULL, "\n}", ",\"pi_a\":[\"1\",\"2\",\"1\"]\n}"}}},
    {"\"curve\" with a byte outside ASCII",
     "curve-non-ascii",
     KEY,
     ZKPIPE_EFORMAT,
     "stricter",
     {{NULL, "\"bn128\"", "\"bn128\xc3\xa9\""}}},
    {"nesting past ZKPIPE_SNARKJS_MAX_DEPTH",
     "nested-past-the-limit",
     PROOF,
     ZKPIPE_ETOOBIG,
     "stricter",
     {{NULL, "\"pi_a\"", "<nested>"}}},
};

/* Decimal strings: a + b, and a - b for a >= b. */
static char *dec_add(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), n = (la > lb ? la : lb) + 1;
    char *s = calloc(n + 1, 1);
    assert_non_null(s);
    int carry = 0;
    for (size_t i = 0; i < n; i++) {
        int d = carry + (i < la ? a[la - 1 - i] - '0' : 0) + (i < lb ? b[lb - 1 - i] - '0' : 0);
        s[n - 1 - i] = (char)('0' + d % 10);
        carry = d / 10;
    }
    if (s[0] == '0')
        memmove(s, s + 1, n);
    return s;
}

static char *dec_sub(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), i, z = 0;
    char *s = calloc(la + 1, 1);
    assert_non_null(s);
    int borrow = 0;
    for (i = 0; i < la; i++) {
        int d = a[la - 1 - i] - '0' - borrow - (i < lb ? b[lb - 1 - i] - '0' : 0);
        borrow = d < 0;
        s[la - 1 - i] = (char)('0' + d + 10 * borrow);
    }
    assert_int_equal(borrow, 0);
    while (z + 1 < la && s[z] == '0')
        z++;
    memmove(s, s + z, la - z + 1);
    return s;
}

/* The k-th string of the array at `at` (its '['), as a new string. */
static char *nth_string(const char *at, int k)
{
    const char *p = at;
    for (int i = 0; i <= 2 * k; i++)
        p = strchr(p + 1, '"');
    const char *end = strchr(p + 1, '"');
    assert_non_null(end);
    size_t n = (size_t)(end - p - 1);
    char *s = malloc(n + 1);
    assert_non_null(s);
    memcpy(s, p + 1, n);
    s[n] = '\0';
    return s;
}

static const char bn254_q[] =
    "21888242871839275222246405745257275088696311157297823662689037894645226208583";

/* The variant's text: rule i's edits applied to its fixture file. */
static char *rule_text(size_t i, size_t *len)
{
    const char *files[3] = {fx.vk, fx.pub, fx.proof};
    text t = {0};
    puts_(&t, files[rules[i].file]);
    for (size_t k = 0; k < 4 && rules[i].e[k].to != NULL; k++) {
        const char *anchor = rules[i].e[k].anchor, *from = rules[i].e[k].from;
        const char *to = rules[i].e[k].to;
        const char *at = anchor != NULL ? strstr(t.s, anchor) : t.s;
        if (at == NULL)
            fail_msg("%s: no %s", rules[i].name, anchor);
        at += anchor != NULL ? strlen(anchor) : 0;
        const char *start = strstr(at, from != NULL ? from : "["), *end;
        if (start == NULL)
            fail_msg("%s: no %s", rules[i].name, from != NULL ? from : "array");
        if (from != NULL) {
            end = start + strlen(from);
        } else {
            end = strchr(start, ']');
            assert_non_null(end);
            end++;
        }
        text r = {0};
        put(&r, t.s, (size_t)(start - t.s));
        if (strcmp(to, "<x+q>") == 0 || strcmp(to, "<jacobian>") == 0) {
            char *x = nth_string(start, 0), *y = nth_string(start, 1);
            /* x + q, or (x z^2, y z^3, z) with z = -1 */
            char *xs = to[1] == 'x' ? dec_add(x, bn254_q) : NULL;
            char *ys = to[1] == 'x' ? NULL : dec_sub(bn254_q, y);
            char *zs = to[1] == 'x' ? NULL : dec_sub(bn254_q, "1");
            const char *parts[3] = {xs != NULL ? xs : x, ys != NULL ? ys : y,
                                    zs != NULL ? zs : "1"};
            for (int c = 0; c < 3; c++) {
                puts_(&r, c == 0 ? "[\"" : "\",\"");
                puts_(&r, parts[c]);
            }
            puts_(&r, "\"]");
            free(x);
            free(y);
            free(xs);
            free(ys);
            free(zs);
        } else if (strcmp(to, "<nested>") == 0) {
            size_t n;
            char *m = nested(ZKPIPE_SNARKJS_MAX_DEPTH, 1, &n);
            puts_(&r, m);
            put(&r, start, (size_t)(end - start));
            free(m);
        } else {
            puts_(&r, to);
        }
        puts_(&r, end);
        free(t.s);
        t = r;
    }
    *len = t.len;
    return t.s;
}

/* Every row's variants get the verdict the README's table gives; an accepted form reads as
 * the same proof or key as the fixture's own text. */
static void input_rules_are_as_the_readme_says(void **state)
{
    (void)state;
    char d[ZKPIPE_IO_DETAIL_MAX];
    zkpipe_groth16_proof want;
    assert_int_equal(
        zkpipe_snarkjs_proof_parse(&want, d, sizeof d, ZKPIPE_CURVE_BN254, fx.proof, fx.proof_len),
        ZKPIPE_OK);
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        size_t len, n = 0;
        char *t = rule_text(i, &len);
        const char *texts[3] = {fx.vk, fx.pub, fx.proof};
        size_t lens[3] = {fx.vk_len, fx.pub_len, fx.proof_len};
        texts[rules[i].file] = t;
        lens[rules[i].file] = len;
        zkpipe_groth16_vk *vk = NULL;
        zkpipe_groth16_proof p;
        zkpipe_scalar in[8];
        d[0] = '\0';
        zkpipe_status st = zkpipe_snarkjs_vk_parse(&vk, d, sizeof d, texts[KEY], lens[KEY], NULL);
        if (st == ZKPIPE_OK)
            st = zkpipe_snarkjs_public_parse(in, 8, &n, d, sizeof d, ZKPIPE_CURVE_BN254,
                                             texts[PUBLIC], lens[PUBLIC]);
        if (st == ZKPIPE_OK)
            st = zkpipe_snarkjs_proof_parse(&p, d, sizeof d, ZKPIPE_CURVE_BN254, texts[PROOF],
                                            lens[PROOF]);
        if (st == ZKPIPE_OK && rules[i].file == PROOF && rules[i].st == ZKPIPE_OK &&
            memcmp(p.bytes, want.bytes, want.size) != 0)
            fail_msg("%s (%s): read as another proof", rules[i].row, rules[i].name);
        if (st == ZKPIPE_OK)
            st = vk_verify(vk, in, n, &p);
        zkpipe_groth16_vk_destroy(vk);
        if (st != rules[i].st)
            fail_msg("%s (%s): %s, expected %s: \"%s\"", rules[i].row, rules[i].name,
                     zkpipe_status_name(st), zkpipe_status_name(rules[i].st), d);
        free(t);
    }
}

/* The point at infinity: x = 0, y = 1, z = 0 (snarkjs), or x = y = 0 with z = 1 or none
 * (ffjavascript's, arkworks'), in G1 and G2, all read as the same point; z = 0 with any
 * other x or y is refused. */
static void infinity_has_one_encoding_per_form(void **state)
{
    (void)state;
    static const char *g1[] = {"[\"0\",\"1\",\"0\"]", "[\"0\",\"0\",\"1\"]", "[\"0\",\"0\"]",
                               "[\"5\",\"7\",\"0\"]", "[\"0\",\"2\",\"0\"]", "[\"1\",\"1\",\"0\"]"};
    static const char *g2[] = {"[[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]]",
                               "[[\"0\",\"0\"],[\"0\",\"0\"],[\"1\",\"0\"]]",
                               "[[\"0\",\"0\"],[\"0\",\"0\"]]",
                               "[[\"0\",\"0\"],[\"1\",\"1\"],[\"0\",\"0\"]]",
                               "[[\"0\",\"1\"],[\"1\",\"0\"],[\"0\",\"0\"]]",
                               "[[\"0\",\"0\"],[\"0\",\"1\"],[\"0\",\"0\"]]"};
    char d[ZKPIPE_IO_DETAIL_MAX], json[512];
    zkpipe_groth16_proof first, p;
    for (int k = 0; k < 6; k++) {
        /* Each bad encoding once in G1 (pi_c) and once in G2 (pi_b), beside good ones. */
        for (int in_g2 = 0; in_g2 < 2; in_g2++) {
            int a = k < 3 ? k : 0, b = k < 3 || in_g2 ? k : 0, c = k < 3 || !in_g2 ? k : 0;
            snprintf(json, sizeof json, "{\"pi_a\":%s,\"pi_b\":%s,\"pi_c\":%s}", g1[a], g2[b],
                     g1[c]);
            zkpipe_status st = zkpipe_snarkjs_proof_parse(k == 0 ? &first : &p, d, sizeof d,
                                                          ZKPIPE_CURVE_BN254, json, strlen(json));
            if (st != (k < 3 ? ZKPIPE_OK : ZKPIPE_EFORMAT))
                fail_msg("%s: %s \"%s\"", json, zkpipe_status_name(st), d);
            if (k >= 3)
                assert_non_null(strstr(d, in_g2 ? "pi_b: z = 0" : "pi_c: z = 0"));
            else if (k > 0)
                assert_memory_equal(p.bytes, first.bytes, first.size);
        }
    }
}

/* --write-variants DIR: the cases above as files, for tests/test_interop.sh to put before
 * snarkjs and zkpipe-verify alike: DIR/cases lists one a line, `EXPECT NAME VK PUBLIC PROOF`
 * (paths), EXPECT being ok or no (both must say it) or stricter (zkpipe refuses, snarkjs may
 * take it). */
static FILE *cases;
static const char *variants_dir;
static char fixture_dir[2048];

static void write_file(char *path, size_t cap, const char *name, const char *data, size_t len)
{
    snprintf(path, cap, "%s/%s", variants_dir, name);
    FILE *fp = fopen(path, "wb");
    if (fp == NULL || fwrite(data, 1, len, fp) != len || fclose(fp) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}

/* One case: `data` replaces the fixture file `which` (0 key, 1 public, 2 proof). */
static void variant(const char *expect, const char *name, int which, const char *data, size_t len)
{
    char path[3][2600], file[96];
    static const char *base[3] = {"verification_key.json", "public.json", "proof.json"};
    for (int k = 0; k < 3; k++)
        snprintf(path[k], sizeof path[k], "%s/%s", fixture_dir, base[k]);
    snprintf(file, sizeof file, "%s.json", name);
    write_file(path[which], sizeof path[which], file, data, len);
    fprintf(cases, "%s %s %s %s %s\n", expect, name, path[0], path[1], path[2]);
}

static int write_variants(const char *dir)
{
    const char *src = getenv("ZKPIPE_SOURCE_DIR");
    snprintf(fixture_dir, sizeof fixture_dir, "%s/tests/interop/fixtures/bn128/multiplier",
             src != NULL ? src : ".");
    variants_dir = dir;
    char path[2600], name[64];
    snprintf(path, sizeof path, "%s/cases", dir);
    if ((cases = fopen(path, "w")) == NULL) {
        fprintf(stderr, "cannot write %s\n", path);
        return 1;
    }
    setup(NULL);
    size_t len;
    char *t;
    const char *files[3] = {fx.vk, fx.pub, fx.proof};
    size_t lens[3] = {fx.vk_len, fx.pub_len, fx.proof_len};
    static const char *tags[3] = {"vk", "public", "proof"};
    variant("ok", "as-is", 2, fx.proof, fx.proof_len);
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        const char *expect = refused[i].dup ? "stricter" : "no";
        for (int k = 0; k < 3; k++) {
            if (k == 1 && refused[i].before != NULL)
                continue;
            t = edit(files[k], lens[k], refused[i].before, refused[i].after, NULL, &len);
            snprintf(name, sizeof name, "refused-%zu-%s", i, tags[k]);
            variant(expect, name, k, t, strlen(t) < len ? strlen(t) : len);
            free(t);
        }
    }
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++)
        for (int k = 0; k < 3; k += 2) {
            t = edit(files[k], lens[k], taken[i], " \t\r\n", NULL, &len);
            snprintf(name, sizeof name, "taken-%zu-%s", i, tags[k]);
            variant("ok", name, k, t, len);
            free(t);
        }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char member[64];
        snprintf(member, sizeof member, "\"curve\":\"%s\",", names[i].name);
        t = edit(fx.vk, fx.vk_len, member, NULL, "\"curve\": \"bn128\",", &len);
        snprintf(name, sizeof name, "curve-%zu-vk", i);
        variant(names[i].stricter          ? "stricter"
                : names[i].st == ZKPIPE_OK ? "ok"
                                           : "no",
                name, 0, t, len);
        free(t);
    }
    /* Nesting at zkpipe's limit (snarkjs takes it too); past it: a row below. */
    size_t n;
    char *m = nested(ZKPIPE_SNARKJS_MAX_DEPTH - 1, 1, &n);
    t = edit(fx.proof, fx.proof_len, m, NULL, NULL, &len);
    variant("ok", "nested-at-the-limit", 2, t, len);
    free(t);
    free(m);
    /* rapidsnark's shape: no "curve". */
    t = edit(fx.proof, fx.proof_len, NULL, NULL, ",\n \"curve\": \"bn128\"", &len);
    variant("ok", "rapidsnark-proof", 2, t, len);
    free(t);
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        t = rule_text(i, &len);
        variant(rules[i].expect, rules[i].name, rules[i].file, t, len);
        free(t);
    }
    teardown(NULL);
    return fclose(cases) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-variants") == 0)
        return write_variants(argv[2]);
    large = argc > 1 && strcmp(argv[1], "--large") == 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rapidsnark_proofs_take_the_keys_curve),
        cmocka_unit_test(verdicts_agree_with_json_parse),
        cmocka_unit_test(curve_names_are_snarkjs_names),
        cmocka_unit_test(input_rules_are_as_the_readme_says),
        cmocka_unit_test(infinity_has_one_encoding_per_form),
        cmocka_unit_test(sizes_over_the_limits_are_refused_before_parsing),
        cmocka_unit_test(value_counts_over_the_limits_are_refused),
        cmocka_unit_test(nesting_past_the_limit_is_refused),
        cmocka_unit_test(largest_arrays_parse_in_linear_time),
        cmocka_unit_test(parse_tree_stays_within_its_bound),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
