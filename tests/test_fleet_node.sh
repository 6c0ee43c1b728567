#!/bin/sh
# One node of a fleet (zkpipe-pipeline --queue, $1) and the submitter (zkpipe-submit, $2) on a
# real redis-server, the proofs checked with zkpipe-verify ($3); $4 is the test probe (free
# ports, HTTP), $5 the LD_PRELOAD shim that truncates a file as it is mapped, $6 the one that
# maps files slowly.
#
# 1. SIGTERM while a node holds jobs (Redis stopped, so that it cannot acknowledge them): it
#    takes no more, finishes exactly the jobs it held, hands back at once any delivered after
#    the signal, exits 0; another node proves the rest (its counter lines, asked for with
#    --report-ms, on stderr); every job ends with one result.
# 2. SIGTERM twice (stop now) while it holds jobs: it exits 0 at once, leaving them pending;
#    another node takes them over after --claim-idle-ms and proves them; nothing is lost, and
#    no job has two results (a result sent as Redis stopped is written once when it resumes).
# 3. The submitter counts each job once when results come twice (as from a job proved twice),
#    the first one deciding, and ignores other submissions' results and unknown ids.
# 4. A zkey and a witness truncated under a running node (SIGBUS on the mapping): those jobs end
#    with an error result naming the file, the node lives on, proves the next job, exits 0;
#    --metrics FILE is rewritten while it runs and holds its final counts at exit, the
#    engine's series with the queue's (promtool checks it where installed).
# 5. A node whose taker is stuck opening a job's zkey (its mapping held by the delay shim until
#    the test lets it go) for longer than --claim-idle-ms: the job's hold is renewed meanwhile
#    (its idle time on the server drops), so no other node could take it over; the zkey let go,
#    the job ends with its error (the file is not a zkey).
# 6. A job the node held when its connection broke, finished after the new connection's read of
#    its own pending entries listed it but before the taker came to it (held up by the entry
#    before it, whose zkey opens slowly): it is not taken and proved again; each job has one
#    result.
# Skips (exit 77) with one line when redis-server is not installed or the binaries were built
# without hiredis ("-" for $1 and $2).
set -eu
[ $# -eq 6 ] || {
    echo "usage: test_fleet_node.sh PIPELINE SUBMIT VERIFY PROBE SHIM DELAY_SHIM" >&2
    exit 2
}
pipe=$1 submit=$2 verify=$3 probe=$4 shim=$5 delay_shim=$6
. "$(dirname "$0")/fleet_common.sh"
redis_start

held_gauge() { # the jobs held by the node serving /metrics on port $1 (the probe's exit kept)
    "$probe" get 127.0.0.1 "$1" /metrics >"$tmp/held.prom" &&
        awk '$1 == "zkpipe_queue_jobs_held" {print $2}' "$tmp/held.prom"
}
results_of() { # result entries on stream $1:results written by node $2
    rcli XRANGE "$1:results" - + | awk -v n="$2" 'p == "node" && $0 == n {c++} {p = $0} END {print c + 0}'
}
submit_json() { # the counts line of submitter $2's output $1, once it has ended, in $json
    wait_exit "$2" 1200 "zkpipe-submit"
    json=$(tail -n 1 "$1")
}

# The nodes of 1. and 2. take 4 jobs at a time (--permits 4, --synth-workers 2: two in
# synthesis, two waiting for a worker) and map each witness 300 ms late, so that, stopped at
# intervals, they are found holding 4. With the multiplier's proofs at a few ms each, a fast
# machine could prove and acknowledge every job between two stops, and the node was rarely
# found holding 3.
# (A witness carried in a job is mapped from the node's sealed anonymous copy of it, a
# memfd: "/memfd:zkpipe-wtns (deleted)" to readlink.)
slow_env="LD_PRELOAD=$delay_shim ZKPIPE_TEST_DELAY_ON_MMAP_SUFFIX=(deleted)"
slow_env="$slow_env ZKPIPE_TEST_DELAY_ON_MMAP_MS=300"

