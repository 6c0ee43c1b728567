#!/usr/bin/env python3
"""Writes src/ec/endo_constants.h: the constants of the curve endomorphisms that the scalar
multiplications, the MSMs and the subgroup checks use.

Run from anywhere: python3 src/ec/gen_endo.py. The output is committed; the build never runs
this script. Everything is derived from the curve parameters and checked on the generators
(each eigenvalue, each lattice vector, the decomposition bounds) before anything is written;
clang-format then wraps the long lines.

  phi(x, y) = (beta x, y), beta a primitive cube root of unity in Fq, is an endomorphism of
  the curve and of its sextic twist; on G1 and on G2 it is multiplication by the same lambda
  (beta is chosen per group so that both agree), a cube root of unity mod r. A scalar
  k = k1 + k2 lambda (mod r) with |k1|, |k2| < 2^127 then gives k P = k1 P + k2 phi(P)
  (GLV). The split rounds k (b2, -b1) / r to the nearest lattice point with 2^320-scaled
  constants (Babai on the reduced basis of the lattice {(a, b): a + b lambda = 0}).

  psi, the untwist-Frobenius-twist map of BN254's G2, psi(x, y) = (conj(x) cx, conj(y) cy),
  acts on G2 as multiplication by p mod r = 6u^2 (u the curve's seed).
"""
import math
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ff"))
from gen_constants import W, Fq2, fmt  # noqa: E402  (one Fq2 and limb format for both)

BN_U = 4965661367192848881
BN_P = 36 * BN_U**4 + 36 * BN_U**3 + 24 * BN_U**2 + 6 * BN_U + 1
BN_R = 36 * BN_U**4 + 36 * BN_U**3 + 18 * BN_U**2 + 6 * BN_U + 1
BLS_X = -0xD201000000010000
BLS_P = (BLS_X - 1) ** 2 * (BLS_X**4 - BLS_X**2 + 1) // 3 + BLS_X
BLS_R = BLS_X**4 - BLS_X**2 + 1

CURVES = {
    # p, r, b (G1), xi (twist: b' = b / xi for BN254's D-type twist, b xi for BLS12-381's
    # M-type), generators of G1 and G2 (x, y; Fq2 as (c0, c1))
    "bn254": {
        "p": BN_P,
        "r": BN_R,
        "b": 3,
        "twist": ("D", (9, 1)),
        "g1": (1, 2),
        "g2": (
            (
                0x1800DEEF121F1E76426A00665E5C4479674322D4F75EDADD46DEBD5CD992F6ED,
                0x198E9393920D483A7260BFB731FB5D25F1AA493335A9E71297E485B7AEF312C2,
            ),
            (
                0x12C85EA5DB8C6DEB4AAB71808DCB408FE3D1E7690C43D37B4CE6CC0166FA7DAA,
                0x090689D0585FF075EC9E99AD690C3395BC4B313370B38EF355ACDADCD122975B,
            ),
        ),
    },
    "bls12_381": {
        "p": BLS_P,
        "r": BLS_R,
        "b": 4,
        "twist": ("M", (1, 1)),
        "g1": (
            0x17F1D3A73197D7942695638C4FA9AC0FC3688C4F9774B905A14E3A3F171BAC586C55E83FF97A1AEFFB3AF00ADB22C6BB,
            0x08B3F481E3AAA0F1A09E30ED741D8AE4FCF5E095D5D00AF600DB18CB2C04B3EDD03CC744A2888AE40CAA232946C5E7E1,
        ),
        "g2": (
            (
                0x024AA2B2F08F0A91260805272DC51051C6E47AD4FA403B02B4510B647AE3D1770BAC0326A805BBEFD48056C8C121BDB8,
                0x13E02B6052719F607DACD3A088274F65596BD0D09920B61AB5DA61BBDC7F5049334CF11213945D57E5AC7D055D042B7E,
            ),
            (
                0x0CE5D527727D6E118CC9CDC6DA2E351AADFD9BAA8CBDD3A76D429A695160D12C923AC9CC3BACA289E193548608B82801,
                0x0606C4A02EA734CC32ACD2B02BC28B99CB3E287E85A763AF267492AB572E99AB3F370D275CEC1DA1AAA9075FF05F79BE,
            ),
        ),
    },
}


class Fp:
    """Fq itself, with the interface of Fq2."""

    def __init__(self, p, v):
        self.p, self.v = p, v % p

    def __add__(self, o):
        return Fp(self.p, self.v + o.v)

    def __sub__(self, o):
        return Fp(self.p, self.v - o.v)

    def __neg__(self):
        return Fp(self.p, -self.v)

    def __mul__(self, o):
        return Fp(self.p, self.v * (o if isinstance(o, int) else o.v))

    def __eq__(self, o):
        return self.v == o.v

    def inv(self):
        return Fp(self.p, pow(self.v, self.p - 2, self.p))

    def is_zero(self):
        return self.v == 0


