#!/bin/sh
# A batch of circom witnesses proved by a fleet of queue nodes against one zkpipe-pipeline --zkey
# process, in alternating rounds, on a local redis-server (not run by ctest):
#   tests/bench/bench_fleet.sh BUILD_DIR FIXTURE_DIR COPIES [ROUNDS] [CLAIM_IDLE_MS]
# FIXTURE_DIR holds circuit.zkey, witness.wtns and verification_key.json (e.g.
# tests/interop/fixtures/bn128/rangesum, ../shared/bench/bn128-chain16).
# - pipeline: one zkpipe-pipeline --zkey process over the COPIES witnesses, whole process timed;
# - nodes-K (K = 1, 2, 3): K zkpipe-pipeline --queue nodes, already running (as a fleet's nodes
#   are), and zkpipe-submit of the COPIES witnesses, whose whole process is timed (from the first
#   job added to the last result read, the first job's zkey opening included).
# Every engine has the same flags (one synthesis worker, two prover workers of one thread). The
# script prints each run (for nodes-K, each node's peak RSS, read from /proc as the batch ends),
# then per way the median over the rounds (for nodes-K, of the largest node's peak RSS), the
# median of the per-round ratios nodes-K / pipeline, the queue's cost per job ((nodes-1 -
# pipeline) / COPIES, medians), and the most jobs any node held at once against its bound.
# Last, the recovery of a dead node's jobs: a node stopped while Redis hands it jobs, then
# killed; the time from the kill until another node (--claim-idle-ms CLAIM_IDLE_MS, default
# 1000) has taken over and finished them.
# Every proof of the last round is checked with zkpipe-verify.
set -eu
build=$1 dir=$2 copies=$3 rounds=${4:-5} claim=${5:-1000}
zkey=$dir/circuit.zkey wtns=$dir/witness.wtns vk=$dir/verification_key.json
pipe=$build/tools/zkpipe-pipeline submit=$build/tools/zkpipe-submit
verify=$build/tools/zkpipe-verify probe=$build/tests/zkpipe-test-probe
command -v redis-server >/dev/null 2>&1 || { echo "redis-server is not installed" >&2; exit 1; }
[ -x "$submit" ] || { echo "no $submit (built without hiredis?)" >&2; exit 1; }
# $tmp, $pids, rcli, redis_start and the waits on the fleet's state: the fleet tests' own.
. "$(dirname "$0")/../fleet_common.sh"
engine="--synth-workers 1 --prover-workers 2 --prover-threads 1 --report-ms 0"
# The nodes prove the zkey as the circuit "bench"; each job carries its witness's bytes and each
# result the proof, which zkpipe-submit writes into --out.
nodeflags="--circuit bench=$zkey"
redis_start
. "$(dirname "$0")/batch_common.sh"
batch_copies "$wtns"
echo "load at the start: $(uptime)"

stream=0
fleet() { # K round
    k=$1 round=$2
    stream=$((stream + 1))
    url=redis://127.0.0.1:$port/bench$stream
    node_pids=
    for n in $(seq 1 "$k"); do
        # shellcheck disable=SC2086 # the engine flags, split on purpose
        "$pipe" --queue "$url" --consumer "n$n" --json $engine $nodeflags \
            >"$tmp/node$n.out" 2>"$tmp/node$n.err" &
        node_pids="$node_pids $!"
        pids="$pids $!"
    done
    for n in $(seq 1 "$k"); do wait_line "$tmp/node$n.out" "queue node n$n" 300; done
    # The submitter's own peak RSS says nothing of the proving: the nodes' comes below.
    timed "nodes-$k" "$round" 0 "$submit" "$url" --circuit bench --out "$tmp/out" "$tmp"/in/*.wtns
    # Each node's peak RSS (VmHWM) now that the batch is done: what the submitter's would not say.
    n=0 rss_line= largest=0
    for p in $node_pids; do
        n=$((n + 1))
        kib=$(awk '$1 == "VmHWM:" {print $2}' "/proc/$p/status")
        rss_line="$rss_line n$n $kib KiB"
        [ "$kib" -le "$largest" ] || largest=$kib
    done
    echo "nodes-$k $round $largest" >>"$tmp/node_rss"
    echo "round $round nodes-$k: peak RSS of each node:$rss_line"
    for p in $node_pids; do kill -TERM "$p"; done
    for p in $node_pids; do wait "$p"; done
    for n in $(seq 1 "$k"); do
        tail -n 1 "$tmp/node$n.out" | sed -n 's/.*"peak_held":\([0-9]*\),"held_bound":\([0-9]*\).*/\1 \2/p' \
            >>"$tmp/held"
    done
}