# ---- 1. SIGTERM while holding jobs: finish them, take no more ----
hport=$("$probe" freeport)
node_env=$slow_env
node_start redis://127.0.0.1:$port/term term --listen 127.0.0.1:$hport --synth-workers 2 --permits 4
node_env=
term=$node
nterm=12
copies "$d/witness.wtns" "$tmp/term" t $nterm
# Stopped while it waits for jobs, the node takes nothing until every job is on the stream: a
# submitter slowed down by a loaded machine no longer feeds it one job at a time, each proved
# before the next comes, which left it holding fewer than three at every stop.
stop_reading "$term" term
submit_bg term "$tmp/term"
wait_until 1200 jobs_in term $nterm || fail "the jobs were not submitted"
# The node stopped once Redis has handed it three jobs, then Redis stopped and the node resumed:
# it cannot acknowledge them, so they stay held. It sends one job's result at a time, and one
# sent before the node stopped may still be answered: one job at least is held at the signal.
hold_stopped "$term" term term 3
kill -STOP "$redis_pid"
kill -CONT "$term"
held=$(held_gauge "$hport") || fail "GET /metrics on the node's --metrics port failed"
kill -TERM "$term"
wait_line "$tmp/term.err" "SIGTERM: taking no more jobs" 300
line=$(grep "SIGTERM: taking no more jobs" "$tmp/term.err")
finishing=$(echo "$line" | sed -n 's/.*finishing the \([0-9]*\) held of \([0-9]*\) taken.*/\1/p')
taken_then=$(echo "$line" | sed -n 's/.*finishing the \([0-9]*\) held of \([0-9]*\) taken.*/\2/p')
[ "${finishing:-0}" -ge 1 ] || fail "SIGTERM: $line (held $held)"
kill -CONT "$redis_pid"
wait_exit "$term" 1200 "the node told to stop"
json=$(tail -n 1 "$tmp/term.out")
[ "$status" -eq 0 ] || fail "SIGTERM: exit $status: $json"
# It took none after the signal (each delivered then was handed back) and finished all it held.
proved=$(field proved "$json") handed=$(field handed_back "$json")
[ "$(field taken "$json")" -eq $((taken_then + handed)) ] &&
    [ "$proved" -eq "$taken_then" ] && [ "$(field failed "$json")" -eq 0 ] &&
    [ "$(field left_pending "$json")" -eq 0 ] && [ "$(field held_at_exit "$json")" -eq 0 ] ||
    fail "SIGTERM: $line: $json"
[ "$(results_of term term)" -eq "$proved" ] || fail "SIGTERM: $(results_of term term) results"
[ "$(pending_of term term)" -eq 0 ] || fail "SIGTERM: jobs left pending for the stopped node"
[ "$(rcli XPENDING term zkpipe | head -n 1)" -eq 0 ] || fail "SIGTERM: jobs pending"
node_start redis://127.0.0.1:$port/term rest --exit-when-idle-ms 1000 --report-ms 20
rest=$node
submit_json "$tmp/term-submit.out" "$sub"
[ "$status" -eq 0 ] && [ "$(field proved "$json")" -eq $nterm ] &&
    [ "$(field duplicates "$json")" -eq 0 ] || fail "SIGTERM: $json: $(cat "$tmp/term-submit.log")"
wait_exit "$rest" 600 "the second node"
[ "$status" -eq 0 ] || fail "the second node: exit $status"
# Its counter lines, asked for with --report-ms: on stderr, stdout left to the summary.
grep -q 'unaccounted~=' "$tmp/rest.err" || fail "--report-ms: no counter line on stderr"
grep -q 'unaccounted~=' "$tmp/rest.out" && fail "--report-ms: a counter line on stdout"
[ "$(results_of term rest)" -eq $((nterm - proved)) ] || fail "SIGTERM: the rest not proved once"
[ "$(rcli XLEN term:results)" -eq $nterm ] ||
    fail "SIGTERM: $(rcli XLEN term:results) results for $nterm"
verify_all "$vk" "$tmp/term" $(cd "$tmp/term" && ls t*.wtns | sed 's/\.wtns$//')
echo "SIGTERM holding $finishing jobs: finished them, handed back $handed, exit 0"

