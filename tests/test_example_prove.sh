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
    # the CPU paths, as ZKPIPE_CPU_MASK leaves them: masked "all", none is in use
    json=$(ZKPIPE_CPU_MASK=all "$bin" --curve "$curve" --log-constraints 6 --threads 1 --json |
        tail -n 1) || fail "$curve, masked: exited with $?"
    case $json in *'"verified":true'*) ;; *) fail "$curve, masked: not verified: $json" ;; esac
    case $json in *'"cpu":{"in_use":"none",'*'"masked":"adx+ifma"'*) ;;
    *) fail "$curve, masked: the cpu paths are not shown as masked: $json" ;; esac
done
if "$bin" --curve nope --log-constraints 6 --threads 1 >/dev/null 2>&1; then
    fail "an unknown curve was accepted"
fi
echo "ok"
