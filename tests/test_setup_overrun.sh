#!/bin/sh
# zkpipe-setup --ptau at n = 2^15 from a ptau of power 15, against snarkjs, on BN254: the zkey
# is snarkjs's `groth16 setup` file byte for byte, and `snarkjs zkey verify` accepts it.
# There snarkjs's circuit hash takes one point read past the end of the ptau's tauG1 section
# (src/arith/snarkjs_sub_affine.c), which test_setup.sh's small sizes never reach.
# The ptau comes from zkpipe-test-seeded-ptau (snarkjs's own prepare phase2 would take tens of
# CPU minutes at this power). `snarkjs zkey verify` checks such a ptau's Lagrange sections
# against its powers, and zkpipe's zkey against both, at 2^10: the tool's sections are the same
# code at every power, and at 2^15 the zkey is snarkjs's own bytes, where a verify would spend
# half a CPU minute to say again what cmp said.
# BLS12-381 is left to test_snarkjs_sub_affine's vectors: the bytes read past its tauG1 are the
# same for every ptau of a power (the next section's header and the G2 generator), and on them
# arithmetic on residues (zkpipe before the fix) happens to give snarkjs's result, so a run there
# (four times BN254's snarkjs time) could not tell the fix from its absence.
# Without node and snarkjs the test is skipped. Labelled slow: half a minute or more of snarkjs.
#   test_setup_overrun.sh EXPORT SETUP SEEDED_PTAU
set -eu
[ $# -eq 3 ] || { echo "usage: test_setup_overrun.sh EXPORT SETUP SEEDED_PTAU" >&2; exit 2; }
export_circuit=$1 setup=$2 seeded_ptau=$3
snarkjs=$(cd "$(dirname "$0")/interop" && pwd)/node_modules/.bin/snarkjs
. "$(dirname "$0")/support/cli_checks.sh"
if ! command -v node >/dev/null 2>&1 || [ ! -x "$snarkjs" ]; then
    skip_checks "every check (node or tests/interop/node_modules missing: npm ci there)"
    checks_done
fi
cd "$tmp"

sj() { # snarkjs ARGS...: fails on a nonzero exit or an [ERROR] line (it exits 0 on some)
    "$snarkjs" "$@" >"$tmp/sj.out" 2>&1 && ! grep -q '\[ERROR\]' "$tmp/sj.out" ||
        { fail "snarkjs $*: $(cat "$tmp/sj.out")"; return 1; }
}

for curve in bn254; do
    accepted "seeded ptau 2^10 $curve" "$seeded_ptau" "$curve" 10 3 "$curve.ptau"
    accepted "export 2^10 $curve" "$export_circuit" --curve "$curve" --log-constraints 10 \
        c.r1cs c.wtns
    accepted "ptau setup 2^10 $curve" "$setup" --ptau "$curve.ptau" c.r1cs ours.zkey
    if sj zkey verify c.r1cs "$curve.ptau" ours.zkey; then
        grep -q 'ZKey Ok' "$tmp/sj.out" || fail "zkey verify 2^10 $curve: $(cat "$tmp/sj.out")"
    fi
    accepted "seeded ptau 2^15 $curve" "$seeded_ptau" "$curve" 15 3 "$curve.ptau"
    accepted "export 2^15 $curve" "$export_circuit" --curve "$curve" --log-constraints 15 \
        c.r1cs c.wtns
    accepted "ptau setup 2^15 $curve" "$setup" --ptau "$curve.ptau" c.r1cs ours.zkey
    if sj groth16 setup c.r1cs "$curve.ptau" theirs.zkey; then
        cmp ours.zkey theirs.zkey >/dev/null ||
            fail "ptau setup 2^15 $curve: not snarkjs's zkey: $(cmp ours.zkey theirs.zkey 2>&1)"
    fi
    rm -f "$curve.ptau" c.r1cs c.wtns ours.zkey theirs.zkey
done
checks_done