# ---- 2. SIGTERM twice: stop now, the jobs held left pending, taken over ----
# (Its threads blocked on the stopped Redis are left unjoined: not leaks for ThreadSanitizer.)
node_env="$slow_env TSAN_OPTIONS=$(printf '%s' "${TSAN_OPTIONS:-}" | tr ' ' ':'):report_thread_leaks=0"
node_start redis://127.0.0.1:$port/now now --synth-workers 2 --permits 4
node_env=
now=$node
copies "$d/witness.wtns" "$tmp/now" n 20
submit_bg now "$tmp/now"
# The node stopped while Redis holds three jobs pending for it at least (it runs in short steps
# until then); then Redis is stopped and the node resumed and told to stop now. It sends one
# job's result at a time: one sent before it was stopped and one after may still be written,
# so one job at least stays pending for another node.
hold_stopped "$now" now now 3
kill -STOP "$redis_pid"
kill -CONT "$now"
kill -TERM "$now"
wait_line "$tmp/now.err" "SIGTERM: taking no more jobs" 300
kill -TERM "$now"
wait_exit "$now" 1200 "the node told to stop now"
json=$(tail -n 1 "$tmp/now.out")
kill -CONT "$redis_pid"
[ "$status" -eq 0 ] || fail "stop now: exit $status: $json: $(cat "$tmp/now.err")"
grep -q "stopping now: the jobs not acknowledged stay pending" "$tmp/now.err" ||
    fail "stop now: no line: $(cat "$tmp/now.err")"
left=$(field left_pending "$json")
[ "$left" -ge 1 ] || fail "stop now: nothing left pending: $json"
node_start redis://127.0.0.1:$port/now rescuer --exit-when-idle-ms 1000
rescuer=$node
submit_json "$tmp/now-submit.out" "$sub"
[ "$status" -eq 0 ] && [ "$(field proved "$json")" -eq 20 ] && [ "$(field missing "$json")" -eq 0 ] &&
    [ "$(field duplicates "$json")" -eq 0 ] || fail "stop now: $json: $(cat "$tmp/now-submit.log")"
wait_exit "$rescuer" 600 "the rescuer"
rjson=$(tail -n 1 "$tmp/rescuer.out")
# (It may take over more than were left: a read the node sent as Redis stopped is answered,
# its jobs delivered to the node, once Redis resumes.)
[ "$status" -eq 0 ] && [ "$(field reclaimed "$rjson")" -ge 1 ] ||
    fail "the rescuer ($left left): $rjson"
[ "$(rcli XPENDING now zkpipe | head -n 1)" -eq 0 ] || fail "stop now: jobs left pending"
verify_all "$vk" "$tmp/now" $(cd "$tmp/now" && ls n*.wtns | sed 's/\.wtns$//')
echo "stop now holding $left jobs: exit 0, $(field reclaimed "$rjson") taken over by another node"

# ---- 3. The submitter counts a job once when its results come twice ----
copies "$d/witness.wtns" "$tmp/dup" d 3
submit_bg dup "$tmp/dup"
wait_until 300 jobs_in dup 3 || fail "the jobs were not submitted"
token=$(rcli XRANGE dup - + COUNT 1 | awk 'p == "sub" {print; exit} {p = $0}')
[ -n "$token" ] || fail "no sub field in the jobs"
# The results a node writes, all at once (one script) so that one read sees them together: d1
# ok then failed (a second delivery's), d2 under another submission then its own, an unknown
# id, d3 ok twice.
rcli EVAL "for _, r in ipairs({{'d1', ARGV[1], 'ok'}, {'d1', ARGV[1], 'ZKPIPE_EIO'},
    {'d2', 'other', 'ZKPIPE_EIO'}, {'d2', ARGV[1], 'ok'}, {'zz', ARGV[1], 'ok'},
    {'d3', ARGV[1], 'ok'}, {'d3', ARGV[1], 'ok'}}) do
  redis.call('XADD', KEYS[1], '*', 'id', r[1], 'status', r[3], 'message', 'm', 'node', 'x',
    'prove_s', '0.1', 'sub', r[2])
