#!/bin/sh
# Runs zkpipe-pipeline ($1) small on both curves and checks its JSON line: every partition
# proved and verified, the waist within permits + capacity, nothing live at exit, the trace
# valid JSON (python3) and the metrics valid Prometheus text (promtool), where those tools
# exist (without one, the rest runs and the test exits 77: skipped); then a byte budget, release
# early, and the flag errors.
set -eu
bin=$1
tmp=${TMPDIR:-/tmp}/zkpipe-engine-test.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$(dirname "$0")/support/exits.sh" # skip_checks, skips_done

# field NAME JSON: the numeric value of "NAME" in a flat JSON object.
field() {
    v=$(printf '%s\n' "$2" | sed -n "s/.*\"$1\":\([0-9][0-9]*\).*/\1/p")
    [ -n "$v" ] || fail "no numeric \"$1\" in: $2"
    echo "$v"
}

run() { # run ARGS...: the last stdout line of a small run
    out=$("$bin" --jobs 2 --partitions 3 --log-constraints 6 --report-ms 20 --json "$@") ||
        fail "$* exited with $?"
    printf '%s\n' "$out" | tail -n 1
}

check() { # check JSON: every proof verified, nothing left
    [ "$(field partitions "$1")" -eq 6 ] || fail "not 6 partitions: $1"
    [ "$(field proofs_verified "$1")" -eq 6 ] || fail "not every proof verified: $1"
    [ "$(field errors "$1")" -eq 0 ] || fail "errors: $1"
    [ "$(field live_bytes_at_exit "$1")" -eq 0 ] || fail "bytes live at exit: $1"
    [ "$(field peak_rss_bytes "$1")" -gt 0 ] || fail "no peak RSS: $1"
    [ "$(field peak_accounted_bytes "$1")" -gt 0 ] || fail "nothing accounted: $1"
}

json=$(run --curve all --synth-workers 3 --permits 1 --capacity 2 --prover-workers 2 \
    --backend cpu --trace "$tmp/trace.json" --metrics "$tmp/metrics.txt")
echo "$json"
check "$json"
[ "$(field bound "$json")" -eq 3 ] || fail "bound is not permits + capacity = 3"
[ "$(field resident_bound "$json")" -eq 5 ] ||
    fail "resident bound is not permits + capacity + prover workers = 5"
[ "$(field peak_in_flight "$json")" -le 3 ] || fail "delivery: the waist exceeded its bound"
grep -q '"ph":"X"' "$tmp/trace.json" || fail "no spans in the trace"
grep -q '"name":"live bytes","ph":"C"' "$tmp/trace.json" || fail "no counters in the trace"
if command -v python3 >/dev/null 2>&1; then
    python3 -m json.tool "$tmp/trace.json" >/dev/null || fail "the trace is not valid JSON"
else
    skip_checks "the trace's JSON check (no python3)"
fi
grep -q '^zkpipe_inflight_bytes 0$' "$tmp/metrics.txt" || fail "metrics: bytes in flight"
# The engine's series, without --listen: what /metrics would serve at the end.
grep -q '^zkpipe_partitions_total{result="failed"} 0$' "$tmp/metrics.txt" ||
    fail "metrics: no engine series"
grep -q '^zkpipe_partition_prove_seconds_count [1-9]' "$tmp/metrics.txt" ||
    fail "metrics: no prove histogram"
if command -v promtool >/dev/null 2>&1; then
    promtool check metrics <"$tmp/metrics.txt" || fail "promtool rejects the metrics"
else
    skip_checks "promtool's check of the metrics (no promtool)"
fi

# A 2^12-row partition holds about 1.2 MiB at its peak (the MSMs' split scalars and endomorphism
# images included): a 2 MiB budget admits one at a time.
json=$(run --curve bn254 --log-constraints 12 --budget-mib 2 --synth-workers 2)
check "$json"
[ "$(field peak_accounted_bytes "$json")" -le 2097152 ] || fail "budget exceeded: $json"

# Auto concurrency with real proofs: the permits the engine ended on, within 1..3; the waist
# within synth_workers + capacity; the budget (two partitions) respected.
json=$(run --curve bn254 --log-constraints 12 --budget-mib 3 --synth-workers 3 --capacity 1 \
    --auto)
check "$json"
case $json in *'"concurrency":"auto"'*) ;; *) fail "concurrency is not auto: $json" ;; esac
p=$(field permits_final "$json")
[ "$p" -ge 1 ] && [ "$p" -le 3 ] || fail "auto: permits_final $p outside 1..3"
[ "$(field peak_in_flight "$json")" -le 4 ] || fail "auto: the waist exceeded its bound"
[ "$(field peak_accounted_bytes "$json")" -le 3145728 ] || fail "auto: budget exceeded: $json"
field unaccounted_peak_bytes "$json" >/dev/null

# Release early: still every proof (the bound itself is test_engine's to break reliably).
json=$(run --curve bls12-381 --release early --synth-workers 4 --permits 1 --capacity 1)
check "$json"
case $json in *'"release":"early"'*) ;; *) fail "release is not early: $json" ;; esac

# Throughput counts proofs: every partition failing (2^14 rows, about 2.8 MiB each, against a
# 1 MiB budget: ETOOBIG at once) makes it 0, and otherwise it is proofs over time.
status=0
out=$("$bin" --jobs 2 --partitions 3 --log-constraints 14 --budget-mib 1 --curve bn254 \
    --report-ms 0 --json 2>"$tmp/errors") || status=$?
[ "$status" -eq 1 ] || fail "every partition failing: exit $status"
json=$(printf '%s\n' "$out" | tail -n 1)
[ "$(field proofs_verified "$json")" -eq 0 ] || fail "failing partitions verified: $json"
[ "$(field errors "$json")" -eq 6 ] || fail "not 6 errors: $json"
case $json in *'"throughput_per_s":0.000}'*) ;; *) fail "throughput of failures: $json" ;; esac
json=$(run --curve bn254)
check "$json"
printf '%s\n' "$json" | awk '{
    v = $0; sub(/.*"proofs_verified":/, "", v); v += 0
    t = $0; sub(/.*"elapsed_s":/, "", t); t += 0
    r = $0; sub(/.*"throughput_per_s":/, "", r); r += 0
    if (t <= 0 || r < 0.99 * v / t || r > 1.01 * v / t) exit 1
}' || fail "throughput is not proofs over time: $json"

help=$("$bin" --help) || fail "--help: exit $?"
printf '%s\n' "$help" | grep -q '^usage:' || fail "--help prints no usage"
printf '%s\n' "$help" | grep -q -- '^  --auto  *the engine adjusts the permits' ||
    fail "--help: no --auto"
for bad in --bogus "--jobs 0" "--jobs x" "--release sometimes" "--curve p256" \
    "--log-constraints 3" "--backend gpu" "--permits=-1" "--trace" extra "--auto=1" \
    "--permits 1048577" "--synth-workers 0" "--synth-workers 257"; do
    # shellcheck disable=SC2086 # split on purpose: some cases are a flag and its value
    if "$bin" $bad >/dev/null 2>"$tmp/usage"; then
        fail "'$bad' was accepted"
    else
        rc=$?
    fi
    [ "$rc" -eq 2 ] || fail "'$bad' exited with $rc, not 2"
    grep -q '^usage:' "$tmp/usage" || fail "'$bad' printed no usage on stderr"
done
skips_done
echo "PASS"
