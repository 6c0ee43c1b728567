/* The 8-lane NTT butterflies over the scalar field of BN254 (x86-64 only). */
#include "poly/ntt_x8.h"

#if ZKPIPE__FF_X86
#define X8_F bn254_fr
#include "poly/ntt_x8_impl.h"
#else
typedef int zkpipe__ntt_no_x8; /* an empty translation unit is not ISO C */
#endif
