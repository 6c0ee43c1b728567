#!/bin/sh
# Keys under the budget through zkpipe-pipeline ($1), checked with zkpipe-verify ($2): two zkeys
# (the interop fixtures' rangesum of both curves, each witness with the --zkey before it) under
# a budget that holds one of them with a partition but never both: the idle one is released
# (unmapped) for each witness of the other and opened again for its next witness, every proof
# verifies, the JSON and --metrics show the loads and releases, and nothing is live at exit.
# With a budget that holds both, nothing is released.
set -eu
[ $# -eq 2 ] || { echo "usage: test_example_keys.sh ZKPIPE_PIPELINE ZKPIPE_VERIFY" >&2; exit 2; }
bin=$1 verify=$2
fixtures=$(cd "$(dirname "$0")/interop/fixtures" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$(dirname "$0")/support/exits.sh" # expect_refusal
field() {
    v=$(printf '%s\n' "$2" | sed -n "s/.*\"$1\":\([0-9][0-9]*\).*/\1/p")
    [ -n "$v" ] || fail "no numeric \"$1\" in: $2"
    echo "$v"
}
a=$fixtures/bn128/rangesum
b=$fixtures/bls12381/rangesum
# The fixtures are committed: without them the checkout is broken, which fails.
[ -f "$a/circuit.zkey" ] && [ -f "$b/circuit.zkey" ] || fail "no rangesum fixtures in $fixtures"
# 2 MiB: one zkey (their files and aligned copies: 0.53 and 0.75 MB) and a partition (1.04 and
# 0.84 MB with one prover thread, most of it the MSMs' window-group buckets) fit, both zkeys never
# do (1.28 MB with either partition: 2.12 MB at least).
mkdir -p "$tmp/in"
for i in 1 2 3; do
    cp "$a/witness.wtns" "$tmp/in/a$i.wtns"
    cp "$b/witness.wtns" "$tmp/in/b$i.wtns"
done
run() { # budget-mib idle-ms out
    mkdir -p "$3"
    "$bin" --budget-mib "$1" --key-idle-ms "$2" --synth-workers 1 --permits 1 --capacity 1 \
        --prover-workers 1 --prover-threads 1 --report-ms 0 --json --out "$3" \
        --metrics "$3/metrics.prom" \
        --zkey "$a/circuit.zkey" "$tmp/in/a1.wtns" --zkey "$b/circuit.zkey" "$tmp/in/b1.wtns" \
        --zkey "$a/circuit.zkey" "$tmp/in/a2.wtns" --zkey "$b/circuit.zkey" "$tmp/in/b2.wtns" \
        --zkey "$a/circuit.zkey" "$tmp/in/a3.wtns" --zkey "$b/circuit.zkey" "$tmp/in/b3.wtns" \
        >"$3/stdout" 2>"$3/stderr" || fail "budget $1 MiB: $(exit_says $?): $(cat "$3/stderr")"
    json=$(tail -n 1 "$3/stdout")
    [ "$(field proofs_verified "$json")" -eq 6 ] || fail "budget $1 MiB: $json"
    [ "$(field errors "$json")" -eq 0 ] || fail "budget $1 MiB: $json"
    [ "$(field live_bytes_at_exit "$json")" -eq 0 ] || fail "budget $1 MiB: $json"
    [ "$(field zkeys "$json")" -eq 6 ] || fail "budget $1 MiB: $json"
    [ "$(field key_budget_bytes "$json")" -le $(($1 * 1048576)) ] || fail "budget $1 MiB: $json"
    [ "$(field key_resident_bytes "$json")" -le "$(field key_budget_bytes "$json")" ] ||
        fail "budget $1 MiB: more resident than charged: $json"
    for w in a1 a2 a3; do
        "$verify" "$a/verification_key.json" "$3/$w.public.json" "$3/$w.proof.json" \
            >/dev/null || fail "budget $1 MiB: $w's proof does not verify"
    done
    for w in b1 b2 b3; do
        "$verify" "$b/verification_key.json" "$3/$w.public.json" "$3/$w.proof.json" \
            >/dev/null || fail "budget $1 MiB: $w's proof does not verify"
    done
    for s in zkpipe_keys_resident zkpipe_key_resident_bytes zkpipe_key_budget_bytes \
        zkpipe_key_loads_total zkpipe_key_releases_total; do
        grep -q "^$s " "$3/metrics.prom" || fail "budget $1 MiB: no $s in --metrics"
    done
    grep -q '^zkpipe_stage_items{stage="keys"}' "$3/metrics.prom" ||
        fail "budget $1 MiB: no stage \"keys\" in --metrics"
    grep "^keys:" "$3/stdout"
    echo "$json"
}
# One zkey at a time: each witness releases the zkey the one before used.
json=$(run 2 0 "$tmp/tight")
releases=$(field key_releases "$json")
loads=$(field key_loads "$json")
[ "$releases" -ge 5 ] || fail "2 MiB: $releases releases, expected one per witness after the first: $json"
[ "$loads" -ge 6 ] || fail "2 MiB: $loads loads: $json"
metric_releases=$(sed -n 's/^zkpipe_key_releases_total \([0-9]*\).*/\1/p' "$tmp/tight/metrics.prom")
[ "$metric_releases" -eq "$releases" ] || fail "--metrics says $metric_releases releases, --json $releases"
echo "2 MiB: $loads loads, $releases releases"
# A key idle for 200 ms at least: the same releases, later.
json=$(run 2 200 "$tmp/idle")
[ "$(field key_releases "$json")" -ge 5 ] || fail "2 MiB, idle 200 ms: $json"
# Room for every zkey: none released.
json=$(run 16 0 "$tmp/roomy")
[ "$(field key_releases "$json")" -eq 0 ] || fail "16 MiB: keys released: $json"
[ "$(field keys_resident "$json")" -eq 6 ] || fail "16 MiB: $json"
echo "16 MiB: no releases"
# --key-idle-ms needs --zkey or --queue.
status=0
"$bin" --key-idle-ms 5 >/dev/null 2>&1 || status=$?
expect_refusal "--key-idle-ms without --zkey" "$status" 2
echo "ok"
