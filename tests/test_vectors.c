/* The committed known-answer vector files parse, and every record has the shape the curve and
 * field tests expect (token counts and hex widths), so a damaged file fails here first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "vectors.h"

typedef struct curve_info {
    const char *name;
    size_t rb, qb; /* bytes per Fr and per Fq element */
    int bls;       /* 1: BLS12-381 records carry compressed encodings too */
} curve_info;

static const curve_info curves[] = {{"bls12_381", 32, 48, 1}, {"bn254", 32, 32, 0}};

/* Token widths in bytes for record `name`, written into `w`; returns the count or -1. */
static int expected(const curve_info *c, const char *name, size_t *w, const char **kind)
{
    size_t r = c->rb, q = c->qb;
    int n = 0;
#define PUSH(width, times)                                                                         \
    for (int k_ = 0; k_ < (times); k_++)                                                           \
    w[n++] = (width)
    *kind = "hex";
    if (strcmp(name, "fr_modulus") == 0 || strcmp(name, "fr_nonsquare") == 0) {
        PUSH(r, 1);
    } else if (strcmp(name, "fq_modulus") == 0 || strcmp(name, "fq_nonsquare") == 0) {
        PUSH(q, 1);
    } else if (strcmp(name, "fr_mul") == 0) {
        PUSH(r, 3);
    } else if (strcmp(name, "fr_inv") == 0 || strcmp(name, "fr_sqrt") == 0) {
        PUSH(r, 2);
    } else if (strcmp(name, "fq_mul") == 0) {
        PUSH(q, 3);
    } else if (strcmp(name, "fq_inv") == 0 || strcmp(name, "fq_sqrt") == 0) {
        PUSH(q, 2);
    } else if (strcmp(name, "fq2_mul") == 0) {
        PUSH(q, 6);
    } else if (strcmp(name, "fq2_inv") == 0 || strcmp(name, "fq2_sqrt") == 0) {
        PUSH(q, 4);
    } else if (strcmp(name, "fq2_nonsquare") == 0) {
        PUSH(q, 2);
    } else if (strcmp(name, "fq12_mul") == 0) {
        PUSH(q, 36);
    } else if (strcmp(name, "fq12_inv") == 0) {
        PUSH(q, 24);
    } else if (strcmp(name, "g1_mul") == 0) {
        PUSH(r, 1);
        PUSH(q, 2);
        PUSH(2 * q, 1);
        PUSH(q, c->bls);
    } else if (strcmp(name, "g2_mul") == 0) {
        PUSH(r, 1);
        PUSH(q, 4);
        PUSH(4 * q, 1);
        PUSH(2 * q, c->bls);
    } else if (strcmp(name, "pairing") == 0) {
        PUSH(r, 2);
        PUSH(q, 12);
    } else if (strncmp(name, "g1_", 3) == 0 || strncmp(name, "g2_", 3) == 0) {
        /* invalid-encoding records: a status name, then the encoding */
        size_t g = name[1] == '1' ? q : 2 * q;
        int comp = strcmp(name + 3, "compressed") == 0;
        if (!comp && strcmp(name + 3, "uncompressed") != 0)
            return -1;
        *kind = "status";
        PUSH(0, 1);
        PUSH(comp ? g : 2 * g, 1);
    } else {
        return -1;
    }
#undef PUSH
    return n;
}

static void check_file(const curve_info *c, const char *what, size_t min_records)
{
    char path[128];
    snprintf(path, sizeof(path), "tests/vectors/%s_%s.txt", c->name, what);
    vectors_file f;
    assert_int_equal(vectors_load(&f, path), 0);
    assert_true(f.count >= min_records);
    unsigned char buf[4096];
    for (size_t i = 0; i < f.count; i++) {
        const vectors_record *rec = &f.records[i];
        size_t w[64];
        const char *kind;
        int n = expected(c, rec->name, w, &kind);
        if (n < 0 || (size_t)n != rec->count)
            fail_msg("%s:%u: unexpected record %s with %zu tokens", path, rec->line, rec->name,
                     rec->count);
        for (int t = 0; t < n; t++) {
            if (t == 0 && strcmp(kind, "status") == 0) {
                assert_true(strncmp(rec->tokens[0], "ZKPIPE_", 7) == 0);
                continue;
            }
            if (vectors_hex(rec, (size_t)t, buf, w[t]) != 0)
                fail_msg("%s:%u: token %d is not %zu bytes of hex", path, rec->line, t, w[t]);
        }
    }
    vectors_free(&f);
}

static void every_file_parses(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(curves) / sizeof(curves[0]); i++) {
        check_file(&curves[i], "ff", 80);
        check_file(&curves[i], "g1", 19);
        check_file(&curves[i], "g2", 19);
        check_file(&curves[i], "invalid", 10);
        check_file(&curves[i], "pairing", 5);
    }
}

static void missing_file_fails(void **state)
{
    (void)state;
    vectors_file f;
    assert_int_equal(vectors_load(&f, "tests/vectors/no_such_file.txt"), -1);
    vectors_free(&f);
}

static void hex_tokens_are_strict(void **state)
{
    (void)state;
    const char *toks[] = {"00ff", "0G", "abc", "ABcd"};
    vectors_record r = {"x", toks, 4, 1};
    unsigned char b[2];
    assert_int_equal(vectors_hex(&r, 0, b, 2), 0);
    assert_int_equal(b[0], 0x00);
    assert_int_equal(b[1], 0xff);
    assert_int_equal(vectors_hex(&r, 0, b, 1), -1); /* wrong length */
    assert_int_equal(vectors_hex(&r, 1, b, 1), -1); /* not hex */
    assert_int_equal(vectors_hex(&r, 2, b, 1), -1); /* odd digit count */
    assert_int_equal(vectors_hex(&r, 3, b, 2), 0);
    assert_int_equal(b[0], 0xab);
    assert_int_equal(b[1], 0xcd);
    assert_int_equal(vectors_hex(&r, 4, b, 1), -1); /* missing */
    assert_int_equal(vectors_hex_len(&r, 3), 2);
    assert_int_equal(vectors_hex_len(&r, 4), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_file_parses),
        cmocka_unit_test(missing_file_fails),
        cmocka_unit_test(hex_tokens_are_strict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
