#!/bin/sh
# zkpipe-serve under load (not run by ctest):
#   tests/bench/bench_serve.sh BUILD_DIR FIXTURE_DIR [N] [ROUNDS] [PEER] [BUDGET_MIB]
# FIXTURE_DIR holds circuit.zkey, witness.wtns and verification_key.json (e.g.
# ../shared/bench/bn128-chain16). One server (--synth-workers 2, --prover-workers 2 of one
# thread each, --budget-mib BUDGET_MIB, default 1024) proves for the whole run. In alternating
# rounds:
# - concurrent: N requests sent at once with curl, the wall from the first sent to the last
#               answered;
# - sequential: N runs of PEER (a command taking ZKEY WTNS PROOF PUBLIC, e.g. rapidsnark's
#               `prover`) one after another; without PEER, zkpipe-prove (said in the output).
# Then the medians, the median of the per-round throughput ratios (sequential wall / concurrent
# wall), the latency of requests under a steady load (2 clients, each sending its next request
# when its last is answered, 4 N requests in all: p50 and p99 of curl's time_total), and the
# server's peak RSS (VmHWM) against its budget. Every answer of the last round is verified.
set -eu
build=$1 dir=$2 n=${3:-24} rounds=${4:-3} peer=${5:-} budget=${6:-1024}
zkey=$dir/circuit.zkey wtns=$dir/witness.wtns vk=$dir/verification_key.json
tmp=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
pct() { sort -g | awk -v p="$1" '{v[NR] = $1} END {i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; print v[i]}'; }

"$build/tools/zkpipe-serve" --listen 127.0.0.1:0 --circuit c="$zkey" --budget-mib "$budget" \
    --synth-workers 2 --prover-workers 2 --prover-threads 1 --queue-ms 600000 \
    --max-per-address 0 --max-connections 256 >"$tmp/serve.log" 2>&1 &
pid=$!
i=0
until port=$(sed -n 's/.*serving .* port \([0-9][0-9]*\) .*/\1/p' "$tmp/serve.log") &&
    [ -n "$port" ]; do
    i=$((i + 1))
    [ "$i" -lt 600 ] || { cat "$tmp/serve.log" >&2; exit 1; }
    sleep 0.1
done
url=http://127.0.0.1:$port/prove/c
post() { # OUT: one request; prints curl's time_total
    curl -sS --max-time 600 -o "$1" -w '%{time_total}\n' -H 'Content-Type: application/octet-stream' \
        --data-binary "@$wtns" "$url"
}
post "$tmp/warm.json" >/dev/null # the zkey mapped, the engine warm

if [ -n "$peer" ]; then seq_name="sequential ($peer)"; else
    peer=$build/tools/zkpipe-prove
    seq_name="sequential (zkpipe-prove: no rapidsnark given)"
fi
: >"$tmp/runs"
concurrent() {
    mkdir -p "$tmp/out"
    t0=$(now)
    i=0 pids=
    while [ "$i" -lt "$n" ]; do
        post "$tmp/out/$i.json" >/dev/null &
        pids="$pids $!" i=$((i + 1))
    done
    for p in $pids; do wait "$p"; done # (not the server)
    t1=$(now)
    echo "concurrent $1 $(echo "$t1 - $t0" | bc)" >>"$tmp/runs"
}
sequential() {
    t0=$(now)
    i=0
    while [ "$i" -lt "$n" ]; do
        "$peer" "$zkey" "$wtns" "$tmp/seq.proof.json" "$tmp/seq.public.json" >/dev/null 2>&1 ||
            { echo "the sequential prover failed" >&2; exit 1; }
        i=$((i + 1))
    done
    t1=$(now)
    echo "sequential $1 $(echo "$t1 - $t0" | bc)" >>"$tmp/runs"
}
r=1
while [ "$r" -le "$rounds" ]; do
    if [ $((r % 2)) -eq 1 ]; then concurrent "$r"; sequential "$r"; else sequential "$r"; concurrent "$r"; fi
    grep " $r " "$tmp/runs" | sed 's/^/round: /'
    r=$((r + 1))
done
i=0
while [ "$i" -lt "$n" ]; do
    jq .proof "$tmp/out/$i.json" >"$tmp/p.json" && jq .public "$tmp/out/$i.json" >"$tmp/q.json" &&
        "$build/tools/zkpipe-verify" "$vk" "$tmp/q.json" "$tmp/p.json" >/dev/null ||
        { echo "answer $i does not verify: $(head -c 300 "$tmp/out/$i.json")" >&2; exit 1; }
    i=$((i + 1))
done
c=$(awk '$1 == "concurrent" {print $3}' "$tmp/runs" | median)
s=$(awk '$1 == "sequential" {print $3}' "$tmp/runs" | median)
ratio=$(awk '{w[$1 " " $2] = $3} END {for (k in w) if (k ~ /^concurrent/) {split(k, a, " ");
    print w["sequential " a[2]] / w[k]}}' "$tmp/runs" | median)
echo "concurrent ($n requests at once): median $c s wall over $rounds rounds"
echo "$seq_name: median $s s wall for $n proofs"
echo "throughput ratio (sequential wall / concurrent wall, median of per-round ratios): $ratio"

# Steady load: 2 closed-loop clients.
client() { j=0; while [ "$j" -lt $((2 * n)) ]; do post "$tmp/steady$1.json"; j=$((j + 1)); done; }
client 1 >"$tmp/lat1" &
c1=$!
client 2 >"$tmp/lat2"
wait "$c1"
cat "$tmp/lat1" "$tmp/lat2" >"$tmp/lat"
echo "steady load (2 clients, $((4 * n)) requests): p50 $(pct 50 <"$tmp/lat") s, p99 $(pct 99 <"$tmp/lat") s"
hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status")
echo "server peak RSS: $hwm KiB (budget $budget MiB; the zkey's pages counted in both)"
kill -TERM "$pid"
wait "$pid" || true
pid=
