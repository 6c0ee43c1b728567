#!/bin/sh
# zkpipe against rapidsnark's `prover` at one fixture size, the figures of docs/SCALE.md (not run
# by ctest):
#   tests/bench/bench_scale.sh BUILD_DIR FIXTURE_DIR PEER [ROUNDS] [COPIES] [THREADS]
# FIXTURE_DIR holds circuit.zkey, witness.wtns and verification_key.json (e.g.
# ../shared/bench/bn128-chain16, or a set made at 2^18, 2^20, 2^22); PEER is the peer's prover
# command taking ZKEY WTNS PROOF PUBLIC (rapidsnark's `prover`), run with OMP_NUM_THREADS set
# to THREADS (default 2) as zkpipe-prove is run with --threads THREADS.
# 1. One proof, ROUNDS (default 5) alternating rounds of zkpipe-prove and PEER: each run's wall
#    seconds and peak RSS (GNU time), zkpipe-prove's zkey open time (its --metrics), then the
#    medians and the medians of the per-round ratios zkpipe / peer. Every proof is checked
#    with zkpipe-verify.
# 2. A batch of COPIES (default 8) copies of the witness: one zkpipe-pipeline --zkey process
#    against one PEER process per witness, one after another (bench_zkey_batch.sh, which also
#    runs one zkpipe-prove per witness), over $BATCH_ROUNDS rounds (default ROUNDS); SEQUENTIAL=0
#    leaves out its zkpipe-prove loop (at 2^20 and above, where each round takes minutes).
set -eu
if [ $# -lt 3 ]; then
    echo "usage: $0 BUILD_DIR FIXTURE_DIR PEER [ROUNDS] [COPIES] [THREADS]" >&2
    exit 2
fi
build=$1 dir=$2 peer=$3 rounds=${4:-5} batch=${5:-8} threads=${6:-2}
# shellcheck disable=SC2034 # vk and copies are batch_common.sh's
zkey=$dir/circuit.zkey wtns=$dir/witness.wtns vk=$dir/verification_key.json
[ -x "$build/tools/zkpipe-prove" ] || { echo "$0: no zkpipe-prove in $build/tools" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2034
copies=1
# shellcheck source=tests/bench/batch_common.sh
. "$(dirname "$0")/batch_common.sh"
batch_copies "$wtns"
export OMP_NUM_THREADS="$threads"

echo "one proof, $threads threads, $(du -m "$zkey" | cut -f1) MiB zkey:"
: >"$tmp/open"
r=1
while [ "$r" -le "$rounds" ]; do
    timed zkpipe "$r" 1 "$build/tools/zkpipe-prove" --threads "$threads" \
        --metrics "$tmp/metrics.json" "$zkey" "$wtns" "$tmp/out/w1.proof.json" \
        "$tmp/out/w1.public.json"
    check_proofs
    sed -n 's/.*"open":\([0-9.]*\).*/\1/p' "$tmp/metrics.json" >>"$tmp/open"
    # shellcheck disable=SC2086 # PEER may be a command with arguments
    timed peer "$r" 1 $peer "$zkey" "$wtns" "$tmp/out/w1.proof.json" "$tmp/out/w1.public.json"
    check_proofs
    r=$((r + 1))
done
echo "$(way_line zkpipe), zkey open median $(median <"$tmp/open") s"
way_line peer
echo
echo "zkpipe / peer: wall median ratio $(per_round zkpipe peer "a / b" | median)," \
    "peak RSS median ratio $(awk '$1 == "zkpipe" {a[$2] = $4} $1 == "peer" {b[$2] = $4}
        END {for (r in a) if (r in b) printf "%.3f\n", a[r] / b[r]}' "$tmp/runs" | median)"

echo "batch of $batch witnesses:"
"$(dirname "$0")/bench_zkey_batch.sh" "$build" "$dir" "$batch" "${BATCH_ROUNDS:-$rounds}" "$peer"
