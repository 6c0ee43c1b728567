#!/bin/sh
# A batch of circom witnesses proved with one zkey, two ways, in alternating rounds (not run by
# ctest):
#   tests/bench/bench_zkey_batch.sh BUILD_DIR FIXTURE_DIR COPIES [ROUNDS] [PEER]
# FIXTURE_DIR holds circuit.zkey, witness.wtns and verification_key.json (e.g.
# ../shared/bench/bn128-chain16, tests/interop/fixtures/bn128/rangesum).
# - pipeline:   one zkpipe-pipeline --zkey process over all COPIES witnesses (one synthesis
#               worker, two prover workers of one thread each, so both cores prove; other
#               engine flags in $PIPELINE_ARGS, e.g. "--prover-workers 1 --prover-threads 2");
# - sequential: one zkpipe-prove process per witness, one after another (each with the default
#               two threads), the way a shell loop over a prover CLI runs a batch (left out
#               with SEQUENTIAL=0);
# - peer:       the same loop with PEER, a command taking ZKEY WTNS PROOF PUBLIC (e.g.
#               rapidsnark's `prover`), when given.
# The witness is copied COPIES times. Each round runs every way once; the script prints each
# run's wall seconds and peak RSS (GNU time), then per way the median over the rounds and the
# median of the per-round ratios pipeline / other. Every proof of the last round is checked
# with zkpipe-verify.
set -eu
build=$1 dir=$2 copies=$3 rounds=${4:-5} peer=${5:-}
zkey=$dir/circuit.zkey wtns=$dir/witness.wtns vk=$dir/verification_key.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/batch_common.sh"
batch_copies "$wtns"

# One process per witness, one after another, under one GNU time (whose peak RSS is then the
# largest process's).
loop='z=$1 in=$2 out=$3
shift 3
for w in "$in"/*.wtns; do
    n=$(basename "$w" .wtns)
    "$@" "$z" "$w" "$out/$n.proof.json" "$out/$n.public.json" || exit 1
done'
r=1
while [ "$r" -le "$rounds" ]; do
    # shellcheck disable=SC2086 # PIPELINE_ARGS is a list of flags
    timed pipeline "$r" 1 "$build/tools/zkpipe-pipeline" --zkey "$zkey" --out "$tmp/out" \
        ${PIPELINE_ARGS:---synth-workers 1 --prover-workers 2 --prover-threads 1} --report-ms 0 \
        "$tmp"/in/*.wtns
    [ "$r" -lt "$rounds" ] || check_proofs
    if [ "${SEQUENTIAL:-1}" != 0 ]; then
        timed sequential "$r" 1 sh -c "$loop" loop "$zkey" "$tmp/in" "$tmp/out" \
            "$build/tools/zkpipe-prove"
        [ "$r" -lt "$rounds" ] || check_proofs
    fi
    if [ -n "$peer" ]; then
        timed peer "$r" 1 sh -c "$loop" loop "$zkey" "$tmp/in" "$tmp/out" $peer
        [ "$r" -lt "$rounds" ] || check_proofs
    fi
    r=$((r + 1))
done

for way in pipeline sequential peer; do
    grep -q "^$way " "$tmp/runs" || continue
    line=$(way_line "$way")
    if [ "$way" != pipeline ]; then
        ratio=$(per_round pipeline "$way" "a / b" | median)
        line="$line; pipeline / $way: median ratio $ratio"
    fi
    echo "$line"
done
