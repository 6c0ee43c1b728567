/* The per-curve tables by curve and by prime, and the limb helpers the readers share. */
#include <string.h>

#include "io/io_internal.h"

const zkpipe__io_curve *zkpipe__io_curve_for(zkpipe_curve curve)
{
    switch (curve) {
    case ZKPIPE_CURVE_BLS12_381:
        return &zkpipe__io_bls12_381;
    case ZKPIPE_CURVE_BN254:
        return &zkpipe__io_bn254;
    default:
        return NULL;
    }
}

void zkpipe__io_limbs_le(uint64_t *out, const uint8_t *p, size_t nlimbs)
{
    for (size_t i = 0; i < nlimbs; i++)
        out[i] = zkpipe__io_u64(p + 8 * i);
}

int zkpipe__io_lt(const uint64_t *a, const uint64_t *b, size_t nlimbs)
{
    for (size_t i = nlimbs; i-- > 0;)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

const zkpipe__io_curve *zkpipe__io_curve_by_prime(const uint8_t *prime, uint32_t n8, int fr)
{
    const zkpipe__io_curve *all[] = {&zkpipe__io_bls12_381, &zkpipe__io_bn254};
    for (size_t c = 0; c < sizeof all / sizeof all[0]; c++) {
        size_t nlimbs = fr ? 4 : all[c]->fq_limbs;
        uint64_t p[6];
        if (n8 != 8 * nlimbs)
            continue;
        zkpipe__io_limbs_le(p, prime, nlimbs);
        if (memcmp(p, fr ? all[c]->r : all[c]->q, nlimbs * sizeof(uint64_t)) == 0)
            return all[c];
    }
    return NULL;
}
