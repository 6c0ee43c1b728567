#!/bin/sh
# A fleet of zkpipe-pipeline --queue nodes ($1) on a real redis-server, fed by zkpipe-submit ($2),
# the proofs checked with zkpipe-verify ($3); $4 is the test probe (a free port), $5 the
# LD_PRELOAD shim that maps files slowly.
#
# 1. Three nodes, 62 jobs of the interop fixtures (both curves, three circuits each, a bad
#    witness per zkey, a witness of the other curve, a witness named beneath the nodes'
#    --inputs that does not exist; the others carried in the jobs), one node
#    killed with SIGKILL while it holds jobs: every good job ends with one counted "ok" and
#    outputs that verify, every bad one with its error (the missing one in STREAM:dead), no job
#    is left pending, the dead node's jobs were taken over, and the survivors end with nothing
#    held, in flight or live.
# 2. A node started before Redis is up, and Redis restarted under it: it says so, reconnects
#    and proves the jobs submitted after each start; SIGTERM ends it cleanly.
# 3. A node stalled (SIGSTOP) past --claim-idle-ms while it holds jobs: another node takes them
#    over and proves them, then the stalled one wakes up and proves them again: one result per
#    delivery, the submitter counts each job once, the outputs are whole and verify.
# Skips (exit 77) with one line when redis-server is not installed or the binaries were built
# without hiredis ("-" for $1 and $2).
set -eu
[ $# -eq 5 ] || { echo "usage: test_fleet.sh PIPELINE SUBMIT VERIFY PROBE DELAY_SHIM" >&2; exit 2; }
pipe=$1 submit=$2 verify=$3 probe=$4 delay_shim=$5
. "$(dirname "$0")/fleet_common.sh"
url=redis://127.0.0.1:$port/jobs
node_args="--claim-idle-ms 1500 --report-ms 0 --prover-threads 1 --json --inputs $tmp/in"
# Every node proves the six circuits of the fixtures, each by its name CURVE-CIRCUIT.
for curve in bn128 bls12381; do
    for circuit in factors rangesum hashchain multiplier; do
        node_args="$node_args --circuit $curve-$circuit=$fixtures/$curve/$circuit/circuit.zkey"
    done
done

# ---- 1. Three nodes, one killed while it holds jobs ----
redis_start
jobs=0
mkdir -p "$tmp/in"
for curve in bn128 bls12381; do
    for circuit in factors rangesum hashchain; do
        d=$fixtures/$curve/$circuit
        mkdir -p "$tmp/in/$curve-$circuit" "$tmp/out/$curve-$circuit"
        for i in 1 2 3 4 5 6 7 8 9; do cp "$d/witness.wtns" "$tmp/in/$curve-$circuit/g$i.wtns"; done
        # The first private value off by one bit (circom's values start at byte 76).
        np=$(grep -c '"' "$d/public.json" || true)
        perl -e 'open(my $f, "<:raw", $ARGV[0]) or die; local $/; my $w = <$f>;
            my $at = 76 + 32 * ($ARGV[2] + 1);
            substr($w, $at, 1) = chr(ord(substr($w, $at, 1)) ^ 1);
            open(my $g, ">:raw", $ARGV[1]) or die; print $g $w;' \
            "$d/witness.wtns" "$tmp/in/$curve-$circuit/bad.wtns" "$np"
        jobs=$((jobs + 10))
    done
done
# A witness of the other curve, and one named beneath the nodes' --inputs that no node can read
# (requeued, then dead).
cp "$fixtures/bn128/factors/witness.wtns" "$tmp/in/othercurve.wtns"
jobs=$((jobs + 2))

node_start "$url" victim
victim=$node
# Stopped while it waits in XREADGROUP: Redis hands it the first jobs, which it then holds.
stop_reading "$victim" victim
t_submit=$(now_ms)
for curve in bn128 bls12381; do
    for circuit in factors rangesum hashchain; do
        extra=
        [ "$curve-$circuit" = bls12381-factors ] && extra="$tmp/in/othercurve.wtns"
        # shellcheck disable=SC2086 # the witnesses, split on purpose
        "$submit" "$url" --circuit "$curve-$circuit" \
            --out "$tmp/out/$curve-$circuit" --timeout-s 120 --json \
            "$tmp/in/$curve-$circuit"/*.wtns $extra \
            >"$tmp/submit-$curve-$circuit.out" 2>"$tmp/submit-$curve-$circuit.log" &
        pids="$pids $!"
    done
done
"$submit" "$url" --circuit bls12381-factors --input-names --timeout-s 120 missing.wtns \
    >"$tmp/submit-missing.out" 2>"$tmp/submit-missing.log" &
pids="$pids $!"
wait_until 100 jobs_in jobs "$jobs" || fail "only $(rcli XLEN jobs) of $jobs jobs submitted"
hold_stopped "$victim" victim jobs
held=$(pending_of victim)
kill -9 "$victim"
wait "$victim" 2>/dev/null || true
t_kill=$(now_ms)
echo "the victim was killed holding $held jobs"

for name in node-a node-b; do
    # Each node renews its holds on a thread of its own, so the other never takes them over
    # while it opens a zkey (a duplicate this case does not expect).
    node_start "$url" $name --exit-when-idle-ms 2000
    eval "pid_$(echo $name | tr - _)=$node"
done
none_pending() { [ "$(pending_of "$1")" -eq 0 ]; }
wait_until 300 none_pending victim || fail "the victim's jobs were not taken over"
echo "the victim's $held jobs taken over and finished $(($(now_ms) - t_kill)) ms after the kill" \
    "(--claim-idle-ms 1500)"

for curve in bn128 bls12381; do
    for circuit in factors rangesum hashchain; do
        s=$tmp/submit-$curve-$circuit
        good=9 bad=1
        [ "$curve-$circuit" = bls12381-factors ] && bad=2
        n=1200
        until [ -s "$s.out" ] && grep -q '^{' "$s.out"; do
            n=$((n - 1))
            [ "$n" -gt 0 ] || fail "$curve-$circuit: zkpipe-submit does not end"
            sleep 0.1
        done
        json=$(tail -n 1 "$s.out")
        [ "$(field proved "$json")" -eq "$good" ] && [ "$(field failed "$json")" -eq "$bad" ] &&
            [ "$(field missing "$json")" -eq 0 ] && [ "$(field duplicates "$json")" -eq 0 ] || fail "$curve-$circuit: $json: $(cat "$s.log")"
        [ "$(awk 'END { print NR }' "$s.log")" -eq "$bad" ] ||
            fail "$curve-$circuit: not one line per failed job: $(cat "$s.log")"
        grep -q "bad.wtns: .*ZKPIPE_EUNSATISFIED" "$s.log" ||
            fail "$curve-$circuit: the bad witness: $(cat "$s.log")"
        o=$tmp/out/$curve-$circuit
        d=$fixtures/$curve/$circuit
        for i in 1 2 3 4 5 6 7 8 9; do
            [ "$(tr -d ' \n' <"$o/g$i.public.json")" = "$(tr -d ' \n' <"$d/public.json")" ] ||
                fail "$curve-$circuit: g$i.public.json is not snarkjs's public.json"
            "$verify" "$d/verification_key.json" "$o/g$i.public.json" "$o/g$i.proof.json" \
                >/dev/null || fail "$curve-$circuit: zkpipe-verify refuses g$i's proof"
        done
        [ ! -e "$o/bad.proof.json" ] && [ ! -e "$o/bad.public.json" ] ||
            fail "$curve-$circuit: the bad witness left outputs"
        [ "$(ls "$o" | wc -l)" -eq 18 ] || fail "$curve-$circuit: stray files: $(ls "$o")"
    done
done
s=$tmp/submit-bls12381-factors.log
grep -q "othercurve.wtns: .*ZKPIPE_EMISMATCH" "$s" || fail "the other curve's witness: $(cat "$s")"
s=$tmp/submit-missing.log
wait_line "$s" "missing.wtns: dead-lettered to jobs:dead after 3 deliveries" 1200
rcli XRANGE jobs:dead - + | grep -qx missing || fail "no missing in jobs:dead"
[ "$(rcli XLEN jobs:dead)" -eq 1 ] || fail "jobs:dead: $(rcli XRANGE jobs:dead - +)"
echo "$jobs jobs settled $(($(now_ms) - t_submit)) ms after the first was submitted"

reclaimed=0
for name in node-a node-b; do
    status=0
    eval "wait \$pid_$(echo $name | tr - _)" || status=$?
    [ "$status" -eq 0 ] || fail "$name exited with $status: $(cat "$tmp/$name.err")"
    json=$(tail -n 1 "$tmp/$name.out")
    for f in held_at_exit in_flight_at_exit proving_at_exit live_bytes_at_exit left_pending; do
        [ "$(field $f "$json")" -eq 0 ] || fail "$name: $f: $json"
    done
    [ "$(field peak_held "$json")" -le "$(field held_bound "$json")" ] ||
        fail "$name held more than its bound: $json"
    reclaimed=$((reclaimed + $(field reclaimed "$json")))
    echo "$name: $json"
done
[ "$reclaimed" -ge "$held" ] || fail "$held jobs held by the victim, $reclaimed taken over"
summary=$(rcli XPENDING jobs zkpipe | head -n 1)
[ "$summary" -eq 0 ] || fail "$summary jobs left pending"
# One result per delivery that ended: with no node stalled past --claim-idle-ms, one per job
# (the dead node never finished its jobs, so each was done once, by the node that took it over).
results=$(rcli XLEN jobs:results)
[ "$results" -eq "$jobs" ] || fail "$results results for $jobs jobs"

# ---- 2. A node started before Redis is up; Redis restarted under it ----
redis_stop
node_start "$url" early
early=$node
wait_line "$tmp/early.err" "is unreachable" 100
redis_start
d=$fixtures/bn128/multiplier
for round in 1 2; do
    mkdir -p "$tmp/round$round"
    for i in 1 2 3 4; do cp "$d/witness.wtns" "$tmp/round$round/r$i.wtns"; done
    "$submit" "$url" --circuit bn128-multiplier --out "$tmp/round$round" --timeout-s 60 \
        "$tmp/round$round"/r*.wtns >"$tmp/round$round.log" 2>&1 ||
        fail "round $round: $(cat "$tmp/round$round.log")"
    for i in 1 2 3 4; do
        "$verify" "$d/verification_key.json" "$tmp/round$round/r$i.public.json" \
            "$tmp/round$round/r$i.proof.json" >/dev/null || fail "round $round: r$i"
    done
    if [ "$round" -eq 1 ]; then # a restart that loses every stream and the group
        redis_stop
        wait_line "$tmp/early.err" "is unreachable" 100 2
        redis_start
    fi
done
[ "$(grep -c "is unreachable" "$tmp/early.err")" -eq 2 ] ||
    fail "not one line per outage: $(cat "$tmp/early.err")"
[ "$(grep -c "is reachable again" "$tmp/early.err")" -eq 2 ] ||
    fail "not one line per return: $(cat "$tmp/early.err")"
kill -TERM "$early"
status=0
wait "$early" || status=$?
[ "$status" -eq 0 ] || fail "SIGTERM: exit $status: $(cat "$tmp/early.err")"
json=$(tail -n 1 "$tmp/early.out")
[ "$(field proved "$json")" -eq 8 ] && [ "$(field held_at_exit "$json")" -eq 0 ] ||
    fail "the early node: $json"

# ---- 3. A node stalled past --claim-idle-ms: its jobs proved twice ----
# The stalled node holds jobs; another takes them over and proves them; the stalled one wakes
# up and proves them too: one result per delivery, the submitter writing each job's files once.
slow_url=redis://127.0.0.1:$port/slow
# Its witnesses (the jobs' bytes, in its sealed memfds) mapped 300 ms late: a job it takes in one
# of hold_stopped's short runs is still held when it is stopped again, never proved and
# acknowledged within the run (the multiplier proves in a few ms), which left it holding none.
node_env="LD_PRELOAD=$delay_shim ZKPIPE_TEST_DELAY_ON_MMAP_SUFFIX=(deleted)"
node_env="$node_env ZKPIPE_TEST_DELAY_ON_MMAP_MS=300"
node_start "$slow_url" slow
node_env=
slow=$node
stop_reading "$slow" slow
mkdir -p "$tmp/round3"
for i in 1 2 3 4 5 6; do cp "$d/witness.wtns" "$tmp/round3/s$i.wtns"; done
"$submit" "$slow_url" --circuit bn128-multiplier --out "$tmp/round3" --timeout-s 60 --json \
    "$tmp/round3"/s*.wtns >"$tmp/round3.out" 2>"$tmp/round3.log" &
sub3=$!
wait_until 100 jobs_in slow 6 || fail "round 3: jobs not submitted"
# Once it is stopped, what it sent before (a read, an ACK) has been served: the counts are final.
hold_stopped "$slow" slow slow
# A job the node took and finished inside a short SIGCONT window is done once, not stalled.
stalled=$(pending_of slow slow)
done_early=$(rcli XLEN slow:results)
node_start "$slow_url" fast --exit-when-idle-ms 1000
fast=$node
status=0
wait "$sub3" || status=$?
json=$(tail -n 1 "$tmp/round3.out")
[ "$status" -eq 0 ] && [ "$(field proved "$json")" -eq 6 ] ||
    fail "round 3: exit $status: $json: $(cat "$tmp/round3.log")"
kill -CONT "$slow"
wait_until 100 jobs_in slow:results $((6 + stalled)) ||
    fail "the stalled node did not finish its $stalled jobs: $(cat "$tmp/slow.err")"
kill -TERM "$slow"
status=0
wait "$slow" || status=$?
json=$(tail -n 1 "$tmp/slow.out")
[ "$status" -eq 0 ] && [ "$(field proved "$json")" -eq $((stalled + done_early)) ] &&
    [ "$(field held_at_exit "$json")" -eq 0 ] || fail "the stalled node: exit $status: $json"
status=0
wait "$fast" || status=$?
[ "$status" -eq 0 ] || fail "the fast node: exit $status: $(cat "$tmp/fast.err")"
[ "$(rcli XLEN slow:results)" -eq $((6 + stalled)) ] ||
    fail "not one result per delivery: $(rcli XLEN slow:results)"
[ "$(rcli XPENDING slow zkpipe | head -n 1)" -eq 0 ] || fail "round 3: jobs left pending"
[ "$(ls "$tmp/round3" | grep -c json)" -eq 12 ] || fail "round 3: files: $(ls "$tmp/round3")"
for i in 1 2 3 4 5 6; do
    "$verify" "$d/verification_key.json" "$tmp/round3/s$i.public.json" \
        "$tmp/round3/s$i.proof.json" >/dev/null || fail "round 3: s$i"
done
echo "a node stalled holding $stalled jobs: each proved twice, one result per delivery"
redis_stop
echo "PASS"