def ec_add(P, Q):
    """Affine addition on y^2 = x^3 + b; None is the point at infinity."""
    if P is None:
        return Q
    if Q is None:
        return P
    (x1, y1), (x2, y2) = P, Q
    if x1 == x2:
        if (y1 + y2).is_zero():
            return None
        lam = x1 * x1 * 3 * (y1 * 2).inv()
    else:
        lam = (y2 - y1) * (x2 - x1).inv()
    x3 = lam * lam - x1 - x2
    return (x3, lam * (x1 - x3) - y1)


def ec_mul(P, k):
    if k < 0:
        return ec_neg(ec_mul(P, -k))
    R = None
    for bit in bin(k)[2:]:
        R = ec_add(R, R)
        if bit == "1":
            R = ec_add(R, P)
    return R


def ec_neg(P):
    return None if P is None else (P[0], -P[1])


def short_basis(r, lam):
    """Two short vectors (a, b) with a + b lam = 0 mod r (Gallant-Lambert-Vanstone)."""
    s0, t0, r0 = 1, 0, r
    s1, t1, r1 = 0, 1, lam
    seq = [(r0, t0), (r1, t1)]
    while r1 != 0:
        q = r0 // r1
        r0, r1 = r1, r0 - q * r1
        t0, t1 = t1, t0 - q * t1
        seq.append((r1, t1))
    root = math.isqrt(r)
    l = max(i for i, (ri, _) in enumerate(seq) if ri >= root)
    v1 = (seq[l + 1][0], -seq[l + 1][1])
    cands = [(seq[l][0], -seq[l][1]), (seq[l + 2][0], -seq[l + 2][1])]
    v2 = min(cands, key=lambda v: v[0] ** 2 + v[1] ** 2)
    for a, b in (v1, v2):
        assert (a + b * lam) % r == 0
    return v1, v2


def split(k, r, v1, v2, g1, g2, shift):
    """The split the C code computes: c_i = k |g_i| / 2^shift rounded, with g_i's sign."""
    (a1, b1), (a2, b2) = v1, v2
    half = 1 << (shift - 1)
    c1 = ((k * abs(g1) + half) >> shift) * (1 if g1 >= 0 else -1)
    c2 = ((k * abs(g2) + half) >> shift) * (1 if g2 >= 0 else -1)
    return k - c1 * a1 - c2 * a2, -c1 * b1 - c2 * b2


def signed(name, v, n):
    return [
        ("%s_ABS" % name, fmt(abs(v), n)),
        ("%s_NEG" % name, "1" if v < 0 else "0"),
    ]


