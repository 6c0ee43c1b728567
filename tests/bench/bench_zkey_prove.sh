#!/bin/sh
# Prove time and peak RSS of zkpipe-prove against `snarkjs groth16 prove` on the same zkey and
# witness (not run by ctest):
#   tests/bench/bench_zkey_prove.sh BUILD_DIR FIXTURE_DIR [THREADS] [SNARKJS]
# FIXTURE_DIR holds circuit.zkey, witness.wtns and verification_key.json (e.g.
# ../shared/bench/bn128-chain16); SNARKJS is the snarkjs command (skipped when absent).
# Both proofs are checked with zkpipe-verify. Figures are wall seconds and KiB (GNU time).
set -eu
build=$1 dir=$2 threads=${3:-2} snarkjs=${4:-snarkjs}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # label, command...
    label=$1
    shift
    /usr/bin/time -f "$label: %e s wall, %M KiB peak RSS" -o "$tmp/time" "$@" >/dev/null
    cat "$tmp/time"
}
run "zkpipe-prove ($threads threads)" "$build/tools/zkpipe-prove" --threads "$threads" \
    --metrics "$tmp/metrics.json" "$dir/circuit.zkey" "$dir/witness.wtns" "$tmp/proof.json" \
    "$tmp/public.json"
"$build/tools/zkpipe-verify" "$dir/verification_key.json" "$tmp/public.json" "$tmp/proof.json"
sed -n 's/.*"timings":\({[^}]*}\).*/  phases (s): \1/p' "$tmp/metrics.json"
if command -v "$snarkjs" >/dev/null 2>&1; then
    run "snarkjs groth16 prove" "$snarkjs" groth16 prove "$dir/circuit.zkey" "$dir/witness.wtns" \
        "$tmp/sproof.json" "$tmp/spublic.json"
    "$build/tools/zkpipe-verify" "$dir/verification_key.json" "$tmp/spublic.json" \
        "$tmp/sproof.json"
fi
