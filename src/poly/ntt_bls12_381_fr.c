/* The NTT over the scalar field of BLS12-381. */
#include "ff/bls12_381_fr.h"

#define NTT_F bls12_381_fr
#if ZKPIPE__FF_X86
#include "poly/ntt_x8.h"
#define NTT_X8 zkpipe__ntt_bls12_381_fr_butterflies_x8
#define NTT_X8_FIRST3 zkpipe__ntt_bls12_381_fr_first3_x8
#endif
#include "poly/ntt_impl.h"