end
return 1" 1 dup:results "$token" >/dev/null
submit_json "$tmp/dup-submit.out" "$sub"
[ "$status" -eq 0 ] && [ "$(field proved "$json")" -eq 3 ] && [ "$(field failed "$json")" -eq 0 ] &&
    [ "$(field duplicates "$json")" -eq 2 ] && [ "$(field missing "$json")" -eq 0 ] ||
    fail "duplicates: exit $status: $json: $(cat "$tmp/dup-submit.log")"
[ ! -s "$tmp/dup-submit.log" ] || fail "duplicates: lines: $(cat "$tmp/dup-submit.log")"
echo "duplicate results: each job counted once ($json)"

# ---- 4. Inputs truncated under a running node; --metrics ----
cp "$d/circuit.zkey" "$tmp/victim.zkey"
mkdir -p "$tmp/bus"
cp "$d/witness.wtns" "$tmp/bus/v1.wtns"
cp "$d/witness.wtns" "$tmp/bus/tw.wtns"
cp "$d/witness.wtns" "$tmp/bus/ok.wtns"
node_env="LD_PRELOAD=$shim ZKPIPE_TEST_TRUNCATE_ON_MMAP=$tmp/victim.zkey:$tmp/bus/tw.wtns"
node_start redis://127.0.0.1:$port/bus bus --metrics "$tmp/bus.prom" --inputs "$tmp/bus" \
    --circuit victim="$tmp/victim.zkey"
node_env=
bus=$node
wait_until 300 test -s "$tmp/bus.prom" || fail "--metrics: not written while running"
status=0
"$submit" redis://127.0.0.1:$port/bus --circuit victim --out "$tmp/bus" --timeout-s 120 \
    "$tmp/bus/v1.wtns" >"$tmp/bus-submit1.out" 2>"$tmp/bus-submit1.log" || status=$?
[ ! -s "$tmp/victim.zkey" ] || fail "the shim did not truncate the zkey"
[ "$status" -eq 1 ] && grep -q "v1.wtns: .*victim.zkey.*(ZKPIPE_E" "$tmp/bus-submit1.log" ||
    fail "truncated zkey: exit $status: $(cat "$tmp/bus-submit1.log")"
status=0
# (The witnesses named beneath the node's --inputs: the node maps the files themselves.)
"$submit" redis://127.0.0.1:$port/bus --circuit mul --out "$tmp/bus" --timeout-s 120 \
    --input-names tw.wtns ok.wtns >"$tmp/bus-submit2.out" 2>"$tmp/bus-submit2.log" ||
    status=$?
[ ! -s "$tmp/bus/tw.wtns" ] || fail "the shim did not truncate the witness"
[ "$status" -eq 1 ] && grep -q "tw.wtns: .*tw.wtns.*(ZKPIPE_E" "$tmp/bus-submit2.log" &&
    [ "$(awk 'END { print NR }' "$tmp/bus-submit2.log")" -eq 1 ] ||
    fail "truncated witness: exit $status: $(cat "$tmp/bus-submit2.log")"
kill -0 "$bus" 2>/dev/null || fail "the node died of its truncated inputs: $(cat "$tmp/bus.err")"
for f in victim.zkey tw.wtns; do
    grep -q "$f: I/O error: the file shrank" "$tmp/bus.err" ||
        fail "no I/O error line for $f: $(cat "$tmp/bus.err")"
done
verify_all "$vk" "$tmp/bus" ok
[ ! -e "$tmp/bus/v1.proof.json" ] && [ ! -e "$tmp/bus/tw.proof.json" ] ||
    fail "a truncated input left outputs"
kill -TERM "$bus"
wait_exit "$bus" 600 "the node with truncated inputs"
json=$(tail -n 1 "$tmp/bus.out")
[ "$status" -eq 0 ] && [ "$(field proved "$json")" -eq 1 ] && [ "$(field failed "$json")" -eq 2 ] ||
    fail "truncated inputs: exit $status: $json"
