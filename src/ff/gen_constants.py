#!/usr/bin/env python3
"""Writes src/ff/bls12_381_constants.h and src/ff/bn254_constants.h.

Run from anywhere: python3 src/ff/gen_constants.py. The output is committed; the build never
runs this script. Every value is derived from the four moduli and the tower non-residues, and
checked (primitive roots, non-residues, the spare top bit the multiplier relies on) before
anything is written; clang-format then wraps the long lines.
"""
import os
import subprocess

W = 64
MASK = (1 << W) - 1

CURVES = {
    "bls12_381": {
        "fr": 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001,
        "fq": int(
            "1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F624"
            "1EABFFFEB153FFFFB9FEFFFFFFFFAAAB",
            16,
        ),
        # Fq6 = Fq2[v]/(v^3 - xi) with xi = XI_C0 + u
        "xi_c0": 1,
    },
    "bn254": {
        "fr": 0x30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001,
        "fq": 0x30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47,
        "xi_c0": 9,
    },
}
# Generator of the two-adic roots of unity, as ffjavascript/snarkjs use it.
FR_NONRESIDUE = 5


def limbs(x, n):
    assert 0 <= x < 1 << (W * n)
    return [(x >> (W * i)) & MASK for i in range(n)]


def nlimbs(p):
    return (p.bit_length() + W - 1) // W


def fmt(x, n):
    return ", ".join("UINT64_C(0x%016x)" % v for v in limbs(x, n))


