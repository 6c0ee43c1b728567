/* Randomness for Groth16: the prover's blinding factors from the operating system, and the
 * setup's INSECURE seeded toxic waste (documented at zkpipe_groth16_setup_insecure). */
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "ff/bls12_381_fr.h"
#include "ff/bn254_fr.h"
#include "groth16/groth16_internal.h"

zkpipe_status zkpipe__g16_os_random(uint8_t *out, size_t n)
{
    while (n > 0) {
        ssize_t got = getrandom(out, n, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return ZKPIPE_EIO;
        }
        out += got;
        n -= (size_t)got;
    }
    return ZKPIPE_OK;
}

static const zkpipe__fr_ops *fr_ops(zkpipe_curve curve)
{
    return curve == ZKPIPE_CURVE_BLS12_381 ? &zkpipe__bls12_381_fr_ops : &zkpipe__bn254_fr_ops;
}

static const uint64_t *fr_modulus(zkpipe_curve curve)
{
    return curve == ZKPIPE_CURVE_BLS12_381 ? bls12_381_fr_MODULUS : bn254_fr_MODULUS;
}

/* Sets `out` (Montgomery) from 4 candidate limbs when, with the top limb masked to r's bit
 * length, they make a non-zero integer below r; returns 1 then, else 0. */
static int accept(uint64_t *out, uint64_t *limbs, zkpipe_curve curve)
{
    uint64_t top = fr_modulus(curve)[3];
    limbs[3] &= ~(uint64_t)0 >> __builtin_clzll(top);
    if ((limbs[0] | limbs[1] | limbs[2] | limbs[3]) == 0)
        return 0;
    return fr_ops(curve)->from_canonical(out, limbs);
}

zkpipe_status zkpipe__g16_random_scalar(uint64_t *out, zkpipe_curve curve)
{
    for (;;) {
        uint64_t limbs[4];
        zkpipe_status st = zkpipe__g16_os_random((uint8_t *)limbs, sizeof limbs);
        if (st != ZKPIPE_OK)
            return st;
        if (accept(out, limbs, curve))
            return ZKPIPE_OK;
    }
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* 1 when tau^n = 1 for n = 2^log_n, i.e. tau lies in the domain (its Lagrange basis is
 * undefined there). */
static int in_domain(const uint64_t *tau, zkpipe_curve curve, unsigned log_n)
{
    const zkpipe__fr_ops *ops = fr_ops(curve);
    uint64_t x[4], one[4];
    memcpy(x, tau, sizeof x);
    for (unsigned i = 0; i < log_n; i++)
        ops->mul(x, x, x);
    ops->from_u64(one, 1);
    return memcmp(x, one, sizeof x) == 0;
}

void zkpipe__g16_toxic_from_seed(uint64_t *toxic, zkpipe_curve curve, const uint8_t *seed,
                                 unsigned log_n)
{
    uint64_t state[4];
    for (int k = 0; k < 4; k++) {
        state[k] = 0;
        for (int b = 0; b < 8; b++)
            state[k] |= (uint64_t)seed[8 * k + b] << (8 * b);
    }
    for (int i = 0; i < 5;) {
        uint64_t limbs[4];
        for (int k = 0; k < 4; k++)
            limbs[k] = splitmix64(&state[k]);
        if (accept(toxic + 4 * i, limbs, curve) && (i > 0 || !in_domain(toxic, curve, log_n)))
            i++;
    }
}
