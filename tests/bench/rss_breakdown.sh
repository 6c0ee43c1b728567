#!/bin/sh
# Where a process's peak resident set lies (not run by ctest):
#   tests/bench/rss_breakdown.sh INTERVAL_S COMMAND...
# Runs COMMAND and samples its /proc/PID/status every INTERVAL_S seconds (e.g. 0.01): at the
# sample of the highest VmRSS, prints VmRSS and its parts, RssAnon (heap, anonymous mappings:
# a, b, c, h, MSM scratch, copies), RssFile (mapped file pages: the zkey's, the witnesses') and
# RssShmem, with the seconds since the start; then COMMAND's exit status. Sampling misses
# peaks shorter than INTERVAL_S: GNU time's %M is the exact peak, this says what it was made of.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 INTERVAL_S COMMAND..." >&2
    exit 2
fi
interval=$1
shift
"$@" &
pid=$!
t0=$(date +%s.%N)
best="0 0 0 0 0"
while kill -0 "$pid" 2>/dev/null; do
    s=$(awk '/^VmRSS:/ {r = $2} /^RssAnon:/ {a = $2} /^RssFile:/ {f = $2} /^RssShmem:/ {m = $2}
        END {if (r != "") print r, a, f, m}' "/proc/$pid/status" 2>/dev/null || true)
    if [ -n "$s" ]; then
        set -- $s
        if [ "$1" -gt "${best%% *}" ]; then
            best="$1 $2 $3 $4 $(echo "$(date +%s.%N) $t0" | awk '{printf "%.2f", $1 - $2}')"
        fi
    fi
    sleep "$interval"
done
rc=0
wait "$pid" || rc=$?
echo "$best" | awk '{printf "peak sampled: VmRSS %d KiB = RssAnon %d + RssFile %d + RssShmem %d, at %s s\n", $1, $2, $3, $4, $5}'
echo "exit status $rc"
exit "$rc"
