/* The public prover calls (zkpipe/groth16.h): argument checks, the blinding factors, the
 * source of a, b and c, then the one prover (groth16/prove.h). */
#include <string.h>

#include "core/clock_internal.h"
#include "core/detail.h"
#include "groth16/prove.h"

zkpipe_status zkpipe_groth16_prove(zkpipe_groth16_proof *out, size_t *first_failing,
                                   zkpipe_groth16_timings *timings, const zkpipe_groth16_pk *pk,
                                   const zkpipe_cs *cs, zkpipe_pool *pool, zkpipe_ledger *ledger)
{
    if (out == NULL || pk == NULL || cs == NULL ||
        (ledger != NULL && !zkpipe_ledger_is_open(ledger)))
        return ZKPIPE_EINVAL;
    if (cs->mode != ZKPIPE_CS_WITNESS)
        return ZKPIPE_ESTATE;
    if (cs->curve != pk->c->curve || cs->num_inputs != pk->num_inputs || cs->num_aux != pk->num_aux)
        return ZKPIPE_EMISMATCH;
    uint64_t r[4], s[4];
    zkpipe_status st;
    if ((st = zkpipe__fr_random(r, pk->c)) != ZKPIPE_OK ||
        (st = zkpipe__fr_random(s, pk->c)) != ZKPIPE_OK)
        return st;
    double t0 = zkpipe__seconds();
    zkpipe__synth_result res;
    if ((st = zkpipe__synth(&res, cs, pool, ledger)) != ZKPIPE_OK)
        return st;
    double t1 = zkpipe__seconds();
    zkpipe__g16_prove_args args = {
        r, s, pool, &zkpipe__g16_backend_cpu, NULL, timings, first_failing, NULL, 0};
    st = zkpipe__g16_prove(out, pk, &res, &args);
    if (timings != NULL && st == ZKPIPE_OK) {
        timings->synth = t1 - t0;
        timings->total += t1 - t0;
    }
    return st;
}

/* zkpipe_groth16_prove_witness once the arguments are checked, with r and s (Montgomery). */
static zkpipe_status prove_witness(zkpipe_groth16_proof *out, zkpipe_groth16_timings *timings,
                                   char *detail, size_t cap, const zkpipe_groth16_pk *pk,
                                   const zkpipe_scalar *witness, size_t count,
                                   const zkpipe_groth16_pvk *check, const uint64_t *r,
                                   const uint64_t *s, zkpipe_pool *pool,
                                   const zkpipe__g16_backend *backend, zkpipe_ledger *ledger)
{
    if (pk->coeffs == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_EUNSUPPORTED,
                            "the proving key holds no coefficients (not a zkey's): prove a "
                            "zkpipe circuit with zkpipe_groth16_prove");
    if (count != pk->num_inputs + pk->num_aux)
        return zkpipe__fail(detail, cap, ZKPIPE_EMISMATCH,
                            "the witness has %zu values, the key %zu variables", count,
                            pk->num_inputs + pk->num_aux);
    /* A witness of another curve's field can hold values this field does not have. */
    for (size_t i = 0; i < count; i++)
        if (!zkpipe__limbs_below(witness[i].l, pk->c->r, ZKPIPE__FR_LIMBS))
            return zkpipe__fail(detail, cap, ZKPIPE_ENONCANONICAL,
                                "witness value %zu is not below the field order of %s", i,
                                zkpipe_curve_name(pk->c->curve));
    double t0 = zkpipe__seconds();
    zkpipe__synth_result res;
    zkpipe_status st =
        zkpipe__g16_witness_abc(&res, pk, witness[0].l, pool, ledger, &pk->allocator);
    if (st != ZKPIPE_OK)
        return zkpipe__fail(detail, cap, st, "cannot compute a, b and c: %s",
                            zkpipe_status_str(st));
    double t1 = zkpipe__seconds();
    zkpipe__g16_prove_args args = {r, s, pool, backend, check, timings, NULL, detail, cap};
    st = zkpipe__g16_prove(out, pk, &res, &args);
    if (timings != NULL && st == ZKPIPE_OK) {
        timings->synth = t1 - t0;
        timings->total += t1 - t0;
    }
    return st;
}

zkpipe_status zkpipe_groth16_prove_witness(zkpipe_groth16_proof *out,
                                           zkpipe_groth16_timings *timings, char *detail,
                                           size_t detail_cap, const zkpipe_groth16_pk *pk,
                                           const zkpipe_scalar *witness, size_t count,
                                           const zkpipe_groth16_pvk *check, zkpipe_pool *pool,
                                           zkpipe_backend backend, zkpipe_ledger *ledger)
{
    if (out == NULL || pk == NULL || witness == NULL || check == NULL ||
        (ledger != NULL && !zkpipe_ledger_is_open(ledger)))
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EINVAL, "invalid argument");
    if (check->c != pk->c)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EMISMATCH,
                            "the verifying key is for %s, the proving key for %s",
                            zkpipe_curve_name(check->c->curve), zkpipe_curve_name(pk->c->curve));
    const zkpipe__g16_backend *be;
    const char *why = "";
    zkpipe_status st = zkpipe__g16_backend_resolve(&be, backend, &why);
    if (st != ZKPIPE_OK)
        return zkpipe__fail(detail, detail_cap, st, "backend %s: %s",
                            zkpipe_backend_name(backend) ? zkpipe_backend_name(backend) : "?",
                            why != NULL ? why : zkpipe_status_str(st));
    uint64_t r[4], s[4];
    if ((st = zkpipe__fr_random(r, pk->c)) != ZKPIPE_OK ||
        (st = zkpipe__fr_random(s, pk->c)) != ZKPIPE_OK)
        return zkpipe__fail(detail, detail_cap, st, "cannot draw r and s: %s",
                            zkpipe_status_str(st));
    return prove_witness(out, timings, detail, detail_cap, pk, witness, count, check, r, s, pool,
                         be, ledger);
}

zkpipe_status zkpipe__g16_prove_witness_rs(zkpipe_groth16_proof *out, char *detail, size_t cap,
                                           const zkpipe_groth16_pk *pk,
                                           const zkpipe_scalar *witness, size_t count,
                                           const zkpipe_groth16_pvk *check, const zkpipe_scalar *r,
                                           const zkpipe_scalar *s, zkpipe_pool *pool,
                                           const zkpipe__g16_backend *backend,
                                           zkpipe_ledger *ledger)
{
    uint64_t rm[4], sm[4];
    if (!pk->c->fr_from_canonical(rm, r->l) || !pk->c->fr_from_canonical(sm, s->l))
        return zkpipe__fail(detail, cap, ZKPIPE_EINVAL, "r or s is not below the field order");
    return prove_witness(out, NULL, detail, cap, pk, witness, count, check, rm, sm, pool, backend,
                         ledger);
}
