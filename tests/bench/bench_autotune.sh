#!/bin/sh
# --auto against the best hand-tuned permits and capacity, side by side (issue 33; not run by
# ctest):
#   tests/bench/bench_autotune.sh BUILD_DIR [FIXTURE_DIR] [ROUNDS] [COPIES]
# Two workloads, each under one byte budget for every run:
# - host:  zkpipe-host-pipeline (real buffers, every page written, CPU-spinning stages) with
#          $HOST_ARGS (default below: 24 partitions of 12 MiB, synthesis 20 ms, proof 40 ms,
#          4 synthesis workers, one prover, a 64 MiB budget);
# - zkey:  zkpipe-pipeline --zkey FIXTURE_DIR/circuit.zkey on COPIES (default 8) copies of
#          FIXTURE_DIR/witness.wtns (2 synthesis workers, 2 prover workers of one thread, a
#          $ZKEY_BUDGET_MIB budget, default 256), skipped without FIXTURE_DIR.
# HOST=0 leaves out the host workload.
# For each: a sweep of every permits (1..synthesis workers) x capacity (1..3) setting, $SWEEP
# runs each (default 1), the best the one of the highest median throughput; then ROUNDS
# (default 5) rounds of the best and --auto (with the default capacity, as a user who tunes
# nothing runs it), alternating which goes first. Printed: every run's throughput (proofs/s,
# from the tool's --json), peak accounted bytes and permits at the end; the medians; the
# per-round ratios auto / best and their median; the budget overruns (runs whose peak accounted
# bytes exceed the budget) of each. Every run must check out (the tools exit non-zero
# otherwise). Figures only: nothing here asserts a time.
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR [FIXTURE_DIR] [ROUNDS] [COPIES]" >&2
    exit 2
fi
build=$1 dir=${2:-} rounds=${3:-5} copies=${4:-8}
sweep=${SWEEP:-1}
host_args=${HOST_ARGS:---partitions 24 --abc-mib 8 --aux-mib 4 --synth-ms 20 --prove-ms 40
    --synth-workers 4 --prover-workers 1 --budget-mib 64}
zkey_budget=${ZKEY_BUDGET_MIB:-256}
command -v jq >/dev/null || { echo "$0: needs jq" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# run WORKLOAD LABEL ROUND FLAGS...: one run of WORKLOAD with FLAGS; appends
# "label round throughput peak_accounted budget permits_final" to $tmp/WORKLOAD.runs
run() {
    w=$1 label=$2 round=$3
    shift 3
    if [ "$w" = host ]; then
        # shellcheck disable=SC2086 # HOST_ARGS is a list of flags
        "$build/tools/zkpipe-host-pipeline" $host_args "$@" --json >"$tmp/out" 2>"$tmp/err" ||
            { cat "$tmp/err" "$tmp/out" >&2; echo "host $label failed" >&2; exit 1; }
    else
        rm -rf "$tmp/proofs"
        "$build/tools/zkpipe-pipeline" --zkey "$dir/circuit.zkey" --out "$tmp/proofs" \
            --synth-workers 2 --prover-workers 2 --prover-threads 1 --budget-mib "$zkey_budget" \
            --report-ms 0 "$@" --json "$tmp"/in/*.wtns >"$tmp/out" 2>"$tmp/err" ||
            { cat "$tmp/err" "$tmp/out" >&2; echo "zkey $label failed" >&2; exit 1; }
    fi
    line=$(tail -n 1 "$tmp/out" | jq -r '"\(.throughput_per_s) \(.peak_accounted_bytes) \(.budget_bytes) \(.permits_final) \(.proofs_verified) \(.partitions)"')
    # shellcheck disable=SC2086 # the six fields, split
    set -- $line
    [ "$5" = "$6" ] || { echo "$w $label: $5 of $6 proofs checked" >&2; exit 1; }
    echo "$label $round $1 $2 $3 $4" >>"$tmp/$w.runs"
    over=
    [ "$2" -le "$3" ] || over=" OVER THE BUDGET"
    echo "  $w round $round $label: $1 proofs/s, peak accounted $2 of $3 bytes$over, permits at the end $4"
}

stat_of() { # WORKLOAD LABEL: the median throughput of LABEL's runs
    awk -v l="$2" '$1 == l {print $3}' "$tmp/$1.runs" | median
}

bench() { # WORKLOAD SYNTH_WORKERS
    w=$1 workers=$2
    : >"$tmp/$w.runs"
    echo "$w: sweep of permits 1..$workers x capacity 1..3, $sweep run(s) each"
    best='' best_tp=0
    for p in $(seq 1 "$workers"); do
        for c in 1 2 3; do
            for i in $(seq 1 "$sweep"); do
                run "$w" "p${p}c$c" 0 --permits "$p" --capacity "$c"
            done
            tp=$(stat_of "$w" "p${p}c$c")
            if awk -v a="$tp" -v b="$best_tp" 'BEGIN {exit !(a > b)}'; then
                best="p${p}c$c" best_tp=$tp
            fi
        done
    done
    bp=${best#p}
    bp=${bp%c*}
    bc=${best#*c}
    echo "$w: best hand-tuned setting permits $bp capacity $bc ($best_tp proofs/s in the sweep)"
    r=1
    while [ "$r" -le "$rounds" ]; do
        if [ $((r % 2)) = 1 ]; then
            run "$w" auto "$r" --auto
            run "$w" best "$r" --permits "$bp" --capacity "$bc"
        else
            run "$w" best "$r" --permits "$bp" --capacity "$bc"
            run "$w" auto "$r" --auto
        fi
        r=$((r + 1))
    done
    ratios=$(awk '$2 > 0 && $1 == "auto" {a[$2] = $3} $2 > 0 && $1 == "best" {b[$2] = $3}
        END {for (r in a) if (r in b) printf "%.3f\n", a[r] / b[r]}' "$tmp/$w.runs" | sort -g)
    over_auto=$(awk '$1 == "auto" && $4 > $5' "$tmp/$w.runs" | wc -l)
    over_best=$(awk '$1 == "best" && $4 > $5' "$tmp/$w.runs" | wc -l)
    echo "$w: auto median $(stat_of "$w" auto) proofs/s, best (permits $bp capacity $bc)" \
        "median $(stat_of "$w" best) proofs/s over $rounds rounds"
    echo "$w: auto / best per round: $(echo "$ratios" | tr '\n' ' '); median" \
        "$(echo "$ratios" | median)"
    echo "$w: budget overruns: auto $over_auto, best $over_best (of $rounds runs each)"
    echo "$w: auto's permits at the end: $(awk '$1 == "auto" {print $6}' "$tmp/$w.runs" |
        tr '\n' ' ')"
}

[ -x "$build/tools/zkpipe-host-pipeline" ] ||
    { echo "$0: no zkpipe-host-pipeline in $build/tools" >&2; exit 2; }
workers=$(echo "$host_args" | sed -n 's/.*--synth-workers *\([0-9]*\).*/\1/p')
[ "${HOST:-1}" = 0 ] || bench host "${workers:-2}"
if [ -n "$dir" ]; then
    mkdir -p "$tmp/in"
    for i in $(seq 1 "$copies"); do cp "$dir/witness.wtns" "$tmp/in/w$i.wtns"; done
    bench zkey 2
fi
