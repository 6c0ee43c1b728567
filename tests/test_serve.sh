#!/bin/sh
# zkpipe-serve ($1) with zkpipe-verify ($2), driven by curl against the real server on the
# interop fixtures: proofs of both curves verify (in snarkjs too when node and
# tests/interop/node_modules are there, else those checks are skipped and the test exits 77);
# a bad witness and another circuit's are 422 with the error; no token or a wrong one 401; a
# body too large 413; a body that trickles in past the deadline is cut off; 50 concurrent
# requests under a small budget all end 200 or 429 with the accounted peak within the budget;
# an input.json through --witness-cmd (a generator that waits for the test's word), and SIGTERM
# while it is in flight: the request is answered, new ones refused, the server exits 0; the
# fixture circuits' wasm generators under node on both curves (skipped without node and
# tests/interop/node_modules), a generator's refusal and its time limit.
set -eu
[ $# -eq 2 ] || { echo "usage: test_serve.sh ZKPIPE_SERVE ZKPIPE_VERIFY" >&2; exit 2; }
bin=$1 verify=$2
interop=$(cd "$(dirname "$0")/interop" && pwd)
fixtures=$interop/fixtures
tmp=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || kill -9 "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; [ ! -f "$tmp/serve.log" ] || tail -n 20 "$tmp/serve.log" >&2; exit 1; }
. "$(dirname "$0")/support/exits.sh" # exit_says, skip_checks, skips_done
command -v curl >/dev/null 2>&1 || { echo "SKIP: no curl"; exit 77; }
command -v jq >/dev/null 2>&1 || { echo "SKIP: no jq"; exit 77; }
snarkjs=$interop/node_modules/.bin/snarkjs
have_snarkjs=0
if command -v node >/dev/null 2>&1 && [ -x "$snarkjs" ]; then have_snarkjs=1; fi
[ "$have_snarkjs" -eq 1 ] ||
    skip_checks "snarkjs's checks (node or tests/interop/node_modules missing: npm ci there)"

bn=$fixtures/bn128 bls=$fixtures/bls12381
printf 's3cret-token\n' >"$tmp/token"
chmod 600 "$tmp/token"
auth="Authorization: Bearer s3cret-token"

# wait_for SECONDS CMD...: until CMD succeeds, at most SECONDS.
wait_for() {
    n=$(($1 * 20))
    shift
    while ! "$@" >/dev/null 2>&1; do
        n=$((n - 1))
        [ "$n" -gt 0 ] || return 1
        sleep 0.05
    done
}
# start ARGS...: the server on a free port; $url is its base.
start() {
    rm -f "$tmp/serve.log" # the old one would be read before the new server truncates it
    "$bin" --listen 127.0.0.1:0 --token-file "$tmp/token" "$@" >"$tmp/serve.log" 2>&1 &
    pid=$!
    wait_for 60 grep -q "serving .* port [0-9]" "$tmp/serve.log" || fail "the server did not come up"
    port=$(sed -n 's/.*serving .* port \([0-9][0-9]*\) .*/\1/p' "$tmp/serve.log" | head -n 1)
    [ -n "$port" ] || fail "no port in $(cat "$tmp/serve.log")"
    url=http://127.0.0.1:$port
}
# stop: SIGTERM, and the server must exit 0.
stop() {
    kill -TERM "$pid"
    status=0
    wait "$pid" || status=$?
    pid=
    [ "$status" -eq 0 ] || fail "the server: $(exit_says "$status") after SIGTERM"
}
# prove NAME FILE OUT [CURL ARGS...]: POST FILE as a witness; prints the status code.
prove() {
    name=$1 file=$2 out=$3
    shift 3
    curl -sS --max-time 120 -o "$out" -w '%{http_code}' -H "$auth" \
        -H 'Content-Type: application/octet-stream' --data-binary "@$file" "$@" \
        "$url/prove/$name" || {
        s=$?
        echo "curl: exit $s; the server's log:" >&2
        tail -n 20 "$tmp/serve.log" >&2
        return $s
    }
}
# check_proof DIR OUT: the answer OUT verifies against DIR's key, and its public signals are
# DIR's.
check_proof() {
    jq -e '.proof' "$2" >"$2.proof.json" || fail "no proof in $(cat "$2")"
    jq -e '.public' "$2" >"$2.public.json" || fail "no public signals in $(cat "$2")"
    [ "$(jq -c . "$2.public.json")" = "$(jq -c . "$1/public.json")" ] ||
        fail "public signals $(cat "$2.public.json"), not $(cat "$1/public.json")"
    "$verify" "$1/verification_key.json" "$2.public.json" "$2.proof.json" >/dev/null ||
        fail "zkpipe-verify refuses $(cat "$2")"
    if [ "$have_snarkjs" -eq 1 ]; then
        "$snarkjs" groth16 verify "$1/verification_key.json" "$2.public.json" "$2.proof.json" \
            >"$2.snarkjs" 2>&1 || fail "snarkjs refuses the proof: $(cat "$2.snarkjs")"
    fi
}

# 0. Refused at the start, with one line and nothing served: bad flags (exit 2), a file that is
# not a zkey, a token file others may read (exit 1 or 2).
refused() { # EXIT ARGS...
    want=$1
    shift
    status=0
    "$bin" --listen 127.0.0.1:0 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || status=$?
    [ "$status" -eq "$want" ] || fail "$*: $(exit_says "$status"), not $want"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^zkpipe-serve: ' "$tmp/err" ||
        fail "$*: not one line: $(cat "$tmp/err")"
}
refused 2 --circuit "a=$bn/multiplier/circuit.zkey" --no-such-flag 1
refused 2 --circuit "a/b=$bn/multiplier/circuit.zkey"
refused 2 --circuit "a=$bn/multiplier/circuit.zkey" --witness-cmd "a=cat"
refused 2 --circuit "a=$bn/multiplier/circuit.zkey" --witness-cmd "b=x {input} {wtns}"
refused 1 --circuit "a=$bn/multiplier/witness.wtns"
cp "$tmp/token" "$tmp/open-token"
chmod 644 "$tmp/open-token"
refused 2 --circuit "a=$bn/multiplier/circuit.zkey" --token-file "$tmp/open-token"

# 1. Proofs of both curves, the refusals.
start --circuit mul-bn=$bn/multiplier/circuit.zkey --circuit mul-bls=$bls/multiplier/circuit.zkey \
    --circuit range-bn=$bn/rangesum/circuit.zkey --request-timeout-ms 3000 --queue-ms 60000 \
    --metrics-listen 127.0.0.1:0
mport=$(sed -n 's/.*metrics on .* port \([0-9][0-9]*\)$/\1/p' "$tmp/serve.log")
[ -n "$mport" ] || fail "no metrics port in $(cat "$tmp/serve.log")"
for c in mul-bn:$bn/multiplier mul-bls:$bls/multiplier range-bn:$bn/rangesum; do
    code=$(prove "${c%%:*}" "${c#*:}/witness.wtns" "$tmp/a.json")
    [ "$code" = 200 ] || fail "${c%%:*}: $code $(cat "$tmp/a.json")"
    check_proof "${c#*:}" "$tmp/a.json"
done
# A bad witness: one private value off by one bit (values start at byte 76).
perl -e 'open(my $f, "<:raw", $ARGV[0]) or die; local $/; my $w = <$f>;
    substr($w, 76 + 32 * 5, 1) = chr(ord(substr($w, 76 + 32 * 5, 1)) ^ 1);
    open(my $g, ">:raw", $ARGV[1]) or die; print $g $w;' "$bn/multiplier/witness.wtns" "$tmp/bad.wtns"
code=$(prove mul-bn "$tmp/bad.wtns" "$tmp/a.json")
[ "$code" = 422 ] || fail "a bad witness: $code $(cat "$tmp/a.json")"
[ "$(jq -r .error "$tmp/a.json")" = ZKPIPE_EUNSATISFIED ] || fail "bad witness: $(cat "$tmp/a.json")"
# Another circuit's witness: of the same size on the other curve, and of another size.
code=$(prove mul-bn "$bls/multiplier/witness.wtns" "$tmp/a.json")
[ "$code" = 422 ] || fail "the other curve's witness: $code $(cat "$tmp/a.json")"
[ "$(jq -r .error "$tmp/a.json")" = ZKPIPE_EMISMATCH ] || fail "other curve: $(cat "$tmp/a.json")"
# A value not below the field's order: the witness reader's refusal.
perl -e 'open(my $f, "<:raw", $ARGV[0]) or die; local $/; my $w = <$f>;
    substr($w, 76 + 32 * 2, 32) = "\xff" x 32;
    open(my $g, ">:raw", $ARGV[1]) or die; print $g $w;' "$bn/multiplier/witness.wtns" "$tmp/nc.wtns"
code=$(prove mul-bn "$tmp/nc.wtns" "$tmp/a.json")
[ "$code" = 422 ] || fail "a value past the field's order: $code $(cat "$tmp/a.json")"
[ "$(jq -r .error "$tmp/a.json")" = ZKPIPE_ENONCANONICAL ] || fail "$(cat "$tmp/a.json")"
code=$(prove mul-bn "$bn/factors/witness.wtns" "$tmp/a.json")
[ "$code" = 422 ] || fail "another circuit's witness: $code $(cat "$tmp/a.json")"
jq -e '.detail | test("bytes")' "$tmp/a.json" >/dev/null || fail "no size said: $(cat "$tmp/a.json")"
# No token, a wrong one; an unknown circuit (no path from it reaches the file system).
code=$(curl -sS -o "$tmp/a.json" -w '%{http_code}' --data-binary "@$bn/multiplier/witness.wtns" \
    "$url/prove/mul-bn")
[ "$code" = 401 ] || fail "no token: $code"
code=$(curl -sS -o "$tmp/a.json" -w '%{http_code}' -H "Authorization: Bearer s3cret-tokeN" \
    --data-binary "@$bn/multiplier/witness.wtns" "$url/prove/mul-bn")
[ "$code" = 401 ] || fail "a wrong token: $code"
for name in ../../etc/passwd %2e%2e%2fmul-bn mul-bn/ nope; do
    code=$(prove "$name" "$bn/multiplier/witness.wtns" "$tmp/a.json")
    [ "$code" = 404 ] || fail "circuit $name: $code"
done
# Too large: over the largest witness (rangesum's), refused before the body is read.
head -c 40000 /dev/zero >"$tmp/big.wtns"
code=$(prove range-bn "$tmp/big.wtns" "$tmp/a.json")
[ "$code" = 413 ] || fail "a body too large: $code"
# A body that trickles in (100 bytes a second) is cut off at the request deadline (3 s), not
# held open.
status=0
prove range-bn "$bn/rangesum/witness.wtns" "$tmp/a.json" --limit-rate 100 >"$tmp/code" 2>/dev/null ||
    status=$?
[ "$status" -ne 0 ] && [ "$status" -ne 28 ] || fail "a trickled body: curl $status $(cat "$tmp/code")"
code=$(curl -sS -o /dev/null -w '%{http_code}' "$url/healthz")
[ "$code" = 200 ] || fail "/healthz without a token: $code"
curl -sS -H "$auth" "$url/metrics" >"$tmp/metrics" || fail "/metrics"
grep -q '^zkpipe_serve_requests_total{circuit="mul-bn",code="422"} 4' "$tmp/metrics" ||
    fail "no count of the 422s: $(grep serve_requests "$tmp/metrics")"
grep -q '^zkpipe_serve_request_seconds_count{circuit="mul-bls",code="200"} 1' "$tmp/metrics" ||
    fail "no latency histogram"
grep -q '^zkpipe_partitions_total{result="proved"} 3' "$tmp/metrics" || fail "engine series"
curl -sS -H "$auth" "$url/status" | jq -e '.serve.circuits[0].answers."200" == 1' >/dev/null ||
    fail "/status"
# The metrics port serves the same series, with the same token, and proves nothing.
curl -sS -H "$auth" "http://127.0.0.1:$mport/metrics" >"$tmp/metrics2" || fail "--metrics-listen"
grep -q '^zkpipe_serve_requests_total' "$tmp/metrics2" || fail "--metrics-listen: no series"
code=$(curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$mport/metrics")
[ "$code" = 401 ] || fail "--metrics-listen without the token: $code"
code=$(curl -sS -o /dev/null -w '%{http_code}' -H "$auth" --data-binary "@$bn/multiplier/witness.wtns" \
    "http://127.0.0.1:$mport/prove/mul-bn")
[ "$code" = 405 ] || fail "a proof asked of --metrics-listen: $code"
stop

# 2. 50 concurrent requests under a budget for few at once: each ends 200 or 429, never an error
# or a hang, and the accounted peak stays within the budget.
start --circuit range=$bn/rangesum/circuit.zkey --budget-mib 3 --queue-ms 200 --max-per-address 0 \
    --synth-workers 2 \
    --prover-workers 1 --prover-threads 1
i=0
while [ $i -lt 50 ]; do
    (prove range "$bn/rangesum/witness.wtns" "$tmp/c$i.json" -D "$tmp/c$i.hdr" >"$tmp/c$i.code" \
        2>"$tmp/c$i.err" ||
        echo "curl $?" >>"$tmp/c$i.code") &
    i=$((i + 1))
done
wait_all() { i=0; while [ $i -lt 50 ]; do [ -s "$tmp/c$i.code" ] || return 1; i=$((i + 1)); done; }
wait_for 240 wait_all || fail "not every request was answered"
ok=0 busy=0 i=0
while [ $i -lt 50 ]; do
    case $(cat "$tmp/c$i.code") in
    200) ok=$((ok + 1)); [ $ok -gt 2 ] || check_proof "$bn/rangesum" "$tmp/c$i.json" ;;
    429)
        busy=$((busy + 1))
        grep -qi '^Retry-After: [1-9]' "$tmp/c$i.hdr" || fail "a 429 without Retry-After"
        ;;
    *) fail "request $i: $(cat "$tmp/c$i.code") $(cat "$tmp/c$i.json" "$tmp/c$i.err" 2>/dev/null)" ;;
    esac
    i=$((i + 1))