metric() { awk -v m="$1" '$1 == m {print $2}' "$tmp/bus.prom"; }
[ "$(metric zkpipe_queue_jobs_proved_total)" = 1 ] && [ "$(metric zkpipe_queue_jobs_failed_total)" = 2 ] &&
    [ "$(metric zkpipe_queue_jobs_held)" = 0 ] &&
    [ "$(metric zkpipe_inflight_bytes)" = "$(metric 'zkpipe_stage_bytes{stage="keys"}')" ] &&
    [ "$(metric zkpipe_queue_jobs_held_bound)" = "$(field held_bound "$json")" ] ||
    fail "--metrics at exit: $(grep -v '^#' "$tmp/bus.prom")"
# The engine's series too, written while the engine was there: its one proved partition (the
# truncated ones failed) and its bound, the node's.
[ "$(metric 'zkpipe_partitions_total{result="proved"}')" = 1 ] &&
    [ "$(metric zkpipe_partitions_in_flight)" = 0 ] &&
    [ "$(metric zkpipe_partitions_resident_bound)" = "$(field held_bound "$json")" ] &&
    [ -n "$(metric zkpipe_partition_prove_seconds_count)" ] ||
    fail "--metrics at exit, the engine's series: $(grep -v '^#' "$tmp/bus.prom")"
# The key series: the zkeys it opened, under its engine's key cache (one loaded at least);
# written while the node still had them open, so the only live bytes then were theirs (above).
awk '$1 == "zkpipe_key_loads_total" && $2 >= 1 {ok = 1} END {exit !ok}' "$tmp/bus.prom" &&
    [ -n "$(metric zkpipe_keys_resident)" ] && [ -n "$(metric zkpipe_key_resident_bytes)" ] &&
    [ -n "$(metric zkpipe_key_budget_bytes)" ] && [ -n "$(metric zkpipe_key_releases_total)" ] &&
    [ "$(field key_loads "$json")" -ge 1 ] && field key_releases "$json" >/dev/null ||
    fail "--metrics at exit, the key series: $(grep '^zkpipe_key' "$tmp/bus.prom")"
if command -v promtool >/dev/null 2>&1; then
    promtool check metrics <"$tmp/bus.prom" >"$tmp/promtool.log" 2>&1 ||
        fail "promtool: $(cat "$tmp/promtool.log")"
else
    skip_checks "promtool's check of --metrics (no promtool)"
fi
echo "a zkey and a witness truncated under the node: error results, the node lived on"

# ---- 5. Holds renewed while the taker is stuck opening a zkey ----
echo "not a zkey" >"$tmp/stuck.zkey"
node_env="LD_PRELOAD=$delay_shim ZKPIPE_TEST_DELAY_ON_MMAP_SUFFIX=/stuck.zkey"
node_env="$node_env ZKPIPE_TEST_DELAY_ON_MMAP_UNTIL=$tmp/unstuck"
node_start redis://127.0.0.1:$port/stuck stuck --max-deliveries 1 --circuit stuck="$tmp/stuck.zkey"
node_env=
stuck=$node
redis-cli -h 127.0.0.1 -p "$port" -x XADD stuck '*' id s1 circuit stuck wtns <"$d/witness.wtns" \
    >/dev/null
idle_of() { rcli XPENDING stuck zkpipe - + 1 stuck | sed -n 3p; } # ms since the last renewal
renewals=0 last=
renewed() { # counts the drops of the job's idle time; true after two (the taker stays stuck)
    i=$(idle_of)
    [ -n "$i" ] || return 1
    [ -z "$last" ] || [ "$i" -ge "$last" ] || renewals=$((renewals + 1))
    last=$i
    [ "$renewals" -ge 2 ]
}
wait_until 600 renewed || fail "the hold lapsed while the taker was stuck: idle $(idle_of) ms"
[ "$(rcli XPENDING stuck zkpipe - + 1 stuck | sed -n 4p)" -eq 1 ] ||
    fail "the stuck job was delivered again"
: >"$tmp/unstuck" # the mapping goes on: not a zkey, the job's error
wait_until 600 jobs_in stuck:results 1 || fail "no result for the stuck job"
rcli XRANGE stuck:results - + | grep -q "stuck.zkey" || fail "$(rcli XRANGE stuck:results - +)"
kill -TERM "$stuck"
wait_exit "$stuck" 600 "the stuck node"
[ "$status" -eq 0 ] || fail "the stuck node: exit $status: $(cat "$tmp/stuck.err")"
echo "a taker stuck opening a zkey: the job's hold renewed $renewals times meanwhile"

