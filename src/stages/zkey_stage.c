/* The built-in stage operations of circom partitions (zkpipe/stages.h): a witness file mapped
 * and checked on a synthesis worker; a, b, c computed from the zkey's coefficients, the one
 * prover and the proof checked against the zkey's verifying key on a prover worker.
 *
 * a, b and c (96 bytes a row) are computed by the prover, not by synthesis: an item waiting in
 * the channel then holds only its witness (32 bytes a variable), so the partitions queued
 * ahead of the provers cost a quarter of the bytes, while the work moved (one sparse pass over
 * the coefficients) is a few percent of a proof. */
#include <string.h>

#include "core/alloc_internal.h"
#include "core/detail.h"
#include "core/struct_size_internal.h"
#include "stages/stage_output.h"

struct zkpipe_zkey_source {
    zkpipe_allocator allocator;
    const zkpipe_zkey *zkey;     /* borrowed, or `owned` */
    const zkpipe_groth16_pk *pk; /* zkey's: valid while the key is resident (pinned) */
    zkpipe_groth16_pk shape;     /* its counts alone (no points), for estimates at any time */
    zkpipe_groth16_pvk *pvk;
    /* zkpipe_zkey_source_open: the file, opened again after a release */
    zkpipe_zkey *owned; /* NULL while released */
    char *path;
    unsigned io_flags;
    zkpipe_zkey_info info; /* at the first open: a file reopened must match it */
    zkpipe_key *key;       /* in the cache, or NULL */
};

/* The source's counts for estimates, without pointers into a mapping that may go. */
static void set_shape(zkpipe_zkey_source *s)
{
    s->shape = *s->pk;
    s->shape.block = NULL;
    s->shape.alpha1 = s->shape.beta1 = s->shape.delta1 = s->shape.beta2 = s->shape.delta2 = NULL;
    s->shape.a = s->shape.b1 = s->shape.b2 = s->shape.l = s->shape.h = NULL;
    s->shape.density = s->shape.aux_density = NULL;
    s->shape.coeffs = NULL;
    s->shape.map = NULL;
}

/* The verifying key and the shape of a source whose zkey is set. */
static zkpipe_status source_init(zkpipe_zkey_source *s)
{
    s->pk = zkpipe_zkey_pk(s->zkey);
    set_shape(s);
    zkpipe_groth16_vk *vk;
    zkpipe_status st = zkpipe_zkey_vk(&vk, s->zkey, &s->allocator);
    if (st == ZKPIPE_OK) {
        st = zkpipe_groth16_pvk_create(&s->pvk, vk, &s->allocator);
        zkpipe_groth16_vk_destroy(vk);
    }
    return st;
}

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
    zkpipe_zkey_info_get(&s->info, zkey);
    zkpipe_status st = source_init(s);
    if (st != ZKPIPE_OK) {
        zkpipe__free(a, s);
        return st;
    }
    *out = s;
    return ZKPIPE_OK;
}

/* The zkey's options: its checks as asked, no accounting of its own (the cache's ledger shows
 * what is resident), no pool (a reload runs on the thread that needs it). */
static void reopen_options(zkpipe_io_options *io, const zkpipe_zkey_source *s)
{
    zkpipe_io_options_init(io);
    io->allocator = &s->allocator;
    io->flags = s->io_flags;
}

/* The key operations of a source opened from a file. */
static zkpipe_status key_load(void *ctx, void **handle, char *detail, size_t cap)
{
    zkpipe_zkey_source *s = ctx;
    zkpipe_io_options io;
    reopen_options(&io, s);
    char why[ZKPIPE_DETAIL_MAX];
    zkpipe_zkey *z;
    zkpipe_status st = zkpipe_zkey_open(&z, why, sizeof why, s->path, &io);
    if (st != ZKPIPE_OK)
        return zkpipe__fail(detail, cap, st, "%s: cannot load the zkey again: %s", s->path, why);
    zkpipe_zkey_info now;
    zkpipe_zkey_info_get(&now, z);
    if (now.curve != s->info.curve || now.num_vars != s->info.num_vars ||
        now.num_public != s->info.num_public || now.domain_size != s->info.domain_size ||
        now.num_coeffs != s->info.num_coeffs || now.copied_bytes != s->info.copied_bytes) {
        zkpipe_zkey_destroy(z);
        return zkpipe__fail(detail, cap, ZKPIPE_EMISMATCH,
                            "%s: the zkey loaded again is another circuit's", s->path);
    }
    s->owned = z;
    s->zkey = z;
    s->pk = zkpipe_zkey_pk(z);
    *handle = s;
    return ZKPIPE_OK;
}

