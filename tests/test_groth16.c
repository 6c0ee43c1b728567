/* Groth16 setup, prover and verifier on both curves: valid proofs verify, anything tampered
 * does not, unsatisfied witnesses are refused, encodings round-trip, the ledger drains, the
 * A and B queries shrink to the dense variables, and the NTT quotient equals a naive
 * polynomial division. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fail_alloc.h"
#include "ec/bls12_381_g1.h"
#include "ff/bls12_381_fr.h"
#include "core/alloc_internal.h"
#include "core/bytes.h"
#include "groth16/prove.h"
#include "prove_synth.h"
#include "poly/ntt.h"
#include "sanitize.h"
#include "zkpipe/testcircuit.h"
#include "zkpipe/zkpipe.h"

/* pthread_create goes through this wrapper (--wrap in tests/CMakeLists.txt): while
 * fail_thread_create is set it fails, and counts the calls it failed. */
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);

static int fail_thread_create, failed_thread_creates;

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    if (fail_thread_create) {
        failed_thread_creates++;
        return EAGAIN;
    }
    return __real_pthread_create(t, a, fn, arg);
}

static const zkpipe_curve curves[] = {ZKPIPE_CURVE_BLS12_381, ZKPIPE_CURVE_BN254};
static const uint8_t seed1[32] = {1, 2, 3};
static const uint8_t seed2[32] = {9, 8, 7};

static zkpipe_cs *test_circuit(zkpipe_curve curve, unsigned log_rows, size_t num_public)
{
    zkpipe_cs *cs = NULL;
    assert_int_equal(zkpipe_cs_create(&cs, curve, ZKPIPE_CS_WITNESS, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_testcircuit_build(cs, log_rows, 42, num_public), ZKPIPE_OK);
    return cs;
}

/* The public inputs of cs (inputs 1 .. num_inputs - 1); at most 8. */
static size_t public_inputs(zkpipe_scalar *out, const zkpipe_cs *cs)
{
    size_t n = zkpipe_cs_num_inputs(cs) - 1;
    assert_true(n <= 8);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(zkpipe_cs_value(cs, &out[i], (zkpipe_var)(i + 1)), ZKPIPE_OK);
    return n;
}

typedef struct keys {
    zkpipe_groth16_pk *pk;
    zkpipe_groth16_vk *vk;
    zkpipe_groth16_pvk *pvk;
} keys;

static void keys_make(keys *k, const zkpipe_cs *cs, const uint8_t *seed)
{
    assert_int_equal(zkpipe_groth16_setup_insecure(&k->pk, &k->vk, cs, seed, NULL, NULL),
                     ZKPIPE_OK);
    assert_int_equal(zkpipe_groth16_pvk_create(&k->pvk, k->vk, NULL), ZKPIPE_OK);
}

static void keys_free(keys *k)
{
    zkpipe_groth16_pk_destroy(k->pk);
    zkpipe_groth16_vk_destroy(k->vk);
    zkpipe_groth16_pvk_destroy(k->pvk);
}

static void valid_proofs_verify(void **state)
{
    (void)state;
    static const struct {
        unsigned log_rows;
        size_t num_public;
    } cases[] = {{4, 0}, {4, 1}, {4, 3}, {7, 1}, {10, 3}};
    zkpipe_pool *pool;
    assert_int_equal(zkpipe_pool_create(&pool, 2, NULL), ZKPIPE_OK);
    for (size_t c = 0; c < 2; c++) {
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            if (ZKPIPE_TEST_SANITIZED && cases[i].log_rows > 7)
                continue;
            zkpipe_cs *cs = test_circuit(curves[c], cases[i].log_rows, cases[i].num_public);
            zkpipe_scalar in[8];
            size_t n = public_inputs(in, cs);
            keys k;
            keys_make(&k, cs, seed1);
            zkpipe_groth16_proof proof;
            zkpipe_groth16_timings t;
            assert_int_equal(zkpipe_groth16_prove(&proof, NULL, &t, k.pk, cs, pool, NULL),
                             ZKPIPE_OK);
            assert_int_equal(proof.curve, curves[c]);
            assert_int_equal(proof.size, zkpipe_groth16_proof_size(curves[c]));
            assert_true(t.total >= t.h);
            assert_int_equal(zkpipe_groth16_verify(k.pvk, in, n, &proof), ZKPIPE_OK);
            keys_free(&k);
            zkpipe_cs_destroy(cs);
        }
    }
    zkpipe_pool_destroy(pool);
    assert_int_equal(zkpipe_groth16_proof_size(ZKPIPE_CURVE_BLS12_381), 192);
    assert_int_equal(zkpipe_groth16_proof_size(ZKPIPE_CURVE_BN254), 256);
    assert_int_equal(zkpipe_groth16_proof_size(ZKPIPE_CURVE_COUNT), 0);
}

/* The engine's entry with given r and s is deterministic, and its proofs verify. */
static void given_blinding_gives_the_same_proof(void **state)
{
    (void)state;
    for (size_t c = 0; c < 2; c++) {
        zkpipe_cs *cs = test_circuit(curves[c], 5, 1);
        zkpipe_scalar in[8];
        size_t n = public_inputs(in, cs);
        keys k;
        keys_make(&k, cs, seed1);
        uint64_t r[4], s[4];
        assert_int_equal(random_scalar(r, curves[c]), ZKPIPE_OK);
        assert_int_equal(random_scalar(s, curves[c]), ZKPIPE_OK);
        zkpipe_groth16_proof p[3];
        for (int i = 0; i < 3; i++) {
            zkpipe__synth_result res;
            assert_int_equal(zkpipe__synth(&res, cs, NULL, NULL), ZKPIPE_OK);
            assert_int_equal(prove_synth(&p[i], NULL, NULL, k.pk, &res, r, i < 2 ? s : r, NULL,
                                         ZKPIPE_BACKEND_CPU),
                             ZKPIPE_OK);
            assert_int_equal(zkpipe_groth16_verify(k.pvk, in, n, &p[i]), ZKPIPE_OK);
        }
        assert_memory_equal(p[0].bytes, p[1].bytes, p[0].size);
        assert_memory_not_equal(p[0].bytes, p[2].bytes, p[0].size);
        keys_free(&k);
        zkpipe_cs_destroy(cs);
    }
}

/* With given r and s a proof's bytes are fixed: these are the prover's from before it
 * converted the scalars in place (when each MSM converted a copy), for the 2^5-row test
 * circuit, setup seed1, r = {5, 6, 7, 8} and s = {9, 10, 11, 12} (Montgomery limbs). */