# ---- 6. A job finished since the history read that listed it: not proved twice ----
# Two gates of the delay shim: "prove" holds every witness's mapping (the engine's, so the job e
# stays held), "open" the zkey of circuit fac (opened by the taker, so it stays in take(x)).
cp "$fixtures/bn128/factors/circuit.zkey" "$tmp/gated.zkey"
deliveries_of() { rcli XPENDING race zkpipe "$1" "$1" 1 | sed -n 4p; }
rcli XGROUP CREATE race zkpipe 0 MKSTREAM >/dev/null
x=$(redis-cli -h 127.0.0.1 -p "$port" --raw -x XADD race '*' id x circuit fac wtns \
    <"$fixtures/bn128/factors/witness.wtns")
rcli XREADGROUP GROUP zkpipe other COUNT 1 STREAMS race '>' >/dev/null # x: another's job
node_args="--claim-idle-ms 60000 --report-ms 0 --prover-threads 1 --json --circuit mul=$d/circuit.zkey"
node_env="LD_PRELOAD=$delay_shim ZKPIPE_TEST_DELAY_ON_MMAP_SUFFIX=(deleted)"
node_env="$node_env ZKPIPE_TEST_DELAY_ON_MMAP_UNTIL=$tmp/prove"
node_env="$node_env ZKPIPE_TEST_DELAY_ON_MMAP_SUFFIX2=/gated.zkey"
node_env="$node_env ZKPIPE_TEST_DELAY_ON_MMAP_UNTIL2=$tmp/open"
node_start redis://127.0.0.1:$port/race racer --synth-workers 4 --permits 4 \
    --circuit fac="$tmp/gated.zkey"
node_env=
racer=$node
wait_until 300 reading || fail "the racer never waits for jobs"
# x becomes the racer's without the racer knowing (a job it held in an earlier life)
rcli XCLAIM race zkpipe racer 0 "$x" JUSTID >/dev/null
e=$(redis-cli -h 127.0.0.1 -p "$port" --raw -x XADD race '*' id e circuit mul wtns <"$d/witness.wtns")
wait_until 300 test "$(pending_of racer race)" -eq 2 || fail "the racer never took e"
[ "$(deliveries_of "$e")" -eq 1 ] || fail "e delivered $(deliveries_of "$e") times"
dx=$(deliveries_of "$x")
wait_until 300 reading || fail "the racer does not read again"
kill_reader() {
    id_=$(rcli CLIENT LIST | awk '/ flags=b .* cmd=xreadgroup / {sub("id=", "", $1); print $1}')
    [ -n "$id_" ] && rcli CLIENT KILL ID "$id_" >/dev/null
}
kill_reader || fail "no connection of the racer's to close"
# The new connection reads the racer's own pending entries: x (it stays in take(x), the zkey
# gated), then e (held: its witness gated)
listed() { [ "$(deliveries_of "$x")" -gt "$dx" ] && [ "$(deliveries_of "$e")" -eq 2 ]; }
wait_until 300 listed || fail "the new connection never read x and e: $(deliveries_of "$x") $(deliveries_of "$e")"
: >"$tmp/prove"
wait_until 300 jobs_in race:results 1 || fail "e never ended"
: >"$tmp/open"
wait_until 300 jobs_in race:results 2 || fail "x never ended"
kill -TERM "$racer"
wait_exit "$racer" 600 "the racer"
[ "$status" -eq 0 ] || fail "the racer: exit $status: $(cat "$tmp/racer.err")"
json=$(tail -n 1 "$tmp/racer.out")
[ "$(rcli XLEN race:results)" -eq 2 ] && [ "$(field proved "$json")" -eq 2 ] ||
    fail "a job proved twice: $(rcli XLEN race:results) results; $json"
echo "a job finished after the history read that listed it: taken once"
redis_stop
skips_done
echo "PASS"
