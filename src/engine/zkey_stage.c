/* The built-in stage operations of circom partitions (zkpipe/stages.h): a witness file mapped
 * and a, b, c computed from the zkey's coefficients on a synthesis worker, the one prover on a
 * prover worker, the proof checked against the zkey's verifying key. */
#include <string.h>

#include "core/alloc_internal.h"
#include "core/detail.h"
#include "groth16/prove.h"
#include "zkpipe/stages.h"

struct zkpipe_zkey_source {
    zkpipe_allocator allocator;
    const zkpipe_zkey *zkey;
    const zkpipe_groth16_pk *pk;
    zkpipe_groth16_pvk *pvk;
};

zkpipe_status zkpipe_zkey_source_create(zkpipe_zkey_source **out, const zkpipe_zkey *zkey,
                                        const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out == NULL || zkey == NULL || a == NULL)
        return ZKPIPE_EINVAL;
    zkpipe_zkey_source *s = zkpipe__calloc(a, 1, sizeof *s, _Alignof(zkpipe_zkey_source));
    if (s == NULL)
        return ZKPIPE_ENOMEM;
    s->allocator = *a;
    s->zkey = zkey;
    s->pk = zkpipe_zkey_pk(zkey);
    zkpipe_groth16_vk *vk;
    zkpipe_status st = zkpipe_zkey_vk(&vk, zkey, a);
    if (st == ZKPIPE_OK) {
        st = zkpipe_groth16_pvk_create(&s->pvk, vk, a);
        zkpipe_groth16_vk_destroy(vk);
    }
    if (st != ZKPIPE_OK) {
        zkpipe__free(a, s);
        return st;
    }
    *out = s;
    return ZKPIPE_OK;
}

void zkpipe_zkey_source_destroy(zkpipe_zkey_source *source)
{
    if (source == NULL)
        return;
    zkpipe_groth16_pvk_destroy(source->pvk);
    zkpipe_allocator a = source->allocator;
    zkpipe__free(&a, source);
}

/* What synthesis hands to proving: the mapped witness and a, b, c. */
typedef struct zkey_item {
    zkpipe_wtns *wtns;
    zkpipe__synth_result res;
} zkey_item;

/* A .wtns as circom writes it: the container (12 bytes), two section headers (12 each), the
 * header section (n8, r, the count: 40 bytes), then the values. */
#define WTNS_OVERHEAD 76

static zkpipe_status estimate(const zkpipe_stage_call *call, uint64_t *bytes)
{
    const zkpipe_zkey_partition *p = call->ctx;
    const zkpipe_groth16_pk *pk = p->source->pk;
    uint64_t nv = (uint64_t)pk->num_inputs + pk->num_aux, n = (uint64_t)1 << pk->log_n;
    /* The mapping, and its aligned copy (circom's values start 4 bytes off a multiple of 8). */
    uint64_t wtns = WTNS_OVERHEAD + 2 * ZKPIPE__FR_BYTES * nv;
    uint64_t abc = 3 * ZKPIPE__FR_BYTES * n;
    *bytes = zkpipe__g16_prove_peak_bytes(pk, call->prover_threads, wtns + abc);
    return *bytes == UINT64_MAX ? ZKPIPE_EOVERFLOW : ZKPIPE_OK;
}

static void item_free(const zkpipe_stage_call *call, zkey_item *zi)
{
    zkpipe__synth_free(&zi->res);
    zkpipe_wtns_destroy(zi->wtns);
    zkpipe__free(call->allocator, zi);
}

