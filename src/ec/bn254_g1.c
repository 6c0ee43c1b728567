#include "ec/bn254_g1.h"

void bn254_g1_b(bn254_fq *b)
{
    bn254_fq_from_u64(b, 3);
}

void bn254_g1_generator(bn254_g1_affine *out)
{
    bn254_fq_from_u64(&out->x, 1);
    bn254_fq_from_u64(&out->y, 2);
}

ZKPIPE__EC_DEFINE_GROUP(bn254_g1, bn254_fq, bn254_fr)

/* The cofactor is 1: every point on the curve is in the group. */
int bn254_g1_is_in_subgroup(const bn254_g1_affine *p)
{
    return bn254_g1_is_on_curve(p);
}
