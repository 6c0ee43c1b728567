/* The NTT over the scalar field of BLS12-381. */
#include "ff/bls12_381_fr.h"

#define NTT_F bls12_381_fr
#include "poly/ntt_impl.h"
