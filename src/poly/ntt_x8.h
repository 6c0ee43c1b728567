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
/* The first three radix-2 stages (half-sizes 1, 2 and 4) of every 8-element sub-transform of
 * a[0..n), n a multiple of 64, in place: the DIT stages of ntt_impl.h on bit-reversed input,
 * w8 = (1, w, w^2, w^3) for w a primitive 8th root of unity (the half-size-4 stage's twiddles),
 * reduced inputs and outputs. Eight sub-transforms at a time, one per lane. Needs AVX-512F and
 * IFMA. */
void zkpipe__ntt_bls12_381_fr_first3_x8(bls12_381_fr *a, size_t n, const bls12_381_fr *w8);
void zkpipe__ntt_bn254_fr_first3_x8(bn254_fr *a, size_t n, const bn254_fr *w8);
#endif

#endif
