#!/bin/sh
# Runs zkpipe-prove-circuit ($1) at a small size on both curves and checks that its JSON line
# says the proof verified; also that a bad argument is refused.
set -eu
bin=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

for curve in bls12-381 bn254; do
    json=$("$bin" --curve "$curve" --log-constraints 6 --threads 2 --json | tail -n 1) ||
        fail "$curve: exited with $?"
    echo "$json"
    case $json in *'"verified":true'*) ;; *) fail "$curve: not verified: $json" ;; esac
    case $json in *"\"curve\":\"$curve\""*) ;; *) fail "$curve: wrong curve: $json" ;; esac
done
if "$bin" --curve nope --log-constraints 6 --threads 1 >/dev/null 2>&1; then
    fail "an unknown curve was accepted"
fi
echo "ok"