done
[ "$ok" -ge 1 ] || fail "no request of 50 was proved"
echo "50 concurrent: $ok proved, $busy refused (429)"
curl -sS -H "$auth" "$url/metrics" >"$tmp/metrics"
peak=$(sed -n 's/^zkpipe_inflight_peak_bytes \([0-9]*\)$/\1/p' "$tmp/metrics")
budget=$(sed -n 's/^zkpipe_budget_bytes \([0-9]*\)$/\1/p' "$tmp/metrics")
[ -n "$peak" ] && [ -n "$budget" ] || fail "no peak or budget in /metrics"
[ "$peak" -le "$budget" ] || fail "accounted peak $peak past the budget $budget"
echo "accounted peak $peak of a budget of $budget bytes"
stop

# 3. An input.json through --witness-cmd, and SIGTERM while it is in flight.
cat >"$tmp/gen.sh" <<GEN
#!/bin/sh
# A generator that waits for the test's word, then writes the fixture's witness.
[ -s "\$1" ] || exit 3
touch "$tmp/started"
while [ ! -e "$tmp/go" ]; do sleep 0.05; done
cp "$bn/multiplier/witness.wtns" "\$2"
GEN
cat >"$tmp/fail.sh" <<'GEN'
#!/bin/sh
echo "input rejected: a is not a number" >&2
exit 1
GEN
chmod +x "$tmp/gen.sh" "$tmp/fail.sh"
mkdir "$tmp/t"
export TMPDIR="$tmp/t"
start --circuit mul=$bn/multiplier/circuit.zkey --circuit bad=$bn/multiplier/circuit.zkey \
    --witness-cmd "mul=$tmp/gen.sh {input} {wtns}" --witness-cmd "bad=$tmp/fail.sh {input} {wtns}"