static void proof_bytes_are_unchanged(void **state)
{
    (void)state;
    static const char *const expected[2] = {
        "adebdbe502d55f4a4c52893f01dbd6113e49a439eed5a30eb87e48b98d3e9192c87591bf9e401422e25c887d"
        "aea6b042a9219deb92dc4915241cd88f1db7dd311b07f1779cf23cd0983724a5317fd54938727babf38622ce"
        "144ecd4fdc152bce0c7814c38c0e04093264b9d4f9bc67e573a5bed3abc8f3c6f868a663f88fdd1855198961"
        "796d9d9feab4f46af060ef1f82f696247a84935ae3bdc056f34b6879b3b52ddc1ede19a1ceb1284188d47975"
        "b526d32d958099dae9d34295ea29a320",
        "0e997416bbf9975ec9717030c88cc570b4aa3b569e5417d56302e895a82bf5131397c6d6f9f373a2c1e885a5"
        "419089f1296d112e82220b9b72350480f430f45b2914c0e1883b69070cdbeadcc64a6abcd6df9cbcfb33a671"
        "3a5353e215cfdd8b160874833154c081e466a8f87ddd7f80095e9da75d08ad9801201016460e8bac22e03a09"
        "0b03de058f75ef9fbf5fdb641eadb985188c6e8d700081b14bb19e5c048d000ac7fd0edfc8f4f39948ca43c4"
        "38b553ac26b1effb4039fe29efde1932031198aff60340f7fda4cc62b6b2c0ad581db65661a25c496e0d214b"
        "925276ba2df4852ce81062374d4386a941d8b202c0f5d0752bf89122c5d196ef2e9322e8",
    };
    for (size_t c = 0; c < 2; c++) {
        zkpipe_cs *cs = test_circuit(curves[c], 5, 1);
        keys k;
        keys_make(&k, cs, seed1);
        const uint64_t r[4] = {5, 6, 7, 8}, s[4] = {9, 10, 11, 12};
        zkpipe__synth_result res;
        zkpipe_groth16_proof proof;
        assert_int_equal(zkpipe__synth(&res, cs, NULL, NULL), ZKPIPE_OK);
        assert_int_equal(
            prove_synth(&proof, NULL, NULL, k.pk, &res, r, s, NULL, ZKPIPE_BACKEND_CPU), ZKPIPE_OK);
        char hex[2 * sizeof proof.bytes + 1];
        for (size_t i = 0; i < proof.size; i++)
            snprintf(hex + 2 * i, 3, "%02x", proof.bytes[i]);
        assert_string_equal(hex, expected[c]);
        keys_free(&k);
        zkpipe_cs_destroy(cs);
    }
}

/* Replaces part `which` (0 A, 1 B, 2 C) of p with the same part of q. */
static void splice(zkpipe_groth16_proof *p, const zkpipe_groth16_proof *q, int which)
{
    size_t g1 = p->curve == ZKPIPE_CURVE_BLS12_381 ? 48 : 64, g2 = 2 * g1;
    size_t off[3] = {0, g1, g1 + g2}, len[3] = {g1, g2, g1};
    memcpy(p->bytes + off[which], q->bytes + off[which], len[which]);
}

static void tampered_proofs_fail(void **state)
{
    (void)state;
    for (size_t c = 0; c < 2; c++) {
        zkpipe_cs *cs = test_circuit(curves[c], 5, 2);
        zkpipe_scalar in[8];
        size_t n = public_inputs(in, cs);
        keys k, other;
        keys_make(&k, cs, seed1);
        keys_make(&other, cs, seed2);
        zkpipe_groth16_proof p1, p2, bad;
        assert_int_equal(zkpipe_groth16_prove(&p1, NULL, NULL, k.pk, cs, NULL, NULL), ZKPIPE_OK);
        assert_int_equal(zkpipe_groth16_prove(&p2, NULL, NULL, k.pk, cs, NULL, NULL), ZKPIPE_OK);
        /* fresh r and s each time */
        assert_memory_not_equal(p1.bytes, p2.bytes, p1.size);
        assert_int_equal(zkpipe_groth16_verify(k.pvk, in, n, &p2), ZKPIPE_OK);
        for (int which = 0; which < 3; which++) {
            bad = p1;
            splice(&bad, &p2, which);
            assert_int_equal(zkpipe_groth16_verify(k.pvk, in, n, &bad), ZKPIPE_EVERIFY);
        }
        /* a wrong public input, each one in turn */
        for (size_t i = 0; i < n; i++) {
            zkpipe_scalar wrong[8];
            memcpy(wrong, in, sizeof wrong);
            wrong[i].l[0] ^= 1;
            assert_int_equal(zkpipe_groth16_verify(k.pvk, wrong, n, &p1), ZKPIPE_EVERIFY);
        }
        /* a proof under another key */
        assert_int_equal(zkpipe_groth16_verify(other.pvk, in, n, &p1), ZKPIPE_EVERIFY);
        /* malformed inputs and proofs */
        zkpipe_scalar big = {{~0ull, ~0ull, ~0ull, ~0ull}}, two[8];
        memcpy(two, in, sizeof two);
        two[0] = big;
        assert_int_equal(zkpipe_groth16_verify(k.pvk, two, n, &p1), ZKPIPE_ENONCANONICAL);
        assert_int_equal(zkpipe_groth16_verify(k.pvk, in, n - 1, &p1), ZKPIPE_EINVAL);
        assert_int_equal(zkpipe_groth16_verify(k.pvk, in, n + 1, &p1), ZKPIPE_EINVAL);
        assert_int_equal(zkpipe_groth16_verify(k.pvk, NULL, n, &p1), ZKPIPE_EINVAL);
        assert_int_equal(zkpipe_groth16_verify(NULL, in, n, &p1), ZKPIPE_EINVAL);
        assert_int_equal(zkpipe_groth16_verify(k.pvk, in, n, NULL), ZKPIPE_EINVAL);
        bad = p1;
        bad.curve = curves[1 - c];
        assert_int_equal(zkpipe_groth16_verify(k.pvk, in, n, &bad), ZKPIPE_EMISMATCH);
        bad = p1;
        bad.size--;
        assert_int_equal(zkpipe_groth16_verify(k.pvk, in, n, &bad), ZKPIPE_EFORMAT);
        bad = p1;
        memset(bad.bytes + 1, 0xff, 8); /* A's x: no longer reduced, on the curve or in G1 */
        zkpipe_status st = zkpipe_groth16_verify(k.pvk, in, n, &bad);
        assert_true(st == ZKPIPE_ENONCANONICAL || st == ZKPIPE_ENOTONCURVE ||
                    st == ZKPIPE_ENOTINSUBGROUP);
        keys_free(&k);
        keys_free(&other);
        zkpipe_cs_destroy(cs);
    }
}

/* The CPU prover runs every MSM on the pool and starts no thread of its own (groth16.h), so
 * failing thread creation changes nothing: the proof is made, verifies, and no creation was
 * attempted. */
