/* The built-in stages' output and backend (stages/stage_output.h). */
#include "stages/stage_output.h"

#include "core/alloc_internal.h"
#include "core/detail.h"

/* An arbitrary tag: a result whose `host` is not a built-in output is refused rather than read
 * as one, as far as eight bytes can tell. */
#define ZKPIPE__STAGE_OUTPUT_MAGIC UINT64_C(0x7a6b7069706570f0)

zkpipe_status zkpipe__stage_output_begin(zkpipe__stage_output **out,
                                         const zkpipe__g16_backend **backend,
                                         const zkpipe_stage_call *call, char *detail, size_t cap)
{
    const char *why = NULL;
    zkpipe_status st = zkpipe__g16_backend_resolve(backend, call->backend, &why);
    if (st != ZKPIPE_OK)
        return zkpipe__fail(detail, cap, st, "the %s backend: %s",
                            zkpipe_backend_name(call->backend) != NULL
                                ? zkpipe_backend_name(call->backend)
                                : "requested",
                            why != NULL ? why : zkpipe_status_str(st));
    zkpipe__stage_output *o =
        zkpipe__calloc(call->allocator, 1, sizeof *o, _Alignof(zkpipe__stage_output));
    if (o == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_ENOMEM, "out of memory for the proof");
    o->magic = ZKPIPE__STAGE_OUTPUT_MAGIC;
    o->allocator = *call->allocator;
    *out = o;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe__stage_prove_begin(zkpipe__stage_output **out,
                                        const zkpipe__g16_backend **backend, uint64_t r[4],
                                        uint64_t s[4], const zkpipe__curve_ops *c,
                                        const zkpipe_scalar *insecure,
                                        const zkpipe_stage_call *call, char *detail, size_t cap)
{
    zkpipe_status st = zkpipe__stage_output_begin(out, backend, call, detail, cap);
    if (st != ZKPIPE_OK)
        return st;
    if (insecure != NULL) {
        if (!c->fr_from_canonical(r, insecure[0].l) || !c->fr_from_canonical(s, insecure[1].l))
            st = zkpipe__fail(detail, cap, ZKPIPE_EINVAL, "r or s is not below the field order");
    } else if ((st = zkpipe__fr_random(r, c)) == ZKPIPE_OK) {
        st = zkpipe__fr_random(s, c);
    }
    if (st != ZKPIPE_OK) {
        zkpipe__stage_output_free(NULL, 0, *out);
        *out = NULL;
    }
    return st;
}

zkpipe_status zkpipe__stage_output_end(zkpipe__stage_output *output,
                                       zkpipe_partition_result *result, zkpipe_status st)
{
    if (output == NULL)
        return st;
    if (st == ZKPIPE_OK)
        result->host = output;
    else
        zkpipe__stage_output_free(NULL, 0, output);
    return st;
}

void zkpipe__stage_output_free(void *ctx, size_t partition, void *host)
{
    (void)ctx;
    (void)partition;
    zkpipe__stage_output *o = host;
    if (o == NULL)
        return;
    zkpipe_allocator a = o->allocator;
    o->magic = 0;
    zkpipe__free(&a, o);
}

zkpipe_status zkpipe_stage_proof(zkpipe_groth16_proof *out, const zkpipe_partition_result *result)
{
    if (out == NULL || result == NULL)
        return ZKPIPE_EINVAL;
    if (result->status != ZKPIPE_OK)
        return result->status;
    const zkpipe__stage_output *o = result->host;
    if (o == NULL || o->magic != ZKPIPE__STAGE_OUTPUT_MAGIC)
        return ZKPIPE_EINVAL;
    *out = o->proof;
    return ZKPIPE_OK;
}
