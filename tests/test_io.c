/* The circom/snarkjs readers, the zkey prover and the JSON files (zkpipe/io.h): a tiny circuit
 * set up here on both curves, every error path of the readers on crafted buffers, allocation
 * failure walks, and, when the interop fixtures are present, byte-for-byte agreement with
 * snarkjs's proofs made with r = 11, s = 22. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ec/bls12_381_g1.h"
#include "ec/bls12_381_g2.h"
#include "ec/bn254_g1.h"
#include "ec/bn254_g2.h"
#include "fail_alloc.h"
#include "groth16/prove.h"
#include "io/io_internal.h"
#include "poly/ntt.h"
#include "zkpipe/io.h"
#include "zkpipe/zkpipe.h"

/* A growable byte buffer for writing iden3 files. */
typedef struct bytebuf {
    uint8_t *data;
    size_t len, cap;
} bytebuf;

static void bb_put(bytebuf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->data = realloc(b->data, b->cap);
        assert_non_null(b->data);
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void bb_u32(bytebuf *b, uint32_t v)
{
    uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    bb_put(b, le, 4);
}

static void bb_u64(bytebuf *b, uint64_t v)
{
    bb_u32(b, (uint32_t)v);
    bb_u32(b, (uint32_t)(v >> 32));
}

static void put_u32_at(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void bb_patch_u32(bytebuf *b, size_t at, uint32_t v)
{
    put_u32_at(b->data + at, v);
}

static void bb_header(bytebuf *b, const char *magic, uint32_t version, uint32_t sections)
{
    bb_put(b, magic, 4);
    bb_u32(b, version);
    bb_u32(b, sections);
}

/* Starts section `id`; returns where its size goes. */
static size_t bb_section(bytebuf *b, uint32_t id)
{
    bb_u32(b, id);
    size_t at = b->len;
    bb_u64(b, 0);
    return at;
}

static void bb_end(bytebuf *b, size_t at)
{
    uint64_t size = b->len - at - 8;
    put_u32_at(b->data + at, (uint32_t)size);
    put_u32_at(b->data + at + 4, (uint32_t)(size >> 32));
}

typedef struct tiny_files {
    bytebuf zkey, wtns, r1cs;
} tiny_files;

/* The circuit: wires 1 (output out), 2 (public input x), 3 (private y), 4 = x y, 5 = 2 y + 1;
 * constraints x·y = w4, w4·w4 = out, (2y + 1)·1 = w5; then snarkjs's extra A rows (row 3 + j
 * for wire j <= nPublic). m: 0 A, 1 B, 2 C. */
typedef struct tiny_term {
    uint32_t m, row, wire;
    uint64_t coef;
} tiny_term;

#define TINY_VARS 6
#define TINY_PUBLIC 2
#define TINY_CONSTRAINTS 3
#define TINY_LOG_N 3
#define TINY_N 8

static const tiny_term tiny_rows[] = {
    {0, 0, 2, 1}, {1, 0, 3, 1}, {2, 0, 4, 1}, {0, 1, 4, 1}, {1, 1, 4, 1},
    {2, 1, 1, 1}, {0, 2, 3, 2}, {0, 2, 0, 1}, {1, 2, 0, 1}, {2, 2, 5, 1},
    {0, 3, 0, 1}, {0, 4, 1, 1}, {0, 5, 2, 1},
};
static const uint64_t tiny_witness[TINY_VARS] = {1, 225, 3, 5, 15, 11};

#define G16_C bls12_381
#define FQ bls12_381_fq
#include "curve_names.h"
#include "io_tiny_impl.h"
#undef G16_C
#undef FQ
#define G16_C bn254
#define FQ bn254_fq
#include "io_tiny_impl.h"
#undef G16_C
#undef FQ

/* The r1cs checked against a witness as zkpipe-prove --r1cs does: loaded as a system, then
 * zkpipe_cs_check, the failing constraint named in the detail line. */
static zkpipe_status r1cs_check(size_t *first_failing, char *d, size_t cap, const zkpipe_r1cs *r1cs,
                                const zkpipe_wtns *wtns)
{
    if (r1cs == NULL || wtns == NULL)
        return zkpipe__fail(d, cap, ZKPIPE_EINVAL, "invalid argument");
    zkpipe_cs *cs;
    zkpipe_status st = zkpipe_r1cs_load(&cs, d, cap, r1cs, wtns, NULL);
    if (st != ZKPIPE_OK)
        return st;
    size_t bad = 0;
    st = zkpipe_cs_check(cs, &bad);
    if (st == ZKPIPE_EUNSATISFIED) {
        if (first_failing != NULL)
            *first_failing = bad;
        snprintf(d, cap, "constraint %zu is not satisfied by the witness", bad);
    }
    zkpipe_cs_destroy(cs);
    return st;
}

/* The zkey's prepared verifying key (the caller destroys it). */
static zkpipe_groth16_pvk *zkey_pvk(const zkpipe_zkey *zkey)
{
    zkpipe_groth16_vk *vk;
    zkpipe_groth16_pvk *pvk = NULL;
    if (zkpipe_zkey_vk(&vk, zkey, NULL) == ZKPIPE_OK) {
        zkpipe_groth16_pvk_create(&pvk, vk, NULL);
        zkpipe_groth16_vk_destroy(vk);
    }
    return pvk;
}

/* A zkey proof as zkpipe-prove makes it: the witness's curve checked, then
 * zkpipe_groth16_prove_witness with the zkey's own keys. */
static zkpipe_status zkey_prove(zkpipe_groth16_proof *out, zkpipe_groth16_timings *t, char *d,
                                size_t cap, const zkpipe_zkey *zkey, const zkpipe_wtns *wtns,
                                zkpipe_pool *pool, zkpipe_backend backend, zkpipe_ledger *ledger)
{
    if (zkey == NULL || wtns == NULL)
        return zkpipe__fail(d, cap, ZKPIPE_EINVAL, "invalid argument");
    zkpipe_zkey_info info;
    zkpipe_zkey_info_get(&info, zkey);
    if (zkpipe_wtns_curve(wtns) != info.curve)
        return zkpipe__fail(d, cap, ZKPIPE_EMISMATCH, "the witness is for %s, the zkey for %s",
                            zkpipe__curve_ops_for(zkpipe_wtns_curve(wtns))->snarkjs_name,
                            zkpipe__curve_ops_for(info.curve)->snarkjs_name);
    zkpipe_groth16_pvk *pvk = zkey_pvk(zkey);
    zkpipe_status st =
        zkpipe_groth16_prove_witness(out, t, d, cap, zkpipe_zkey_pk(zkey), zkpipe_wtns_values(wtns),
                                     zkpipe_wtns_count(wtns), pvk, pool, backend, ledger);
    zkpipe_groth16_pvk_destroy(pvk);
    return st;
}

/* zkey_prove with given r and s (canonical). */
static zkpipe_status zkey_prove_rs(zkpipe_groth16_proof *out, zkpipe_groth16_timings *t, char *d,
                                   size_t cap, const zkpipe_zkey *zkey, const zkpipe_wtns *wtns,
                                   const zkpipe_scalar *r, const zkpipe_scalar *s,
                                   zkpipe_pool *pool, zkpipe_backend backend, zkpipe_ledger *ledger)
{
    const zkpipe__g16_backend *be;
    const char *why = "";
    (void)t;
    zkpipe_status st = zkpipe__g16_backend_resolve(&be, backend, &why);
    if (st != ZKPIPE_OK)
        return zkpipe__fail(d, cap, st, "backend %s: %s",
                            zkpipe_backend_name(backend) ? zkpipe_backend_name(backend) : "?",
                            why != NULL ? why : "");
    zkpipe_groth16_pvk *pvk = zkey_pvk(zkey);
    st = zkpipe__g16_prove_witness_rs(out, d, cap, zkpipe_zkey_pk(zkey), zkpipe_wtns_values(wtns),
                                      zkpipe_wtns_count(wtns), pvk, r, s, pool, be, ledger);
    zkpipe_groth16_pvk_destroy(pvk);
    return st;
}

/* The one verifier with a key fresh from JSON or a zkey. */
static zkpipe_status vk_verify(const zkpipe_groth16_vk *vk, const zkpipe_scalar *in, size_t n,
                               const zkpipe_groth16_proof *proof)
{
    zkpipe_groth16_pvk *pvk;
    if (vk == NULL)
        return ZKPIPE_EINVAL;
    zkpipe_status st = zkpipe_groth16_pvk_create(&pvk, vk, NULL);
    if (st == ZKPIPE_OK)
        st = zkpipe_groth16_verify(pvk, in, n, proof);
    zkpipe_groth16_pvk_destroy(pvk);
    return st;
}

static const zkpipe_curve curves[2] = {ZKPIPE_CURVE_BLS12_381, ZKPIPE_CURVE_BN254};

static void tiny_build(tiny_files *f, zkpipe_curve c)
{
    memset(f, 0, sizeof *f);
    if (c == ZKPIPE_CURVE_BLS12_381)
        build_bls12_381(f);
    else
        build_bn254(f);
}

static void tiny_free(tiny_files *f)
{
    free(f->zkey.data);
    free(f->wtns.data);
    free(f->r1cs.data);
}

/* Offset of section `id`'s payload in an iden3 file (the test's files are well formed). */
static size_t section_at(const bytebuf *b, uint32_t id)
{
    size_t pos = 12;
    while (pos + 12 <= b->len) {
        uint32_t sid = zkpipe__get_le32(b->data + pos);
        uint64_t size = zkpipe__get_le64(b->data + pos + 4);
        if (sid == id)
            return pos + 12;
        pos += 12 + size;
    }
    fail_msg("section %u not found", (unsigned)id);
    return 0;
}

static zkpipe_scalar scalar(uint64_t v)
{
    zkpipe_scalar s = {{v, 0, 0, 0}};
    return s;
}

/* Opens all three from memory (asserting success). */
typedef struct opened {
    zkpipe_zkey *zkey;
    zkpipe_wtns *wtns;
    zkpipe_r1cs *r1cs;
} opened;

static void open_all(opened *o, const tiny_files *f, const zkpipe_io_options *opts)
{
    char d[ZKPIPE_IO_DETAIL_MAX] = "";
    assert_int_equal(zkpipe_zkey_open_mem(&o->zkey, d, sizeof d, f->zkey.data, f->zkey.len, opts),
                     ZKPIPE_OK);
    assert_int_equal(zkpipe_wtns_open_mem(&o->wtns, d, sizeof d, f->wtns.data, f->wtns.len, opts),
                     ZKPIPE_OK);
    assert_int_equal(zkpipe_r1cs_open_mem(&o->r1cs, d, sizeof d, f->r1cs.data, f->r1cs.len, opts),
                     ZKPIPE_OK);
}

static void close_all(opened *o)
{
    zkpipe_zkey_destroy(o->zkey);
    zkpipe_wtns_destroy(o->wtns);
    zkpipe_r1cs_destroy(o->r1cs);
}

static void tiny_proves_and_verifies(void **state)
{
    (void)state;
    zkpipe_pool *pool;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_pool_create(&pool, 2, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    for (int ci = 0; ci < 2; ci++) {
        tiny_files f;
        opened o;
        char d[ZKPIPE_IO_DETAIL_MAX] = "";
        tiny_build(&f, curves[ci]);
        zkpipe_io_options opts;
        zkpipe_io_options_init(&opts);
        opts.pool = pool;
        opts.acct = acct;
        open_all(&o, &f, &opts);
        zkpipe_zkey_info zi;
        zkpipe_r1cs_info ri;
        assert_int_equal(zkpipe_zkey_info_get(&zi, o.zkey), ZKPIPE_OK);
        assert_int_equal(zi.curve, curves[ci]);
        assert_int_equal(zi.num_vars, TINY_VARS);
        assert_int_equal(zi.num_public, TINY_PUBLIC);
        assert_int_equal(zi.domain_size, TINY_N);
        assert_int_equal(zi.num_coeffs, 10);
        assert_int_equal(zkpipe_r1cs_info_get(&ri, o.r1cs), ZKPIPE_OK);
        assert_int_equal(ri.num_wires, TINY_VARS);
        assert_int_equal(ri.num_constraints, TINY_CONSTRAINTS);
        assert_int_equal(ri.curve, curves[ci]);
        assert_int_equal(zkpipe_wtns_count(o.wtns), TINY_VARS);
        assert_int_equal(zkpipe_wtns_curve(o.wtns), curves[ci]);
        assert_int_equal(r1cs_check(NULL, d, sizeof d, o.r1cs, o.wtns), ZKPIPE_OK);

        zkpipe_ledger ledger;
        zkpipe_groth16_proof proof, again, other;
        zkpipe_groth16_timings t;
        assert_int_equal(zkpipe_ledger_open(&ledger, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
        assert_int_equal(
            zkey_prove(&proof, &t, d, sizeof d, o.zkey, o.wtns, pool, ZKPIPE_BACKEND_CPU, &ledger),
            ZKPIPE_OK);
        assert_int_equal(zkpipe_ledger_stage(&ledger), ZKPIPE_STAGE_FINALIZE);
        zkpipe_ledger_close(&ledger);
        zkpipe_snapshot snap;
        assert_int_equal(zkpipe_acct_snapshot(acct, &snap), ZKPIPE_OK);
        assert_int_equal(snap.stage[ZKPIPE_STAGE_PROVING].kind[ZKPIPE_KIND_ABC].peak_bytes,
                         3 * TINY_N * 32);
        assert_int_equal(snap.stage[ZKPIPE_STAGE_PROVING].kind[ZKPIPE_KIND_H].live_bytes, 0);
        /* the NTT domain and the MSM scratch, charged while they existed */
        assert_true(snap.stage[ZKPIPE_STAGE_PROVING].kind[ZKPIPE_KIND_WORKSPACE].peak_bytes > 0);
        assert_int_equal(snap.stage[ZKPIPE_STAGE_PROVING].kind[ZKPIPE_KIND_WORKSPACE].live_bytes,
                         0);
        assert_true(t.total > 0);

        zkpipe_groth16_vk *vk;
        zkpipe_scalar in[TINY_PUBLIC];
        assert_int_equal(zkpipe_zkey_vk(&vk, o.zkey, NULL), ZKPIPE_OK);
        assert_int_equal((zkpipe_groth16_vk_num_inputs(vk) - 1), TINY_PUBLIC);
        assert_int_equal(zkpipe_groth16_vk_curve(vk), curves[ci]);
        for (size_t i = 0; i < TINY_PUBLIC; i++)
            assert_int_equal(zkpipe_wtns_get(&in[i], o.wtns, i + 1), ZKPIPE_OK);
        assert_int_equal(in[0].l[0], 225);
        assert_int_equal(vk_verify(vk, in, TINY_PUBLIC, &proof), ZKPIPE_OK);
        in[1] = scalar(4);
        assert_int_equal(vk_verify(vk, in, TINY_PUBLIC, &proof), ZKPIPE_EVERIFY);
        assert_int_equal(vk_verify(vk, in, 1, &proof), ZKPIPE_EINVAL); /* the one verifier's */
        assert_int_equal(vk_verify(NULL, in, 2, &proof), ZKPIPE_EINVAL);
        assert_int_equal(vk_verify(vk, NULL, 2, &proof), ZKPIPE_EINVAL);
        in[1] = scalar(3);

        /* Given r and s the proof is a function of them. */
        zkpipe_scalar r = scalar(11), s = scalar(22), s2 = scalar(23);
        assert_int_equal(zkey_prove_rs(&proof, NULL, d, sizeof d, o.zkey, o.wtns, &r, &s, NULL,
                                       ZKPIPE_BACKEND_CPU, NULL),
                         ZKPIPE_OK);
        assert_int_equal(zkey_prove_rs(&again, NULL, d, sizeof d, o.zkey, o.wtns, &r, &s, pool,
                                       ZKPIPE_BACKEND_CPU, NULL),
                         ZKPIPE_OK);
        assert_int_equal(zkey_prove_rs(&other, NULL, d, sizeof d, o.zkey, o.wtns, &r, &s2, pool,
                                       ZKPIPE_BACKEND_CPU, NULL),
                         ZKPIPE_OK);
        assert_memory_equal(proof.bytes, again.bytes, proof.size);
        assert_memory_not_equal(proof.bytes, other.bytes, proof.size);
        assert_int_equal(vk_verify(vk, in, TINY_PUBLIC, &other), ZKPIPE_OK);

        /* proof.json and public.json round trips. */
        char json[4096];
        size_t len;
        zkpipe_groth16_proof back;
        assert_int_equal(zkpipe_snarkjs_proof_write(NULL, 0, &len, &proof), ZKPIPE_OK);
        assert_true(len < sizeof json);
        assert_int_equal(zkpipe_snarkjs_proof_write(json, 10, &len, &proof), ZKPIPE_OK);
        assert_int_equal(strlen(json), 9);
        assert_int_equal(zkpipe_snarkjs_proof_write(json, sizeof json, &len, &proof), ZKPIPE_OK);
        assert_int_equal(strlen(json), len);
        assert_non_null(strstr(json, ci == 0 ? "\"bls12381\"" : "\"bn128\""));
        assert_int_equal(
            zkpipe_snarkjs_proof_parse(&back, d, sizeof d, ZKPIPE_CURVE_COUNT, json, len),
            ZKPIPE_OK);
        assert_int_equal(back.curve, proof.curve);
        assert_memory_equal(back.bytes, proof.bytes, proof.size);
        zkpipe_scalar pub[4];
        size_t n;
        assert_int_equal(zkpipe_snarkjs_public_write(json, sizeof json, &len, in, TINY_PUBLIC),
                         ZKPIPE_OK);
        assert_string_equal(json, "[\n \"225\",\n \"3\"\n]\n");
        assert_int_equal(
            zkpipe_snarkjs_public_parse(pub, 4, &n, d, sizeof d, curves[ci], json, len), ZKPIPE_OK);
        assert_int_equal(n, 2);
        assert_memory_equal(pub, in, sizeof in);
        assert_int_equal(
            zkpipe_snarkjs_public_parse(pub, 1, &n, d, sizeof d, curves[ci], json, len),
            ZKPIPE_ELIMIT);
        assert_int_equal(n, 2);
        zkpipe_groth16_vk_destroy(vk);
        close_all(&o);
        tiny_free(&f);
    }
    zkpipe_snapshot snap;
    assert_int_equal(zkpipe_acct_snapshot(acct, &snap), ZKPIPE_OK);
    assert_int_equal(snap.live_bytes, 0);
    assert_int_equal(snap.live_items, 0);
    zkpipe_acct_destroy(acct);
    zkpipe_pool_destroy(pool);
}

/* The backends compute the same proof for the same r and s: CUDA where a device is usable,
 * otherwise a clear ZKPIPE_ENODEVICE and nothing written; AUTO is one of the two. */
static void backends_agree_or_cuda_is_refused(void **state)
{
    (void)state;
    for (int ci = 0; ci < 2; ci++) {
        tiny_files f;
        opened o;
        char d[ZKPIPE_IO_DETAIL_MAX] = "";
        tiny_build(&f, curves[ci]);
        open_all(&o, &f, NULL);
        zkpipe_scalar r = scalar(11), s = scalar(22);
        zkpipe_groth16_proof cpu, cuda, any;
        zkpipe_backend resolved;
        memset(&cuda, 0x5a, sizeof cuda);
        assert_int_equal(zkey_prove_rs(&cpu, NULL, d, sizeof d, o.zkey, o.wtns, &r, &s, NULL,
                                       ZKPIPE_BACKEND_CPU, NULL),
                         ZKPIPE_OK);
        zkpipe_status on_cuda = zkey_prove_rs(&cuda, NULL, d, sizeof d, o.zkey, o.wtns, &r, &s,
                                              NULL, ZKPIPE_BACKEND_CUDA, NULL);
        if (zkpipe_backend_resolve(&resolved, ZKPIPE_BACKEND_CUDA, NULL) == ZKPIPE_OK) {
            assert_int_equal(on_cuda, ZKPIPE_OK);
            assert_int_equal(cuda.size, cpu.size);
            assert_memory_equal(cuda.bytes, cpu.bytes, cpu.size);
        } else {
            assert_int_equal(on_cuda, ZKPIPE_ENODEVICE);
            assert_non_null(strstr(d, "backend cuda"));
            assert_int_equal(cuda.bytes[0], 0x5a);
        }
        assert_int_equal(zkey_prove_rs(&any, NULL, d, sizeof d, o.zkey, o.wtns, &r, &s, NULL,
                                       ZKPIPE_BACKEND_AUTO, NULL),
                         ZKPIPE_OK);
        assert_memory_equal(any.bytes, cpu.bytes, cpu.size);
        assert_int_equal(zkey_prove_rs(&any, NULL, d, sizeof d, o.zkey, o.wtns, &r, &s, NULL,
                                       (zkpipe_backend)7, NULL),
                         ZKPIPE_EINVAL);
        close_all(&o);
        tiny_free(&f);
    }
}

/* A witness breaking only a C side (w5) cannot be seen from zkey + wtns: the proof fails
 * the key and nothing comes out; the r1cs names the constraint. */
static void unsatisfied_witness_gives_no_proof(void **state)
{
    (void)state;
    for (int ci = 0; ci < 2; ci++) {
        for (size_t wire = 4; wire <= 5; wire++) {
            tiny_files f;
            opened o;
            char d[ZKPIPE_IO_DETAIL_MAX] = "";
            tiny_build(&f, curves[ci]);
            f.wtns.data[section_at(&f.wtns, 2) + 32 * wire] ^= 1;
            open_all(&o, &f, NULL);
            zkpipe_groth16_proof proof;
            memset(&proof, 0x5a, sizeof proof);
            assert_int_equal(zkey_prove(&proof, NULL, d, sizeof d, o.zkey, o.wtns, NULL,
                                        ZKPIPE_BACKEND_AUTO, NULL),
                             ZKPIPE_EUNSATISFIED);
            assert_non_null(strstr(d, "does not satisfy"));
            assert_int_equal(proof.bytes[0], 0x5a);
            size_t bad = 99;
            assert_int_equal(r1cs_check(&bad, d, sizeof d, o.r1cs, o.wtns), ZKPIPE_EUNSATISFIED);
            assert_int_equal(bad, wire == 4 ? 0 : 2);
            assert_non_null(strstr(d, wire == 4 ? "constraint 0" : "constraint 2"));
            close_all(&o);
            tiny_free(&f);
        }
    }
}

/* Opens `len` bytes of `data` as format k (0 zkey, 1 wtns, 2 r1cs); returns the status and
 * destroys what opened. */
static zkpipe_status open_kind(int k, const void *data, size_t len, char *d)
{
    zkpipe_status st;
    if (k == 0) {
        zkpipe_zkey *z = NULL;
        st = zkpipe_zkey_open_mem(&z, d, ZKPIPE_IO_DETAIL_MAX, data, len, NULL);
        zkpipe_zkey_destroy(z);
    } else if (k == 1) {
        zkpipe_wtns *w = NULL;
        st = zkpipe_wtns_open_mem(&w, d, ZKPIPE_IO_DETAIL_MAX, data, len, NULL);
        zkpipe_wtns_destroy(w);
    } else {
        zkpipe_r1cs *r = NULL;
        st = zkpipe_r1cs_open_mem(&r, d, ZKPIPE_IO_DETAIL_MAX, data, len, NULL);
        zkpipe_r1cs_destroy(r);
    }
    return st;
}

static bytebuf *file_of(tiny_files *f, int k)
{
    return k == 0 ? &f->zkey : k == 1 ? &f->wtns : &f->r1cs;
}

static void truncation_at_every_offset_is_refused(void **state)
{
    (void)state;
    for (int ci = 0; ci < 2; ci++) {
        tiny_files f;
        tiny_build(&f, curves[ci]);
        for (int k = 0; k < 3; k++) {
            bytebuf *b = file_of(&f, k);
            char d[ZKPIPE_IO_DETAIL_MAX];
            for (size_t len = 0; len < b->len; len++) {
                uint8_t *copy = malloc(len + 1);
                assert_non_null(copy);
                memcpy(copy, b->data, len);
                d[0] = '\0';
                assert_int_equal(open_kind(k, copy, len, d), ZKPIPE_EFORMAT);
                assert_true(d[0] != '\0');
                free(copy);
            }
            /* One byte more is refused too. */
            uint8_t *longer = malloc(b->len + 1);
            assert_non_null(longer);
            memcpy(longer, b->data, b->len);
            longer[b->len] = 0;
            assert_int_equal(open_kind(k, longer, b->len + 1, d), ZKPIPE_EFORMAT);
            assert_non_null(strstr(d, "after the last section"));
            free(longer);
        }
        tiny_free(&f);
    }
}

/* Applies `edit` to a copy of file k, opens it and checks the status and detail. */
static void expect_edit(tiny_files *f, int k, size_t at, const void *bytes, size_t n,
                        zkpipe_status want, const char *detail_has)
{
    bytebuf *b = file_of(f, k);
    uint8_t *copy = malloc(b->len);
    char d[ZKPIPE_IO_DETAIL_MAX] = "";
    assert_non_null(copy);
    memcpy(copy, b->data, b->len);
    memcpy(copy + at, bytes, n);
    zkpipe_status st = open_kind(k, copy, b->len, d);
    if (st != want || strstr(d, detail_has) == NULL)
        fail_msg("file %d, edit at %zu: %s \"%s\", expected %s \"%s\"", k, at,
                 zkpipe_status_name(st), d, zkpipe_status_name(want), detail_has);
    free(copy);
}

static void u32_bytes(uint8_t *out, uint32_t v)
{
    put_u32_at(out, v);
}

static void container_errors_are_named(void **state)
{
    (void)state;
    tiny_files f;
    uint8_t v[4];
    tiny_build(&f, ZKPIPE_CURVE_BN254);
    static const char *magic[3] = {"zkex", "wtnX", "r1cx"};
    for (int k = 0; k < 3; k++) {
        expect_edit(&f, k, 0, magic[k], 4, ZKPIPE_EFORMAT, "wrong magic");
        u32_bytes(v, 7);
        expect_edit(&f, k, 4, v, 4, ZKPIPE_EFORMAT, "unsupported version 7");
        u32_bytes(v, 40);
        expect_edit(&f, k, 8, v, 4, ZKPIPE_EFORMAT, "truncated");
        u32_bytes(v, 1);
        expect_edit(&f, k, 8, v, 4, ZKPIPE_EFORMAT, "after the last section");
    }
    /* Section 3 of the zkey renamed 2: a duplicate. */
    u32_bytes(v, 2);
    expect_edit(&f, 0, section_at(&f.zkey, 3) - 12, v, 4, ZKPIPE_EFORMAT, "appears twice");
    /* ... renamed 40 (skipped): then section 3 is missing. */
    u32_bytes(v, 40);
    expect_edit(&f, 0, section_at(&f.zkey, 3) - 12, v, 4, ZKPIPE_EFORMAT, "section 3 is missing");
    /* A section size past the end. */
    u32_bytes(v, 0xffffff);
    expect_edit(&f, 1, section_at(&f.wtns, 2) - 8, v, 4, ZKPIPE_EFORMAT, "truncated");
    tiny_free(&f);
}

static void zkey_contents_are_checked(void **state)
{
    (void)state;
    for (int ci = 0; ci < 2; ci++) {
        tiny_files f;
        uint8_t v[4], big[48];
        tiny_build(&f, curves[ci]);
        const zkpipe__curve_ops *c = zkpipe__curve_ops_for(curves[ci]);
        size_t g1 = 2 * (8 * c->fq_limbs), hdr = section_at(&f.zkey, 2);
        size_t counts = hdr + 4 + (8 * c->fq_limbs) + 36;
        u32_bytes(v, 2);
        expect_edit(&f, 0, section_at(&f.zkey, 1), v, 4, ZKPIPE_EUNSUPPORTED, "protocol 2");
        expect_edit(&f, 0, hdr + 4, "\x01", 1, ZKPIPE_EFORMAT, "neither");
        expect_edit(&f, 0, hdr + 8 + (8 * c->fq_limbs), "\x02", 1, ZKPIPE_EFORMAT, "r is not");
        u32_bytes(v, TINY_VARS);
        expect_edit(&f, 0, counts + 4, v, 4, ZKPIPE_EFORMAT, "public signals");
        u32_bytes(v, 6);
        expect_edit(&f, 0, counts + 8, v, 4, ZKPIPE_EFORMAT, "not a power of two");
        /* 2^31 rows: too many for BN254's odd coset (two-adicity 28), not for BLS12-381's. */
        u32_bytes(v, 1u << 31);
        if (ci == 1)
            expect_edit(&f, 0, counts + 8, v, 4, ZKPIPE_EUNSUPPORTED, "too large");
        else
            expect_edit(&f, 0, counts + 8, v, 4, ZKPIPE_EFORMAT, "section 9 has");
        /* The verifying key's points in the header. */
        expect_edit(&f, 0, counts + 12 + g1 - 1, "\x00", 1, ZKPIPE_ENOTONCURVE, "alpha1");
        /* Coefficients: matrix, row, wire, value. */
        size_t e = section_at(&f.zkey, 4) + 4;
        u32_bytes(v, 2);
        expect_edit(&f, 0, e, v, 4, ZKPIPE_EFORMAT, "matrix 2");
        u32_bytes(v, TINY_N);
        expect_edit(&f, 0, e + 4, v, 4, ZKPIPE_EFORMAT, "row 8");
        u32_bytes(v, TINY_VARS);
        expect_edit(&f, 0, e + 8, v, 4, ZKPIPE_EFORMAT, "wire 6");
        memcpy(big, c->r, 32);
        expect_edit(&f, 0, e + 12, big, 32, ZKPIPE_ENONCANONICAL, "entry 0");
        u32_bytes(v, 99);
        expect_edit(&f, 0, e - 4, v, 4, ZKPIPE_EFORMAT, "section 4");
        /* Points: off the curve, not canonical, outside the subgroup. */
        size_t p5 = section_at(&f.zkey, 5) + g1; /* point 1 */
        expect_edit(&f, 0, p5 + g1 - 8, "\x01", 1, ZKPIPE_ENOTONCURVE,
                    "section 5: point 1 is not on the curve");
        memcpy(big, c->q, (8 * c->fq_limbs));
        expect_edit(&f, 0, p5, big, (8 * c->fq_limbs), ZKPIPE_ENONCANONICAL, "section 5: point 1");
        expect_edit(&f, 0, section_at(&f.zkey, 7) + 3 * 4 * (8 * c->fq_limbs) + 5, "\x07", 1,
                    ZKPIPE_ENOTONCURVE, "section 7: point 3");
        expect_edit(&f, 0, section_at(&f.zkey, 9) + 7 * g1 + 9, "\x07", 1, ZKPIPE_ENOTONCURVE,
                    "section 9: point 7");
        /* Outside the subgroup: the G1 sections are checked as one batch, B2 as another, and
         * the first bad point in file order is named (an earlier section's G2 point before a
         * later G1 one). */
        uint8_t outside[96], outside2[192];
        size_t g2 = 4 * 8 * c->fq_limbs, p7 = section_at(&f.zkey, 7) + 4 * g2;
        if (ci == 0)
            g2_outside_subgroup_bls12_381(outside2);
        else
            g2_outside_subgroup_bn254(outside2);
        expect_edit(&f, 0, p7, outside2, g2, ZKPIPE_ENOTINSUBGROUP, "section 7: point 4");
        if (ci == 0) {
            assert_true(g1_outside_subgroup_bls12_381(outside));
            expect_edit(&f, 0, section_at(&f.zkey, 6) + 2 * g1, outside, g1, ZKPIPE_ENOTINSUBGROUP,
                        "section 6: point 2");
            expect_edit(&f, 0, section_at(&f.zkey, 9) + 5 * g1, outside, g1, ZKPIPE_ENOTINSUBGROUP,
                        "section 9: point 5");
            uint8_t *copy = malloc(f.zkey.len);
            assert_non_null(copy);
            memcpy(copy, f.zkey.data, f.zkey.len);
            memcpy(copy + section_at(&f.zkey, 9) + 5 * g1, outside, g1);
            bytebuf saved = f.zkey;
            f.zkey.data = copy;
            expect_edit(&f, 0, p7, outside2, g2, ZKPIPE_ENOTINSUBGROUP, "section 7: point 4");
            f.zkey = saved;
            free(copy);
        } else {
            assert_false(g1_outside_subgroup_bn254(outside));
        }
        tiny_free(&f);
    }
}

static void wtns_and_r1cs_contents_are_checked(void **state)
{
    (void)state;
    tiny_files f;
    uint8_t v[4], big[32];
    tiny_build(&f, ZKPIPE_CURVE_BLS12_381);
    const zkpipe__curve_ops *c = zkpipe__curve_ops_for(ZKPIPE_CURVE_BLS12_381);
    size_t wh = section_at(&f.wtns, 1), wv = section_at(&f.wtns, 2);
    u32_bytes(v, 48);
    expect_edit(&f, 1, wh, v, 4, ZKPIPE_EFORMAT, "n8 = 32");
    expect_edit(&f, 1, wh + 4, "\x02", 1, ZKPIPE_EFORMAT, "neither");
    u32_bytes(v, 0);
    expect_edit(&f, 1, wh + 36, v, 4, ZKPIPE_EFORMAT, "no witness");
    expect_edit(&f, 1, wv, "\x02", 1, ZKPIPE_EFORMAT, "value 0");
    memcpy(big, c->r, 32);
    expect_edit(&f, 1, wv + 3 * 32, big, 32, ZKPIPE_ENONCANONICAL, "value 3");

    size_t rh = section_at(&f.r1cs, 1), rc = section_at(&f.r1cs, 2);
    u32_bytes(v, TINY_VARS - 3);
    expect_edit(&f, 2, rh + 36, v, 4, ZKPIPE_EFORMAT, "cannot hold");
    expect_edit(&f, 2, rh + 4, "\x03", 1, ZKPIPE_EFORMAT, "neither");
    /* The first term of constraint 0's A: wire, then value. */
    u32_bytes(v, TINY_VARS);
    expect_edit(&f, 2, rc + 4, v, 4, ZKPIPE_EFORMAT, "constraint 0: A uses wire 6");
    expect_edit(&f, 2, rc + 8, big, 32, ZKPIPE_ENONCANONICAL, "constraint 0");
    u32_bytes(v, 1000);
    expect_edit(&f, 2, rc, v, 4, ZKPIPE_EFORMAT, "truncated");
    u32_bytes(v, 2);
    expect_edit(&f, 2, rh + 60, v, 4, ZKPIPE_EFORMAT, "after the last constraint");
    u32_bytes(v, 3);
    expect_edit(&f, 2, section_at(&f.r1cs, 3) - 8, v, 4, ZKPIPE_EFORMAT, "after the last section");
    /* nLabels (header offset 52): at least one label per wire, at most 2^53, and above every
     * label the wire-to-label map holds. */
    static const uint8_t all_ones[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    uint8_t l8[8] = {0};
    expect_edit(&f, 2, rh + 52, all_ones, 8, ZKPIPE_EFORMAT, "labels");
    l8[0] = 1, l8[6] = 0x20; /* 2^53 + 1 */
    expect_edit(&f, 2, rh + 52, l8, 8, ZKPIPE_EFORMAT, "labels");
    memset(l8, 0, 8);
    l8[6] = 0x20;
    expect_edit(&f, 2, rh + 52, l8, 8, ZKPIPE_OK, "");
    l8[6] = 0;
    l8[0] = TINY_VARS - 1;
    expect_edit(&f, 2, rh + 52, l8, 8, ZKPIPE_EFORMAT, "labels");
    l8[0] = 0xe8, l8[1] = 0x03; /* 1000: labels of removed signals need no bytes */
    expect_edit(&f, 2, rh + 52, l8, 8, ZKPIPE_OK, "");
    memset(l8, 0, 8);
    l8[0] = TINY_VARS; /* wire 5's label: nLabels itself */
    expect_edit(&f, 2, section_at(&f.r1cs, 3) + 8 * (TINY_VARS - 1), l8, 8, ZKPIPE_EFORMAT,
                "wire 5");
    tiny_free(&f);
}

static void mismatched_inputs_are_refused(void **state)
{
    (void)state;
    tiny_files a, b;
    opened oa, ob;
    char d[ZKPIPE_IO_DETAIL_MAX];
    zkpipe_groth16_proof proof;
    tiny_build(&a, ZKPIPE_CURVE_BLS12_381);
    tiny_build(&b, ZKPIPE_CURVE_BN254);
    open_all(&oa, &a, NULL);
    open_all(&ob, &b, NULL);
    assert_int_equal(
        zkey_prove(&proof, NULL, d, sizeof d, oa.zkey, ob.wtns, NULL, ZKPIPE_BACKEND_CPU, NULL),
        ZKPIPE_EMISMATCH);
    assert_non_null(strstr(d, "bn128"));
    assert_int_equal(r1cs_check(NULL, d, sizeof d, oa.r1cs, ob.wtns), ZKPIPE_EMISMATCH);
    /* A witness of another size. */
    bytebuf w = {0};
    bb_header(&w, "wtns", 2, 2);
    size_t s = bb_section(&w, 1);
    bb_u32(&w, 32);
    bb_put(&w, zkpipe__curve_ops_for(ZKPIPE_CURVE_BN254)->r, 32);
    bb_u32(&w, 2);
    bb_end(&w, s);
    s = bb_section(&w, 2);
    uint64_t one[4] = {1, 0, 0, 0};
    bb_put(&w, one, 32);
    bb_put(&w, one, 32);
    bb_end(&w, s);
    zkpipe_wtns *small;
    assert_int_equal(zkpipe_wtns_open_mem(&small, d, sizeof d, w.data, w.len, NULL), ZKPIPE_OK);
    assert_int_equal(
        zkey_prove(&proof, NULL, d, sizeof d, ob.zkey, small, NULL, ZKPIPE_BACKEND_CPU, NULL),
        ZKPIPE_EMISMATCH);
    assert_non_null(strstr(d, "2 values"));
    assert_int_equal(r1cs_check(NULL, d, sizeof d, ob.r1cs, small), ZKPIPE_EMISMATCH);
    zkpipe_scalar x;
    assert_int_equal(zkpipe_wtns_get(&x, small, 1), ZKPIPE_OK);
    assert_int_equal(zkpipe_wtns_get(&x, small, 2), ZKPIPE_EINVAL);
    zkpipe_wtns_destroy(small);
    free(w.data);
    /* A closed ledger and NULL arguments. */
    zkpipe_ledger closed;
    memset(&closed, 0, sizeof closed);
    assert_int_equal(
        zkey_prove(&proof, NULL, d, sizeof d, ob.zkey, ob.wtns, NULL, ZKPIPE_BACKEND_CPU, &closed),
        ZKPIPE_EINVAL);
    assert_int_equal(
        zkey_prove(NULL, NULL, d, sizeof d, ob.zkey, ob.wtns, NULL, ZKPIPE_BACKEND_CPU, NULL),
        ZKPIPE_EINVAL);
    assert_int_equal(
        zkey_prove(&proof, NULL, NULL, 0, NULL, ob.wtns, NULL, ZKPIPE_BACKEND_CPU, NULL),
        ZKPIPE_EINVAL);
    assert_int_equal(r1cs_check(NULL, NULL, 0, NULL, ob.wtns), ZKPIPE_EINVAL);
    close_all(&oa);
    close_all(&ob);
    tiny_free(&a);
    tiny_free(&b);
}

static void null_arguments_and_accessors(void **state)
{
    (void)state;
    char d[ZKPIPE_IO_DETAIL_MAX];
    zkpipe_zkey *z;
    zkpipe_wtns *w;
    zkpipe_r1cs *r;
    assert_int_equal(zkpipe_zkey_open(&z, d, sizeof d, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_wtns_open(&w, d, sizeof d, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_r1cs_open(&r, NULL, 0, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_zkey_open_mem(NULL, d, sizeof d, "x", 1, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_wtns_open_mem(&w, d, sizeof d, NULL, 5, NULL), ZKPIPE_EINVAL);
    zkpipe_allocator broken = {NULL, NULL, NULL};
    zkpipe_io_options bad;
    zkpipe_io_options_init(&bad);
    bad.allocator = &broken;
    assert_int_equal(zkpipe_r1cs_open_mem(&r, d, sizeof d, "x", 1, &bad), ZKPIPE_EINVAL);
    zkpipe_zkey_destroy(NULL);
    zkpipe_wtns_destroy(NULL);
    zkpipe_r1cs_destroy(NULL);
    zkpipe_groth16_vk_destroy(NULL);
    assert_int_equal(zkpipe_wtns_curve(NULL), ZKPIPE_CURVE_COUNT);
    assert_int_equal(zkpipe_wtns_count(NULL), 0);
    assert_int_equal(zkpipe_groth16_vk_curve(NULL), ZKPIPE_CURVE_COUNT);
    assert_int_equal(zkpipe_groth16_vk_num_inputs(NULL), 0);
    assert_int_equal(zkpipe_zkey_info_get(NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_r1cs_info_get(NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_wtns_get(NULL, NULL, 0), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_zkey_vk(NULL, NULL, NULL), ZKPIPE_EINVAL);
    size_t len;
    zkpipe_groth16_proof p;
    memset(&p, 0, sizeof p);
    p.curve = ZKPIPE_CURVE_COUNT;
    assert_int_equal(zkpipe_snarkjs_proof_write(NULL, 0, &len, &p), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_snarkjs_proof_write(NULL, 5, &len, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_snarkjs_public_write(NULL, 0, &len, NULL, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_snarkjs_public_write(NULL, 0, NULL, NULL, 0), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_snarkjs_public_write(d, sizeof d, &len, NULL, 0), ZKPIPE_OK);
    assert_string_equal(d, "[]\n");
    /* A proof of the right size whose bytes are not a point. */
    p.curve = ZKPIPE_CURVE_BN254;
    p.size = zkpipe_groth16_proof_size(ZKPIPE_CURVE_BN254);
    memset(p.bytes, 0xff, p.size);
    assert_int_equal(zkpipe_snarkjs_proof_write(d, sizeof d, &len, &p), ZKPIPE_ENONCANONICAL);
}

static void files_are_mapped(void **state)
{
    (void)state;
    tiny_files f;
    char d[ZKPIPE_IO_DETAIL_MAX], path[] = "/tmp/zkpipe-test-io-XXXXXX";
    tiny_build(&f, ZKPIPE_CURVE_BN254);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    zkpipe_zkey *z;
    zkpipe_wtns *w;
    zkpipe_r1cs *r;
    /* Empty, then each format in turn. */
    assert_int_equal(zkpipe_zkey_open(&z, d, sizeof d, path, NULL), ZKPIPE_EFORMAT);
    assert_non_null(strstr(d, "empty"));
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(f.zkey.data, 1, f.zkey.len, fp), f.zkey.len);
    fclose(fp);
    assert_int_equal(zkpipe_zkey_open(&z, d, sizeof d, path, NULL), ZKPIPE_OK);
    zkpipe_zkey_destroy(z);
    assert_int_equal(zkpipe_wtns_open(&w, d, sizeof d, path, NULL), ZKPIPE_EFORMAT);
    assert_int_equal(zkpipe_r1cs_open(&r, d, sizeof d, path, NULL), ZKPIPE_EFORMAT);
    unlink(path);
    assert_int_equal(zkpipe_zkey_open(&z, d, sizeof d, path, NULL), ZKPIPE_EIO);
    assert_non_null(strstr(d, "cannot open"));
    assert_int_equal(zkpipe_wtns_open(&w, d, sizeof d, "/tmp", NULL), ZKPIPE_EIO);
    assert_non_null(strstr(d, "not a regular file"));
    tiny_free(&f);
}

/* A FIFO with no writer, a device or a socket given by path: ZKPIPE_EIO at once, never a wait
 * in open (SIGALRM ends the test if one blocks). */
static void non_regular_files_are_refused_at_once(void **state)
{
    (void)state;
    char dir[] = "/tmp/zkpipe-test-io-XXXXXX", fifo[64], d[ZKPIPE_IO_DETAIL_MAX];
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const char *paths[] = {fifo, "/dev/null", "/dev/zero"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        zkpipe_zkey *z = NULL;
        zkpipe_wtns *w = NULL;
        zkpipe_r1cs *r = NULL;
        alarm(10);
        assert_int_equal(zkpipe_wtns_open(&w, d, sizeof d, paths[i], NULL), ZKPIPE_EIO);
        assert_non_null(strstr(d, "not a regular file"));
        assert_int_equal(zkpipe_zkey_open(&z, d, sizeof d, paths[i], NULL), ZKPIPE_EIO);
        assert_int_equal(zkpipe_r1cs_open(&r, d, sizeof d, paths[i], NULL), ZKPIPE_EIO);
        alarm(0);
        assert_null(w);
        assert_null(z);
        assert_null(r);
    }
    unlink(fifo);
    rmdir(dir);
}

/* Unaligned buffers get accounted aligned copies and still prove. */
static void unaligned_sections_are_copied_and_accounted(void **state)
{
    (void)state;
    tiny_files f;
    char d[ZKPIPE_IO_DETAIL_MAX];
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    tiny_build(&f, ZKPIPE_CURVE_BLS12_381);
    /* The wtns values start at offset 76 of the file, the zkey's sections at offsets that
     * shift by 4 with the buffer. */
    uint8_t *zk = malloc(f.zkey.len + 8), *wt = malloc(f.wtns.len + 8);
    assert_non_null(zk);
    assert_non_null(wt);
    memcpy(zk + 4, f.zkey.data, f.zkey.len);
    memcpy(wt, f.wtns.data, f.wtns.len);
    zkpipe_io_options opts;
    zkpipe_io_options_init(&opts);
    opts.acct = acct;
    zkpipe_zkey *z;
    zkpipe_wtns *w;
    assert_int_equal(zkpipe_zkey_open_mem(&z, d, sizeof d, zk + 4, f.zkey.len, &opts), ZKPIPE_OK);
    assert_int_equal(zkpipe_wtns_open_mem(&w, d, sizeof d, wt, f.wtns.len, &opts), ZKPIPE_OK);
    zkpipe_zkey_info info;
    zkpipe_zkey_info_get(&info, z);
    assert_true(info.copied_bytes > 0);
    zkpipe_snapshot snap;
    uint32_t loaded, kind_zkey, kind_wtns;
    assert_int_equal(zkpipe_acct_register_stage(acct, "loaded", &loaded), ZKPIPE_OK);
    assert_int_equal(zkpipe_acct_register_kind(acct, "zkey", &kind_zkey), ZKPIPE_OK);
    assert_int_equal(zkpipe_acct_register_kind(acct, "wtns", &kind_wtns), ZKPIPE_OK);
    assert_int_equal(zkpipe_acct_snapshot(acct, &snap), ZKPIPE_OK);
    assert_int_equal(snap.stage[loaded].live_items, 2);
    assert_int_equal(snap.stage[loaded].kind[kind_zkey].live_bytes, f.zkey.len + info.copied_bytes);
    assert_int_equal(snap.stage[loaded].kind[kind_wtns].live_bytes, f.wtns.len + 32 * TINY_VARS);
    zkpipe_groth16_proof proof;
    assert_int_equal(zkey_prove(&proof, NULL, d, sizeof d, z, w, NULL, ZKPIPE_BACKEND_CPU, NULL),
                     ZKPIPE_OK);
    zkpipe_zkey_destroy(z);
    zkpipe_wtns_destroy(w);
    assert_int_equal(zkpipe_acct_snapshot(acct, &snap), ZKPIPE_OK);
    assert_int_equal(snap.live_bytes, 0);
    /* A point off the curve in a section that is copied as it is checked: named as in place,
     * and the copy given back with the failed open. */
    const zkpipe__curve_ops *c = zkpipe__curve_ops_for(ZKPIPE_CURVE_BLS12_381);
    size_t g1 = 2 * 8 * c->fq_limbs, g2 = 2 * g1;
    static const unsigned ids[5] = {5, 6, 7, 8, 9};
    for (int k = 0; k < 5; k++) {
        size_t at = section_at(&f.zkey, ids[k]) + (ids[k] == 7 ? g2 : g1) + 9; /* point 1 */
        char want[64];
        snprintf(want, sizeof want, "section %u: point 1 is not on the curve", ids[k]);
        zk[4 + at] ^= 0x10;
        z = NULL;
        assert_int_equal(zkpipe_zkey_open_mem(&z, d, sizeof d, zk + 4, f.zkey.len, &opts),
                         ZKPIPE_ENOTONCURVE);
        assert_null(z);
        assert_non_null(strstr(d, want));
        zk[4 + at] ^= 0x10;
    }
    assert_int_equal(zkpipe_acct_snapshot(acct, &snap), ZKPIPE_OK);
    assert_int_equal(snap.live_bytes, 0);
    free(zk);
    free(wt);
    tiny_free(&f);
    zkpipe_acct_destroy(acct);
}

/* A zkey rewritten under its mapping after the open checked it (another process writing the
 * file): coefficient entries naming a row or a wire out of range are not followed (an
 * out-of-bounds write and read before), the proof fails with ZKPIPE_EIO. The borrowed buffer
 * plays the mapping. */
static void zkey_rewritten_after_open_is_an_io_error(void **state)
{
    (void)state;
    for (int ci = 0; ci < 2; ci++) {
        for (int field = 1; field <= 2; field++) { /* 1: the row, 2: the wire */
            tiny_files f;
            char d[ZKPIPE_IO_DETAIL_MAX];
            tiny_build(&f, curves[ci]);
            uint64_t *zk = malloc(f.zkey.len + 8), *wt = malloc(f.wtns.len + 8);
            assert_non_null(zk);
            assert_non_null(wt);
            memcpy(zk, f.zkey.data, f.zkey.len);
            memcpy(wt, f.wtns.data, f.wtns.len);
            zkpipe_zkey *z;
            zkpipe_wtns *w;
            assert_int_equal(zkpipe_zkey_open_mem(&z, d, sizeof d, zk, f.zkey.len, NULL),
                             ZKPIPE_OK);
            assert_int_equal(zkpipe_wtns_open_mem(&w, d, sizeof d, wt, f.wtns.len, NULL),
                             ZKPIPE_OK);
            /* The last entry of section 4 (a count, then 44-byte entries) now names row or wire
             * 2^31 + 7. */
            size_t sec = section_at(&f.zkey, 4);
            uint32_t n = (uint32_t)f.zkey.data[sec] | (uint32_t)f.zkey.data[sec + 1] << 8;
            assert_true(n > 0);
            u32_bytes((uint8_t *)zk + sec + 4 + 44 * (size_t)(n - 1) + 4 * field, 0x80000007u);
            zkpipe_groth16_proof proof;
            assert_int_equal(
                zkey_prove(&proof, NULL, d, sizeof d, z, w, NULL, ZKPIPE_BACKEND_CPU, NULL),
                ZKPIPE_EIO);
            zkpipe_zkey_destroy(z);
            zkpipe_wtns_destroy(w);
            free(zk);
            free(wt);
            tiny_free(&f);
        }
    }
}

static void json_errors_are_named(void **state)
{
    (void)state;
    char d[ZKPIPE_IO_DETAIL_MAX];
    zkpipe_groth16_proof p;
    zkpipe_groth16_vk *vk;
    static const struct {
        const char *json, *has;
        zkpipe_status st;
    } proofs[] = {
        {"{", "not valid JSON", ZKPIPE_EFORMAT},
        {"[]", "not a JSON object", ZKPIPE_EFORMAT},
        {"{\"curve\":\"bn128\",\"protocol\":\"plonk\"}", "protocol", ZKPIPE_EFORMAT},
        {"{\"curve\":\"secp256k1\"}", "curve", ZKPIPE_EFORMAT},
        {"{\"curve\":\"bn128\"}", "pi_a: not an array of 2 or 3", ZKPIPE_EFORMAT},
        {"{\"curve\":\"bn128\",\"pi_a\":[\"1\",\"2\",\"2\"]}", "z is not", ZKPIPE_EFORMAT},
        {"{\"curve\":\"bn128\",\"pi_a\":[\"01\",\"2\",\"1\"]}", "not a decimal", ZKPIPE_EFORMAT},
        {"{\"curve\":\"bn128\",\"pi_a\":[1,\"2\",\"1\"]}", "not a decimal", ZKPIPE_EFORMAT},
        {"{\"curve\":\"bn128\",\"pi_a\":[\"1\",\"3\",\"1\"]}", "pi_a is not on the curve",
         ZKPIPE_ENOTONCURVE},
        {"{\"curve\":\"bn128\",\"pi_a\":[\"1\",\"2\",\"1\"],\"pi_b\":[[\"1\",\"2\"]]}",
         "pi_b: not an array", ZKPIPE_EFORMAT},
        {"{\"curve\":\"bn128\",\"pi_a\":[\"1\",\"2\",\"1\"],\"pi_b\":[[\"1\",\"2\"],[\"1\","
         "\"2\"],[\"1\",\"1\"]]}",
         "z.c1", ZKPIPE_EFORMAT},
        {"{\"curve\":\"bn128\",\"pi_a\":[\"1\",\"2\",\"1\"],\"pi_b\":[[\"1\",\"2\"],[\"1\","
         "\"2\"],[\"1\",\"0\"]]}",
         "pi_b is not on the curve", ZKPIPE_ENOTONCURVE},
        {"{\"curve\":\"bn128\",\"pi_a\":[\"21888242871839275222246405745257275088696311157297823"
         "662689037894645226208583\",\"2\",\"1\"]}",
         "not below q", ZKPIPE_ENONCANONICAL},
    };
    for (size_t i = 0; i < sizeof proofs / sizeof proofs[0]; i++) {
        d[0] = '\0';
        zkpipe_status st = zkpipe_snarkjs_proof_parse(&p, d, sizeof d, ZKPIPE_CURVE_COUNT,
                                                      proofs[i].json, strlen(proofs[i].json));
        if (st != proofs[i].st || strstr(d, proofs[i].has) == NULL)
            fail_msg("proof %zu: %s \"%s\"", i, zkpipe_status_name(st), d);
    }
    /* Infinity (z = 0) reads as such. */
    const char *inf = "{\"curve\":\"bn128\",\"pi_a\":[\"0\",\"1\",\"0\"],\"pi_b\":[[\"0\",\"0\"],"
                      "[\"1\",\"0\"],[\"0\",\"0\"]],\"pi_c\":[\"1\",\"2\",\"1\"]}";
    assert_int_equal(
        zkpipe_snarkjs_proof_parse(&p, d, sizeof d, ZKPIPE_CURVE_COUNT, inf, strlen(inf)),
        ZKPIPE_OK);
    size_t len;
    char out[2048];
    assert_int_equal(zkpipe_snarkjs_proof_write(out, sizeof out, &len, &p), ZKPIPE_OK);
    zkpipe_groth16_proof back;
    assert_int_equal(zkpipe_snarkjs_proof_parse(&back, d, sizeof d, ZKPIPE_CURVE_COUNT, out, len),
                     ZKPIPE_OK);
    assert_memory_equal(back.bytes, p.bytes, p.size);
    assert_int_equal(zkpipe_snarkjs_proof_parse(NULL, d, sizeof d, ZKPIPE_CURVE_COUNT, inf, 3),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_snarkjs_proof_parse(&p, d, sizeof d, ZKPIPE_CURVE_COUNT, NULL, 3),
                     ZKPIPE_EINVAL);

    static const struct {
        const char *json, *has;
    } vks[] = {
        {"{\"curve\":\"bn128\"}", "nPublic"},
        {"{\"curve\":\"bn128\",\"nPublic\":1.5}", "nPublic"},
        {"{\"curve\":\"bn128\",\"nPublic\":1,\"IC\":[]}", "IC"},
        {"{\"curve\":\"bn128\",\"nPublic\":0,\"IC\":[[\"1\",\"2\",\"1\"]]}", "vk_alpha_1"},
        {"{\"curve\":\"bn128\",\"nPublic\":0,\"IC\":[[\"1\",\"5\",\"1\"]],\"vk_alpha_1\":[\"1\","
         "\"2\",\"1\"],\"vk_beta_2\":[[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]],\"vk_gamma_2\":[["
         "\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]],\"vk_delta_2\":[[\"0\",\"0\"],[\"1\",\"0\"],["
         "\"0\",\"0\"]]}",
         "IC[0] is not on the curve"},
    };
    for (size_t i = 0; i < sizeof vks / sizeof vks[0]; i++) {
        d[0] = '\0';
        zkpipe_status st =
            zkpipe_snarkjs_vk_parse(&vk, d, sizeof d, vks[i].json, strlen(vks[i].json), NULL);
        if (st == ZKPIPE_OK || strstr(d, vks[i].has) == NULL)
            fail_msg("vk %zu: %s \"%s\"", i, zkpipe_status_name(st), d);
    }
    assert_int_equal(zkpipe_snarkjs_vk_parse(NULL, d, sizeof d, "{}", 2, NULL), ZKPIPE_EINVAL);
    zkpipe_scalar s[2];
    size_t n;
    assert_int_equal(
        zkpipe_snarkjs_public_parse(s, 2, &n, d, sizeof d, ZKPIPE_CURVE_BN254, "{}", 2),
        ZKPIPE_EFORMAT);
    assert_int_equal(
        zkpipe_snarkjs_public_parse(s, 2, &n, d, sizeof d, ZKPIPE_CURVE_BN254, "[\"x\"]", 5),
        ZKPIPE_EFORMAT);
    const char *too_big = "[\"21888242871839275222246405745257275088548364400416034343698204186575"
                          "808495617\"]";
    assert_int_equal(zkpipe_snarkjs_public_parse(s, 2, &n, d, sizeof d, ZKPIPE_CURVE_BN254, too_big,
                                                 strlen(too_big)),
                     ZKPIPE_ENONCANONICAL);
    assert_int_equal(
        zkpipe_snarkjs_public_parse(s, 2, &n, d, sizeof d, ZKPIPE_CURVE_COUNT, "[]", 2),
        ZKPIPE_EINVAL);
    assert_int_equal(
        zkpipe_snarkjs_public_parse(NULL, 2, &n, d, sizeof d, ZKPIPE_CURVE_BN254, "[]", 2),
        ZKPIPE_EINVAL);
}

/* Allocation failure walks: every allocation of opening, proving and key building. */
static const tiny_files *walk_files;

static int walk_open_prove(void *arg, const zkpipe_allocator *a)
{
    (void)arg;
    zkpipe_io_options opts;
    zkpipe_io_options_init(&opts);
    opts.allocator = a;
    zkpipe_zkey *z = NULL;
    zkpipe_wtns *w = NULL;
    zkpipe_r1cs *r = NULL;
    zkpipe_groth16_vk *vk = NULL;
    zkpipe_groth16_proof proof;
    const tiny_files *f = walk_files;
    /* Shifted by 4 so that the zkey's copies are made too (the wtns values always are). */
    uint8_t *zk = malloc(f->zkey.len + 4);
    memcpy(zk + 4, f->zkey.data, f->zkey.len);
    zkpipe_status st = zkpipe_zkey_open_mem(&z, NULL, 0, zk + 4, f->zkey.len, &opts);
    if (st == ZKPIPE_OK)
        st = zkpipe_wtns_open_mem(&w, NULL, 0, f->wtns.data, f->wtns.len, &opts);
    if (st == ZKPIPE_OK)
        st = zkpipe_r1cs_open_mem(&r, NULL, 0, f->r1cs.data, f->r1cs.len, &opts);
    if (st == ZKPIPE_OK)
        st = zkey_prove(&proof, NULL, NULL, 0, z, w, NULL, ZKPIPE_BACKEND_CPU, NULL);
    if (st == ZKPIPE_OK)
        st = zkpipe_zkey_vk(&vk, z, a);
    zkpipe_groth16_vk_destroy(vk);
    zkpipe_r1cs_destroy(r);
    zkpipe_wtns_destroy(w);
    zkpipe_zkey_destroy(z);
    free(zk);
    return st;
}

static const char walk_vk_json_text[] =
    "{\"protocol\":\"groth16\",\"curve\":\"bn128\",\"nPublic\":0,\"vk_alpha_1\":[\"1\",\"2\","
    "\"1\"],\"vk_beta_2\":[[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]],\"vk_gamma_2\":[[\"0\","
    "\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]],\"vk_delta_2\":[[\"0\",\"0\"],[\"1\",\"0\"],[\"0\","
    "\"0\"]],\"IC\":[[\"1\",\"2\",\"1\"]]}";

static int walk_vk_parse(void *arg, const zkpipe_allocator *a)
{
    zkpipe_groth16_vk **vk = arg;
    return zkpipe_snarkjs_vk_parse(vk, NULL, 0, walk_vk_json_text, strlen(walk_vk_json_text), a);
}

static void undo_vk(void *arg)
{
    zkpipe_groth16_vk_destroy(*(zkpipe_groth16_vk **)arg);
}

static void allocation_failures_leak_nothing(void **state)
{
    (void)state;
    tiny_files f;
    tiny_build(&f, ZKPIPE_CURVE_BN254);
    walk_files = &f;
    assert_true(fail_alloc_walk(walk_open_prove, NULL, NULL) >= 9);
    /* A small verification_key.json (generator points, infinity), parsed under failures. */
    zkpipe_groth16_vk *vk = NULL;
    assert_int_equal(fail_alloc_walk(walk_vk_parse, undo_vk, &vk), 1);
    tiny_free(&f);
}

/* The interop fixtures (tests/interop/fixtures/<curve>/<circuit>/, or $ZKPIPE_IO_FIXTURES):
 * with r = 11 and s = 22 our proof equals snarkjs's proof_det.json, and snarkjs's proof.json
 * verifies with our verifier. Every fixture folder is checked: the fixtures are committed, and a
 * folder without them is a broken checkout, not a skip. */
static char *slurp(const char *dir, const char *name, size_t *len)
{
    char path[1500];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
    buf[n] = '\0';
    fclose(fp);
    *len = (size_t)n;
    return buf;
}

/* a and b from the coefficients cut into ranges on a pool (snarkjs's entries, whose rows never
 * decrease: each thread adds its own rows) equal a and b added on one thread, and so they do
 * with the entries reversed (rows going back: the pool must leave them to one thread) and with
 * every entry moved into row 0 (one row longer than any range: the ranges after the first stay
 * empty); the proof from the reversed key on a pool is snarkjs's still. */
static void check_abc_paths(const char *dir, const zkpipe_wtns *w, const zkpipe_groth16_proof *want,
                            const zkpipe_scalar *r, const zkpipe_scalar *s)
{
    char d[ZKPIPE_IO_DETAIL_MAX] = "";
    size_t len;
    char *raw = slurp(dir, "circuit.zkey", &len);
    assert_non_null(raw);
    bytebuf zk = {(uint8_t *)raw, len, len};
    size_t sec = section_at(&zk, 4);
    size_t n = zkpipe__get_le32(zk.data + sec);
    uint8_t *e = zk.data + sec + 4, t[44];
    zkpipe_pool *pool;
    assert_int_equal(zkpipe_pool_create(&pool, 3, NULL), ZKPIPE_OK);
    for (int variant = 0; variant < 3; variant++) {
        int reversed = variant == 1;
        for (size_t i = 0; reversed && i < n / 2; i++) {
            memcpy(t, e + 44 * i, 44);
            memcpy(e + 44 * i, e + 44 * (n - 1 - i), 44);
            memcpy(e + 44 * (n - 1 - i), t, 44);
        }
        for (size_t i = 0; variant == 2 && i < n; i++)
            memset(e + 44 * i + 4, 0, 4);
        zkpipe_zkey *z;
        assert_int_equal(zkpipe_zkey_open_mem(&z, d, sizeof d, zk.data, zk.len, NULL), ZKPIPE_OK);
        const zkpipe_groth16_pk *pk = zkpipe_zkey_pk(z);
        size_t rows = (size_t)1 << pk->log_n;
        uint64_t *ab = malloc(4 * rows * 4 * sizeof(uint64_t));
        assert_non_null(ab);
        memset(ab, 0xa5, 4 * rows * 4 * sizeof(uint64_t)); /* zeroed by the calls */
        const uint64_t *wv = zkpipe_wtns_values(w)[0].l;
        assert_int_equal(zkpipe__g16_coeffs_add(ab, ab + 4 * rows, pk, wv, rows, SIZE_MAX, NULL),
                         0);
        assert_int_equal(
            zkpipe__g16_coeffs_add(ab + 8 * rows, ab + 12 * rows, pk, wv, rows, 16, pool), 0);
        if (memcmp(ab, ab + 8 * rows, 8 * rows * sizeof(uint64_t)) != 0)
            fail_msg("%s: a and b added in ranges on a pool%s differ from one thread's", dir,
                     variant == 1   ? ", the entries reversed,"
                     : variant == 2 ? ", every entry in row 0,"
                                    : "");
        free(ab);
        if (reversed) {
            zkpipe_groth16_proof got;
            assert_int_equal(
                zkey_prove_rs(&got, NULL, d, sizeof d, z, w, r, s, pool, ZKPIPE_BACKEND_CPU, NULL),
                ZKPIPE_OK);
            if (memcmp(got.bytes, want->bytes, got.size) != 0)
                fail_msg("%s: the proof from the entries reversed differs from snarkjs's", dir);
        }
        zkpipe_zkey_destroy(z);
    }
    zkpipe_pool_destroy(pool);
    free(raw);
}

static int check_fixture(const char *dir)
{
    char d[ZKPIPE_IO_DETAIL_MAX] = "", path[1500];
    size_t len, vlen, plen;
    char *det = slurp(dir, "proof_det.json", &len);
    if (det == NULL)
        return 0;
    zkpipe_zkey *z;
    zkpipe_wtns *w;
    zkpipe_groth16_vk *vk;
    zkpipe_groth16_proof want, got, theirs;
    snprintf(path, sizeof path, "%s/circuit.zkey", dir);
    assert_int_equal(zkpipe_zkey_open(&z, d, sizeof d, path, NULL), ZKPIPE_OK);
    snprintf(path, sizeof path, "%s/witness.wtns", dir);
    assert_int_equal(zkpipe_wtns_open(&w, d, sizeof d, path, NULL), ZKPIPE_OK);
    zkpipe_scalar r = scalar(11), s = scalar(22);
    assert_int_equal(
        zkey_prove_rs(&got, NULL, d, sizeof d, z, w, &r, &s, NULL, ZKPIPE_BACKEND_CPU, NULL),
        ZKPIPE_OK);
    assert_int_equal(zkpipe_snarkjs_proof_parse(&want, d, sizeof d, ZKPIPE_CURVE_COUNT, det, len),
                     ZKPIPE_OK);
    if (memcmp(got.bytes, want.bytes, got.size) != 0)
        fail_msg("%s: our proof with r = 11, s = 22 differs from snarkjs's", dir);
    check_abc_paths(dir, w, &want, &r, &s);
    char *vkj = slurp(dir, "verification_key.json", &vlen);
    char *pj = slurp(dir, "proof.json", &plen);
    assert_non_null(vkj);
    assert_non_null(pj);
    assert_int_equal(zkpipe_snarkjs_vk_parse(&vk, d, sizeof d, vkj, vlen, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_snarkjs_proof_parse(&theirs, d, sizeof d, ZKPIPE_CURVE_COUNT, pj, plen),
                     ZKPIPE_OK);
    size_t np = (zkpipe_groth16_vk_num_inputs(vk) - 1);
    zkpipe_scalar *in = calloc(np + 1, sizeof *in);
    assert_non_null(in);
    for (size_t i = 0; i < np; i++)
        zkpipe_wtns_get(&in[i], w, i + 1);
    assert_int_equal(vk_verify(vk, in, np, &theirs), ZKPIPE_OK);
    assert_int_equal(vk_verify(vk, in, np, &got), ZKPIPE_OK);
    free(in);
    free(vkj);
    free(pj);
    free(det);
    zkpipe_groth16_vk_destroy(vk);
    zkpipe_wtns_destroy(w);
    zkpipe_zkey_destroy(z);
    return 1;
}

static void interop_fixtures_match_snarkjs(void **state)
{
    (void)state;
    char root[1024];
    const char *env = getenv("ZKPIPE_IO_FIXTURES"), *src = getenv("ZKPIPE_SOURCE_DIR");
    if (env != NULL)
        snprintf(root, sizeof root, "%s", env);
    else
        snprintf(root, sizeof root, "%s/tests/interop/fixtures", src != NULL ? src : ".");
    int checked = 0, folders = 0;
    static const char *curve_dirs[2] = {"bls12381", "bn128"};
    for (int c = 0; c < 2; c++) {
        char dir[1100];
        snprintf(dir, sizeof dir, "%s/%s", root, curve_dirs[c]);
        DIR *dp = opendir(dir);
        if (dp == NULL)
            continue;
        struct dirent *e;
        while ((e = readdir(dp)) != NULL) {
            char sub[1400];
            if (e->d_name[0] == '.')
                continue;
            snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
            folders++;
            checked += check_fixture(sub);
        }
        closedir(dp);
    }
    if (folders == 0)
        fail_msg("no fixture folders under %s", root);
    assert_int_equal(checked, folders);
}

/* Seeds for the fuzzers (tests/fuzz): DIR/{r1cs,wtns,zkey,json}/, from the tiny circuit. */
static int write_seed(const char *dir, const char *sub, const char *name, const char *prefix,
                      const void *data, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, name);
    FILE *fp = fopen(path, "wb");
    if (fp == NULL)
        return -1;
    size_t plen = prefix != NULL ? 2 : 0; /* fuzz_json's two selector bytes */
    int ok = fwrite(prefix != NULL ? prefix : "", 1, plen, fp) == plen &&
             fwrite(data, 1, len, fp) == len;
    return fclose(fp) == 0 && ok ? 0 : -1;
}

static int write_seeds(const char *dir)
{
    int rc = mkdir(dir, 0755) == 0 || errno == EEXIST ? 0 : -1;
    for (int ci = 0; ci < 2 && rc == 0; ci++) {
        tiny_files f;
        opened o;
        char d[ZKPIPE_IO_DETAIL_MAX], json[4096], name[32];
        size_t len = 0;
        zkpipe_groth16_proof proof;
        tiny_build(&f, curves[ci]);
        open_all(&o, &f, NULL);
        zkpipe_scalar in[TINY_PUBLIC];
        for (size_t i = 0; i < TINY_PUBLIC; i++)
            zkpipe_wtns_get(&in[i], o.wtns, i + 1);
        snprintf(name, sizeof name, "tiny-%s", ci == 0 ? "bls12381" : "bn128");
        rc |= write_seed(dir, "zkey", name, NULL, f.zkey.data, f.zkey.len);
        rc |= write_seed(dir, "wtns", name, NULL, f.wtns.data, f.wtns.len);
        rc |= write_seed(dir, "r1cs", name, NULL, f.r1cs.data, f.r1cs.len);
        if (zkey_prove(&proof, NULL, d, sizeof d, o.zkey, o.wtns, NULL, ZKPIPE_BACKEND_AUTO,
                       NULL) != ZKPIPE_OK ||
            zkpipe_snarkjs_proof_write(json, sizeof json, &len, &proof) != ZKPIPE_OK)
            rc = -1;
        snprintf(name, sizeof name, "proof-%s", ci == 0 ? "bls12381" : "bn128");
        rc |= write_seed(dir, "json", name, "\x01\x02", json, len);
        zkpipe_snarkjs_public_write(json, sizeof json, &len, in, TINY_PUBLIC);
        snprintf(name, sizeof name, "public-%s", ci == 0 ? "bls12381" : "bn128");
        rc |= write_seed(dir, "json", name, ci == 0 ? "\x02\x00" : "\x02\x01", json, len);
        close_all(&o);
        tiny_free(&f);
    }
    rc |= write_seed(dir, "json", "vk-bn128", "\x00\x00", walk_vk_json_text,
                     strlen(walk_vk_json_text));
    if (rc != 0)
        fprintf(stderr, "cannot write the seeds under %s\n", dir);
    return rc != 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0)
        return write_seeds(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tiny_proves_and_verifies),
        cmocka_unit_test(backends_agree_or_cuda_is_refused),
        cmocka_unit_test(unsatisfied_witness_gives_no_proof),
        cmocka_unit_test(truncation_at_every_offset_is_refused),
        cmocka_unit_test(container_errors_are_named),
        cmocka_unit_test(zkey_contents_are_checked),
        cmocka_unit_test(wtns_and_r1cs_contents_are_checked),
        cmocka_unit_test(mismatched_inputs_are_refused),
        cmocka_unit_test(null_arguments_and_accessors),
        cmocka_unit_test(files_are_mapped),
        cmocka_unit_test(non_regular_files_are_refused_at_once),
        cmocka_unit_test(unaligned_sections_are_copied_and_accounted),
        cmocka_unit_test(zkey_rewritten_after_open_is_an_io_error),
        cmocka_unit_test(json_errors_are_named),
        cmocka_unit_test(allocation_failures_leak_nothing),
        cmocka_unit_test(interop_fixtures_match_snarkjs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