def curve_constants(name, c, out):
    p, r = c["p"], c["r"]
    n = (p.bit_length() + 63) // 64
    R = pow(2, W * n, p)
    mont = lambda x: fmt(x * R % p, n)
    pre = "ZKPIPE__%s" % name.upper()
    F = lambda v: Fp(p, v)
    # G1 and the twist's b'
    xi = Fq2(p, *c["twist"][1])
    kind = c["twist"][0]
    b2 = Fq2(p, c["b"]) * (xi.inv() if kind == "D" else xi)
    G1 = (F(c["g1"][0]), F(c["g1"][1]))
    G2 = (Fq2(p, *c["g2"][0]), Fq2(p, *c["g2"][1]))
    assert G1[1] * G1[1] == G1[0] * G1[0] * G1[0] + F(c["b"])
    assert G2[1] * G2[1] == G2[0] * G2[0] * G2[0] + b2
    assert ec_mul(G1, r) is None and ec_mul(G2, r) is None
    # The cube roots: beta in Fq and lambda mod r, paired on G1; G2 takes beta or beta^2.
    g = 2
    while pow(g, (p - 1) // 3, p) == 1:
        g += 1
    beta = pow(g, (p - 1) // 3, p)
    lam = next(l for l in range(2, 10) if pow(l, (r - 1) // 3, r) != 1)
    lam = pow(lam, (r - 1) // 3, r)
    lams = [lam, lam * lam % r]
    # Prefer the smaller lambda: for BLS12-381 that is x^2 - 1, whose lattice is (x^2, 1).
    lams.sort()
    lam = lams[0]
    beta1 = next(b for b in (beta, beta * beta % p) if ec_mul(G1, lam) == (G1[0] * F(b), G1[1]))
    beta2 = next(
        b
        for b in (beta, beta * beta % p)
        if ec_mul(G2, lam) == (G2[0] * Fq2(p, b), G2[1])
    )
    v1, v2 = short_basis(r, lam)
    (a1, b1), (a2, b2_) = v1, v2
    det = a1 * b2_ - a2 * b1
    assert abs(det) == r
    shift = 320
    rnd = lambda num: (2 * num + det) // (2 * det) if det > 0 else (2 * num - det) // (2 * det)
    g1 = rnd(b2_ << shift)
    g2 = rnd(-b1 << shift)
    # The bound: c_i is within 1/2 + r / 2^shift of the exact k (b2, -b1)_i / det, so
    # |k1| <= (1/2 + r / 2^shift)(|a1| + |a2|) and the same for k2 with the b's: below 2^127.
    for x, y in ((a1, a2), (b1, b2_)):
        assert ((abs(x) + abs(y)) * ((1 << shift) + 2 * r)) >> (shift + 1) < 1 << 127
    rng = random.Random(1)
    ks = [0, 1, 2, r - 1, r - 2, (r - 1) // 2, lam, r - lam, abs(a1), abs(a2)]
    ks += [rng.randrange(r) for _ in range(20000)]
    worst = 0
    for k in ks:
        k1, k2 = split(k, r, v1, v2, g1, g2, shift)
        assert (k1 + k2 * lam - k) % r == 0
        worst = max(worst, abs(k1), abs(k2))
    assert worst < 1 << 127, worst.bit_length()
    out.append("")
    out.append("/* %s */" % name.upper().replace("_", "-", 1))
    out.append("/* lambda, a cube root of unity mod r: phi is [lambda] on G1 and on G2 */")
    out.append("#define %s_GLV_LAMBDA %s" % (pre, fmt(lam, 4)))
    out.append("/* beta (Montgomery form), phi(x, y) = (beta x, y) on G1 */")
    out.append("#define %s_G1_BETA %s" % (pre, mont(beta1)))
    out.append("/* beta on the twist, for G2 (in Fq, x's two coefficients each times it) */")
    out.append("#define %s_G2_BETA %s" % (pre, mont(beta2)))
    out.append(
        "/* the reduced basis (a1, b1), (a2, b2) of {(a, b): a + b lambda = 0 mod r}: |entry| "
        "and sign */"
    )
    for nm, v in (("A1", a1), ("B1", b1), ("A2", a2), ("B2", b2_)):
        for k, val in signed("%s_GLV_%s" % (pre, nm), v, 2):
            out.append("#define %s %s" % (k, val))
    out.append("/* g1 = b2 2^320 / det, g2 = -b1 2^320 / det, rounded (det = a1 b2 - a2 b1) */")
    for nm, v in (("G1", g1), ("G2", g2)):
        for k, val in signed("%s_GLV_%s" % (pre, nm), v, 4):
            out.append("#define %s %s" % (k, val))
    if name == "bn254":
        # psi(x, y) = (conj(x) cx, conj(y) cy), cx = xi^((p - 1) / 3), cy = xi^((p - 1) / 2)
        cx = xi ** ((p - 1) // 3)
        cy = xi ** ((p - 1) // 2)
        psi = lambda P: None if P is None else (P[0].conj() * cx, P[1].conj() * cy)
        assert psi(G2) == ec_mul(G2, p % r) and p % r == 6 * BN_U**2
        # Dai-Lin-Zhao-Zhou: P in G2 iff [u+1]P + psi([u]P) + psi^2([u]P) = psi^3([2u]P),
        # valid as u != 4 mod 13 and u != 92 mod 97.
        assert BN_U % 13 != 4 and BN_U % 97 != 92
        uP = ec_mul(G2, BN_U)
        lhs = ec_add(ec_add(ec_add(uP, G2), psi(uP)), psi(psi(uP)))
        assert lhs == psi(psi(psi(ec_mul(G2, 2 * BN_U))))
        out.append("/* psi(x, y) = (conj(x) cx, conj(y) cy) on BN254's twist: cx, cy */")
        out.append(
            "#define %s_PSI_X {{%s}}, {{%s}}" % (pre, mont(cx.c0), mont(cx.c1))
        )
        out.append(
            "#define %s_PSI_Y {{%s}}, {{%s}}" % (pre, mont(cy.c0), mont(cy.c1))
        )
        out.append("/* the seed u, positive */")
        out.append("#define %s_U UINT64_C(0x%016x)" % (pre, BN_U))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = [
        "/* Endomorphism constants of BLS12-381 and BN254. Generated by src/ec/gen_endo.py; do "
        "not edit.",
        " * Limbs are 64-bit, least significant first. */",
        "#ifndef ZKPIPE_EC_ENDO_CONSTANTS_H",
        "#define ZKPIPE_EC_ENDO_CONSTANTS_H",
        "",
        "#include <stdint.h>",
    ]
    for name, c in CURVES.items():
        curve_constants(name, c, out)
    out += ["", "#endif"]
    path = os.path.join(here, "endo_constants.h")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    subprocess.run(["clang-format", "-i", path], check=True)


if __name__ == "__main__":
    main()
