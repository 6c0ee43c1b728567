/* The Groth16 .zkey writer: a snarkjs-form proving key (groth16/keys.h) and its verifying key
 * as snarkjs's `groth16 setup` writes them, section for section and in its order (1, 2, 4, 3,
 * 9, 8, 5, 6, 7, 10), so that a key from the same toxic waste is the same file. */
#include <string.h>

#include "groth16/keys.h"
#include "io/file_out.h"
#include "io/io_internal.h"

/* n packed affine points: already the file's layout (x, y little-endian Montgomery limbs, the
 * point at infinity all zeros). */
static void write_points(zkpipe__io_out *o, const uint64_t *p, size_t n, size_t words)
{
    zkpipe__io_out_limbs(o, p, n * words, 1);
}

/* Section 10: the circuit hash and the contributions, one when the key names one: delta after
 * it, then in place of a proof of knowledge delta again (G1 s, s x, G2 s p x), which no
 * verifier accepts: a seeded key has no ceremony behind it, and the name says so. */
static void write_mpc(zkpipe__io_out *o, const zkpipe_groth16_pk *pk)
{
    size_t w1 = pk->c->g1a_words, w2 = pk->c->g2a_words;
    zkpipe__io_out_section(o, 10);
    zkpipe__io_out_bytes(o, pk->cs_hash, 64);
    zkpipe__io_out_u32(o, pk->contribution != NULL);
    if (pk->contribution != NULL) {
        uint8_t zero[64] = {0}, params[2 + 64];
        size_t len = strlen(pk->contribution);
        len = len > 64 ? 64 : len;
        write_points(o, pk->delta1, 1, w1);
        write_points(o, pk->delta1, 1, w1);
        write_points(o, pk->delta1, 1, w1);
        write_points(o, pk->delta2, 1, w2);
        zkpipe__io_out_bytes(o, zero, 64);
        zkpipe__io_out_u32(o, 0);
        params[0] = 1; /* the name */
        params[1] = (uint8_t)len;
        memcpy(params + 2, pk->contribution, len);
        zkpipe__io_out_u32(o, (uint32_t)(2 + len));
        zkpipe__io_out_bytes(o, params, 2 + len);
    }
    zkpipe__io_out_section_end(o);
}

zkpipe_status zkpipe_zkey_write(char *detail, size_t detail_cap, const char *path,
                                const zkpipe_groth16_pk *pk, const zkpipe_groth16_vk *vk)
{
    if (path == NULL || pk == NULL || vk == NULL || vk->c != pk->c ||
        vk->num_inputs != pk->num_inputs)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EINVAL, "invalid argument");
    if (pk->form != ZKPIPE__G16_SNARKJS || pk->coeffs == NULL)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EUNSUPPORTED,
                            "the proving key is not in a zkey's layout");
    const zkpipe__curve_ops *c = pk->c;
    size_t nv = pk->num_inputs + pk->num_aux, w1 = c->g1a_words, w2 = c->g2a_words;
    size_t n = (size_t)1 << pk->log_n, nq = c->fq_limbs;
    if (nv > UINT32_MAX || pk->num_coeffs > UINT32_MAX || n > UINT32_MAX)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_ETOOBIG,
                            "the key's counts do not fit a zkey's 32-bit fields");
    zkpipe__io_out o;
    zkpipe_status st = zkpipe__io_out_open(&o, detail, detail_cap, path, "zkey", 1, 10);
    if (st != ZKPIPE_OK)
        return st;
    zkpipe__io_out_section(&o, 1);
    zkpipe__io_out_u32(&o, 1); /* Groth16 */
    zkpipe__io_out_section_end(&o);
    zkpipe__io_out_section(&o, 2);
    zkpipe__io_out_u32(&o, (uint32_t)(8 * nq));
    zkpipe__io_out_limbs(&o, c->q, 1, nq);
    zkpipe__io_out_u32(&o, 32);
    zkpipe__io_out_limbs(&o, c->r, 1, 4);
    zkpipe__io_out_u32(&o, (uint32_t)nv);
    zkpipe__io_out_u32(&o, (uint32_t)(pk->num_inputs - 1));
    zkpipe__io_out_u32(&o, (uint32_t)n);
    write_points(&o, pk->alpha1, 1, w1);
    write_points(&o, pk->beta1, 1, w1);
    write_points(&o, pk->beta2, 1, w2);
    write_points(&o, vk->gamma2, 1, w2);
    write_points(&o, pk->delta1, 1, w1);
    write_points(&o, pk->delta2, 1, w2);
    zkpipe__io_out_section_end(&o);
    zkpipe__io_out_section(&o, 4);
    zkpipe__io_out_u32(&o, (uint32_t)pk->num_coeffs);
    zkpipe__io_out_bytes(&o, pk->coeffs, pk->num_coeffs * ZKPIPE__G16_COEFF_BYTES);
    zkpipe__io_out_section_end(&o);
    static const uint32_t order[6] = {3, 9, 8, 5, 6, 7};
    for (int s = 0; s < 6; s++) {
        zkpipe__io_out_section(&o, order[s]);
        switch (order[s]) {
        case 3:
            write_points(&o, vk->ic, pk->num_inputs, w1);
            break;
        case 9:
            write_points(&o, pk->h, n, w1);
            break;
        case 8:
            write_points(&o, pk->l, pk->num_aux, w1);
            break;
        case 5:
            write_points(&o, pk->a, nv, w1);
            break;
        case 6:
            write_points(&o, pk->b1, nv, w1);
            break;
        default:
            write_points(&o, pk->b2, nv, w2);
            break;
        }
        zkpipe__io_out_section_end(&o);
    }
    write_mpc(&o, pk);
    return zkpipe__io_out_commit(&o, detail, detail_cap);
}
