#!/bin/sh
# A node (zkpipe-pipeline --queue, $1) told to stop now while its threads are blocked, on a real
# redis-server, jobs from zkpipe-submit ($2), proofs checked with zkpipe-verify ($3); $4 is the
# test probe, $5 the LD_PRELOAD shim that maps witnesses late (here: not before the test says).
#
# 1. A node whose synthesis worker is blocked (its job's witness mapped only once the test has
#    seen the node exit): the first SIGTERM says it finishes the job it holds, the second ends
#    the process (its bound, not the worker: it says it exits without a blocked thread) with
#    exit status 0 and its summary (the job counted as left pending), the job left pending
#    under its name; a second node takes it over after --claim-idle-ms and proves it.
# 2. The same with Redis stopped (SIGSTOP) under a node that waits on it: its commands would
#    block until their timeout (5 s), the process ends by the bound of the second SIGTERM
#    (300 ms) instead, and says so, while Redis is still stopped.
# No step is timed: each waits for its event (a line, an exit) under a hang guard of 60 s.
# Skips (exit 77) with one line when redis-server is not installed or the binaries were built
# without hiredis ("-" for $1 and $2).
set -eu
[ $# -eq 5 ] || { echo "usage: test_fleet_stop.sh PIPELINE SUBMIT VERIFY PROBE DELAY_SHIM" >&2; exit 2; }
pipe=$1 submit=$2 verify=$3 probe=$4 delay_shim=$5
. "$(dirname "$0")/fleet_common.sh"
redis_start
# Ended with threads still blocked, a node leaves them unjoined on purpose: ThreadSanitizer
# would report them as leaked (its other options kept).
leaks_ok="TSAN_OPTIONS=$(printf '%s' "${TSAN_OPTIONS:-}" | tr ' ' ':'):report_thread_leaks=0"

# Two SIGTERMs to node $1 (named $2), a thread of which stays blocked until the test lets it
# go: the second SIGTERM must end it by its bound, which the node reports on stderr before it
# exits (a node that waited for the thread would not exit, or would exit without the line).
stop_twice() {
    kill -TERM "$1"
    wait_line "$tmp/$2.err" "SIGTERM: taking no more jobs" 600
    t0=$(now_ms)
    kill -TERM "$1"
    wait_exit "$1" 600 "$2 (told to stop now)"
    echo "$2: exited $status, $(($(now_ms) - t0)) ms after the second SIGTERM"
    [ "$status" = 0 ] || fail "$2 exited $status after the second SIGTERM"
    grep -q "stopping now: a thread is still blocked after .* ms: exiting without it" \
        "$tmp/$2.err" || fail "$2 did not end by its bound on the blocked thread"
}

# ---- 1. A synthesis worker blocked ----
node_env="$leaks_ok LD_PRELOAD=$delay_shim ZKPIPE_TEST_DELAY_ON_MMAP_SUFFIX=(deleted)"
node_env="$node_env ZKPIPE_TEST_DELAY_ON_MMAP_UNTIL=$tmp/release"
node_start redis://127.0.0.1:$port/jobs blocked
node_env=
blocked=$node
copies "$d/witness.wtns" "$tmp/in" w 1
submit_bg jobs "$tmp/in"
wait_until 300 sh -c "[ \"\$(redis-cli -h 127.0.0.1 -p $port XPENDING jobs zkpipe - + 10 blocked | wc -l)\" -ge 4 ]" ||
    fail "the node never held the job"
stop_twice "$blocked" blocked
[ "$(pending_of blocked)" = 1 ] || fail "the job is not left pending under the stopped node"
[ "$(field left_pending "$(tail -n 1 "$tmp/blocked.out")")" = 1 ] ||
    fail "the summary does not count the job left pending"
node_start redis://127.0.0.1:$port/jobs rescuer
wait_exit "$sub" 1200 "zkpipe-submit"
[ "$status" = 0 ] || fail "the job left pending was not proved by the other node"
verify_all "$d/verification_key.json" "$tmp/in" w1
kill -TERM "$node"
wait_exit "$node" 300 "rescuer"

# ---- 2. Redis stopped under the node ----
node_env=$leaks_ok
node_start redis://127.0.0.1:$port/jobs stalled
node_env=
wait_until 300 reading || fail "the node never waits for jobs"
kill -STOP "$redis_pid"
stop_twice "$node" stalled
kill -CONT "$redis_pid"
echo "PASS: told to stop now, a node with a blocked worker, and one with Redis stopped, ended by the bound; the job left pending was proved by another node"
