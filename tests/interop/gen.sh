#!/usr/bin/env bash
# Regenerates fixtures/<curve>/<circuit>/ from circuits/<circuit>.circom and its input with the
# pinned circom2 and snarkjs: run `npm ci` here first. Every step is deterministic (beacons
# instead of random contributions) except proof.json, whose r and s snarkjs draws at random.
# Usage: gen.sh [CIRCUIT...] (default: all of them)
set -euo pipefail
cd "$(dirname "$0")"

CURVES="bls12381 bn128"
CIRCUITS=${*:-multiplier hashchain rangesum factors}
POWER=10 # powers of tau: domains up to 2^10 rows (constraints + public inputs + 1)
BEACON=7a6b706970652d696e7465726f702d66697874757265732d626561636f6e2d31
BEACON_EXP=10

bin=$PWD/node_modules/.bin
if [ ! -x "$bin/snarkjs" ] || [ ! -x "$bin/circom2" ]; then
    echo "gen.sh: the pinned tools are missing; run 'npm ci' in $PWD first" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# snarkjs's CLI exits 0 after some failures and reports them as [ERROR] lines.
snarkjs() {
    local out
    if ! out=$("$bin/snarkjs" "$@" 2>&1) || printf '%s\n' "$out" | grep -q '\[ERROR\]'; then
        printf 'gen.sh: snarkjs %s failed:\n%s\n' "$*" "$out" >&2
        return 1
    fi
    printf '%s\n' "$out"
}

snarkjs_verify() { # vk public proof: snarkjs must print OK!
    local out
    out=$(snarkjs groth16 verify "$@")
    case $out in
    *'OK!'*) ;;
    *)
        printf 'gen.sh: snarkjs rejected %s:\n%s\n' "$3" "$out" >&2
        return 1
        ;;
    esac
}

for curve in $CURVES; do
    echo "== $curve: powers of tau 2^$POWER"
    snarkjs powersoftau new "$curve" "$POWER" "$work/pot0.ptau" >/dev/null
    snarkjs powersoftau beacon "$work/pot0.ptau" "$work/pot1.ptau" "$BEACON" "$BEACON_EXP" \
        -n="zkpipe fixtures" >/dev/null
    snarkjs powersoftau prepare phase2 "$work/pot1.ptau" "$work/pot.ptau" >/dev/null

    for circuit in $CIRCUITS; do
        echo "== $curve/$circuit"
        out=fixtures/$curve/$circuit
        tmp=$work/$curve-$circuit
        mkdir -p "$tmp"
        "$bin/circom2" "circuits/$circuit.circom" --r1cs --wasm --prime "$curve" -o "$tmp" \
            >/dev/null
        rm -rf "$out"
        mkdir -p "$out"
        cp "$tmp/$circuit.r1cs" "$out/circuit.r1cs"
        cp "circuits/$circuit.input.json" "$out/input.json"
        snarkjs groth16 setup "$out/circuit.r1cs" "$work/pot.ptau" "$tmp/setup.zkey" >/dev/null
        snarkjs zkey beacon "$tmp/setup.zkey" "$out/circuit.zkey" "$BEACON" "$BEACON_EXP" \
            -n="zkpipe fixtures" >/dev/null
        snarkjs zkey verify "$out/circuit.r1cs" "$work/pot.ptau" "$out/circuit.zkey" >/dev/null
        snarkjs wtns calculate "$tmp/${circuit}_js/$circuit.wasm" "$out/input.json" \
            "$out/witness.wtns" >/dev/null
        snarkjs wtns check "$out/circuit.r1cs" "$out/witness.wtns" >/dev/null
        snarkjs zkey export verificationkey "$out/circuit.zkey" "$out/verification_key.json" \
            >/dev/null
        snarkjs groth16 prove "$out/circuit.zkey" "$out/witness.wtns" "$out/proof.json" \
            "$out/public.json" >/dev/null
        node det-prove.cjs "$curve" "$out/circuit.zkey" "$out/witness.wtns" \
            "$out/proof_det.json" 11 22
        for proof in proof.json proof_det.json; do
            snarkjs_verify "$out/verification_key.json" "$out/public.json" "$out/$proof"
        done
    done
done
echo "== fixtures written: $(du -sh fixtures | cut -f1)"