code=$(curl -sS -o "$tmp/f.json" -w '%{http_code}' -H "$auth" -H 'Content-Type: application/json' \
    --data-binary "@$bn/multiplier/input.json" "$url/prove/bad")
[ "$code" = 422 ] || fail "a failing generator: $code $(cat "$tmp/f.json")"
jq -e '.detail | test("a is not a number")' "$tmp/f.json" >/dev/null || fail "$(cat "$tmp/f.json")"
curl -sS -o "$tmp/j.json" -w '%{http_code}' -H "$auth" -H 'Content-Type: application/json' \
    --data-binary "@$bn/multiplier/input.json" "$url/prove/mul" >"$tmp/j.code" &
curl_pid=$!
wait_for 60 test -e "$tmp/started" || fail "the generator did not start"
kill -TERM "$pid"
wait_for 30 grep -q draining "$tmp/serve.log" || fail "no drain"
code=$(prove mul "$bn/multiplier/witness.wtns" "$tmp/n.json")
[ "$code" = 503 ] || fail "a request while draining: $code"
touch "$tmp/go"
wait "$curl_pid" || fail "the request in flight failed"
[ "$(cat "$tmp/j.code")" = 200 ] || fail "the request in flight: $(cat "$tmp/j.code") $(cat "$tmp/j.json")"
check_proof "$bn/multiplier" "$tmp/j.json"
status=0
wait "$pid" || status=$?
pid=
[ "$status" -eq 0 ] || fail "the drained server: $(exit_says "$status")"
grep -q stopped "$tmp/serve.log" || fail "no stop line"

