#!/bin/sh
# A fleet's Redis behind TLS, as the README's "TLS with stunnel" deploys it: redis-server with a
# password on loopback, a server-side stunnel in front of it, a client-side stunnel that
# verifies the server's certificate (verifyChain, checkHost, CAfile: a throwaway CA made here
# with openssl), and zkpipe-pipeline --queue ($1) and zkpipe-submit ($2) through that; proofs
# checked with zkpipe-verify ($3); $4 is the test probe.
#
# 1. A job submitted through the tunnel is proved through it, and verifies.
# 2. A plain connection to the TLS port gets no answer from Redis.
# 3. A client-side stunnel that trusts another CA does not connect: a node through it never
#    reaches Redis (it says so and retries).
# Needs stunnel (Debian: stunnel4) and openssl: where CI is set their absence fails the test;
# elsewhere it skips (exit 77) with one line. Skips like the other fleet tests without
# redis-server or hiredis.
set -eu
[ $# -eq 4 ] || { echo "usage: test_fleet_tls.sh PIPELINE SUBMIT VERIFY PROBE" >&2; exit 2; }
pipe=$1 submit=$2 verify=$3 probe=$4
stunnel=$(command -v stunnel4 || command -v stunnel || true)
if [ -z "$stunnel" ] || ! command -v openssl >/dev/null 2>&1; then
    if [ -n "${CI:-}" ]; then
        echo "FAIL: stunnel or openssl is not installed (apt-get install stunnel4 openssl)" >&2
        exit 1
    fi
    echo "SKIP: stunnel or openssl is not installed (apt-get install stunnel4 openssl)"
    exit 77
fi
. "$(dirname "$0")/fleet_common.sh"
unset ZKPIPE_REDIS_PASSWORD

# ---- Certificates: a CA, the server's (localhost, 127.0.0.1), and another CA no one uses ----
ssl() { openssl "$@" >>"$tmp/openssl.log" 2>&1 || fail "openssl $1 failed"; }
for ca in ca other-ca; do
    ssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=zkpipe test $ca" \
        -keyout "$tmp/$ca.key" -out "$tmp/$ca.crt"
done
ssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout "$tmp/server.key" \
    -out "$tmp/server.csr"
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$tmp/server.ext"
ssl x509 -req -in "$tmp/server.csr" -CA "$tmp/ca.crt" -CAkey "$tmp/ca.key" -CAcreateserial \
    -days 2 -extfile "$tmp/server.ext" -out "$tmp/server.crt"
chmod 600 "$tmp"/*.key

# ---- Redis with a password, on loopback only ----
pw=tls-test-Pw-7
printf '%s\n' "$pw" >"$tmp/pw"
chmod 600 "$tmp/pw"
redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --dir "$tmp" \
    --logfile "$tmp/redis.log" --requirepass "$pw" &
redis_pid=$!
export REDISCLI_AUTH="$pw"
wait_until 100 sh -c "redis-cli -h 127.0.0.1 -p $port --no-auth-warning PING 2>/dev/null | grep -q PONG" ||
    fail "redis-server does not start: $(tail -n 5 "$tmp/redis.log")"

# ---- The tunnels ----
tls_port=$("$probe" freeport)
stunnel_start() { # NAME ACCEPT_PORT CONNECT_PORT [OPTIONS...]: a stunnel in the foreground
    name_=$1 accept_=$2 connect_=$3
    shift 3
    {
        printf 'foreground = yes\npid =\noutput = %s\n[redis]\n' "$tmp/$name_.log"
        printf 'accept = 127.0.0.1:%s\nconnect = 127.0.0.1:%s\n' "$accept_" "$connect_"
        for o_ in "$@"; do printf '%s\n' "$o_"; done
    } >"$tmp/$name_.conf"
    "$stunnel" "$tmp/$name_.conf" >>"$tmp/$name_.log" 2>&1 &
    pids="$pids $!"
    wait_line "$tmp/$name_.log" "Configuration successful" 100
}
stunnel_start tls-server "$tls_port" "$port" "cert = $tmp/server.crt" "key = $tmp/server.key"
lport=$("$probe" freeport)
stunnel_start tls-client "$lport" "$tls_port" "client = yes" "verifyChain = yes" \
    "CAfile = $tmp/ca.crt" "checkHost = localhost"

# ---- 1. A job through the tunnel ----
url=redis://127.0.0.1:$lport/jobs
node_start "$url" tls-node --redis-password-file "$tmp/pw"
mkdir -p "$tmp/in"
cp "$d/witness.wtns" "$tmp/in/t1.wtns"
"$submit" "$url" --redis-password-file "$tmp/pw" --circuit mul --out "$tmp/in" \
    --timeout-s 120 --json "$tmp/in/t1.wtns" >"$tmp/submit.out" 2>"$tmp/submit.log" ||
    fail "zkpipe-submit through the tunnel failed"
[ "$(field proved "$(tail -n 1 "$tmp/submit.out")")" = 1 ] || fail "the job was not proved"
verify_all "$d/verification_key.json" "$tmp/in" t1
grep -q "Certificate accepted at depth=0: CN=localhost" "$tmp/tls-client.log" ||
    fail "the client-side stunnel did not verify the server's certificate"
kill -TERM "$node"
wait_exit "$node" 300 "the node through TLS"
[ "$status" = 0 ] || fail "the node through TLS exited $status"

# ---- 2. A plain connection to the TLS port ----
plain=$(timeout 20 redis-cli -h 127.0.0.1 -p "$tls_port" --no-auth-warning PING 2>&1 || true)
case $plain in *PONG*) fail "a plain connection to the TLS port reached Redis" ;; esac

# ---- 3. A client that trusts another CA ----
bport=$("$probe" freeport)
stunnel_start tls-bad-client "$bport" "$tls_port" "client = yes" "verifyChain = yes" \
    "CAfile = $tmp/other-ca.crt" "checkHost = localhost"
node_start "redis://127.0.0.1:$bport/jobs" untrusted --redis-password-file "$tmp/pw"
wait_line "$tmp/untrusted.err" "is unreachable" 300
grep -q "certificate verify failed\|CERT_VERIFY\|verify failed" "$tmp/tls-bad-client.log" ||
    fail "the client-side stunnel did not refuse the server's certificate"
kill -TERM "$node"
wait_exit "$node" 300 "the node through an untrusting stunnel"
echo "PASS: a job proved through stunnel with a verified certificate; plain connections to the TLS port and a client that trusts another CA refused"
