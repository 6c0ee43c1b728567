/* The NTT over the scalar field of BN254. */
#include "ff/bn254_fr.h"

#define NTT_F bn254_fr
#include "poly/ntt_impl.h"
