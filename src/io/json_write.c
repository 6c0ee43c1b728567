/* snarkjs's proof.json and public.json, written snprintf-style with core's text builder. */
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "io/io_internal.h"

static void put(zkpipe__text *o, const char *s)
{
    zkpipe__text_printf(o, "%s", s);
}

static void put_num(zkpipe__text *o, const uint64_t *limbs, size_t n)
{
    char dec[120];
    zkpipe__io_dec_write(dec, limbs, n);
    zkpipe__text_printf(o, "\"%s\"", dec);
}

static zkpipe_status start(zkpipe__text *o, char *buf, size_t cap, const size_t *out_len)
{
    return zkpipe__text_start(o, buf, cap, out_len);
}

/* [x, y, z] of a G1 point (canonical coordinates), z = 0 for infinity. */
static void put_g1(zkpipe__text *o, const uint64_t *coords, int infinity, size_t limbs)
{
    static const uint64_t one[6] = {1}, zero[6] = {0};
    put(o, "[\n  ");
    put_num(o, infinity ? zero : coords, limbs);
    put(o, ",\n  ");
    put_num(o, infinity ? one : coords + limbs, limbs);
    put(o, infinity ? ",\n  \"0\"\n ]" : ",\n  \"1\"\n ]");
}

static void put_g2(zkpipe__text *o, const uint64_t *coords, int infinity, size_t limbs)
{
    static const uint64_t one[6] = {1}, zero[6] = {0};
    for (int k = 0; k < 2; k++) {
        put(o, k == 0 ? "[\n  [\n   " : ",\n  [\n   ");
        const uint64_t *c = coords + 2 * (size_t)k * limbs;
        put_num(o, infinity ? (k == 1 ? one : zero) : c, limbs);
        put(o, ",\n   ");
        put_num(o, infinity ? zero : c + limbs, limbs);
        put(o, "\n  ]");
    }
    put(o,
        infinity ? ",\n  [\n   \"0\",\n   \"0\"\n  ]\n ]" : ",\n  [\n   \"1\",\n   \"0\"\n  ]\n ]");
}

static int all_zero(const uint64_t *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (w[i] != 0)
            return 0;
    return 1;
}

zkpipe_status zkpipe_snarkjs_proof_write(char *buf, size_t cap, size_t *out_len,
                                         const zkpipe_groth16_proof *proof)
{
    zkpipe__text o;
    zkpipe_status st = start(&o, buf, cap, out_len);
    if (st != ZKPIPE_OK || proof == NULL)
        return ZKPIPE_EINVAL;
    const zkpipe__curve_ops *c = zkpipe__curve_ops_for(proof->curve);
    if (c == NULL || proof->size != 2 * c->proof_g1_bytes + c->proof_g2_bytes)
        return ZKPIPE_EINVAL;
    uint64_t a[ZKPIPE__G1A_WORDS], b[ZKPIPE__G2A_WORDS], cc[ZKPIPE__G1A_WORDS];
    uint64_t ca[ZKPIPE__G1A_WORDS], cb[ZKPIPE__G2A_WORDS], ccc[ZKPIPE__G1A_WORDS];
    if ((st = c->proof_point_read(a, proof->bytes, 0)) != ZKPIPE_OK ||
        (st = c->proof_point_read(b, proof->bytes + c->proof_g1_bytes, 1)) != ZKPIPE_OK ||
        (st = c->proof_point_read(cc, proof->bytes + c->proof_g1_bytes + c->proof_g2_bytes, 0)) !=
            ZKPIPE_OK)
        return st;
    size_t l = c->fq_limbs;
    c->point_to_canonical(ca, a, 0);
    c->point_to_canonical(cb, b, 1);
    c->point_to_canonical(ccc, cc, 0);
    put(&o, "{\n \"pi_a\": ");
    put_g1(&o, ca, all_zero(a, 2 * l), l);
    put(&o, ",\n \"pi_b\": ");
    put_g2(&o, cb, all_zero(b, 4 * l), l);
    put(&o, ",\n \"pi_c\": ");
    put_g1(&o, ccc, all_zero(cc, 2 * l), l);
    put(&o, ",\n \"protocol\": \"groth16\",\n \"curve\": \"");
    put(&o, c->snarkjs_name);
    put(&o, "\"\n}\n");
    *out_len = o.len;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_snarkjs_public_write(char *buf, size_t cap, size_t *out_len,
                                          const zkpipe_scalar *inputs, size_t n)
{
    zkpipe__text o;
    zkpipe_status st = start(&o, buf, cap, out_len);
    if (st != ZKPIPE_OK || (inputs == NULL && n > 0))
        return ZKPIPE_EINVAL;
    put(&o, "[");
    for (size_t i = 0; i < n; i++) {
        put(&o, i == 0 ? "\n " : ",\n ");
        put_num(&o, inputs[i].l, 4);
    }
    put(&o, n > 0 ? "\n]\n" : "]\n");
    *out_len = o.len;
    return ZKPIPE_OK;
}
