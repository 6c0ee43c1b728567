#!/bin/sh
# Runs zkpipe-prove-circuit ($1) at a small size on both curves and checks its exit status and
# that its JSON line says the proof verified; also that an unknown curve is refused with the
# usage error's exit 2 (not a crash or a sanitizer report).
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$(dirname "$0")/support/exits.sh"

for curve in bls12-381 bn254; do
    status=0
    "$bin" --curve "$curve" --log-constraints 6 --threads 2 --json >"$tmp/out" 2>"$tmp/err" ||
        status=$?
    [ "$status" -eq 0 ] || fail "$curve: $(exit_says "$status"): $(cat "$tmp/err")"
    json=$(tail -n 1 "$tmp/out")
    echo "$json"
    case $json in *'"verified":true'*) ;; *) fail "$curve: not verified: $json" ;; esac
    case $json in *"\"curve\":\"$curve\""*) ;; *) fail "$curve: wrong curve: $json" ;; esac
    # the CPU paths, as ZKPIPE_CPU_MASK leaves them: masked "all", none is in use
    status=0
    ZKPIPE_CPU_MASK=all "$bin" --curve "$curve" --log-constraints 6 --threads 1 --json \
        >"$tmp/out" 2>"$tmp/err" || status=$?
    [ "$status" -eq 0 ] || fail "$curve, masked: $(exit_says "$status"): $(cat "$tmp/err")"
    json=$(tail -n 1 "$tmp/out")
    case $json in *'"verified":true'*) ;; *) fail "$curve, masked: not verified: $json" ;; esac
    case $json in *'"cpu":{"in_use":"none",'*'"masked":"adx+avx512+ifma"'*) ;;
    *) fail "$curve, masked: the cpu paths are not shown as masked: $json" ;; esac
done
status=0
"$bin" --curve nope --log-constraints 6 --threads 1 >/dev/null 2>"$tmp/err" || status=$?
expect_refusal "an unknown curve" "$status" 2
echo "ok"
