/* Building blocks for point encodings, host only, expanded by the encoding .c files.
 *
 * ZKPIPE__EC_DEFINE_FQ_COORD(F) and ZKPIPE__EC_DEFINE_FQ2_COORD(F2, F) define, per coordinate
 * field, the static helpers
 *   int F__coord_read(F *r, const uint8_t *in)   : big-endian; 0 when not canonical (>= q).
 *   void F__coord_write(uint8_t *out, const F *a)
 * and ZKPIPE__EC_DEFINE_COORD_LARGER(F, NB), for coordinates of NB bytes,
 *   int F__coord_larger(const F *y)              : 1 when y > -y in the encoding's byte order.
 * An Fq2 element is written c1 ‖ c0 (zcash and EIP-197 agree on this), so comparing the bytes
 * of y and -y gives the zcash sign rule: decided on c1, or on c0 when c1 = 0.
 *
 * ZKPIPE__EC_DEFINE_XY_CODEC(G, F, NB) defines, for coordinates of NB bytes,
 *   void G__write_xy(uint8_t *out, const G_affine *p)        : x ‖ y, 2 NB bytes.
 *   zkpipe_status G__read_xy(G_affine *out, const uint8_t *in)
 *       : reads x ‖ y and validates: ZKPIPE_ENONCANONICAL, ZKPIPE_ENOTONCURVE,
 *         ZKPIPE_ENOTINSUBGROUP, checked in that order; out is written only on ZKPIPE_OK.
 * and ZKPIPE__EC_DEFINE_X_CODEC(G, F), for compressed forms (needs F__coord_larger),
 *   zkpipe_status G__from_x(G_affine *out, const uint8_t *in, int larger)
 *       : reads x and recovers the y whose F__coord_larger equals `larger`, same statuses. */
#ifndef ZKPIPE_EC_CODEC_H
#define ZKPIPE_EC_CODEC_H

#include <stdint.h>
#include <string.h>

#include "zkpipe/status.h"

#define ZKPIPE__EC_DEFINE_FQ_COORD(F)                                                              \
    static int F##__coord_read(F *r, const uint8_t *in)                                            \
    {                                                                                              \
        return F##_from_bytes_be(r, in);                                                           \
    }                                                                                              \
    static void F##__coord_write(uint8_t *out, const F *a)                                         \
    {                                                                                              \
        F##_to_bytes_be(out, a);                                                                   \
    }

#define ZKPIPE__EC_DEFINE_FQ2_COORD(F2, F)                                                         \
    static int F2##__coord_read(F2 *r, const uint8_t *in)                                          \
    {                                                                                              \
        F2 t;                                                                                      \
        if (!F##_from_bytes_be(&t.c1, in) || !F##_from_bytes_be(&t.c0, in + F##_BYTES))            \
            return 0;                                                                              \
        *r = t;                                                                                    \
        return 1;                                                                                  \
    }                                                                                              \
    static void F2##__coord_write(uint8_t *out, const F2 *a)                                       \
    {                                                                                              \
        F##_to_bytes_be(out, &a->c1);                                                              \
        F##_to_bytes_be(out + F##_BYTES, &a->c0);                                                  \
    }

#define ZKPIPE__EC_DEFINE_COORD_LARGER(F, NB)                                                      \
    static int F##__coord_larger(const F *y)                                                       \
    {                                                                                              \
        uint8_t a[NB], b[NB];                                                                      \
        F n;                                                                                       \
        F##_neg(&n, y);                                                                            \
        F##__coord_write(a, y);                                                                    \
        F##__coord_write(b, &n);                                                                   \
        return memcmp(a, b, NB) > 0;                                                               \
    }

#define ZKPIPE__EC_DEFINE_XY_CODEC(G, F, NB)                                                       \
    static void G##__write_xy(uint8_t *out, const G##_affine *p)                                   \
    {                                                                                              \
        F##__coord_write(out, &p->x);                                                              \
        F##__coord_write(out + (NB), &p->y);                                                       \
    }                                                                                              \
    static zkpipe_status G##__check(G##_affine *out, const G##_affine *p)                          \
    {                                                                                              \
        if (!G##_is_on_curve(p))                                                                   \
            return ZKPIPE_ENOTONCURVE;                                                             \
        if (!G##_is_in_subgroup(p))                                                                \
            return ZKPIPE_ENOTINSUBGROUP;                                                          \
        *out = *p;                                                                                 \
        return ZKPIPE_OK;                                                                          \
    }                                                                                              \
    static zkpipe_status G##__read_xy(G##_affine *out, const uint8_t *in)                          \
    {                                                                                              \
        G##_affine p;                                                                              \
        if (!F##__coord_read(&p.x, in) || !F##__coord_read(&p.y, in + (NB)))                       \
            return ZKPIPE_ENONCANONICAL;                                                           \
        if (G##_affine_is_infinity(                                                                \
                &p)) /* (0, 0) is how infinity is held, not an encoding of it */                   \
            return ZKPIPE_ENOTONCURVE;                                                             \
        return G##__check(out, &p);                                                                \
    }

#define ZKPIPE__EC_DEFINE_X_CODEC(G, F)                                                            \
    static zkpipe_status G##__from_x(G##_affine *out, const uint8_t *in, int larger)               \
    {                                                                                              \
        G##_affine p;                                                                              \
        F y2;                                                                                      \
        if (!F##__coord_read(&p.x, in))                                                            \
            return ZKPIPE_ENONCANONICAL;                                                           \
        G##_rhs(&y2, &p.x);                                                                        \
        if (!F##_sqrt(&p.y, &y2))                                                                  \
            return ZKPIPE_ENOTONCURVE;                                                             \
        if (F##__coord_larger(&p.y) != larger)                                                     \
            F##_neg(&p.y, &p.y);                                                                   \
        return G##__check(out, &p);                                                                \
    }

#endif
