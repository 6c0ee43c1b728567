/* NTT butterflies eight at a time on AVX-512 IFMA lanes (ntt_x8_impl.h), for both scalar
 * fields: ntt_impl.h's stages hand their runs of consecutive butterflies to them when
 * zkpipe__ff_x86_ifma is set. x86-64 hosts only; nothing is declared elsewhere. */
#ifndef ZKPIPE_POLY_NTT_X8_H
#define ZKPIPE_POLY_NTT_X8_H

#include <stddef.h>

#include "ff/bls12_381_fr_x8.h"
#include "ff/bn254_fr_x8.h"

#if ZKPIPE__FF_X86
/* For k < n (a multiple of 8): (lo[k], hi[k]) = (lo[k] + w[k] hi[k], lo[k] - w[k] hi[k]), each
 * fully reduced, for reduced inputs; the three arrays do not overlap. Needs AVX-512F and IFMA
 * (zkpipe__ff_x86_ifma). */
void zkpipe__ntt_bls12_381_fr_butterflies_x8(bls12_381_fr *lo, bls12_381_fr *hi,
                                             const bls12_381_fr *w, size_t n);
void zkpipe__ntt_bn254_fr_butterflies_x8(bn254_fr *lo, bn254_fr *hi, const bn254_fr *w, size_t n);
#endif

#endif
