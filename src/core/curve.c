#include "zkpipe/curve.h"

#include <ctype.h>

static const struct {
    const char *name;
    zkpipe_curve curve;
} names[] = {
    {"bls12-381", ZKPIPE_CURVE_BLS12_381}, {"bls12_381", ZKPIPE_CURVE_BLS12_381},
    {"bls12381", ZKPIPE_CURVE_BLS12_381},  {"bn254", ZKPIPE_CURVE_BN254},
    {"bn128", ZKPIPE_CURVE_BN254},         {"alt_bn128", ZKPIPE_CURVE_BN254},
    {"bn256", ZKPIPE_CURVE_BN254},
};

const char *zkpipe_curve_name(zkpipe_curve curve)
{
    switch (curve) {
    case ZKPIPE_CURVE_BLS12_381:
        return "bls12-381";
    case ZKPIPE_CURVE_BN254:
        return "bn254";
    default:
        return NULL;
    }
}

static int equal_nocase(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    }
    return *a == *b;
}

zkpipe_status zkpipe_curve_parse(zkpipe_curve *out, const char *name)
{
    if (out == NULL || name == NULL)
        return ZKPIPE_EINVAL;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (equal_nocase(name, names[i].name)) {
            *out = names[i].curve;
            return ZKPIPE_OK;
        }
    }
    return ZKPIPE_EINVAL;
}
