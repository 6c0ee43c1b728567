/* G1 and G2 of BLS12-381 and BN254 against the known-answer vectors of tests/vectors/ (computed
 * by @noble/curves): k·G for fixed k, encodings byte for byte both ways, and every invalid
 * encoding rejected with its own status. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ec/bls12_381_g1.h"
#include "ec/bls12_381_g2.h"
#include "ec/bn254_g1.h"
#include "ec/bn254_g2.h"
#include "vectors.h"

#define MAX_ENC 192

/* What the decode wrappers report when a failed decode wrote to its output anyway. */
#define OUTPUT_WRITTEN ZKPIPE_ESTATE

/* What the tests need from a group, through its encodings only. */
typedef struct group_api {
    const char *name;  /* "bls12_381_g1" ...: vectors in tests/vectors/<name>.txt */
    const char *curve; /* invalid encodings in tests/vectors/<curve>_invalid.txt */
    const char *tag;   /* "g1" or "g2": record prefix */
    size_t fq_bytes;   /* one Fq element */
    int fq2;           /* coordinates in Fq2 */
    int compressed;    /* has a compressed form */
    /* Writes the encodings of k·G (k: 32 big-endian bytes); -1 when k >= r. */
    int (*mul_gen)(uint8_t *u, uint8_t *c, const uint8_t *k);
    /* Decodes `in` in the given form; on success writes both encodings of the point; a failure
     * that touched the decoded point returns OUTPUT_WRITTEN instead of its status. */
    zkpipe_status (*decode)(uint8_t *u, uint8_t *c, const uint8_t *in, int compressed);
} group_api;

