/* The built-in stage operations of zkpipe circuit partitions (zkpipe/stages.h): build and
 * synthesize on a synthesis worker, the one prover on a prover worker. */
#include <string.h>

#include "acct/charged_alloc.h"
#include "core/alloc_internal.h"
#include "core/detail.h"
#include "stages/stage_output.h"

/* What synthesis hands to proving. */
typedef struct circuit_item {
    zkpipe__synth_result res;
} circuit_item;

/* The bytes synthesis charges: as announced, or the key's counts'. */
static zkpipe_status synth_bytes(const zkpipe_circuit_partition *p, uint64_t *out)
{
    const zkpipe_groth16_pk *pk = p->pk;
    *out = p->synth_bytes;
    if (*out != 0)
        return ZKPIPE_OK;
    size_t n = (size_t)1 << pk->log_n;
    return zkpipe_synth_estimate(out, NULL, pk->c->curve, n - pk->num_inputs, pk->num_inputs,
                                 pk->num_aux);
}

/* What the ledger holds at most, the circuit aside: synthesis's buffers, and the prover's
 * working memory beside them (groth16/prove.h's peak). */
static zkpipe_status estimate(const zkpipe_stage_call *call, uint64_t *bytes)
{
    const zkpipe_circuit_partition *p = call->ctx;
    uint64_t synth;
    zkpipe_status st = synth_bytes(p, &synth);
    if (st != ZKPIPE_OK)
        return st;
    *bytes = zkpipe__g16_prove_peak_bytes(p->pk, call->prover_threads, synth);
    return *bytes == UINT64_MAX ? ZKPIPE_EOVERFLOW : ZKPIPE_OK;
}

/* Builds the circuit (charged as kind CIRCUIT while it exists) and synthesizes it. */
static zkpipe_status synthesize(const zkpipe_stage_call *call, void **item)
{
    const zkpipe_circuit_partition *p = call->ctx;
    zkpipe__charged charged = {*call->allocator, call->ledger, ZKPIPE_KIND_CIRCUIT};
    zkpipe_allocator circuit_allocator = zkpipe__charged_allocator(&charged);
    uint64_t announced, need;
    zkpipe_status st = synth_bytes(p, &announced);
    if (st != ZKPIPE_OK)
        return st;
    circuit_item *ci = zkpipe__calloc(call->allocator, 1, sizeof *ci, _Alignof(circuit_item));
    if (ci == NULL)
        return ZKPIPE_ENOMEM;
    zkpipe_cs *cs;
    st = zkpipe_cs_create(&cs, p->pk->c->curve, ZKPIPE_CS_WITNESS, &circuit_allocator);
    if (st != ZKPIPE_OK) {
        zkpipe__free(call->allocator, ci);
        return st;
    }
    st = p->build(cs, p->ctx, call->partition);
    if (st != ZKPIPE_OK)
        zkpipe__fail(call->detail, call->detail_cap, st, "building the circuit failed: %s",
                     zkpipe_status_str(st));
    if (st == ZKPIPE_OK)
        st = zkpipe_cs_synth_bytes(cs, &need, NULL);
    /* More than the budget was asked for: synthesizing could overrun it. */
    if (st == ZKPIPE_OK && need > announced)
        st = zkpipe__fail(call->detail, call->detail_cap, ZKPIPE_EMISMATCH,
                          "the circuit needs %llu synthesis bytes, %llu were announced",
                          (unsigned long long)need, (unsigned long long)announced);
    if (st == ZKPIPE_OK)
        st = zkpipe__synth_with(&ci->res, cs, NULL, call->ledger, call->allocator);
    zkpipe_cs_destroy(cs);
    if (st != ZKPIPE_OK) {
        zkpipe__free(call->allocator, ci);
        return st;
    }
    *item = ci;
    return ZKPIPE_OK;
}

static zkpipe_status prove(const zkpipe_stage_call *call, void *item, zkpipe_partition_result *out)
{
    const zkpipe_circuit_partition *p = call->ctx;
    circuit_item *ci = item;
    zkpipe__stage_output *o = NULL;
    const zkpipe__g16_backend *be = NULL;
    uint64_t r[4], s[4];
    zkpipe_status st = zkpipe__stage_prove_begin(&o, &be, r, s, p->pk->c, NULL, call, call->detail,
                                                 call->detail_cap);
    if (st == ZKPIPE_OK) {
        zkpipe__g16_prove_args args = {
            r, s, call->pool, be, NULL, NULL, &out->first_failing, call->detail, call->detail_cap};
        st = zkpipe__g16_prove(&o->proof, p->pk, &ci->res, &args);
    }
    zkpipe__synth_free(&ci->res);
    zkpipe__free(call->allocator, ci);
    return zkpipe__stage_output_end(o, out, st);
}

static void discard(const zkpipe_stage_call *call, void *item)
{
    circuit_item *ci = item;
    zkpipe__synth_free(&ci->res);
    zkpipe__free(call->allocator, ci);
}

static zkpipe_status validate(void *ctx, size_t partition)
{
    const zkpipe_circuit_partition *p = ctx;
    (void)partition;
    return p != NULL && p->build != NULL && p->pk != NULL ? ZKPIPE_OK : ZKPIPE_EINVAL;
}

/* Partitions proved with one key have one shape: they share what their ledgers teach. */
static const void *source(void *ctx, size_t partition)
{
    (void)partition;
    return ((const zkpipe_circuit_partition *)ctx)->pk;
}

static const zkpipe_stage_ops circuit_ops = {
    .struct_size = sizeof(zkpipe_stage_ops),
    .name = "circuit",
    .estimate = estimate,
    .synthesize = synthesize,
    .prove = prove,
    .discard = discard,
    .result_free = zkpipe__stage_output_free,
    .validate = validate,
    .source = source,
};

const zkpipe_stage_ops *zkpipe_circuit_stage_ops(void)
{
    return &circuit_ops;
}
