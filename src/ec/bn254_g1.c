#include "ec/bn254_g1.h"
#include "ec/glv.h"
#include "ec/multi_mul.h"

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
ZKPIPE__EC_DEFINE_MULTI_MUL(bn254_g1, bn254_glv_split, bn254_g1_endo)

/* The cofactor is 1: every point on the curve is in the group. */
int bn254_g1_is_in_subgroup(const bn254_g1_affine *p)
{
    return bn254_g1_is_on_curve(p);
}
