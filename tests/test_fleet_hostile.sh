#!/bin/sh
# A fleet node (zkpipe-pipeline --queue, $1) fed hostile jobs by a client of its Redis server
# (redis-cli XADD, as anyone who can reach the server can), beside honest ones from
# zkpipe-submit ($2); proofs checked with zkpipe-verify ($3); $4 is the test probe (a free
# port). A job never names a path of the node's host, its fields are checked and bounded:
#
# 1. The old job form (zkey and out paths, out /etc) is refused; nothing is written outside
#    the node's --out, and a symbolic link planted at an output name is replaced, its target
#    left alone.
# 2. A witness named outside --inputs (an absolute name, "..", through a symbolic link to a
#    file or a folder) is refused and never opened; one beneath it is proved.
# 3. A FIFO named as the witness: that job's error comes at once and the next job is proved
#    (the node never waits on it).
# 4. Forged deliveries (2^64 - 1, or past --max-deliveries), error and requeued fields change
#    nothing: the job is proved once, its deliveries counted by Redis; a job requeued by the
#    node keeps its count (STREAM:deliveries) until it is dead-lettered.
# 5. Huge fields: a 10 MB witness over --max-wtns-mib, a 10 MB input name, a 1 MB id: refused
#    with an error result of bounded size, nothing huge copied; an unknown circuit is refused.
# Skips (exit 77) with one line when redis-server is not installed or the binaries were built
# without hiredis ("-" for $1 and $2).
set -eu
[ $# -eq 4 ] || { echo "usage: test_fleet_hostile.sh PIPELINE SUBMIT VERIFY PROBE" >&2; exit 2; }
pipe=$1 submit=$2 verify=$3 probe=$4
. "$(dirname "$0")/fleet_common.sh"
# Its nodes name their circuits one by one.
node_args="--claim-idle-ms 1500 --report-ms 0 --prover-threads 1 --json"
redis_start
url=redis://127.0.0.1:$port/h
mkdir -p "$tmp/in/sub" "$tmp/out" "$tmp/secret" "$tmp/victim"
chmod 700 "$tmp/secret"
cp "$d/witness.wtns" "$tmp/in/good.wtns"
cp "$d/witness.wtns" "$tmp/in/sub/deep.wtns"
cp "$d/witness.wtns" "$tmp/secret/w.wtns"
ln -s "$tmp/secret/w.wtns" "$tmp/in/link.wtns"
ln -s "$tmp/secret" "$tmp/in/linkdir"
mkfifo "$tmp/in/fifo.wtns"
echo "precious" >"$tmp/victim/target"
ln -s "$tmp/victim/target" "$tmp/out/sl.proof.json"

node_start "$url" hostile --circuit mul="$d/circuit.zkey" --inputs "$tmp/in" --out "$tmp/out" \
    --max-wtns-mib 1 --max-deliveries 3
node=$node

# The field ARGV[2] of the first result whose id is ARGV[1] (a Lua script: a proof's JSON spans
# lines, so redis-cli's line per string cannot be read field by field).
result() {
    rcli EVAL "for _, e in ipairs(redis.call('XRANGE', KEYS[1], '-', '+')) do
        local t = {}
        for i = 1, #e[2], 2 do t[e[2][i]] = e[2][i + 1] end
        if t['id'] == ARGV[1] then return t[ARGV[2]] end
      end
      return ''" 1 h:results "$1" "$2"
}
has_result() { [ -n "$(result "$1" status)" ]; }
expect() { # ID STATUS [MESSAGE-PATTERN]: the job's result (a hang guard of 60 s)
    wait_until 600 has_result "$1" || fail "no result for $1"
    st_=$(result "$1" status) msg_=$(result "$1" message)
    [ "$st_" = "$2" ] || fail "$1: $st_ ($msg_), not $2"
    [ -z "${3:-}" ] || printf '%s\n' "$msg_" | grep -q -- "$3" || fail "$1: message: $msg_"
}
job() { rcli XADD h '*' "$@" >/dev/null; } # a job's fields, as an attacker sends them
wtns_job() { # ID [FIELDS...]: a good job, its witness in the job (redis-cli -x: the last arg)
    id_=$1
    shift
    redis-cli -h 127.0.0.1 -p "$port" -x XADD h '*' id "$id_" circuit mul "$@" wtns \
        <"$d/witness.wtns" >/dev/null
}

# ---- 1. Host paths: the old form refused; outputs only in --out, links replaced ----
pwn=pwn-$$-$(date +%s)
job id "$pwn" zkey "$d/circuit.zkey" wtns "$d/witness.wtns" out /etc
expect "$pwn" ZKPIPE_EINVAL "names a host path"
[ ! -e "/etc/$pwn.proof.json" ] && [ ! -e "/etc/$pwn.public.json" ] || fail "a file in /etc"
job id "$pwn-x" circuit mul input good.wtns out "$tmp/victim"
expect "$pwn-x" ZKPIPE_EINVAL "names a host path"
job id ../escape circuit mul input good.wtns
expect ../escape ZKPIPE_EINVAL "is not 1 to 128 bytes"
wtns_job sl
expect sl ok
[ "$(cat "$tmp/victim/target")" = precious ] || fail "the link's target was overwritten"
[ -f "$tmp/out/sl.proof.json" ] && [ ! -L "$tmp/out/sl.proof.json" ] || fail "the link stayed"
verify_all "$vk" "$tmp/out" sl
[ "$(ls "$tmp/victim")" = target ] || fail "files beside the victim: $(ls "$tmp/victim")"
# The proof and public signals come back in the result entry itself.
result sl proof >"$tmp/sl-inline.proof.json"
result sl public >"$tmp/sl-inline.public.json"
"$verify" "$vk" "$tmp/sl-inline.public.json" "$tmp/sl-inline.proof.json" >/dev/null ||
    fail "the result's proof does not verify"
echo "host paths: refused; a link at an output name replaced, its target untouched"

# ---- 2. Witnesses beneath --inputs only ----
job id abs circuit mul input /etc/shadow
expect abs ZKPIPE_EINVAL "not a name beneath"
job id dots circuit mul input ../secret/w.wtns
expect dots ZKPIPE_EINVAL "not a name beneath"
job id lnk circuit mul input link.wtns
expect lnk ZKPIPE_EINVAL "symbolic link"
job id lnkdir circuit mul input linkdir/w.wtns
expect lnkdir ZKPIPE_EINVAL "symbolic link"
job id deep circuit mul input sub/deep.wtns
expect deep ok
verify_all "$vk" "$tmp/out" deep
[ ! -e "$tmp/out/lnk.public.json" ] && [ ! -e "$tmp/out/lnkdir.public.json" ] ||
    fail "a witness outside --inputs was proved"
echo "witnesses outside --inputs: refused; beneath it: proved"

# ---- 3. A FIFO as the witness ----
# No writer ever opens the FIFO: a node that opened it to read would wait for ever, so the
# refusal and the next job's proof coming at all (expect's hang guard) are the check.
t0=$(now_ms)
job id fifo circuit mul input fifo.wtns
job id after circuit mul input good.wtns
expect fifo ZKPIPE_EINVAL "not a regular file"
expect after ok
echo "a FIFO as the witness: its error and the next job's proof in $(($(now_ms) - t0)) ms"

# ---- 4. Forged deliveries and error fields ----
wtns_job forged1 deliveries 18446744073709551615
wtns_job forged2 deliveries 99 error "forged: dead-letter me"
wtns_job forged3 status ZKPIPE_EIO error "forged" requeued 1
for id in forged1 forged2 forged3; do
    expect $id ok
    [ "$(result $id deliveries)" = 1 ] || fail "$id: deliveries $(result $id deliveries)"
done
[ "$(rcli XLEN h:dead)" -eq 0 ] || fail "a forged job was dead-lettered"
# A witness the node cannot read yet (EIO: requeued): delivered three times in all, counted by
# the nodes across its requeued entries, then dead-lettered with its own error.
job id gone circuit mul input missing.wtns deliveries 0
expect gone ZKPIPE_EIO "dead-lettered to h:dead after 3 deliveries"
[ "$(rcli XLEN h:dead)" -eq 1 ] || fail "the missing witness was not dead-lettered once"
[ "$(rcli HLEN h:deliveries)" -eq 0 ] || fail "delivery counts left: $(rcli HGETALL h:deliveries)"
echo "forged deliveries and errors: ignored; a requeued job's count kept by the nodes"

# ---- 5. Huge fields, an unknown circuit ----
head -c 10485760 /dev/zero | tr '\0' 'a' >"$tmp/10mb"
head -c 1048576 /dev/zero | tr '\0' 'i' >"$tmp/1mb"
redis-cli -h 127.0.0.1 -p "$port" -x XADD h '*' id bigw circuit mul wtns <"$tmp/10mb" >/dev/null
expect bigw ZKPIPE_EINVAL "the witness has 10485760 bytes"
redis-cli -h 127.0.0.1 -p "$port" -x XADD h '*' id bign circuit mul input <"$tmp/10mb" >/dev/null
expect bign ZKPIPE_EINVAL "not a name beneath"
redis-cli -h 127.0.0.1 -p "$port" -x XADD h '*' circuit mul input good.wtns id <"$tmp/1mb" \
    >/dev/null
big=
n=300
until [ -n "$big" ]; do
    n=$((n - 1))
    [ "$n" -gt 0 ] || fail "no bounded result for the 1 MB id"
    sleep 0.1
    big=$(rcli EVAL "for _, e in ipairs(redis.call('XRANGE', KEYS[1], '-', '+')) do
        for i = 1, #e[2], 2 do
          if e[2][i] == 'id' and string.find(e[2][i + 1], '1048576 bytes', 1, true) then
            local t = {}
            for k = 1, #e[2], 2 do t[e[2][k]] = e[2][k + 1] end
            return #t['id'] .. ' ' .. t['status']
          end
        end
      end
      return ''" 1 h:results)
done
[ "${big% *}" -le 128 ] && [ "${big#* }" = ZKPIPE_EINVAL ] || fail "the 1 MB id's result: $big"
job id nocircuit circuit nosuch input good.wtns
expect nocircuit ZKPIPE_EINVAL "not one of this node's"
# Nothing huge copied anywhere: every result and dead letter is small.
biggest=$(rcli EVAL "local m = 0
  for _, k in ipairs(KEYS) do
    for _, e in ipairs(redis.call('XRANGE', k, '-', '+')) do
      local s = 0
      for i = 1, #e[2] do s = s + #e[2][i] end
      if s > m then m = s end
    end
  end
  return m" 2 h:results h:dead)
[ "$biggest" -lt 16384 ] || fail "an entry of $biggest bytes in the results or dead letters"
echo "huge fields: refused with bounded results (the largest entry $biggest bytes)"

kill -TERM "$node"
wait_exit "$node" 600 "the node"
[ "$status" -eq 0 ] || fail "the node: exit $status: $(cat "$tmp/hostile.err")"
redis_stop
echo "PASS"