static void cpu_prover_starts_no_thread(void **state)
{
    (void)state;
    zkpipe_pool *pool;
    assert_int_equal(zkpipe_pool_create(&pool, 2, NULL), ZKPIPE_OK);
    zkpipe_cs *cs = test_circuit(ZKPIPE_CURVE_BN254, 5, 1);
    zkpipe_scalar in[8];
    size_t n = public_inputs(in, cs);
    keys k;
    keys_make(&k, cs, seed1);
    zkpipe_groth16_proof proof;
    fail_thread_create = 1;
    failed_thread_creates = 0;
    zkpipe_status st = zkpipe_groth16_prove(&proof, NULL, NULL, k.pk, cs, pool, NULL);
    fail_thread_create = 0;
    assert_int_equal(st, ZKPIPE_OK);
    assert_int_equal(failed_thread_creates, 0);
    assert_int_equal(zkpipe_groth16_verify(k.pvk, in, n, &proof), ZKPIPE_OK);
    keys_free(&k);
    zkpipe_cs_destroy(cs);
    zkpipe_pool_destroy(pool);
}

/* x * x = y for aux x, y; constraint `bad_at` of four gets a wrong y. */
static zkpipe_cs *unsatisfied_circuit(zkpipe_curve curve, size_t bad_at)
{
    zkpipe_cs *cs;
    assert_int_equal(zkpipe_cs_create(&cs, curve, ZKPIPE_CS_WITNESS, NULL), ZKPIPE_OK);
    for (size_t i = 0; i < 4; i++) {
        zkpipe_scalar xv, yv, one;
        zkpipe_var x, y;
        assert_int_equal(zkpipe_scalar_from_i64(&xv, curve, (int64_t)i + 3), ZKPIPE_OK);
        assert_int_equal(
            zkpipe_scalar_from_i64(&yv, curve, (int64_t)((i + 3) * (i + 3)) + (i == bad_at)),
            ZKPIPE_OK);
        assert_int_equal(zkpipe_scalar_from_i64(&one, curve, 1), ZKPIPE_OK);
        assert_int_equal(zkpipe_cs_alloc_aux(cs, &x, &xv), ZKPIPE_OK);
        assert_int_equal(zkpipe_cs_alloc_aux(cs, &y, &yv), ZKPIPE_OK);
        zkpipe_term tx = {x, one}, ty = {y, one};
        assert_int_equal(zkpipe_cs_enforce(cs, &tx, 1, &tx, 1, &ty, 1), ZKPIPE_OK);
    }
    return cs;
}

static void snapshot_is_empty(zkpipe_acct *acct)
{
    zkpipe_snapshot snap;
    assert_int_equal(zkpipe_acct_snapshot(acct, &snap), ZKPIPE_OK);
    assert_int_equal(snap.live_bytes, 0);
}

static void unsatisfied_witness_is_refused(void **state)
{
    (void)state;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    for (size_t c = 0; c < 2; c++) {
        zkpipe_cs *good = unsatisfied_circuit(curves[c], 99);
        keys k;
        keys_make(&k, good, seed1);
        zkpipe_groth16_proof proof;
        assert_int_equal(zkpipe_groth16_prove(&proof, NULL, NULL, k.pk, good, NULL, NULL),
                         ZKPIPE_OK);
        assert_int_equal(zkpipe_groth16_verify(k.pvk, NULL, 0, &proof), ZKPIPE_OK);
        for (size_t bad_at = 0; bad_at < 4; bad_at++) {
            zkpipe_cs *cs = unsatisfied_circuit(curves[c], bad_at);
            size_t first = 1000;
            assert_int_equal(zkpipe_groth16_prove(&proof, &first, NULL, k.pk, cs, NULL, NULL),
                             ZKPIPE_EUNSATISFIED);
            assert_int_equal(first, bad_at);
            /* the engine's entry checks the evaluations itself */
            zkpipe_ledger ledger;
            zkpipe__synth_result res;
            uint64_t r[4], s[4];
            assert_int_equal(random_scalar(r, curves[c]), ZKPIPE_OK);
            assert_int_equal(random_scalar(s, curves[c]), ZKPIPE_OK);
            assert_int_equal(zkpipe_ledger_open(&ledger, acct, ZKPIPE_STAGE_QUEUED), ZKPIPE_OK);
            assert_int_equal(zkpipe__synth(&res, cs, NULL, &ledger), ZKPIPE_OK);
            first = 1000;
            assert_int_equal(
                prove_synth(&proof, &first, NULL, k.pk, &res, r, s, NULL, ZKPIPE_BACKEND_CPU),
                ZKPIPE_EUNSATISFIED);
            assert_int_equal(first, bad_at);
            assert_null(res.a);
            snapshot_is_empty(acct);
            zkpipe_ledger_close(&ledger);
            zkpipe_cs_destroy(cs);
        }
        keys_free(&k);
        zkpipe_cs_destroy(good);
    }
    zkpipe_acct_destroy(acct);
}

/* A key whose delta (G1) is on the curve but outside the prime-order subgroup, changed in
 * memory after setup (a key read from a file has its delta checked): the prover refuses it by
 * its proof points' subgroup check, whatever the key's other checks, and writes no proof. */
static void key_point_outside_the_subgroup_is_refused(void **state)
{
    (void)state;
    zkpipe_cs *cs = test_circuit(ZKPIPE_CURVE_BLS12_381, 4, 1);
    keys k;
    keys_make(&k, cs, seed1);
    bls12_381_g1_affine q;
    bls12_381_fq one, y2;
    memcpy(&q, k.pk->delta1, sizeof q);
    bls12_381_fq_set_one(&one);
    do { /* the next x on the curve: its point is in G1 with probability about 2^-126 */
        bls12_381_fq_add(&q.x, &q.x, &one);
        bls12_381_g1_rhs(&y2, &q.x);
    } while (!bls12_381_fq_sqrt(&q.y, &y2));
    assert_false(bls12_381_g1_is_in_subgroup(&q));
    memcpy((uint64_t *)k.pk->delta1, &q, sizeof q);
    zkpipe_groth16_proof proof;
    memset(&proof, 0x5a, sizeof proof);
    assert_int_equal(zkpipe_groth16_prove(&proof, NULL, NULL, k.pk, cs, NULL, NULL),
                     ZKPIPE_ENOTINSUBGROUP);
    assert_int_equal(proof.bytes[0], 0x5a); /* untouched */
    keys_free(&k);
    zkpipe_cs_destroy(cs);
}

