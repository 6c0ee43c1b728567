#!/bin/sh
# A batch of circom witnesses proved with one zkey, two ways, in alternating rounds (not run by
# ctest):
#   tests/bench/bench_zkey_batch.sh BUILD_DIR FIXTURE_DIR COPIES [ROUNDS] [PEER]
# FIXTURE_DIR holds circuit.zkey, witness.wtns and verification_key.json (e.g.
# ../shared/bench/bn128-chain16, tests/interop/fixtures/bn128/rangesum).
# - pipeline:   one zkpipe-pipeline --zkey process over all COPIES witnesses (one synthesis
#               worker, two prover workers of one thread each, so both cores prove);
# - sequential: one zkpipe-prove process per witness, one after another (each with the default
#               two threads), the way a shell loop over a prover CLI runs a batch;
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
mkdir -p "$tmp/in"
i=1
while [ "$i" -le "$copies" ]; do
    cp "$wtns" "$tmp/in/w$i.wtns"
    i=$((i + 1))
done

timed() { # way round command... : appends "way round seconds kib" to $tmp/runs
    way=$1 round=$2
    shift 2
    rm -rf "$tmp/out" && mkdir -p "$tmp/out"
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
        { cat "$tmp/err" >&2; echo "$way failed" >&2; exit 1; }
    read -r secs kib <"$tmp/time"
    echo "$way $round $secs $kib" >>"$tmp/runs"
    echo "round $round $way: $secs s wall, $kib KiB peak RSS"
}
# One process per witness, one after another, under one GNU time (whose peak RSS is then the
# largest process's).
loop='z=$1 in=$2 out=$3
shift 3
for w in "$in"/*.wtns; do
    n=$(basename "$w" .wtns)
    "$@" "$z" "$w" "$out/$n.proof.json" "$out/$n.public.json" || exit 1
done'
check_proofs() {
    n=0
    for p in "$tmp"/out/*.proof.json; do
        "$build/examples/zkpipe-verify" "$vk" "${p%.proof.json}.public.json" "$p" \
            >/dev/null || { echo "proof $p does not verify" >&2; exit 1; }
        n=$((n + 1))
    done
    [ "$n" -eq "$copies" ] || { echo "$n proofs, expected $copies" >&2; exit 1; }
}

r=1
: >"$tmp/runs"
while [ "$r" -le "$rounds" ]; do
    timed pipeline "$r" "$build/examples/zkpipe-pipeline" --zkey "$zkey" --out "$tmp/out" \
        --synth-workers 1 --prover-workers 2 --prover-threads 1 --report-ms 0 "$tmp"/in/*.wtns
    [ "$r" -lt "$rounds" ] || check_proofs
    timed sequential "$r" sh -c "$loop" loop "$zkey" "$tmp/in" "$tmp/out" \
        "$build/examples/zkpipe-prove"
    [ "$r" -lt "$rounds" ] || check_proofs
    if [ -n "$peer" ]; then
        timed peer "$r" sh -c "$loop" loop "$zkey" "$tmp/in" "$tmp/out" $peer
        [ "$r" -lt "$rounds" ] || check_proofs
    fi
    r=$((r + 1))
done

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
for way in pipeline sequential peer; do
    grep -q "^$way " "$tmp/runs" || continue
    secs=$(awk -v w="$way" '$1 == w {print $3}' "$tmp/runs" | median)
    kib=$(awk -v w="$way" '$1 == w {print $4}' "$tmp/runs" | median)
    line="$way: median $secs s wall, $kib KiB peak RSS over $rounds rounds of $copies proofs"
    if [ "$way" != pipeline ]; then
        ratio=$(awk -v w="$way" '$1 == "pipeline" {p[$2] = $3} $1 == w {o[$2] = $3}
            END {for (r in o) printf "%.3f\n", p[r] / o[r]}' "$tmp/runs" | median)
        line="$line; pipeline / $way: median ratio $ratio"
    fi
    echo "$line"
done
