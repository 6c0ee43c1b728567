/* BN254 point encodings in the EIP-196/197 layout (see bn254_g1.h). */
#include "ec/bn254_g1.h"
#include "ec/bn254_g2.h"
#include "ec/codec.h"

static int all_zero(const uint8_t *in, size_t len)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < len; i++)
        acc |= in[i];
    return acc == 0;
}

#define DEFINE_EIP_CODEC(G, F, NB)                                                                 \
    ZKPIPE__EC_DEFINE_XY_CODEC(G, F, NB)                                                           \
    void G##_to_uncompressed(uint8_t *out, const G##_affine *p)                                    \
    {                                                                                              \
        if (G##_affine_is_infinity(p))                                                             \
            memset(out, 0, 2 * (NB));                                                              \
        else                                                                                       \
            G##__write_xy(out, p);                                                                 \
    }                                                                                              \
    zkpipe_status G##_from_uncompressed(G##_affine *out, const uint8_t *in)                        \
    {                                                                                              \
        if (all_zero(in, 2 * (NB))) {                                                              \
            G##_affine_set_infinity(out);                                                          \
            return ZKPIPE_OK;                                                                      \
        }                                                                                          \
        return G##__read_xy(out, in);                                                              \
    }

ZKPIPE__EC_DEFINE_FQ_COORD(bn254_fq)
DEFINE_EIP_CODEC(bn254_g1, bn254_fq, BN254_G1_UNCOMPRESSED_BYTES / 2)

ZKPIPE__EC_DEFINE_FQ2_COORD(bn254_fq2, bn254_fq)
DEFINE_EIP_CODEC(bn254_g2, bn254_fq2, BN254_G2_UNCOMPRESSED_BYTES / 2)