/* k·G in affine form, k given as 32 big-endian bytes; -1 when k >= r. */
#define MUL_GEN(G, FR)                                                                             \
    static int G##_mul_gen_affine(G##_affine *out, const uint8_t *kb)                              \
    {                                                                                              \
        FR k;                                                                                      \
        G p;                                                                                       \
        if (!FR##_from_bytes_be(&k, kb))                                                           \
            return -1;                                                                             \
        G##_generator(out);                                                                        \
        G##_from_affine(&p, out);                                                                  \
        G##_mul(&p, &p, &k);                                                                       \
        G##_to_affine(out, &p);                                                                    \
        return 0;                                                                                  \
    }

#define ZCASH_WRAPPERS(G, FR)                                                                      \
    MUL_GEN(G, FR)                                                                                 \
    static int G##_mul_gen(uint8_t *u, uint8_t *c, const uint8_t *kb)                              \
    {                                                                                              \
        G##_affine g;                                                                              \
        if (G##_mul_gen_affine(&g, kb) != 0)                                                       \
            return -1;                                                                             \
        G##_to_uncompressed(u, &g);                                                                \
        G##_to_compressed(c, &g);                                                                  \
        return 0;                                                                                  \
    }                                                                                              \
    static zkpipe_status G##_decode(uint8_t *u, uint8_t *c, const uint8_t *in, int compressed)     \
    {                                                                                              \
        G##_affine p, untouched;                                                                   \
        zkpipe_status st;                                                                          \
        memset(&p, 0xa5, sizeof(p));                                                               \
        untouched = p;                                                                             \
        st = compressed ? G##_from_compressed(&p, in) : G##_from_uncompressed(&p, in);             \
        if (st != ZKPIPE_OK && memcmp(&p, &untouched, sizeof(p)) != 0)                             \
            return OUTPUT_WRITTEN;                                                                 \
        if (st == ZKPIPE_OK) {                                                                     \
            G##_to_uncompressed(u, &p);                                                            \
            G##_to_compressed(c, &p);                                                              \
        }                                                                                          \
        return st;                                                                                 \
    }

#define EIP_WRAPPERS(G, FR)                                                                        \
    MUL_GEN(G, FR)                                                                                 \
    static int G##_mul_gen(uint8_t *u, uint8_t *c, const uint8_t *kb)                              \
    {                                                                                              \
        G##_affine g;                                                                              \
        (void)c;                                                                                   \
        if (G##_mul_gen_affine(&g, kb) != 0)                                                       \
            return -1;                                                                             \
        G##_to_uncompressed(u, &g);                                                                \
        return 0;                                                                                  \
    }                                                                                              \
    static zkpipe_status G##_decode(uint8_t *u, uint8_t *c, const uint8_t *in, int compressed)     \
    {                                                                                              \
        G##_affine p, untouched;                                                                   \
        zkpipe_status st;                                                                          \
        (void)c;                                                                                   \
        if (compressed)                                                                            \
            return ZKPIPE_EUNSUPPORTED;                                                            \
        memset(&p, 0xa5, sizeof(p));                                                               \
        untouched = p;                                                                             \
        st = G##_from_uncompressed(&p, in);                                                        \
        if (st != ZKPIPE_OK && memcmp(&p, &untouched, sizeof(p)) != 0)                             \
            return OUTPUT_WRITTEN;                                                                 \
        if (st == ZKPIPE_OK)                                                                       \
            G##_to_uncompressed(u, &p);                                                            \
        return st;                                                                                 \
    }

ZCASH_WRAPPERS(bls12_381_g1, bls12_381_fr)
ZCASH_WRAPPERS(bls12_381_g2, bls12_381_fr)
EIP_WRAPPERS(bn254_g1, bn254_fr)
EIP_WRAPPERS(bn254_g2, bn254_fr)

static const group_api groups[] = {
    {"bls12_381_g1", "bls12_381", "g1", 48, 0, 1, bls12_381_g1_mul_gen, bls12_381_g1_decode},
    {"bls12_381_g2", "bls12_381", "g2", 48, 1, 1, bls12_381_g2_mul_gen, bls12_381_g2_decode},
    {"bn254_g1", "bn254", "g1", 32, 0, 0, bn254_g1_mul_gen, bn254_g1_decode},
    {"bn254_g2", "bn254", "g2", 32, 1, 0, bn254_g2_mul_gen, bn254_g2_decode},
};

static int all_zero(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != 0)
            return 0;
    return 1;
}

/* The uncompressed layout from the coordinate tokens (Fq2 tokens are c0 c1, encodings c1 c0). */
static void raw_xy(const group_api *g, const vectors_record *r, uint8_t *out)
{
    size_t q = g->fq_bytes;
    if (!g->fq2) {
        assert_int_equal(vectors_hex(r, 1, out, q), 0);
        assert_int_equal(vectors_hex(r, 2, out + q, q), 0);
        return;
    }
    static const size_t order[4] = {1, 0, 3, 2};
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(vectors_hex(r, 1 + order[i], out + i * q, q), 0);
}

static void check_mul_vectors(const group_api *g)
{
    char path[96];
    snprintf(path, sizeof(path), "tests/vectors/%s.txt", g->name);
    vectors_file f;
    assert_int_equal(vectors_load(&f, path), 0);
    size_t coord = g->fq_bytes * (g->fq2 ? 2 : 1), n = 0;
    char mul[8];
    snprintf(mul, sizeof(mul), "%s_mul", g->tag);
    for (size_t i = 0; i < f.count; i++) {
        const vectors_record *r = &f.records[i];
        if (strcmp(r->name, mul) != 0)
            continue;
        uint8_t k[32], raw[MAX_ENC], want_u[MAX_ENC], want_c[MAX_ENC / 2];
        uint8_t u[MAX_ENC], c[MAX_ENC / 2], u2[MAX_ENC], c2[MAX_ENC / 2];
        size_t tok = g->fq2 ? 5 : 3;
        assert_int_equal(vectors_hex(r, 0, k, 32), 0);
        raw_xy(g, r, raw);
        assert_int_equal(vectors_hex(r, tok, want_u, 2 * coord), 0);
        if (!all_zero(raw, 2 * coord)) /* infinity is written x = y = 0 */
            assert_memory_equal(raw, want_u, 2 * coord);
        assert_int_equal(g->mul_gen(u, c, k), 0);
        if (memcmp(u, want_u, 2 * coord) != 0)
            fail_msg("%s:%u: k·G differs", path, r->line);
        assert_int_equal(g->decode(u2, c2, want_u, 0), ZKPIPE_OK);
        assert_memory_equal(u2, want_u, 2 * coord);
        if (g->compressed) {
            assert_int_equal(vectors_hex(r, tok + 1, want_c, coord), 0);
            assert_memory_equal(c, want_c, coord);
            assert_int_equal(g->decode(u2, c2, want_c, 1), ZKPIPE_OK);
            assert_memory_equal(u2, want_u, 2 * coord);
            assert_memory_equal(c2, want_c, coord);
        }
        n++;
    }
    assert_true(n >= 19);
    vectors_free(&f);
}

static void check_invalid_vectors(const group_api *g)
{
    char path[96];
    snprintf(path, sizeof(path), "tests/vectors/%s_invalid.txt", g->curve);
    vectors_file f;
    assert_int_equal(vectors_load(&f, path), 0);
    size_t n = 0;
    for (size_t i = 0; i < f.count; i++) {
        const vectors_record *r = &f.records[i];
        if (strncmp(r->name, g->tag, 2) != 0)
            continue;
        int compressed = strcmp(r->name + 3, "compressed") == 0;
        uint8_t in[MAX_ENC], u[MAX_ENC], c[MAX_ENC / 2];
        size_t len = vectors_hex_len(r, 1);
        assert_int_equal(vectors_hex(r, 1, in, len), 0);
        zkpipe_status st = g->decode(u, c, in, compressed);
        if (strcmp(zkpipe_status_name(st), r->tokens[0]) != 0)
            fail_msg("%s:%u: got %s, want %s", path, r->line, zkpipe_status_name(st), r->tokens[0]);
        if (st == ZKPIPE_OK)
            assert_memory_equal(compressed ? c : u, in, len);
        n++;
    }
    assert_true(n >= 5);
    vectors_free(&f);
}

static void mul_vectors(void **state)
{
    check_mul_vectors((const group_api *)*state);
}

static void invalid_vectors(void **state)
{
    check_invalid_vectors((const group_api *)*state);
}

/* Named per group so a failure says which one. */
#define GROUP_TESTS(i, G)                                                                          \
    {#G " mul_vectors", mul_vectors, NULL, NULL, (void *)&groups[i]},                              \
    {                                                                                              \
#G " invalid_vectors", invalid_vectors, NULL, NULL, (void *)&groups[i]                     \
    }

int main(void)
{
    const struct CMUnitTest tests[] = {
        GROUP_TESTS(0, bls12_381_g1),
        GROUP_TESTS(1, bls12_381_g2),
        GROUP_TESTS(2, bn254_g1),
        GROUP_TESTS(3, bn254_g2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