# 4. input.json through the fixture circuits' own wasm generators under node (compiled here with
# the pinned circom2, as tests/interop/gen.sh makes the fixtures), on both curves; an input the
# generator refuses, and one that runs past its time limit, are 422.
circom2=$interop/node_modules/.bin/circom2
if command -v node >/dev/null 2>&1 && [ -x "$circom2" ]; then
    for curve in bn128 bls12381; do
        mkdir -p "$tmp/wasm-$curve"
        "$circom2" "$interop/circuits/multiplier.circom" --r1cs --wasm --prime "$curve" \
            -o "$tmp/wasm-$curve" >/dev/null 2>&1 || fail "circom2 cannot compile multiplier"
        cmp -s "$tmp/wasm-$curve/multiplier.r1cs" "$fixtures/$curve/multiplier/circuit.r1cs" ||
            fail "circom2 made another multiplier than the fixture's"
    done
    printf '#!/bin/sh\nexec sleep 600\n' >"$tmp/slow.sh"
    chmod +x "$tmp/slow.sh"
    js() { echo "node $tmp/wasm-$1/multiplier_js/generate_witness.js $tmp/wasm-$1/multiplier_js/multiplier.wasm {input} {wtns}"; }
    start --circuit bn=$bn/multiplier/circuit.zkey --circuit bls=$bls/multiplier/circuit.zkey \
        --witness-cmd "bn=$(js bn128)" --witness-cmd "bls=$(js bls12381)"
    for c in bn:$bn bls:$bls; do
        code=$(curl -sS -o "$tmp/w.json" -w '%{http_code}' -H "$auth" \
            -H 'Content-Type: application/json' --data-binary "@${c#*:}/multiplier/input.json" \
            "$url/prove/${c%%:*}")
        [ "$code" = 200 ] || fail "input.json on ${c%%:*}: $code $(cat "$tmp/w.json")"
        check_proof "${c#*:}/multiplier" "$tmp/w.json"
    done
    code=$(curl -sS -o "$tmp/w.json" -w '%{http_code}' -H "$auth" -H 'Content-Type: application/json' \
        --data-binary '{"nothing": 1}' "$url/prove/bn")
    [ "$code" = 422 ] || fail "an input the generator refuses: $code $(cat "$tmp/w.json")"
    stop
    start --circuit slow=$bn/multiplier/circuit.zkey --witness-timeout-ms 500 \
        --witness-cmd "slow=$tmp/slow.sh {input} {wtns}"
    code=$(curl -sS -o "$tmp/w.json" -w '%{http_code}' -H "$auth" -H 'Content-Type: application/json' \
        --data-binary "@$bn/multiplier/input.json" "$url/prove/slow")
    [ "$code" = 422 ] || fail "a generator past its time limit: $code $(cat "$tmp/w.json")"
    jq -e '.detail | test("time limit")' "$tmp/w.json" >/dev/null || fail "$(cat "$tmp/w.json")"
    stop
else
    skip_checks "the wasm generators (node or tests/interop/node_modules missing)"
fi
# Each generator's private folder is gone.
[ -z "$(ls -A "$tmp/t")" ] || fail "left behind: $(ls -A "$tmp/t")"
skips_done