: >"$tmp/held"
: >"$tmp/node_rss"
r=1
while [ "$r" -le "$rounds" ]; do
    # shellcheck disable=SC2086
    timed pipeline "$r" 1 "$pipe" --zkey "$zkey" --out "$tmp/out" $engine "$tmp"/in/*.wtns
    [ "$r" -lt "$rounds" ] || check_proofs
    for k in 1 2 3; do
        fleet "$k" "$r"
        [ "$r" -lt "$rounds" ] || check_proofs
    done
    r=$((r + 1))
done

for way in pipeline nodes-1 nodes-2 nodes-3; do
    if [ "$way" = pipeline ]; then
        line=$(way_line "$way")
    else
        kib=$(awk -v w="$way" '$1 == w {print $3}' "$tmp/node_rss" | median)
        ratio=$(per_round "$way" pipeline "a / b" | median)
        line="$(way_line "$way" 0), the largest node's peak RSS median $kib KiB"
        line="$line; $way / pipeline: median ratio $ratio"
    fi
    echo "$line"
done
cost=$(per_round nodes-1 pipeline "1000 * (a - b) / $copies" | median)
echo "queue cost per job (nodes-1 - pipeline, per round): median $cost ms"
awk '{if ($1 > m) m = $1; b = $2} END {print "most jobs held by one node at once: " m " (bound " b ")"}' \
    "$tmp/held"

# Recovery: the victim is stopped while it waits in XREADGROUP, so Redis hands it the first jobs
# of the batch; it is killed, and a second node takes them over after --claim-idle-ms.
url=redis://127.0.0.1:$port/recovery
# shellcheck disable=SC2086
"$pipe" --queue "$url" --consumer victim --claim-idle-ms "$claim" $engine $nodeflags \
    >"$tmp/victim.out" 2>&1 &
victim=$!
pids="$pids $victim"
wait_line "$tmp/victim.out" "queue node victim" 300
stop_reading "$victim" victim
rm -rf "$tmp/out" && mkdir -p "$tmp/out"
"$submit" "$url" --circuit bench --out "$tmp/out" "$tmp"/in/*.wtns >"$tmp/submit.out" 2>&1 &
sub=$!
pids="$pids $sub"
wait_until 600 jobs_in recovery "$copies" || fail "the batch never reached the queue"
held() { pending_of victim recovery; }
# Should it hold nothing yet, it runs alone in short steps until it holds some.
hold_stopped "$victim" victim recovery
held=$(held)
kill -9 "$victim"
t_kill=$(now_ms)
# shellcheck disable=SC2086
"$pipe" --queue "$url" --consumer rescuer --claim-idle-ms "$claim" --exit-when-idle-ms 500 \
    $engine $nodeflags >"$tmp/rescuer.out" 2>&1 &
pids="$pids $!"
until [ "$(held)" -eq 0 ]; do sleep 0.01; done
t_back=$(now_ms)
wait "$sub"
check_proofs
echo "recovery: $held jobs of a killed node taken over and finished $((t_back - t_kill)) ms after" \
    "the kill (--claim-idle-ms $claim)"
echo "load at the end: $(uptime)"
