#!/bin/sh
# Fixtures at any size for the benchmarks (never committed; not run by ctest):
#   tests/bench/make_fixtures.sh BUILD_DIR OUT_DIR LOG_K [CURVE] [SEED]
# writes into OUT_DIR (created when missing) the built-in test circuit at 2^LOG_K rows
# (constraints + public inputs + 1; LOG_K 4 to 28) on CURVE (bn254, the default, or bls12-381):
#   circuit.r1cs, witness.wtns   zkpipe-export-circuit
#   circuit.zkey                 zkpipe-setup --insecure-seed SEED (default 1): INSECURE, for
#                                benchmarks only
#   verification_key.json       snarkjs zkey export verificationkey ($SNARKJS, default the one
#                                in tests/interop/node_modules; skipped with a note when absent)
# then proves the set once with zkpipe-prove and checks the proof with zkpipe-verify (skip with
# CHECK=0). The layout is the one bench_zkey_prove.sh and bench_zkey_batch.sh read. Each step's
# wall time and peak RSS are printed (GNU time). At 2^22 on BN254 the files take about 3 GB.
set -eu
if [ $# -lt 3 ]; then
    echo "usage: $0 BUILD_DIR OUT_DIR LOG_K [CURVE] [SEED]" >&2
    exit 2
fi
build=$1 out=$2 k=$3 curve=${4:-bn254} seed=${5:-1}
here=$(cd "$(dirname "$0")" && pwd)
snarkjs=${SNARKJS:-$here/../interop/node_modules/.bin/snarkjs}
tools=$build/tools
mkdir -p "$out"
step() { # label, command...
    label=$1
    shift
    /usr/bin/time -f "$label: %e s wall, %M KiB peak RSS" "$@"
}
step "export 2^$k $curve" "$tools/zkpipe-export-circuit" --curve "$curve" --log-constraints "$k" \
    "$out/circuit.r1cs" "$out/witness.wtns"
step "setup (seed $seed)" "$tools/zkpipe-setup" --insecure-seed "$seed" "$out/circuit.r1cs" \
    "$out/circuit.zkey"
if [ -x "$snarkjs" ] || command -v "$snarkjs" >/dev/null 2>&1; then
    "$snarkjs" zkey export verificationkey "$out/circuit.zkey" "$out/verification_key.json" \
        >/dev/null
else
    echo "note: no snarkjs at $snarkjs: verification_key.json not written" >&2
fi
if [ "${CHECK:-1}" != 0 ]; then
    step "zkpipe-prove" "$tools/zkpipe-prove" "$out/circuit.zkey" "$out/witness.wtns" \
        "$out/proof.json" "$out/public.json"
    if [ -f "$out/verification_key.json" ]; then
        "$tools/zkpipe-verify" "$out/verification_key.json" "$out/public.json" "$out/proof.json"
    fi
fi
ls -l "$out"
