#!/bin/sh
# Runs zkpipe-buffer-pipeline ($1) with both release policies and checks its JSON line: with
# release on delivery the items in flight never exceed permits + capacity and nothing is live
# at exit; releasing early (before the send) with a slow consumer must exceed that bound.
set -eu
bin=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$(dirname "$0")/support/exits.sh" # a sanitizer report exits 66, not 1

# field NAME JSON: the numeric value of "NAME" in a flat JSON object.
field() {
    v=$(printf '%s\n' "$2" | sed -n "s/.*\"$1\":\([0-9][0-9]*\).*/\1/p")
    [ -n "$v" ] || fail "no numeric \"$1\" in: $2"
    echo "$v"
}

run() { # run MODE CONSUMER_MS: prints the last stdout line of a small run
    out=$("$bin" --producers 4 --permits 2 --capacity 2 --items 16 --buf-mib 1 \
        --consumer-ms "$2" --report-ms 50 --json "--release=$1" 2>/dev/null) ||
        fail "--release=$1 exited with $?"
    printf '%s\n' "$out" | tail -n 1
}

# Early release exceeds the bound when producers fill buffers faster than the consumer takes
# them; on a machine loaded many times over a producer can get less than one 50 ms wait, so
# the consumer slows (50, 200, 800 ms) until a run exceeds it. Every run is checked in full.
for run_of in delivery:50 early:50 early:200 early:800; do
    mode=${run_of%%:*} ms=${run_of#*:}
    if [ "$mode" = early ] && [ "${exceeded:-0}" -eq 1 ]; then
        break
    fi
    json=$(run "$mode" "$ms")
    echo "$json"
    case $json in *"\"release\":\"$mode\""*) ;; *) fail "release is not $mode: $json" ;; esac
    [ "$(field items "$json")" -eq 16 ] || fail "$mode: not all items were received"
    [ "$(field live_items_at_exit "$json")" -eq 0 ] || fail "$mode: items live at exit"
    [ "$(field live_bytes_at_exit "$json")" -eq 0 ] || fail "$mode: bytes live at exit"
    [ "$(field peak_rss_bytes "$json")" -gt 0 ] || fail "$mode: no peak RSS"
    bound=$(field bound "$json")
    peak=$(field peak_in_flight "$json")
    [ "$bound" -eq 4 ] || fail "bound is $bound, not permits + capacity = 4"
    if [ "$mode" = delivery ]; then
        [ "$peak" -le "$bound" ] || fail "delivery: peak_in_flight $peak > bound $bound"
        # In flight plus the one buffer the single consumer holds, 1 MiB each.
        [ "$(field peak_accounted_bytes "$json")" -le $(((bound + 1) * 1048576)) ] ||
            fail "delivery: more bytes accounted than the bound allows"
    elif [ "$peak" -gt "$bound" ]; then
        exceeded=1
    fi
done
[ "${exceeded:-0}" -eq 1 ] ||
    fail "early: peak_in_flight $peak did not exceed $bound with an 800 ms consumer"

# Flags: --help succeeds, anything malformed prints usage on stderr and exits 2.
help=$("$bin" --help) || fail "--help: exit $?"
printf '%s\n' "$help" | grep -q '^usage:' || fail "--help prints no usage"
for bad in --bogus "--items 0" "--items x" --release=sometimes "--buf-mib" "--permits=-1"; do
    # shellcheck disable=SC2086 # split on purpose: some cases are a flag and its value
    if "$bin" $bad >/dev/null 2>"${TMPDIR:-/tmp}/zkpipe-usage.$$"; then
        fail "'$bad' was accepted"
    else
        rc=$?
    fi
    [ "$rc" -eq 2 ] || fail "'$bad' exited with $rc, not 2"
    grep -q '^usage:' "${TMPDIR:-/tmp}/zkpipe-usage.$$" || fail "'$bad' printed no usage on stderr"
done
rm -f "${TMPDIR:-/tmp}/zkpipe-usage.$$"
echo "PASS"
