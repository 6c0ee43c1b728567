# Shell helpers of the fleet's tests (tests/test_fleet*.sh), sourced once they
# set $pipe (zkpipe-pipeline, or "-" when built without hiredis), $submit (zkpipe-submit, or
# "-"), $verify (zkpipe-verify) and $probe (zkpipe-test-probe). Sourcing it skips the test
# (exit 77, one line) when the binaries or redis-server are missing, and makes $tmp (a scratch
# folder, removed at exit unless $KEEP is set) and $pids (processes killed at exit, Redis
# too). Every wait has an overall deadline counted in tenths of a second, long enough for a
# loaded 2-core machine; none times a step.
if [ "$pipe" = - ] || [ "$submit" = - ]; then
    echo "SKIP: built without hiredis (libhiredis-dev): no zkpipe-pipeline --queue"
    exit 77
fi
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
    echo "SKIP: redis-server is not installed (apt-get install redis-server)"
    exit 77
fi
tmp=$(mktemp -d)
pids= redis_pid=
# The fixture most fleet tests prove, and the flags their nodes share: the circuit "mul" (a
# test that wants other circuits or an --inputs folder sets its own $node_args).
fixtures=$(cd "$(dirname "$0")/interop/fixtures" && pwd)
d=$fixtures/bn128/multiplier
vk=$d/verification_key.json
node_args="--claim-idle-ms 1500 --report-ms 0 --prover-threads 1 --json --circuit mul=$d/circuit.zkey"
cleanup() {
    [ -z "$redis_pid" ] || kill -CONT "$redis_pid" 2>/dev/null || true
    for p in $pids $redis_pid; do kill -9 "$p" 2>/dev/null || true; done
    [ -n "${KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    for f in "$tmp"/*.err "$tmp"/*.log; do [ -s "$f" ] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }; done
    exit 1
}
# A sanitizer report exits 66, never passing for a refusal; exit_says, expect_refusal.
. "$(dirname "$0")/support/exits.sh"
now_ms() { date +%s%3N; }
field() { # the number after "NAME": in a JSON line
    v=$(printf '%s\n' "$2" | sed -n "s/.*\"$1\":\([0-9][0-9.]*\).*/\1/p")
    [ -n "$v" ] || fail "no numeric \"$1\" in: $2"
    echo "$v"
}

port=$("$probe" freeport)
rcli() { redis-cli -h 127.0.0.1 -p "$port" --raw "$@"; }
redis_start() { # no persistence: a restart loses everything, as the tests want
    redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --dir "$tmp" \
        --logfile "$tmp/redis.log" &
    redis_pid=$!
    n=50
    until rcli PING 2>/dev/null | grep -q PONG; do
        n=$((n - 1))
        [ "$n" -gt 0 ] || fail "redis-server does not start: $(tail -n 5 "$tmp/redis.log")"
        sleep 0.1
    done
}
redis_stop() {
    rcli SHUTDOWN NOSAVE >/dev/null 2>&1 || true
    wait "$redis_pid" 2>/dev/null || true
    redis_pid=
}
pending_of() { # entries of stream $2 (default jobs) pending for consumer $1
    echo $(($(rcli XPENDING "${2:-jobs}" zkpipe - + 10000 "$1" | wc -l) / 4))
}
reading() { rcli CLIENT LIST | grep -q ' flags=b .* cmd=xreadgroup '; } # a node waits for jobs
jobs_in() { [ "$(rcli XLEN "$1")" -ge "$2" ]; } # stream $1 has $2 entries at least
wait_line() { # until file $1 has $4 (default 1) lines matching $2, for at most $3 tenths of a s
    n=$3
    # (the file may not be there yet: a process started in the background opens it itself)
    until c_=$(grep -c "$2" "$1" 2>/dev/null); [ "${c_:-0}" -ge "${4:-1}" ]; do
        n=$((n - 1))
        [ "$n" -gt 0 ] || fail "no line '$2' in $1"
        sleep 0.1
    done
}
wait_until() { # until the command "$2..." succeeds, for at most $1 tenths of a second
    n=$1
    shift
    until "$@"; do
        n=$((n - 1))
        [ "$n" -gt 0 ] || return 1
        sleep 0.1
    done
}
exited() { ! kill -0 "$1" 2>/dev/null; }
wait_exit() { # pid tenths name: its exit status in $status, or a failure past the deadline
    wait_until "$2" exited "$1" || fail "$3 did not exit"
    status=0
    wait "$1" || status=$?
}
node_env=
node_start() { # URL NAME [FLAGS...]: a node in the background (with $node_env, VAR=VALUE words,
    # in its environment), its pid in $node; its stdout and stderr in $tmp/NAME.out, .err
    url_=$1 name_=$2
    shift 2
    # shellcheck disable=SC2086 # the words, split on purpose
    env $node_env "$pipe" --queue "$url_" --consumer "$name_" $node_args "$@" >"$tmp/$name_.out" \
        2>"$tmp/$name_.err" &
    node=$!
    pids="$pids $node"
    wait_line "$tmp/$name_.out" "queue node $name_" 100
}
copies() { # FILE DIR PREFIX N: DIR/PREFIX1.wtns ... DIR/PREFIXN.wtns, copies of FILE
    mkdir -p "$2"
    for i in $(seq 1 "$4"); do cp "$1" "$2/$3$i.wtns"; done
}
submit_bg() { # STREAM DIR: zkpipe-submit of DIR/*.wtns (their bytes in the jobs) for the
    # circuit "mul" (the nodes' --circuit mul=...), the outputs of the results written into DIR,
    # in the background (its pid in $sub; its stdout and stderr in $tmp/STREAM-submit.out, .log)
    "$submit" "redis://127.0.0.1:$port/$1" --circuit mul --out "$2" --timeout-s 120 \
        --json "$2"/*.wtns >"$tmp/$1-submit.out" 2>"$tmp/$1-submit.log" &
    sub=$!
    pids="$pids $sub"
}
stopped() { # PID: every thread of the process is stopped (state T in /proc)
    for s_ in /proc/"$1"/task/*/stat; do
        [ "$(sed 's/.*) //' "$s_" 2>/dev/null | cut -d ' ' -f 1)" = T ] || return 1
    done
}
stop_settled() { # PID NAME: SIGSTOP, then wait until every command the process sent before it
    # stopped has been served: once all its threads are stopped, what they sent is in Redis's
    # socket buffers, and Redis answers a command sent after that (PING) only once it has read
    # and run every command that was waiting with it. Its pending entries are then final.
    kill -STOP "$1"
    wait_until 100 stopped "$1" || fail "$2 does not stop"
    rcli PING >/dev/null
}
stop_reading() { # PID NAME: stops the node (stop_settled) once it waits in XREADGROUP (the
    # only node reading): Redis then hands it the next jobs added, which it holds
    wait_until 300 reading || fail "$2 never waits for jobs"
    stop_settled "$1" "$2"
}
hold_stopped() { # PID CONSUMER STREAM [MIN]: stops the node once Redis has handed it MIN
    # (default 1) jobs it has not acknowledged (stop_settled: a read it sent just before the
    # stop is served by then). Stopped while it waits in XREADGROUP, Redis hands it the next
    # jobs, which it then holds; should it hold fewer, it runs alone in short steps until it
    # holds enough.
    tries=0
    stop_settled "$1" "$2"
    while [ "$(pending_of "$2" "$3")" -lt "${4:-1}" ]; do
        tries=$((tries + 1))
        [ "$tries" -le 200 ] || fail "$2 never held ${4:-1} jobs"
        kill -CONT "$1"
        sleep 0.02
        stop_settled "$1" "$2"
    done
}
verify_all() { # VK DIR NAMES...: DIR/NAME.proof.json with DIR/NAME.public.json verify
    vk_=$1 dir_=$2
    shift 2
    for name_ in "$@"; do
        "$verify" "$vk_" "$dir_/$name_.public.json" "$dir_/$name_.proof.json" >/dev/null ||
            fail "$dir_/$name_.proof.json does not verify"
    done
}
