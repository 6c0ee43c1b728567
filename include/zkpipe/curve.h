/*! zkpipe/curve.h : the pairing-friendly curves zkpipe proves over.
 *
 * Every public API that depends on a field or curve takes a zkpipe_curve. Both scalar fields
 * (Fr) are below 2^256, so a scalar is 32 bytes (4 limbs of 64 bits) on either curve. */
#ifndef ZKPIPE_CURVE_H
#define ZKPIPE_CURVE_H

#include "zkpipe/common.h"
#include "zkpipe/status.h"

ZKPIPE_EXTERN_C_BEGIN

typedef enum zkpipe_curve {
    ZKPIPE_CURVE_BLS12_381 = 0, /* "bls12-381": Zcash/bellman, r has 255 bits */
    ZKPIPE_CURVE_BN254 = 1,     /* "bn254" (alt_bn128): Ethereum, circom/snarkjs, r has 254 bits */
    ZKPIPE_CURVE_COUNT = 2
} zkpipe_curve;

/*! zkpipe_curve_name() : the curve's canonical lower-case name, "bls12-381" or "bn254".
 * @return a static string, or NULL for a value that is not a zkpipe_curve.
 * Thread safety: any thread. Does not allocate. */
ZKPIPE_API const char *zkpipe_curve_name(zkpipe_curve curve);

/*! zkpipe_curve_parse() : the curve named `name`. Accepts the canonical names and, ignoring
 * case, "bls12_381", "bls12381", "bn128", "alt_bn128" and "bn256" (snarkjs and circom
 * spellings).
 * @param out receives the curve; untouched on error.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL argument or unknown name).
 * Thread safety: any thread. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_curve_parse(zkpipe_curve *out, const char *name);

ZKPIPE_EXTERN_C_END

#endif
