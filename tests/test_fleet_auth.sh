#!/bin/sh
# Credentials of a fleet (zkpipe-pipeline --queue, $1; zkpipe-submit, $2) on a real redis-server
# that wants a password, the proofs checked with zkpipe-verify ($3); $4 is the test probe.
#
# 1. A Redis that is not on this machine without a password: the node and the submitter refuse
#    it while checking their arguments (exit 2, one line), before any connection: nothing is
#    sent anywhere but loopback. --redis-password-file readable by others is refused too.
# 2. Refused credentials end the node and the submitter at start with one clear line and exit 1,
#    not retried: a wrong password, no password for a server that wants one, and a password
#    for a server that has none.
# 3. The default user's password from --redis-password-file (node) and from a URL written with
#    percent escapes (':' '@' '%' in it; submitter): a job proves. The URL's password is
#    overwritten in the node's argv (ps) and said to have been visible.
# 4. An ACL user (redis://alice@...) with $ZKPIPE_REDIS_PASSWORD: a job proves; every client
#    connection killed, the node reconnects (AUTH again) and proves the next job.
# 5. A Unix socket (unix:///PATH?stream=NAME) for the node and the submitter: a job proves.
# 6. The password appears in none of the node's or submitter's outputs, /status or /metrics.
# Skips (exit 77) with one line when redis-server is not installed or the binaries were built
# without hiredis ("-" for $1 and $2).
set -eu
[ $# -eq 4 ] || { echo "usage: test_fleet_auth.sh PIPELINE SUBMIT VERIFY PROBE" >&2; exit 2; }
pipe=$1 submit=$2 verify=$3 probe=$4
. "$(dirname "$0")/fleet_common.sh"
unset ZKPIPE_REDIS_PASSWORD

# The default user's password has every character a URL must escape in userinfo.
pw='s3cr:t@p%w/x'
pw_url='s3cr%3At%40p%25w%2Fx'
alice_pw='alice-Pw-42'
printf '%s\n' "$pw" >"$tmp/pw"
chmod 600 "$tmp/pw"
# A second server that wants the password, on its own port and a Unix socket (700: its owner).
aport=$("$probe" freeport)
sock=$tmp/redis.sock
arcli() { REDISCLI_AUTH=$pw redis-cli -h 127.0.0.1 -p "$aport" --no-auth-warning --raw "$@"; }
redis-server --bind 127.0.0.1 --port "$aport" --save '' --appendonly no --dir "$tmp" \
    --logfile "$tmp/aredis.log" --unixsocket "$sock" --unixsocketperm 700 \
    --requirepass "$pw" &
apid=$!
pids="$pids $apid"
wait_until 100 sh -c "REDISCLI_AUTH='$pw' redis-cli -h 127.0.0.1 -p $aport --no-auth-warning PING 2>/dev/null | grep -q PONG" ||
    fail "redis-server with a password does not start: $(tail -n 5 "$tmp/aredis.log")"
[ "$(arcli ACL SETUSER alice on ">$alice_pw" '~*' '&*' '+@all')" = OK ] || fail "ACL SETUSER"
redis_start # the server without a password, on $port

submit_job() { # URL NAME [FLAGS...]: one job (the multiplier's witness as NAME) proved by the fleet
    url_=$1 name_=$2
    shift 2
    mkdir -p "$tmp/$name_"
    cp "$d/witness.wtns" "$tmp/$name_/$name_.wtns"
    "$submit" "$url_" --circuit mul --out "$tmp/$name_" --timeout-s 120 --json "$@" \
        "$tmp/$name_/$name_.wtns" >"$tmp/$name_-submit.out" 2>"$tmp/$name_-submit.log" ||
        fail "zkpipe-submit $name_ failed"
    [ "$(field proved "$(tail -n 1 "$tmp/$name_-submit.out")")" = 1 ] || fail "$name_ not proved"
    verify_all "$vk" "$tmp/$name_" "$name_"
}
refused() { # NAME STATUS PATTERN CMD...: CMD ends by itself with STATUS and one line PATTERN
    name_=$1 want_=$2 pat_=$3
    shift 3
    "$@" >"$tmp/$name_.out" 2>"$tmp/$name_.err" &
    p_=$!
    pids="$pids $p_"
    wait_exit "$p_" 300 "$name_"
    [ "$status" = "$want_" ] || fail "$name_: exit status $status, not $want_"
    [ "$(grep -c "$pat_" "$tmp/$name_.err")" = 1 ] || fail "$name_: no one line '$pat_'"
}

# ---- 1. A remote Redis without a password: refused before any connection ----
# 192.0.2.1 (TEST-NET-1) and a name are never reached: the check comes first, and a connection
# attempt would say "unreachable" (or hang until its timeout).
for u in redis://192.0.2.1:6379/jobs redis://redis.invalid/jobs "redis://[2001:db8::1]/jobs"; do
    refused remote 2 "not on this machine" "$pipe" --queue "$u" $node_args
    ! grep -q "unreachable" "$tmp/remote.err" || fail "the node tried to connect to $u"
    refused remote-submit 2 "not on this machine" "$submit" "$u" --circuit mul \
        --out "$tmp" "$d/witness.wtns"
done
refused empty-pw 2 "a bad password (empty" "$pipe" --queue "redis://:@127.0.0.1:$aport/jobs" \
    $node_args
refused bad-escape 2 "a bad password (empty, longer than 512 bytes, or a bad %XX escape)" \
    "$submit" "redis://:a%4@127.0.0.1:$aport/jobs" --circuit mul --out "$tmp" \
    "$d/witness.wtns"
chmod 644 "$tmp/pw"
refused shared-file 2 "readable by its group or by others" "$pipe" --queue \
    "redis://127.0.0.1:$aport/jobs" --redis-password-file "$tmp/pw" $node_args
chmod 600 "$tmp/pw"
refused user-no-pw 2 "the user alice has no password" "$pipe" --queue \
    "redis://alice@127.0.0.1:$aport/jobs" $node_args

# ---- 2. Refused credentials: one line at start, exit 1, no retries ----
ZKPIPE_REDIS_PASSWORD=wrong refused wrong 1 "refuses the password of the default user" \
    "$pipe" --queue "redis://127.0.0.1:$aport/jobs" $node_args
ZKPIPE_REDIS_PASSWORD=wrong refused wrong-alice 1 "refuses the password of the user alice" \
    "$submit" "redis://alice@127.0.0.1:$aport/jobs" --circuit mul --out "$tmp" \
    "$d/witness.wtns"
refused none 1 "requires a password and none was given" "$pipe" --queue \
    "redis://127.0.0.1:$aport/jobs" $node_args
refused none-submit 1 "requires a password and none was given" "$submit" \
    "redis://127.0.0.1:$aport/jobs" --circuit mul --out "$tmp" "$d/witness.wtns"
refused unwanted 1 "has no password configured" "$pipe" --queue "redis://127.0.0.1:$port/jobs" \
    --redis-password-file "$tmp/pw" $node_args
for f in wrong none unwanted; do
    ! grep -q "unreachable" "$tmp/$f.err" || fail "$f: credentials refused were retried"
done

# ---- 3. The default user: a password file, a URL with escapes ----
hport=$("$probe" freeport)
node_start "redis://:$pw_url@127.0.0.1:$aport/jobs" auth-default --listen 127.0.0.1:$hport
grep -q "warning: the password in --queue was visible" "$tmp/auth-default.err" ||
    fail "no warning for a password on the command line"
tr '\0' ' ' <"/proc/$node/cmdline" >"$tmp/cmdline.log"
! grep -qF "$pw_url" "$tmp/cmdline.log" || fail "the password stays in the node's argv (ps)"
grep -qF "redis://:***@127.0.0.1:$aport/jobs" "$tmp/cmdline.log" || fail "argv not masked"
submit_job "redis://:$pw_url@127.0.0.1:$aport/jobs" d1
"$probe" get 127.0.0.1 "$hport" /status >"$tmp/status.log" || fail "no /status"
"$probe" get 127.0.0.1 "$hport" /metrics >"$tmp/metrics.log" || fail "no /metrics"
kill -TERM "$node"
wait_exit "$node" 300 "the default user's node"
[ "$status" = 0 ] || fail "the default user's node exited $status"
node_start "redis://127.0.0.1:$aport/jobs" auth-file --redis-password-file "$tmp/pw"
submit_job "redis://127.0.0.1:$aport/jobs" d2 --redis-password-file "$tmp/pw"
kill -TERM "$node"
wait_exit "$node" 300 "the password file's node"
[ "$status" = 0 ] || fail "the password file's node exited $status"

# ---- 4. An ACL user; its connections killed, it authenticates again ----
node_env="ZKPIPE_REDIS_PASSWORD=$alice_pw"
node_start "redis://alice@127.0.0.1:$aport/jobs" auth-alice
node_env=
ZKPIPE_REDIS_PASSWORD=$alice_pw submit_job "redis://alice@127.0.0.1:$aport/jobs" a1
arcli CLIENT KILL USER alice >/dev/null
ZKPIPE_REDIS_PASSWORD=$alice_pw submit_job "redis://alice@127.0.0.1:$aport/jobs" a2
kill -TERM "$node"
wait_exit "$node" 300 "alice's node"
[ "$status" = 0 ] || fail "alice's node exited $status"
c=$(field redis_connects "$(tail -n 1 "$tmp/auth-alice.out")")
[ "$c" -ge 2 ] || fail "alice's node did not reconnect ($c connections)"

# ---- 5. A Unix socket ----
node_start "unix://$sock?stream=ujobs" auth-unix --redis-password-file "$tmp/pw"
grep -q "queue node auth-unix: unix://$sock?stream=ujobs" "$tmp/auth-unix.out" ||
    fail "the Unix socket node does not name its address"
submit_job "unix://$sock?stream=ujobs" u1 --redis-password-file "$tmp/pw"
kill -TERM "$node"
wait_exit "$node" 300 "the Unix socket node"
[ "$status" = 0 ] || fail "the Unix socket node exited $status"
[ "$(arcli XLEN ujobs:results)" = 1 ] || fail "no result on the Unix socket's stream"

# ---- 6. The password never printed ----
for f in "$tmp"/*.out "$tmp"/*.err "$tmp"/*.log; do
    ! grep -qF -e "$pw" -e "$pw_url" -e "$alice_pw" "$f" || fail "a password in $f"
done
echo "PASS: wrong, missing and unwanted passwords refused at start; remote Redis without one refused at the arguments; default user, ACL user, Unix socket proved; no password in any output"