static zkpipe_status synthesize(const zkpipe_stage_call *call, void **item)
{
    const zkpipe_zkey_partition *p = call->ctx;
    const zkpipe_groth16_pk *pk = p->source->pk;
    char *detail = call->detail;
    size_t cap = call->detail_cap;
    if (p->wtns_path == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_EINVAL, "no witness file");
    zkey_item *zi = zkpipe__calloc(call->allocator, 1, sizeof *zi, _Alignof(zkey_item));
    if (zi == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_ENOMEM, "%s: out of memory", p->wtns_path);
    zkpipe_io_options opts;
    zkpipe_io_options_init(&opts);
    opts.allocator = call->allocator;
    opts.ledger = call->ledger;
    char why[ZKPIPE_DETAIL_MAX];
    zkpipe_status st = zkpipe_wtns_open(&zi->wtns, why, sizeof why, p->wtns_path, &opts);
    if (st != ZKPIPE_OK) {
        zkpipe__free(call->allocator, zi);
        return zkpipe__fail(detail, cap, st, "%s: %s", p->wtns_path, why);
    }
    size_t count = zkpipe_wtns_count(zi->wtns), nv = pk->num_inputs + pk->num_aux;
    if (zkpipe_wtns_curve(zi->wtns) != pk->c->curve)
        st = zkpipe__fail(detail, cap, ZKPIPE_EMISMATCH,
                          "%s: the witness is for %s, the zkey for %s", p->wtns_path,
                          zkpipe_curve_name(zkpipe_wtns_curve(zi->wtns)),
                          zkpipe_curve_name(pk->c->curve));
    else if (count != nv)
        st = zkpipe__fail(detail, cap, ZKPIPE_EMISMATCH,
                          "%s: the witness has %zu values, the zkey %zu variables", p->wtns_path,
                          count, nv);
    else if ((st = zkpipe__g16_witness_abc(&zi->res, pk, zkpipe_wtns_values(zi->wtns)[0].l,
                                           call->ledger, call->allocator)) != ZKPIPE_OK)
        zkpipe__fail(detail, cap, st, "%s: cannot compute a, b and c: %s", p->wtns_path,
                     zkpipe_status_str(st));
    if (st != ZKPIPE_OK) {
        item_free(call, zi);
        return st;
    }
    *item = zi;
    return ZKPIPE_OK;
}

static zkpipe_status prove(const zkpipe_stage_call *call, void *item, zkpipe_partition_result *out)
{
    const zkpipe_zkey_partition *p = call->ctx;
    const zkpipe_groth16_pk *pk = p->source->pk;
    const zkpipe__curve_ops *c = pk->c;
    zkey_item *zi = item;
    uint64_t r[4], s[4];
    char why[ZKPIPE_DETAIL_MAX];
    zkpipe_status st = ZKPIPE_OK;
    if (p->insecure_blinding != NULL) {
        if (!c->fr_from_canonical(r, p->insecure_blinding[0].l) ||
            !c->fr_from_canonical(s, p->insecure_blinding[1].l))
            st =
                zkpipe__fail(why, sizeof why, ZKPIPE_EINVAL, "r or s is not below the field order");
    } else if ((st = zkpipe__fr_random(r, c)) == ZKPIPE_OK) {
        st = zkpipe__fr_random(s, c);
    }
    if (st == ZKPIPE_OK) {
        zkpipe__g16_prove_args args = {
            r,    s,   call->pool, zkpipe__g16_backend_of(call->backend), p->source->pvk, NULL,
            NULL, why, sizeof why};
        st = zkpipe__g16_prove(&out->proof, pk, &zi->res, &args);
    }
    if (st == ZKPIPE_OK && p->public_out != NULL)
        memcpy(p->public_out, zkpipe_wtns_values(zi->wtns) + 1,
               (pk->num_inputs - 1) * sizeof(zkpipe_scalar));
    if (st != ZKPIPE_OK)
        zkpipe__fail(call->detail, call->detail_cap, st, "%s: %s", p->wtns_path, why);
    item_free(call, zi);
    return st;
}

static void discard(const zkpipe_stage_call *call, void *item)
{
    item_free(call, item);
}

static zkpipe_status validate(void *ctx, size_t partition)
{
    const zkpipe_zkey_partition *p = ctx;
    (void)partition;
    return p != NULL && p->source != NULL && p->wtns_path != NULL ? ZKPIPE_OK : ZKPIPE_EINVAL;
}

/* Partitions of one zkey have one shape: they share what their ledgers teach. */
static const void *source(void *ctx, size_t partition)
{
    (void)partition;
    return ((const zkpipe_zkey_partition *)ctx)->source;
}

static const zkpipe_stage_ops zkey_ops = {
    .struct_size = sizeof(zkpipe_stage_ops),
    .name = "zkey",
    .estimate = estimate,
    .synthesize = synthesize,
    .prove = prove,
    .discard = discard,
    .result_free = NULL,
    .validate = validate,
    .source = source,
};

const zkpipe_stage_ops *zkpipe_zkey_stage_ops(void)
{
    return &zkey_ops;
}
