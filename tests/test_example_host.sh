#!/bin/sh
# Runs zkpipe-host-pipeline ($1), a host's own stage operations through the engine, and checks
# its JSON line: every result checked, nothing live at exit; with delivery the waist within
# permits + capacity, with early release and slow proving beyond it; a byte budget respected;
# auto concurrency within its bounds; the flag errors.
set -eu
bin=$1
tmp=${TMPDIR:-/tmp}/zkpipe-host-test.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$(dirname "$0")/support/exits.sh" # skip_checks, skips_done

field() {
    v=$(printf '%s\n' "$2" | sed -n "s/.*\"$1\":\([0-9][0-9]*\).*/\1/p")
    [ -n "$v" ] || fail "no numeric \"$1\" in: $2"
    echo "$v"
}

run() { # run ARGS...: the last stdout line
    out=$("$bin" --json "$@") || fail "$* exited with $?"
    printf '%s\n' "$out" | tail -n 1
}

check() { # check JSON N: N results checked, nothing left
    [ "$(field partitions "$1")" -eq "$2" ] || fail "not $2 partitions: $1"
    [ "$(field proofs_verified "$1")" -eq "$2" ] || fail "not every result checked: $1"
    [ "$(field errors "$1")" -eq 0 ] || fail "errors: $1"
    [ "$(field live_bytes_at_exit "$1")" -eq 0 ] || fail "bytes live at exit: $1"
    [ "$(field peak_accounted_bytes "$1")" -gt 0 ] || fail "nothing accounted: $1"
}

# Slow proving: the waist fills. Delivery holds permits + capacity.
json=$(run --partitions 12 --abc-mib 2 --aux-mib 1 --synth-ms 1 --prove-ms 30 \
    --synth-workers 4 --permits 1 --capacity 1 --metrics "$tmp/metrics.txt")
echo "$json"
check "$json" 12
[ "$(field bound "$json")" -eq 2 ] || fail "bound is not permits + capacity = 2"
[ "$(field resident_bound "$json")" -eq 3 ] || fail "resident bound is not 3"
[ "$(field peak_in_flight "$json")" -le 2 ] || fail "delivery: the waist exceeded its bound"
grep -q 'kind="host_state"' "$tmp/metrics.txt" || fail "the host's own kind is not exported"
grep -q '^zkpipe_partitions_total{result="proved"} 12$' "$tmp/metrics.txt" ||
    fail "the engine's series are not in --metrics"
if command -v promtool >/dev/null 2>&1; then
    promtool check metrics <"$tmp/metrics.txt" || fail "promtool rejects the metrics"
else
    skip_checks "promtool's check of the metrics (no promtool)"
fi

# Early release: synthesized partitions pile up in front of the channel. A pile-up needs two
# syntheses (1 ms of sleep and 3 MiB of fresh pages each) to be scheduled while one proof
# sleeps. On a machine loaded many times over a synthesis worker can get less than that, so the
# proof time grows until one run piles up; every run must still check all its results.
piled=0
for ms in 100 400 1600; do
    json=$(run --partitions 12 --abc-mib 2 --aux-mib 1 --synth-ms 1 --prove-ms "$ms" \
        --synth-workers 4 --permits 1 --capacity 1 --release early)
    echo "$json"
    check "$json" 12
    if [ "$(field peak_in_flight "$json")" -gt 2 ]; then
        piled=1
        break
    fi
done
[ "$piled" -eq 1 ] || fail "early: the waist stayed within its bound with proofs of 1.6 s"

# A budget of two partitions' estimates: the accounted bytes stay within it.
one=$(((2 + 1) * 1048576 + 4096))
json=$(run --partitions 8 --abc-mib 2 --aux-mib 1 --synth-ms 2 --prove-ms 5 \
    --synth-workers 3 --permits 4 --capacity 4 --prover-workers 2 --budget-mib 7)
check "$json" 8
[ "$(field peak_accounted_bytes "$json")" -le $((7 * 1048576)) ] || fail "budget exceeded: $json"
[ "$(field peak_accounted_bytes "$json")" -ge "$one" ] || fail "less than one partition: $json"

# An estimate of 4 MiB for partitions of 10 MiB (and the host state): each charge beyond a
# reservation takes its bytes from the budget first, so the accounted bytes exceed the budget
# by one partition's shortfall at most (by the largest overdraft, which the engine reports).
short=$(((10 - 4) * 1048576 + 4096))
json=$(run --partitions 16 --abc-mib 6 --aux-mib 4 --synth-ms 2 --prove-ms 5 \
    --synth-workers 4 --permits 4 --capacity 2 --budget-mib 32 --estimate-mib 4)
echo "$json"
check "$json" 16
peak=$(field peak_accounted_bytes "$json")
[ "$peak" -le $((32 * 1048576 + short)) ] || fail "more than one shortfall over: $json"
[ "$peak" -le $((32 * 1048576 + $(field budget_overdraft_peak_bytes "$json"))) ] ||
    fail "over the budget by more than the largest overdraft: $json"
field budget_growth_waits "$json" >/dev/null
field budget_admission_waits "$json" >/dev/null

# Auto concurrency: the engine chooses the permits within the synthesis workers, the waist
# stays within synth_workers + capacity, the budget holds; without a budget it takes one.
json=$(run --partitions 12 --abc-mib 2 --aux-mib 1 --synth-ms 1 --prove-ms 20 \
    --synth-workers 4 --capacity 1 --budget-mib 16 --auto)
echo "$json"
check "$json" 12
printf '%s\n' "$json" | grep -q '"concurrency":"auto"' || fail "not auto: $json"
[ "$(field bound "$json")" -eq 5 ] || fail "auto: bound is not synth_workers + capacity = 5"
[ "$(field peak_in_flight "$json")" -le 5 ] || fail "auto: the waist exceeded its bound"
p=$(field permits_final "$json")
[ "$p" -ge 1 ] && [ "$p" -le 4 ] || fail "auto: permits_final $p outside 1..4"
[ "$(field peak_accounted_bytes "$json")" -le $((16 * 1048576)) ] || fail "budget exceeded: $json"
field unaccounted_peak_bytes "$json" >/dev/null
json=$(run --partitions 2 --abc-mib 1 --aux-mib 1 --synth-ms 1 --prove-ms 1 --auto)
check "$json" 2
[ "$(field budget_bytes "$json")" -gt 0 ] || fail "auto without a budget took none: $json"

# The admission flags are zkpipe-pipeline's (tools/cli/cli_engine.c): the same text and ranges.
json=$(run --partitions 2 --abc-mib 1 --aux-mib 1 --synth-ms 1 --prove-ms 1 --permits 300)
check "$json" 2
help=$("$bin" --help) || fail "--help: exit $?"
printf '%s\n' "$help" | grep -q '^usage:' || fail "--help prints no usage"
printf '%s\n' "$help" | grep -q -- '^  --auto  *the engine adjusts the permits' ||
    fail "--help: no --auto"
for bad in --bogus "--partitions 0" "--release sometimes" "--permits x" "--abc-mib -1" extra \
    "--auto=1" "--permits 0" "--permits 1048577" "--synth-workers 0" "--synth-workers 257"; do
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