static void key_unload(void *ctx, void *handle)
{
    zkpipe_zkey_source *s = ctx;
    (void)handle;
    zkpipe_zkey_destroy(s->owned);
    s->owned = NULL;
    s->zkey = NULL;
    s->pk = NULL;
}

static uint64_t key_resident(void *ctx, const void *handle)
{
    const zkpipe_zkey_source *s = ctx;
    zkpipe_zkey_memory_info m;
    (void)handle;
    if (s->zkey == NULL || zkpipe_zkey_memory(&m, s->zkey) != ZKPIPE_OK)
        return UINT64_MAX; /* unknown: counted whole */
    return m.resident_bytes + m.copied_bytes;
}

static const zkpipe_key_ops zkey_key_ops = {
    .struct_size = sizeof(zkpipe_key_ops),
    .kind = "zkey",
    .load = key_load,
    .unload = key_unload,
    .resident = key_resident,
};

zkpipe_status zkpipe_zkey_source_open(zkpipe_zkey_source **out, char *detail, size_t cap,
                                      const char *path, const zkpipe_io_options *io,
                                      zkpipe_key_cache *keys)
{
    /* The caller's options as far as the first published layout (through flags) reaches. */
    int given = io != NULL && io->struct_size >= ZKPIPE__SIZE_THROUGH(zkpipe_io_options, flags);
    const zkpipe_allocator *a = zkpipe__allocator_or_default(given ? io->allocator : NULL);
    if (out == NULL || path == NULL || a == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_EINVAL, "invalid argument");
    zkpipe_zkey_source *s = zkpipe__calloc(a, 1, sizeof *s, _Alignof(zkpipe_zkey_source));
    size_t len = strlen(path);
    if (s == NULL || (s->path = zkpipe__alloc(a, len + 1, 1)) == NULL) {
        zkpipe__free(a, s);
        return zkpipe__fail(detail, cap, ZKPIPE_ENOMEM, "out of memory");
    }
    s->allocator = *a;
    memcpy(s->path, path, len + 1);
    /* The first open as the caller asks (its pool, its checks); no accounting but the cache's. */
    zkpipe_io_options first;
    reopen_options(&first, s);
    if (given) {
        first.pool = io->pool;
        first.flags = io->flags;
    }
    s->io_flags = first.flags;
    zkpipe_status st = zkpipe_zkey_open(&s->owned, detail, cap, path, &first);
    if (st == ZKPIPE_OK) {
        s->zkey = s->owned;
        zkpipe_zkey_info_get(&s->info, s->owned);
        st = source_init(s);
        if (st != ZKPIPE_OK)
            zkpipe__fail(detail, cap, st, "%s", zkpipe_status_str(st));
    }
    zkpipe_zkey_memory_info m;
    if (st == ZKPIPE_OK && keys != NULL && (st = zkpipe_zkey_memory(&m, s->owned)) == ZKPIPE_OK) {
        uint64_t bytes = m.mapped_bytes + m.copied_bytes;
        st = zkpipe_key_add(keys, &s->key, &zkey_key_ops, s, bytes, s, 1);
        if (st != ZKPIPE_OK)
            zkpipe__fail(detail, cap, st, "cannot add the zkey to the key cache (%llu bytes)",
                         (unsigned long long)bytes);
    }
    if (st != ZKPIPE_OK) {
        zkpipe_zkey_source_destroy(s);
        return st;
    }
    *out = s;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_zkey_source_info(zkpipe_zkey_info *out, const zkpipe_zkey_source *source)
{
    if (out == NULL || source == NULL)
        return ZKPIPE_EINVAL;
    *out = source->info;
    return ZKPIPE_OK;
}

zkpipe_key *zkpipe_zkey_source_key(const zkpipe_zkey_source *source)
{
    return source != NULL ? source->key : NULL;
}

const zkpipe_groth16_pvk *zkpipe_zkey_source_pvk(const zkpipe_zkey_source *source)
{
    return source != NULL ? source->pvk : NULL;
}

void zkpipe_zkey_source_destroy(zkpipe_zkey_source *source)
{
    if (source == NULL)
        return;
    zkpipe_key_remove(source->key); /* unloads it if resident */
    zkpipe_zkey_destroy(source->owned);
    zkpipe_groth16_pvk_destroy(source->pvk);
    zkpipe_allocator a = source->allocator;
    zkpipe__free(&a, source->path);
    zkpipe__free(&a, source);
}

/* What synthesis hands to proving: the mapped witness; a, b, c once the prover made them. */
typedef struct zkey_item {
    zkpipe_wtns *wtns;
    zkpipe__synth_result res;
} zkey_item;

/* A .wtns as circom writes it: the container (12 bytes), two section headers (12 each), the
 * header section (n8, r, the count: 40 bytes), then the values. */
#define WTNS_OVERHEAD 76

zkpipe_status zkpipe_zkey_source_estimate(const zkpipe_zkey_source *source, unsigned prover_threads,
                                          uint64_t *bytes)
{
    if (source == NULL || bytes == NULL)
        return ZKPIPE_EINVAL;
    const zkpipe_groth16_pk *pk = &source->shape; /* the key may be released now */
    uint64_t nv = (uint64_t)pk->num_inputs + pk->num_aux, n = (uint64_t)1 << pk->log_n;
    /* The mapping, and its aligned copy (circom's values start 4 bytes off a multiple of 8). */
    uint64_t wtns = WTNS_OVERHEAD + 2 * ZKPIPE__FR_BYTES * nv;
    uint64_t abc = 3 * ZKPIPE__FR_BYTES * n;
    *bytes = zkpipe__g16_prove_peak_bytes(pk, prover_threads, wtns + abc);
    return *bytes == UINT64_MAX ? ZKPIPE_EOVERFLOW : ZKPIPE_OK;
}

static zkpipe_status estimate(const zkpipe_stage_call *call, uint64_t *bytes)
{
    const zkpipe_zkey_partition *p = call->ctx;
    return zkpipe_zkey_source_estimate(p->source, call->prover_threads, bytes);
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
    zkey_item *zi = item;
    zkpipe__stage_output *o = NULL;
    const zkpipe__g16_backend *be = NULL;
    uint64_t r[4], s[4];
    char why[ZKPIPE_DETAIL_MAX];
    zkpipe_status st = zkpipe__stage_prove_begin(&o, &be, r, s, pk->c, p->insecure_blinding, call,
                                                 why, sizeof why);
    if (st == ZKPIPE_OK &&
        (st = zkpipe__g16_witness_abc(&zi->res, pk, zkpipe_wtns_values(zi->wtns)[0].l, call->pool,
                                      call->ledger, call->allocator)) != ZKPIPE_OK)
        zkpipe__fail(why, sizeof why, st, "cannot compute a, b and c: %s", zkpipe_status_str(st));
    if (st == ZKPIPE_OK) {
        zkpipe__g16_prove_args args = {r,    s,    call->pool, be,        p->source->pvk,
                                       NULL, NULL, why,        sizeof why};
        st = zkpipe__g16_prove(&o->proof, pk, &zi->res, &args);
    }
    if (st == ZKPIPE_OK && p->public_out != NULL)
        memcpy(p->public_out, zkpipe_wtns_values(zi->wtns) + 1,
               (pk->num_inputs - 1) * sizeof(zkpipe_scalar));
    if (st != ZKPIPE_OK)
        zkpipe__fail(call->detail, call->detail_cap, st, "%s: %s", p->wtns_path, why);
    item_free(call, zi);
    return zkpipe__stage_output_end(o, out, st);
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

/* A source opened from a file names its key: pinned while the partition is in flight. */
static zkpipe_key *key(void *ctx, size_t partition)
{
    (void)partition;
    return ((const zkpipe_zkey_partition *)ctx)->source->key;
}

static const zkpipe_stage_ops zkey_ops = {
    .struct_size = sizeof(zkpipe_stage_ops),
    .name = "zkey",
    .estimate = estimate,
    .synthesize = synthesize,
    .prove = prove,
    .discard = discard,
    .result_free = zkpipe__stage_output_free,
    .validate = validate,
    .source = source,
    .key = key,
};

const zkpipe_stage_ops *zkpipe_zkey_stage_ops(void)
{
    return &zkey_ops;
}