static void ledger_drains_through_proving_and_finalize(void **state)
{
    (void)state;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    for (size_t c = 0; c < 2; c++) {
        zkpipe_cs *cs = test_circuit(curves[c], 6, 1);
        zkpipe_scalar in[8];
        size_t n = public_inputs(in, cs);
        keys k;
        keys_make(&k, cs, seed1);
        zkpipe_ledger ledger;
        zkpipe_groth16_proof proof;
        assert_int_equal(zkpipe_acct_reset_peaks(acct), ZKPIPE_OK);
        assert_int_equal(zkpipe_ledger_open(&ledger, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
        assert_int_equal(zkpipe_groth16_prove(&proof, NULL, NULL, k.pk, cs, NULL, &ledger),
                         ZKPIPE_OK);
        assert_int_equal(zkpipe_ledger_stage(&ledger), ZKPIPE_STAGE_FINALIZE);
        zkpipe_snapshot snap;
        assert_int_equal(zkpipe_acct_snapshot(acct, &snap), ZKPIPE_OK);
        assert_int_equal(snap.live_bytes, 0);
        assert_int_equal(snap.stage[ZKPIPE_STAGE_PROVING].entered, c + 1);
        /* h was charged while proving, 32 bytes per row of the 2^6 domain */
        assert_int_equal(snap.stage[ZKPIPE_STAGE_PROVING].kind[ZKPIPE_KIND_H].peak_bytes, 64 * 32);
        assert_int_equal(snap.stage[ZKPIPE_STAGE_PROVING].kind[ZKPIPE_KIND_H].live_bytes, 0);
        uint64_t abc = snap.stage[ZKPIPE_STAGE_PROVING].kind[ZKPIPE_KIND_ABC].peak_bytes;
        assert_int_equal(abc, 3 * 64 * 32);
        zkpipe_ledger_close(&ledger);
        assert_int_equal(zkpipe_groth16_verify(k.pvk, in, n, &proof), ZKPIPE_OK);
        /* a ledger that cannot move (closed) stops the prover before any work */
        assert_int_equal(zkpipe_groth16_prove(&proof, NULL, NULL, k.pk, cs, NULL, &ledger),
                         ZKPIPE_EINVAL);
        snapshot_is_empty(acct);
        keys_free(&k);
        zkpipe_cs_destroy(cs);
    }
    zkpipe_acct_destroy(acct);
}

static void keys_round_trip(void **state)
{
    (void)state;
    for (size_t c = 0; c < 2; c++) {
        zkpipe_cs *cs = test_circuit(curves[c], 4, 1);
        zkpipe_scalar in[8];
        size_t n = public_inputs(in, cs);
        keys k;
        keys_make(&k, cs, seed1);
        size_t vlen, plen, len2;
        assert_int_equal(zkpipe_groth16_vk_encode(NULL, 0, &vlen, k.vk), ZKPIPE_OK);
        assert_int_equal(zkpipe_groth16_pk_encode(NULL, 0, &plen, k.pk), ZKPIPE_OK);
        uint8_t *vb = test_malloc(vlen), *pb = test_malloc(plen), *again = test_malloc(plen);
        assert_int_equal(zkpipe_groth16_vk_encode(vb, vlen - 1, &len2, k.vk), ZKPIPE_ELIMIT);
        assert_int_equal(len2, vlen);
        assert_int_equal(zkpipe_groth16_vk_encode(vb, vlen, &len2, k.vk), ZKPIPE_OK);
        assert_int_equal(zkpipe_groth16_pk_encode(pb, plen, &len2, k.pk), ZKPIPE_OK);

        keys d = {0};
        assert_int_equal(zkpipe_groth16_vk_decode(&d.vk, vb, vlen, NULL), ZKPIPE_OK);
        assert_int_equal(zkpipe_groth16_pk_decode(&d.pk, pb, plen, NULL), ZKPIPE_OK);
        assert_int_equal(zkpipe_groth16_vk_curve(d.vk), curves[c]);
        assert_int_equal(zkpipe_groth16_pk_curve(d.pk), curves[c]);
        assert_int_equal(zkpipe_groth16_vk_num_inputs(d.vk), n + 1);
        assert_int_equal(zkpipe_groth16_pk_num_inputs(d.pk), n + 1);
        assert_int_equal(zkpipe_groth16_pk_num_aux(d.pk), zkpipe_cs_num_aux(cs));
        assert_int_equal(zkpipe_groth16_pk_sizeof(d.pk), zkpipe_groth16_pk_sizeof(k.pk));
        assert_int_equal(zkpipe_groth16_pk_encode(again, plen, &len2, d.pk), ZKPIPE_OK);
        assert_memory_equal(again, pb, plen);
        assert_int_equal(zkpipe_groth16_pvk_create(&d.pvk, d.vk, NULL), ZKPIPE_OK);
        zkpipe_groth16_proof proof, decoded;
        assert_int_equal(zkpipe_groth16_prove(&proof, NULL, NULL, d.pk, cs, NULL, NULL), ZKPIPE_OK);
        assert_int_equal(zkpipe_groth16_verify(d.pvk, in, n, &proof), ZKPIPE_OK);
        assert_int_equal(zkpipe_groth16_verify(k.pvk, in, n, &proof), ZKPIPE_OK);
        assert_int_equal(zkpipe_groth16_proof_decode(&decoded, curves[c], proof.bytes, proof.size),
                         ZKPIPE_OK);
        assert_memory_equal(&decoded.bytes, &proof.bytes, proof.size);
        assert_int_equal(
            zkpipe_groth16_proof_decode(&decoded, curves[c], proof.bytes, proof.size - 1),
            ZKPIPE_EFORMAT);
        assert_int_equal(
            zkpipe_groth16_proof_decode(&decoded, ZKPIPE_CURVE_COUNT, proof.bytes, proof.size),
            ZKPIPE_EINVAL);
        uint8_t junk[ZKPIPE_GROTH16_PROOF_MAX_BYTES];
        memcpy(junk, proof.bytes, proof.size);
        junk[proof.size - 1] ^= 1; /* C's last coordinate byte */
        assert_int_not_equal(zkpipe_groth16_proof_decode(&decoded, curves[c], junk, proof.size),
                             ZKPIPE_OK);

        /* malformed files */
        zkpipe_groth16_vk *vk = NULL;
        zkpipe_groth16_pk *pk = NULL;
        assert_int_equal(zkpipe_groth16_vk_decode(&vk, vb, vlen - 1, NULL), ZKPIPE_EFORMAT);
        assert_int_equal(zkpipe_groth16_vk_decode(&vk, vb, 10, NULL), ZKPIPE_EFORMAT);
        assert_int_equal(zkpipe_groth16_pk_decode(&pk, pb, plen + 1, NULL), ZKPIPE_EFORMAT);
        assert_int_equal(zkpipe_groth16_pk_decode(&pk, vb, vlen, NULL), ZKPIPE_EFORMAT);
        vb[8]++; /* version */
        assert_int_equal(zkpipe_groth16_vk_decode(&vk, vb, vlen, NULL), ZKPIPE_EFORMAT);
        vb[8]--;
        vb[12] = 7; /* curve */
        assert_int_equal(zkpipe_groth16_vk_decode(&vk, vb, vlen, NULL), ZKPIPE_EFORMAT);
        vb[12] = (uint8_t)curves[c];
        vb[vlen - 1] ^= 1; /* the last IC point leaves the curve */
        assert_int_not_equal(zkpipe_groth16_vk_decode(&vk, vb, vlen, NULL), ZKPIPE_OK);
        pb[plen - 1] ^= 1; /* the last H point */
        assert_int_not_equal(zkpipe_groth16_pk_decode(&pk, pb, plen, NULL), ZKPIPE_OK);
        assert_null(vk);
        assert_null(pk);
        assert_int_equal(zkpipe_groth16_vk_decode(NULL, vb, vlen, NULL), ZKPIPE_EINVAL);
        assert_int_equal(zkpipe_groth16_pk_decode(&pk, NULL, plen, NULL), ZKPIPE_EINVAL);
        assert_int_equal(zkpipe_groth16_vk_encode(vb, vlen, NULL, k.vk), ZKPIPE_EINVAL);
        assert_int_equal(zkpipe_groth16_pk_encode(pb, plen, &len2, NULL), ZKPIPE_EINVAL);

        test_free(vb);
        test_free(pb);
        test_free(again);
        keys_free(&d);
        keys_free(&k);
        zkpipe_cs_destroy(cs);
    }
}

/* x public; y = x^2, w = y + x, v = w^2, u = x v (or v x with `swap`, which moves v from A to
 * B and x from B to A). Variables: one, x | y, w, v, u. Without swap, A holds one, x, y, w, v
 * (not u) and B holds one, x, w (not y, v, u); with swap, A: one, x, y, w; B: one, x, w, v. */
static zkpipe_cs *sparse_circuit(zkpipe_curve curve, int swap)
{
    zkpipe_cs *cs;
    int64_t x = 3, y = x * x, w = y + x, v = w * w, u = x * v;
    zkpipe_scalar val, one;
    zkpipe_var vx, vy, vw, vv, vu;
    assert_int_equal(zkpipe_cs_create(&cs, curve, ZKPIPE_CS_WITNESS, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_scalar_from_i64(&one, curve, 1), ZKPIPE_OK);
    const int64_t values[5] = {x, y, w, v, u};
    zkpipe_var *vars[5] = {&vx, &vy, &vw, &vv, &vu};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(zkpipe_scalar_from_i64(&val, curve, values[i]), ZKPIPE_OK);
        assert_int_equal(i == 0 ? zkpipe_cs_alloc_input(cs, vars[i], &val)
                                : zkpipe_cs_alloc_aux(cs, vars[i], &val),
                         ZKPIPE_OK);
    }
    zkpipe_term tx = {vx, one}, ty = {vy, one}, tw = {vw, one}, tv = {vv, one}, tu = {vu, one};
    zkpipe_term t1 = {ZKPIPE_VAR_ONE, one}, yx[2] = {ty, tx};
    assert_int_equal(zkpipe_cs_enforce(cs, &tx, 1, &tx, 1, &ty, 1), ZKPIPE_OK);
    assert_int_equal(zkpipe_cs_enforce(cs, yx, 2, &t1, 1, &tw, 1), ZKPIPE_OK);
    assert_int_equal(zkpipe_cs_enforce(cs, &tw, 1, &tw, 1, &tv, 1), ZKPIPE_OK);
    if (swap)
        assert_int_equal(zkpipe_cs_enforce(cs, &tx, 1, &tv, 1, &tu, 1), ZKPIPE_OK);
    else
        assert_int_equal(zkpipe_cs_enforce(cs, &tv, 1, &tx, 1, &tu, 1), ZKPIPE_OK);
    return cs;
}

/* Uncompressed point sizes of the key files, per curve. */
static size_t key_g1_bytes(zkpipe_curve curve)
{
    return curve == ZKPIPE_CURVE_BLS12_381 ? 96 : 64;
}

/* Where the density bitmaps start in a proving key file. */
static size_t pk_bitmaps_at(zkpipe_curve curve)
{
    return 16 + 40 + 3 * key_g1_bytes(curve) + 2 * 2 * key_g1_bytes(curve);
}

static void sparse_queries_hold_only_dense_variables(void **state)
{
    (void)state;
    for (size_t c = 0; c < 2; c++) {
        zkpipe_cs *cs = sparse_circuit(curves[c], 0);
        zkpipe_scalar in[8];
        size_t n = public_inputs(in, cs);
        keys k;
        keys_make(&k, cs, seed1);
        assert_int_equal(zkpipe_groth16_pk_num_a(k.pk), 5);
        assert_int_equal(zkpipe_groth16_pk_num_b(k.pk), 3);
        /* log_n = 3 (4 constraints + 2 inputs); one density word per bitmap */
        size_t g1 = key_g1_bytes(curves[c]), g2 = 2 * g1, plen;
        assert_int_equal(zkpipe_groth16_pk_encode(NULL, 0, &plen, k.pk), ZKPIPE_OK);
        assert_int_equal(plen, pk_bitmaps_at(curves[c]) + 16 + (5 + 3 + 4 + 7) * g1 + 3 * g2);
        zkpipe_groth16_proof proof;
        assert_int_equal(zkpipe_groth16_prove(&proof, NULL, NULL, k.pk, cs, NULL, NULL), ZKPIPE_OK);
        assert_int_equal(zkpipe_groth16_verify(k.pvk, in, n, &proof), ZKPIPE_OK);

        uint8_t *pb = test_malloc(plen);
        assert_int_equal(zkpipe_groth16_pk_encode(pb, plen, &plen, k.pk), ZKPIPE_OK);
        uint8_t *bits = pb + pk_bitmaps_at(curves[c]);
        assert_int_equal(zkpipe__get_le64(bits), 0x1f);    /* one, x, y, w, v */
        assert_int_equal(zkpipe__get_le64(bits + 8), 0xb); /* one, x, w */
        zkpipe_groth16_pk *pk = NULL;
        assert_int_equal(zkpipe_groth16_pk_decode(&pk, pb, plen, NULL), ZKPIPE_OK);
        assert_int_equal(zkpipe_groth16_pk_num_a(pk), 5);
        assert_int_equal(zkpipe_groth16_pk_num_b(pk), 3);
        assert_int_equal(zkpipe_groth16_prove(&proof, NULL, NULL, pk, cs, NULL, NULL), ZKPIPE_OK);
        assert_int_equal(zkpipe_groth16_verify(k.pvk, in, n, &proof), ZKPIPE_OK);
        zkpipe_groth16_pk_destroy(pk);
        pk = NULL;

        /* counts (at 40 and 48) that disagree with the bitmaps, with the length kept (a B
         * point takes the bytes of three A points): A - 3, B + 1 */
        zkpipe__put_le64(pb + 40, 2);
        zkpipe__put_le64(pb + 48, 4);
        assert_int_equal(zkpipe_groth16_pk_decode(&pk, pb, plen, NULL), ZKPIPE_EFORMAT);
        zkpipe__put_le64(pb + 48, 7); /* more than the variables */
        assert_int_equal(zkpipe_groth16_pk_decode(&pk, pb, plen, NULL), ZKPIPE_EFORMAT);
        zkpipe__put_le64(pb + 40, 5);
        zkpipe__put_le64(pb + 48, 3);
        assert_int_equal(zkpipe_groth16_pk_decode(&pk, pb, plen, NULL), ZKPIPE_OK);
        zkpipe_groth16_pk_destroy(pk);
        pk = NULL;
        /* a bit past the six variables */
        zkpipe__put_le64(bits + 8, 0x4b & ~(uint64_t)0x8);
        assert_int_equal(zkpipe_groth16_pk_decode(&pk, pb, plen, NULL), ZKPIPE_EFORMAT);
        /* an input missing from A, the count kept (u instead of one) */
        zkpipe__put_le64(bits + 8, 0xb);
        zkpipe__put_le64(bits, 0x3e);
        assert_int_equal(zkpipe_groth16_pk_decode(&pk, pb, plen, NULL), ZKPIPE_EFORMAT);
        /* a well-formed key for another density (y in B instead of w) decodes, and the
         * prover then refuses this witness */
        zkpipe__put_le64(bits, 0x1f);
        zkpipe__put_le64(bits + 8, 0x7);
        assert_int_equal(zkpipe_groth16_pk_decode(&pk, pb, plen, NULL), ZKPIPE_OK);
        assert_int_equal(zkpipe_groth16_prove(&proof, NULL, NULL, pk, cs, NULL, NULL),
                         ZKPIPE_EMISMATCH);
        zkpipe_groth16_pk_destroy(pk);
        test_free(pb);
        keys_free(&k);
        zkpipe_cs_destroy(cs);
    }
}

/* The built-in circuit's key holds as many A and B points as synthesis finds dense
 * variables, every input among the A ones; that circuit has variables absent from B. */
static void key_counts_match_synthesis_density(void **state)
{
    (void)state;
    for (size_t c = 0; c < 2; c++) {
        zkpipe_cs *cs = test_circuit(curves[c], 6, 3);
        keys k;
        keys_make(&k, cs, seed1);
        zkpipe__synth_result res;
        assert_int_equal(zkpipe__synth(&res, cs, NULL, NULL), ZKPIPE_OK);
        size_t count[2] = {0, 0}, nv = res.num_inputs + res.num_aux;
        for (int q = 0; q < 2; q++)
            for (size_t v = 0; v < nv; v++)
                count[q] += (size_t)zkpipe__density_test(res.density + q * res.density_words, v);
        for (size_t v = 0; v < res.num_inputs; v++)
            assert_true(zkpipe__density_test(res.density, v));
        assert_int_equal(zkpipe_groth16_pk_num_a(k.pk), count[0]);
        assert_int_equal(zkpipe_groth16_pk_num_b(k.pk), count[1]);
        assert_int_equal(count[0], nv); /* every variable of the hash chain is in some A row */
        assert_true(count[1] < nv);     /* but not in some B row */
        zkpipe__synth_free(&res);
        keys_free(&k);
        zkpipe_cs_destroy(cs);
    }
}

/* A witness whose constraints put other variables in A or B than the key's circuit does is
 * refused, though the counts agree, and nothing stays charged. */
static void density_mismatch_is_refused(void **state)
{
    (void)state;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    for (size_t c = 0; c < 2; c++) {
        zkpipe_cs *cs = sparse_circuit(curves[c], 0), *swapped = sparse_circuit(curves[c], 1);
        keys k;
        keys_make(&k, cs, seed1);
        zkpipe_groth16_proof proof;
        zkpipe_ledger ledger;
        assert_int_equal(zkpipe_ledger_open(&ledger, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
        assert_int_equal(zkpipe_groth16_prove(&proof, NULL, NULL, k.pk, swapped, NULL, &ledger),
                         ZKPIPE_EMISMATCH);
        snapshot_is_empty(acct);
        zkpipe_ledger_close(&ledger);
        zkpipe__synth_result res;
        uint64_t r[4] = {1}, s[4] = {1};
        assert_int_equal(zkpipe__synth(&res, swapped, NULL, NULL), ZKPIPE_OK);
        assert_int_equal(
            prove_synth(&proof, NULL, NULL, k.pk, &res, r, s, NULL, ZKPIPE_BACKEND_CPU),
            ZKPIPE_EMISMATCH);
        assert_null(res.density);
        /* the swapped circuit has its own key, with its own counts */
        keys k2;
        keys_make(&k2, swapped, seed1);
        assert_int_equal(zkpipe_groth16_pk_num_a(k2.pk), 4);
        assert_int_equal(zkpipe_groth16_pk_num_b(k2.pk), 4);
        zkpipe_scalar in[8];
        size_t n = public_inputs(in, swapped);
        assert_int_equal(zkpipe_groth16_prove(&proof, NULL, NULL, k2.pk, swapped, NULL, NULL),
                         ZKPIPE_OK);
        assert_int_equal(zkpipe_groth16_verify(k2.pvk, in, n, &proof), ZKPIPE_OK);
        keys_free(&k2);
        keys_free(&k);
        zkpipe_cs_destroy(swapped);
        zkpipe_cs_destroy(cs);
    }
    zkpipe_acct_destroy(acct);
}

/* Naive: interpolate by the inverse DFT, multiply, subtract, divide by x^n - 1. */
static void naive_h(bls12_381_fr *h, const bls12_381_fr *a, const bls12_381_fr *b,
                    const bls12_381_fr *c, unsigned log_n)
{
    size_t n = (size_t)1 << log_n;
    bls12_381_fr w, winv, ninv, ca[64], cb[64], cc[64], p[128];
    assert_true(n <= 64);
    assert_int_equal(zkpipe__bls12_381_fr_root_of_unity(&w, log_n), ZKPIPE_OK);
    bls12_381_fr_inv(&winv, &w);
    bls12_381_fr_from_u64(&ninv, n);
    bls12_381_fr_inv(&ninv, &ninv);
    const bls12_381_fr *ev[3] = {a, b, c};
    bls12_381_fr *co[3] = {ca, cb, cc};
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < n; i++) {
            bls12_381_fr acc, x, t;
            bls12_381_fr_set_zero(&acc);
            uint64_t e = (uint64_t)i;
            bls12_381_fr_pow(&x, &winv, &e, 1); /* w^-i */
            bls12_381_fr_set_one(&t);
            for (size_t j = 0; j < n; j++) {
                bls12_381_fr m;
                bls12_381_fr_mul(&m, &ev[k][j], &t);
                bls12_381_fr_add(&acc, &acc, &m);
                bls12_381_fr_mul(&t, &t, &x);
            }
            bls12_381_fr_mul(&co[k][i], &acc, &ninv);
        }
    }
    for (size_t i = 0; i < 2 * n; i++)
        bls12_381_fr_set_zero(&p[i]);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            bls12_381_fr m;
            bls12_381_fr_mul(&m, &ca[i], &cb[j]);
            bls12_381_fr_add(&p[i + j], &p[i + j], &m);
        }
    for (size_t i = 0; i < n; i++)
        bls12_381_fr_sub(&p[i], &p[i], &cc[i]);
    /* p = h (x^n - 1): h_i = p_{n+i}, and the remainder p_i + p_{n+i} must vanish */
    for (size_t i = 0; i < n; i++) {
        bls12_381_fr rem;
        h[i] = p[n + i];
        bls12_381_fr_add(&rem, &p[i], &p[n + i]);
        assert_true(bls12_381_fr_is_zero(&rem));
    }
}

static void ntt_quotient_matches_naive_division(void **state)
{
    (void)state;
    zkpipe_cs *cs = test_circuit(ZKPIPE_CURVE_BLS12_381, 5, 2);
    zkpipe__synth_result res;
    assert_int_equal(zkpipe__synth(&res, cs, NULL, NULL), ZKPIPE_OK);
    size_t n = res.n;
    bls12_381_fr a[32], b[32], c[32], want[32], got[32];
    assert_int_equal(n, 32);
    memcpy(a, res.a, sizeof a);
    memcpy(b, res.b, sizeof b);
    memcpy(c, res.c, sizeof c);
    naive_h(want, a, b, c, res.log_n);
    const zkpipe__curve_ops *ops = zkpipe__curve_ops_for(ZKPIPE_CURVE_BLS12_381);
    uint64_t shift[4];
    ops->fr_from_u64(shift, 5);
    memcpy(got, a, sizeof got);
    assert_int_equal(zkpipe__g16_backend_cpu.h(ops, got[0].l, res.b, res.c, res.log_n, shift, 1,
                                               NULL, NULL, zkpipe__allocator_or_default(NULL)),
                     ZKPIPE_OK);
    assert_memory_equal(got, want, sizeof got);
    assert_true(bls12_381_fr_is_zero(&got[n - 1])); /* degree n - 2 */
    zkpipe__synth_free(&res);
    zkpipe_cs_destroy(cs);
}

static void argument_errors(void **state)
{
    (void)state;
    zkpipe_cs *cs = test_circuit(ZKPIPE_CURVE_BN254, 4, 1);
    zkpipe_cs *other = test_circuit(ZKPIPE_CURVE_BN254, 5, 1);
    zkpipe_cs *bls = test_circuit(ZKPIPE_CURVE_BLS12_381, 4, 1);
    zkpipe_cs *shape;
    keys k;
    keys_make(&k, cs, seed1);
    zkpipe_groth16_proof proof;
    zkpipe_groth16_pk *pk;
    zkpipe_groth16_vk *vk;
    zkpipe_allocator incomplete = {NULL, NULL, NULL};
    assert_int_equal(zkpipe_groth16_setup_insecure(NULL, &vk, cs, seed1, NULL, NULL),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_groth16_setup_insecure(&pk, NULL, cs, seed1, NULL, NULL),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_groth16_setup_insecure(&pk, &vk, NULL, seed1, NULL, NULL),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_groth16_setup_insecure(&pk, &vk, cs, NULL, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_groth16_setup_insecure(&pk, &vk, cs, seed1, NULL, &incomplete),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_groth16_prove(NULL, NULL, NULL, k.pk, cs, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_groth16_prove(&proof, NULL, NULL, NULL, cs, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_groth16_prove(&proof, NULL, NULL, k.pk, NULL, NULL, NULL),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_groth16_prove(&proof, NULL, NULL, k.pk, other, NULL, NULL),
                     ZKPIPE_EMISMATCH);
    assert_int_equal(zkpipe_groth16_prove(&proof, NULL, NULL, k.pk, bls, NULL, NULL),
                     ZKPIPE_EMISMATCH);
    assert_int_equal(zkpipe_cs_create(&shape, ZKPIPE_CURVE_BN254, ZKPIPE_CS_SHAPE, NULL),
                     ZKPIPE_OK);
    assert_int_equal(zkpipe_groth16_prove(&proof, NULL, NULL, k.pk, shape, NULL, NULL),
                     ZKPIPE_ESTATE);
    /* the engine's entry refuses a result of another shape, and still frees it */
    zkpipe__synth_result res;
    uint64_t r[4] = {1}, s[4] = {1};
    assert_int_equal(zkpipe__synth(&res, other, NULL, NULL), ZKPIPE_OK);
    assert_int_equal(prove_synth(&proof, NULL, NULL, k.pk, &res, r, s, NULL, ZKPIPE_BACKEND_CPU),
                     ZKPIPE_EMISMATCH);
    assert_null(res.aux);
    /* a backend this build lacks: refused, and the result is still freed */
    assert_int_equal(zkpipe__synth(&res, cs, NULL, NULL), ZKPIPE_OK);
    zkpipe_backend gpu;
    if (zkpipe_backend_resolve(&gpu, ZKPIPE_BACKEND_CUDA, NULL) == ZKPIPE_ENODEVICE) {
        assert_int_equal(
            prove_synth(&proof, NULL, NULL, k.pk, &res, r, s, NULL, ZKPIPE_BACKEND_CUDA),
            ZKPIPE_ENODEVICE);
        assert_null(res.aux);
    } else {
        zkpipe__synth_free(&res);
    }
    assert_int_equal(zkpipe_groth16_pvk_create(NULL, k.vk, NULL), ZKPIPE_EINVAL);
    zkpipe_groth16_pvk *pvk;
    assert_int_equal(zkpipe_groth16_pvk_create(&pvk, NULL, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_groth16_pvk_create(&pvk, k.vk, &incomplete), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_groth16_pk_curve(NULL), ZKPIPE_CURVE_COUNT);
    assert_int_equal(zkpipe_groth16_vk_curve(NULL), ZKPIPE_CURVE_COUNT);
    assert_int_equal(zkpipe_groth16_pk_num_inputs(NULL), 0);
    assert_int_equal(zkpipe_groth16_pk_num_aux(NULL), 0);
    assert_int_equal(zkpipe_groth16_pk_num_a(NULL), 0);
    assert_int_equal(zkpipe_groth16_pk_num_b(NULL), 0);
    assert_int_equal(zkpipe_groth16_vk_num_inputs(NULL), 0);
    assert_int_equal(zkpipe_groth16_pk_sizeof(NULL), 0);
    zkpipe_groth16_pk_destroy(NULL);
    zkpipe_groth16_vk_destroy(NULL);
    zkpipe_groth16_pvk_destroy(NULL);
    keys_free(&k);
    zkpipe_cs_destroy(shape);
    zkpipe_cs_destroy(bls);
    zkpipe_cs_destroy(other);
    zkpipe_cs_destroy(cs);
}

/* Setup works from a shape-mode system, and the seed fixes the keys. */
static void setup_is_deterministic_and_shape_only(void **state)
{
    (void)state;
    zkpipe_cs *cs = test_circuit(ZKPIPE_CURVE_BLS12_381, 4, 1);
    zkpipe_cs *shape;
    assert_int_equal(zkpipe_cs_create(&shape, ZKPIPE_CURVE_BLS12_381, ZKPIPE_CS_SHAPE, NULL),
                     ZKPIPE_OK);
    assert_int_equal(zkpipe_testcircuit_build(shape, 4, 42, 1), ZKPIPE_OK);
    keys k1, k2;
    keys_make(&k1, cs, seed1);
    keys_make(&k2, shape, seed1);
    size_t len1, len2;
    assert_int_equal(zkpipe_groth16_vk_encode(NULL, 0, &len1, k1.vk), ZKPIPE_OK);
    uint8_t *b1 = test_malloc(len1), *b2 = test_malloc(len1);
    assert_int_equal(zkpipe_groth16_vk_encode(b1, len1, &len2, k1.vk), ZKPIPE_OK);
    assert_int_equal(zkpipe_groth16_vk_encode(b2, len1, &len2, k2.vk), ZKPIPE_OK);
    assert_memory_equal(b1, b2, len1);
    zkpipe_scalar in[8];
    size_t n = public_inputs(in, cs);
    zkpipe_groth16_proof proof;
    assert_int_equal(zkpipe_groth16_prove(&proof, NULL, NULL, k2.pk, cs, NULL, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_groth16_verify(k1.pvk, in, n, &proof), ZKPIPE_OK);
    test_free(b1);
    test_free(b2);
    keys_free(&k1);
    keys_free(&k2);
    zkpipe_cs_destroy(shape);
    zkpipe_cs_destroy(cs);
}

/* Every allocation of setup, pvk creation, proving and key decoding may fail cleanly. */
typedef struct walk_ctx {
    zkpipe_cs *cs;
    keys k;
    uint8_t *vk_bytes, *pk_bytes;
    size_t vk_len, pk_len;
    zkpipe_acct *acct;
} walk_ctx;

static int walk_setup(void *arg, const zkpipe_allocator *a)
{
    walk_ctx *w = (walk_ctx *)arg;
    zkpipe_groth16_pk *pk;
    zkpipe_groth16_vk *vk;
    zkpipe_groth16_pvk *pvk;
    zkpipe_status st = zkpipe_groth16_setup_insecure(&pk, &vk, w->cs, seed1, NULL, a);
    if (st != ZKPIPE_OK)
        return st;
    st = zkpipe_groth16_pvk_create(&pvk, vk, a);
    if (st == ZKPIPE_OK)
        zkpipe_groth16_pvk_destroy(pvk);
    zkpipe_groth16_pk_destroy(pk);
    zkpipe_groth16_vk_destroy(vk);
    return st;
}

static int walk_decode(void *arg, const zkpipe_allocator *a)
{
    walk_ctx *w = (walk_ctx *)arg;
    zkpipe_groth16_vk *vk;
    zkpipe_groth16_pk *pk;
    zkpipe_status st = zkpipe_groth16_vk_decode(&vk, w->vk_bytes, w->vk_len, a);
    if (st != ZKPIPE_OK)
        return st;
    zkpipe_groth16_vk_destroy(vk);
    st = zkpipe_groth16_pk_decode(&pk, w->pk_bytes, w->pk_len, a);
    if (st == ZKPIPE_OK)
        zkpipe_groth16_pk_destroy(pk);
    return st;
}

static int walk_prove(void *arg, const zkpipe_allocator *a)
{
    walk_ctx *w = (walk_ctx *)arg;
    zkpipe_cs *cs;
    zkpipe_groth16_pk *pk;
    zkpipe_groth16_proof proof;
    zkpipe_ledger ledger;
    /* the key and the system take the failing allocator: the prover allocates through both.
     * The key is decoded, not set up again: walk_setup walks setup's allocations, and a setup
     * per step would repeat them (and its work) before every allocation of the prover. */
    zkpipe_status st = zkpipe_cs_create(&cs, ZKPIPE_CURVE_BN254, ZKPIPE_CS_WITNESS, a);
    if (st != ZKPIPE_OK)
        return st;
    if ((st = zkpipe_testcircuit_build(cs, 4, 42, 1)) != ZKPIPE_OK) {
        zkpipe_cs_destroy(cs);
        return st;
    }
    if ((st = zkpipe_groth16_pk_decode(&pk, w->pk_bytes, w->pk_len, a)) != ZKPIPE_OK) {
        zkpipe_cs_destroy(cs);
        return st;
    }
    assert_int_equal(zkpipe_ledger_open(&ledger, w->acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
    st = zkpipe_groth16_prove(&proof, NULL, NULL, pk, cs, NULL, &ledger);
    zkpipe_snapshot snap;
    assert_int_equal(zkpipe_acct_snapshot(w->acct, &snap), ZKPIPE_OK);
    assert_int_equal(snap.live_bytes, 0);
    zkpipe_ledger_close(&ledger);
    if (st == ZKPIPE_OK) {
        zkpipe_scalar in[8];
        size_t n = public_inputs(in, cs);
        assert_int_equal(zkpipe_groth16_verify(w->k.pvk, in, n, &proof), ZKPIPE_OK);
    }
    zkpipe_groth16_pk_destroy(pk);
    zkpipe_cs_destroy(cs);
    return st;
}

static void allocation_failures_are_clean(void **state)
{
    (void)state;
    walk_ctx w;
    w.cs = test_circuit(ZKPIPE_CURVE_BN254, 4, 1);
    keys_make(&w.k, w.cs, seed1);
    assert_int_equal(zkpipe_acct_create(NULL, &w.acct), ZKPIPE_OK);
    assert_int_equal(zkpipe_groth16_vk_encode(NULL, 0, &w.vk_len, w.k.vk), ZKPIPE_OK);
    w.vk_bytes = test_malloc(w.vk_len);
    assert_int_equal(zkpipe_groth16_vk_encode(w.vk_bytes, w.vk_len, &w.vk_len, w.k.vk), ZKPIPE_OK);
    assert_int_equal(zkpipe_groth16_pk_encode(NULL, 0, &w.pk_len, w.k.pk), ZKPIPE_OK);
    w.pk_bytes = test_malloc(w.pk_len);
    assert_int_equal(zkpipe_groth16_pk_encode(w.pk_bytes, w.pk_len, &w.pk_len, w.k.pk), ZKPIPE_OK);
    assert_true(fail_alloc_walk(walk_setup, NULL, &w) >= 6);
    assert_true(fail_alloc_walk(walk_decode, NULL, &w) >= 2);
    assert_true(fail_alloc_walk(walk_prove, NULL, &w) >= 10);
    test_free(w.vk_bytes);
    test_free(w.pk_bytes);
    zkpipe_acct_destroy(w.acct);
    keys_free(&w.k);
    zkpipe_cs_destroy(w.cs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_proofs_verify),
        cmocka_unit_test(tampered_proofs_fail),
        cmocka_unit_test(given_blinding_gives_the_same_proof),
        cmocka_unit_test(proof_bytes_are_unchanged),
        cmocka_unit_test(cpu_prover_starts_no_thread),
        cmocka_unit_test(unsatisfied_witness_is_refused),
        cmocka_unit_test(key_point_outside_the_subgroup_is_refused),
        cmocka_unit_test(ledger_drains_through_proving_and_finalize),
        cmocka_unit_test(keys_round_trip),
        cmocka_unit_test(sparse_queries_hold_only_dense_variables),
        cmocka_unit_test(key_counts_match_synthesis_density),
        cmocka_unit_test(density_mismatch_is_refused),
        cmocka_unit_test(ntt_quotient_matches_naive_division),
        cmocka_unit_test(argument_errors),
        cmocka_unit_test(setup_is_deterministic_and_shape_only),
        cmocka_unit_test(allocation_failures_are_clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