def legendre(a, p):
    r = pow(a, (p - 1) // 2, p)
    return -1 if r == p - 1 else r


class Fq2:
    """Fq[u]/(u^2 + 1): the Frobenius coefficients here, the twists' points in
    src/ec/gen_endo.py (which imports it)."""

    def __init__(self, p, c0, c1=0):
        self.p, self.c0, self.c1 = p, c0 % p, c1 % p

    def __add__(self, o):
        return Fq2(self.p, self.c0 + o.c0, self.c1 + o.c1)

    def __sub__(self, o):
        return Fq2(self.p, self.c0 - o.c0, self.c1 - o.c1)

    def __neg__(self):
        return Fq2(self.p, -self.c0, -self.c1)

    def __mul__(self, o):
        if isinstance(o, int):
            return Fq2(self.p, self.c0 * o, self.c1 * o)
        p = self.p
        return Fq2(p, self.c0 * o.c0 - self.c1 * o.c1, self.c0 * o.c1 + self.c1 * o.c0)

    def __eq__(self, o):
        return self.c0 == o.c0 and self.c1 == o.c1

    def __pow__(self, e):
        r, b = Fq2(self.p, 1, 0), self
        while e:
            if e & 1:
                r = r * b
            b = b * b
            e >>= 1
        return r

    def conj(self):
        return Fq2(self.p, self.c0, -self.c1)

    def inv(self):
        p = self.p
        n = pow(self.c0 * self.c0 + self.c1 * self.c1, p - 2, p)
        return Fq2(p, self.c0 * n, -self.c1 * n)

    def is_one(self):
        return self.c0 == 1 and self.c1 == 0

    def is_zero(self):
        return self.c0 == 0 and self.c1 == 0


class Out:
    def __init__(self):
        self.lines = []

    def define(self, name, value, comment=None):
        if comment:
            self.lines.append("/* %s */" % comment)
        self.lines.append("#define %s %s" % (name, value))


def prime_field(out, prefix, p, is_fr):
    n = nlimbs(p)
    # The multiplier adds two carries into the top limb without a third word, and field
    # additions never overflow N limbs: both need the modulus's top limb below 2^63 - 1.
    assert limbs(p, n)[-1] < (1 << 63) - 1, prefix
    assert pow(2, p - 1, p) == 1
    R = pow(2, W * n, p)
    inv = (-pow(p, -1, 1 << W)) % (1 << W)
    mont = lambda x: fmt(x * R % p, n)
    out.lines.append("")
    out.define(prefix + "_LIMBS", str(n))
    out.define(prefix + "_BYTES", str((p.bit_length() + 7) // 8))
    out.define(prefix + "_MODULUS", fmt(p, n), "p = 0x%x" % p)
    out.define(prefix + "_INV", "UINT64_C(0x%016x)" % inv, "-p^-1 mod 2^64")
    out.define(prefix + "_ONE", fmt(R, n), "R = 2^%d mod p, 1 in Montgomery form" % (W * n))
    out.define(prefix + "_R2", fmt(R * R % p, n), "R^2 mod p")
    out.define(prefix + "_R3", fmt(R * R * R % p, n), "R^3 mod p")
    out.define(prefix + "_P_MINUS_1_HALF", fmt((p - 1) // 2, n))
    if not is_fr:
        assert p % 4 == 3
        out.define(prefix + "_P_PLUS_1_QUARTER", fmt((p + 1) // 4, n))
        return
    s = 0
    while (p - 1) >> s & 1 == 0:
        s += 1
    t = (p - 1) >> s
    assert legendre(FR_NONRESIDUE, p) == -1, prefix
    w = pow(FR_NONRESIDUE, t, p)
    assert pow(w, 1 << (s - 1), p) == p - 1
    out.define(prefix + "_TWO_ADICITY", str(s), "p - 1 = 2^s * t, t odd")
    out.define(prefix + "_T_MINUS_1_HALF", fmt((t - 1) // 2, n))
    out.define(
        prefix + "_ROOT_OF_UNITY",
        mont(w),
        "w = %d^t = %d^((p - 1) / 2^%d), a primitive 2^%d-th root of unity, Montgomery form"
        % (FR_NONRESIDUE, FR_NONRESIDUE, s, s),
    )


def fq2_list(elems, n, R, p):
    return ", \\\n".join(
        "{{{%s}}, {{%s}}}" % (fmt(e.c0 * R % p, n), fmt(e.c1 * R % p, n)) for e in elems
    )


def tower(out, prefix, p, xi_c0):
    n = nlimbs(p)
    R = pow(2, W * n, p)
    xi = Fq2(p, xi_c0, 1)
    # xi must be neither a square nor a cube in Fq2 for the sextic tower to be a field.
    assert not (xi ** ((p * p - 1) // 2)).is_one()
    assert not (xi ** ((p * p - 1) // 3)).is_one()
    out.lines.append("")
    out.define(prefix + "_XI_C0", str(xi_c0), "Fq6 = Fq2[v]/(v^3 - xi), xi = %d + u" % xi_c0)
    out.define(
        prefix + "_FQ6_FROB_C1",
        fq2_list([xi ** ((p**k - 1) // 3) for k in range(6)], n, R, p),
        "xi^((p^k - 1) / 3) for k = 0..5, Montgomery form",
    )
    out.define(
        prefix + "_FQ6_FROB_C2",
        fq2_list([xi ** (2 * (p**k - 1) // 3) for k in range(6)], n, R, p),
        "xi^(2 (p^k - 1) / 3) for k = 0..5",
    )
    out.define(
        prefix + "_FQ12_FROB_C1",
        fq2_list([xi ** ((p**k - 1) // 6) for k in range(12)], n, R, p),
        "xi^((p^k - 1) / 6) for k = 0..11",
    )


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for curve, c in CURVES.items():
        guard = "ZKPIPE_FF_%s_CONSTANTS_H" % curve.upper()
        out = Out()
        out.lines += [
            "/* %s field and tower constants. Generated by src/ff/gen_constants.py; do not edit."
            % curve.upper().replace("_", "-", 1),
            " * Limbs are 64-bit, least significant first. */",
            "#ifndef " + guard,
            "#define " + guard,
            "",
            "#include <stdint.h>",
        ]
        pre = "ZKPIPE__" + curve.upper()
        prime_field(out, pre + "_FR", c["fr"], True)
        prime_field(out, pre + "_FQ", c["fq"], False)
        tower(out, pre, c["fq"], c["xi_c0"])
        out.lines += ["", "#endif"]
        path = os.path.join(here, curve + "_constants.h")
        with open(path, "w") as f:
            f.write("\n".join(out.lines) + "\n")
        # The repository's .clang-format wraps the long initialiser lists.
        subprocess.run(["clang-format", "-i", path], check=True)


if __name__ == "__main__":
    main()
