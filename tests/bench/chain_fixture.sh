#!/bin/sh
# Makes a Groth16 fixture for the peer benchmarks (not run by ctest; nothing it makes is
# committed): a chain of N multiplications, s[i+1] = s[i]^2 + k + i, the shape of
# ../shared/bench/*-chain16 at any size, compiled with circom2 and set up with snarkjs.
#   tests/bench/chain_fixture.sh OUT_DIR N [bn128|bls12381] [NODE_MODULES]
# OUT_DIR receives circuit.zkey, witness.wtns, verification_key.json and chain.r1cs. N + 3
# must fit the powers of tau made here: 2^K with K the smallest such (N = 4093: 2^12, about a
# minute on 2 cores). The tau and the phase-2 key come from snarkjs beacons, not random
# contributions: fine for timing, never for a real key.
set -eu
out=$1 n=$2 curve=${3:-bn128}
mods=${4:-$(cd "$(dirname "$0")/../interop" && pwd)/node_modules}
snarkjs="node $mods/.bin/snarkjs"
circom="node $mods/.bin/circom2"
k=1
while [ $((1 << k)) -lt $((n + 3)) ]; do k=$((k + 1)); done
mkdir -p "$out"
cd "$out"
cat >chain.circom <<CIRCOM
pragma circom 2.0.0;
template Chain(n) {
    signal input x;
    signal input k;
    signal output out;
    signal s[n+1];
    s[0] <== x;
    for (var i = 0; i < n; i++) {
        s[i+1] <== s[i] * s[i] + k + i;
    }
    out <== s[n];
}
component main {public [k]} = Chain($n);
CIRCOM
echo '{"x": "3", "k": "7"}' >input.json
$circom chain.circom --r1cs --wasm --prime "$curve" -o . >/dev/null
$snarkjs powersoftau new "$curve" "$k" tau0.ptau >/dev/null
$snarkjs powersoftau beacon tau0.ptau tau1.ptau \
    0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f 10 >/dev/null
$snarkjs powersoftau prepare phase2 tau1.ptau tau.ptau >/dev/null
$snarkjs groth16 setup chain.r1cs tau.ptau key0.zkey >/dev/null
$snarkjs zkey beacon key0.zkey circuit.zkey \
    0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f 10 >/dev/null
$snarkjs zkey export verificationkey circuit.zkey verification_key.json >/dev/null
$snarkjs wtns calculate chain_js/chain.wasm input.json witness.wtns >/dev/null
rm -f tau0.ptau tau1.ptau key0.zkey
echo "$out: chain of $n multiplications on $curve, 2^$k"
