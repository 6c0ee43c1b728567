#!/bin/sh
# The field's pile-up at GiB scale: the same host pipeline (zkpipe-host-pipeline: partitions of
# real, filled buffers, proving slower than synthesis, more synthesis workers than the provers
# can absorb) run twice, each in its own process, with the permit released early (before the
# item is in the channel: the seed's bug) and at delivery (the design), under a memory cap.
#
#   tests/bench/bench_pileup.sh BUILD OUT_DIR [CAP_MIB] [PARTITION_MIB] [PARTITIONS]
#
# CAP_MIB (default 6144) is enforced from outside the way the kernel's OOM killer would: the
# script samples the process's resident set every 100 ms and kills it (SIGKILL) once above the
# cap, since a cgroup memory limit needs a cgroup v2 memory controller (or root on v1) that a
# shared machine may not offer. Each partition holds PARTITION_MIB (default 1024: three
# quarters a/b/c, a quarter assignment). No byte budget is set: the partition permits and the
# channel are the only bound, as in the seed. With delivery the partitions in flight never
# exceed permits + capacity + prover workers; early has no such bound.
#
# Prints each run's peak resident set, whether the cap killed it, its exit status and, for a
# run that finished, its own JSON figures (every partition's result checked by the host). Writes
# to OUT_DIR: each run's resident samples (pileup-RELEASE.rss: seconds, MiB), the finished runs'
# own pictures (pileup-RELEASE.svg, --plot) and one picture of both runs' resident sets against
# the cap and the bound (pileup.svg). Not run by ctest: it takes a minute and up to CAP_MIB plus
# about one partition of memory.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 BUILD OUT_DIR [CAP_MIB] [PARTITION_MIB] [PARTITIONS]" >&2
    exit 2
fi
build=$1
out=$2
cap=${3:-6144}
part=${4:-1024}
parts=${5:-10}
bin=$build/tools/zkpipe-host-pipeline
[ -x "$bin" ] || { echo "$0: no zkpipe-host-pipeline under $build" >&2; exit 2; }
mkdir -p "$out"
abc=$((part * 3 / 4))
aux=$((part - abc))
permits=2
capacity=1
provers=1
synth=8
bound=$((permits + capacity + provers))
common="--partitions $parts --abc-mib $abc --aux-mib $aux --synth-ms 0 --prove-ms 15000
        --synth-workers $synth --permits $permits --capacity $capacity
        --prover-workers $provers --json"

echo "partitions: $parts of $part MiB; synthesis workers $synth, permits $permits, capacity" \
    "$capacity, prover workers $provers (bound: $bound partitions, $((bound * part)) MiB);" \
    "cap $cap MiB, no byte budget"
for release in early delivery; do
    rss=$out/pileup-$release.rss
    log=$out/pileup-$release.log
    : >"$rss"
    # shellcheck disable=SC2086 # $common is a list of words
    "$bin" $common --release "$release" --plot "$out/pileup-$release.svg" >"$log" 2>&1 &
    pid=$!
    start=$(date +%s.%N)
    killed=0
    peak=0
    while kill -0 "$pid" 2>/dev/null; do
        kib=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
        [ -n "$kib" ] || break
        mib=$((kib / 1024))
        [ "$mib" -gt "$peak" ] && peak=$mib
        echo "$(echo "$(date +%s.%N) - $start" | bc) $mib" >>"$rss"
        if [ "$mib" -gt "$cap" ]; then
            kill -KILL "$pid" 2>/dev/null || true
            killed=1
            break
        fi
        sleep 0.1
    done
    rc=0
    wait "$pid" || rc=$?
    if [ "$killed" = 1 ]; then
        echo "$release: killed at the cap ($peak MiB resident > $cap MiB), exit $rc"
        rm -f "$out/pileup-$release.svg"
    else
        echo "$release: finished, exit $rc, peak resident $peak MiB (sampled)"
        tail -n 1 "$log" | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
keys = ("partitions", "proofs_verified", "errors", "peak_in_flight", "bound",
        "peak_accounted_bytes", "peak_rss_bytes", "elapsed_s")
print("  " + ", ".join("%s %s" % (k, d[k]) for k in keys if k in d))'
    fi
done
python3 - "$out" "$cap" "$((bound * part))" <<'PY'
import sys
out, cap, bound = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
runs = {}
for rel in ("early", "delivery"):
    pts = []
    for line in open(f"{out}/pileup-{rel}.rss"):
        t, m = line.split()
        pts.append((float(t), int(m)))
    runs[rel] = pts
W, H, L, R, T, B = 720, 360, 70, 20, 40, 50
tmax = max(p[-1][0] for p in runs.values() if p) or 1
ymax = max([cap, bound] + [m for p in runs.values() for _, m in p]) * 1.1
x = lambda t: L + (W - L - R) * t / tmax
y = lambda m: H - B - (H - T - B) * m / ymax
s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
     f'<rect width="{W}" height="{H}" fill="white"/>',
     f'<text x="{L}" y="20" font-size="14">Resident set, release early vs at delivery (bound {bound} MiB)</text>']
for m in range(0, int(ymax) + 1, 1024):
    s.append(f'<line x1="{L}" x2="{W - R}" y1="{y(m):.1f}" y2="{y(m):.1f}" stroke="#eee"/>')
    s.append(f'<text x="{L - 6}" y="{y(m) + 4:.1f}" text-anchor="end">{m // 1024} GiB</text>')
for lvl, name, col in ((cap, "cap", "#c00"), (bound, "permits + capacity + provers", "#080")):
    s.append(f'<line x1="{L}" x2="{W - R}" y1="{y(lvl):.1f}" y2="{y(lvl):.1f}" stroke="{col}" stroke-dasharray="6 4"/>')
    s.append(f'<text x="{W - R - 4}" y="{y(lvl) - 4:.1f}" text-anchor="end" fill="{col}">{name}</text>')
for rel, col in (("early", "#d60"), ("delivery", "#06c")):
    p = runs[rel]
    if p:
        s.append(f'<polyline fill="none" stroke="{col}" stroke-width="2" points="' +
                 " ".join(f"{x(t):.1f},{y(m):.1f}" for t, m in p) + '"/>')
        s.append(f'<text x="{x(p[-1][0]):.1f}" y="{y(p[-1][1]) - 6:.1f}" text-anchor="end" fill="{col}">{rel}</text>')
s.append(f'<line x1="{L}" x2="{W - R}" y1="{H - B}" y2="{H - B}" stroke="black"/>')
for k in range(0, int(tmax) + 1, max(1, int(tmax) // 10)):
    s.append(f'<text x="{x(k):.1f}" y="{H - B + 16}" text-anchor="middle">{k} s</text>')
s.append("</svg>")
open(f"{out}/pileup.svg", "w").write("\n".join(s) + "\n")
PY
echo "pictures: $out/pileup.svg (both runs), $out/pileup-delivery.svg (the delivery run's own)"
