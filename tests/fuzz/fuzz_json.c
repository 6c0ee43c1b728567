/* libFuzzer target: the snarkjs JSON readers. The first byte picks verification_key.json,
 * proof.json or public.json; the second the curve a proof is read on (BLS12-381, BN254, or
 * the one it names) or public signals are read on (BLS12-381 or BN254). A proof that parses
 * is written back and must parse to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zkpipe/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char detail[ZKPIPE_IO_DETAIL_MAX];
    if (size < 2)
        return 0;
    const char *json = (const char *)data + 2;
    size_t len = size - 2;
    switch (data[0] % 3) {
    case 0: {
        zkpipe_groth16_vk *vk;
        if (zkpipe_snarkjs_vk_parse(&vk, detail, sizeof detail, json, len, NULL) == ZKPIPE_OK)
            zkpipe_groth16_vk_destroy(vk);
        break;
    }
    case 1: {
        zkpipe_groth16_proof p, back;
        char out[4096];
        size_t n;
        zkpipe_curve known = (zkpipe_curve)(data[1] % 3); /* ZKPIPE_CURVE_COUNT is 2 */
        if (zkpipe_snarkjs_proof_parse(&p, detail, sizeof detail, known, json, len) != ZKPIPE_OK)
            break;
        if (zkpipe_snarkjs_proof_write(out, sizeof out, &n, &p) != ZKPIPE_OK || n >= sizeof out ||
            zkpipe_snarkjs_proof_parse(&back, detail, sizeof detail, ZKPIPE_CURVE_COUNT, out, n) !=
                ZKPIPE_OK ||
            back.size != p.size || memcmp(back.bytes, p.bytes, p.size) != 0)
            abort();
        break;
    }
    default: {
        zkpipe_scalar s[8];
        size_t n;
        zkpipe_curve c = data[1] % 2 ? ZKPIPE_CURVE_BN254 : ZKPIPE_CURVE_BLS12_381;
        zkpipe_snarkjs_public_parse(s, 8, &n, detail, sizeof detail, c, json, len);
        break;
    }
    }
    return 0;
}
