/* BLS12-381 point encodings in the zcash/IETF layout (see bls12_381_g1.h). */
#include "ec/bls12_381_g1.h"
#include "ec/bls12_381_g2.h"
#include "ec/codec.h"

#define FLAG_COMPRESSED 0x80
#define FLAG_INFINITY 0x40
#define FLAG_SIGN 0x20
#define FLAG_MASK 0xe0

/* Validates the flag bits of a `len`-byte encoding of the given form. */
static zkpipe_status read_flags(const uint8_t *in, size_t len, int compressed, int *infinity,
                                int *sign)
{
    uint8_t f = in[0] & FLAG_MASK;
    *infinity = (f & FLAG_INFINITY) != 0;
    *sign = (f & FLAG_SIGN) != 0;
    if (((f & FLAG_COMPRESSED) != 0) != compressed)
        return ZKPIPE_EFLAGS;
    if (*sign && (!compressed || *infinity))
        return ZKPIPE_EFLAGS;
    if (*infinity) {
        if (in[0] & ~FLAG_MASK)
            return ZKPIPE_EFLAGS;
        for (size_t i = 1; i < len; i++)
            if (in[i] != 0)
                return ZKPIPE_EFLAGS;
    }
    return ZKPIPE_OK;
}

static void write_infinity(uint8_t *out, size_t len, int compressed)
{
    memset(out, 0, len);
    out[0] = FLAG_INFINITY | (compressed ? FLAG_COMPRESSED : 0);
}

/* The four encoding functions of group G with coordinates of NB bytes. */
#define DEFINE_ZCASH_CODEC(G, F, NB)                                                               \
    ZKPIPE__EC_DEFINE_XY_CODEC(G, F, NB)                                                           \
    ZKPIPE__EC_DEFINE_X_CODEC(G, F)                                                                \
    void G##_to_compressed(uint8_t *out, const G##_affine *p)                                      \
    {                                                                                              \
        if (G##_affine_is_infinity(p)) {                                                           \
            write_infinity(out, NB, 1);                                                            \
            return;                                                                                \
        }                                                                                          \
        F##__coord_write(out, &p->x);                                                              \
        out[0] |= FLAG_COMPRESSED | (F##__coord_larger(&p->y) ? FLAG_SIGN : 0);                    \
    }                                                                                              \
    void G##_to_uncompressed(uint8_t *out, const G##_affine *p)                                    \
    {                                                                                              \
        if (G##_affine_is_infinity(p))                                                             \
            write_infinity(out, 2 * (NB), 0);                                                      \
        else                                                                                       \
            G##__write_xy(out, p);                                                                 \
    }                                                                                              \
    static zkpipe_status G##__decode(G##_affine *out, const uint8_t *in, int compressed)           \
    {                                                                                              \
        uint8_t body[2 * (NB)];                                                                    \
        size_t len = compressed ? (NB) : 2 * (NB);                                                 \
        int infinity, sign;                                                                        \
        zkpipe_status st = read_flags(in, len, compressed, &infinity, &sign);                      \
        if (st != ZKPIPE_OK)                                                                       \
            return st;                                                                             \
        if (infinity) {                                                                            \
            G##_affine_set_infinity(out);                                                          \
            return ZKPIPE_OK;                                                                      \
        }                                                                                          \
        memcpy(body, in, len);                                                                     \
        body[0] &= (uint8_t)~FLAG_MASK;                                                            \
        return compressed ? G##__from_x(out, body, sign) : G##__read_xy(out, body);                \
    }                                                                                              \
    zkpipe_status G##_from_compressed(G##_affine *out, const uint8_t *in)                          \
    {                                                                                              \
        return G##__decode(out, in, 1);                                                            \
    }                                                                                              \
    zkpipe_status G##_from_uncompressed(G##_affine *out, const uint8_t *in)                        \
    {                                                                                              \
        return G##__decode(out, in, 0);                                                            \
    }

ZKPIPE__EC_DEFINE_FQ_COORD(bls12_381_fq)
ZKPIPE__EC_DEFINE_COORD_LARGER(bls12_381_fq, BLS12_381_G1_COMPRESSED_BYTES)
DEFINE_ZCASH_CODEC(bls12_381_g1, bls12_381_fq, BLS12_381_G1_COMPRESSED_BYTES)

ZKPIPE__EC_DEFINE_FQ2_COORD(bls12_381_fq2, bls12_381_fq)
ZKPIPE__EC_DEFINE_COORD_LARGER(bls12_381_fq2, BLS12_381_G2_COMPRESSED_BYTES)
DEFINE_ZCASH_CODEC(bls12_381_g2, bls12_381_fq2, BLS12_381_G2_COMPRESSED_BYTES)
