#!/bin/sh
# zkpipe-setup --ptau against `snarkjs groth16 setup`, the Setup figures of docs/SCALE.md (not
# run by ctest):
#   tests/bench/bench_setup.sh BUILD_DIR CIRCUIT.r1cs PREPARED.ptau [ROUNDS] [THREADS]
# ROUNDS (default 3) alternating rounds of zkpipe-setup --threads THREADS (default 2) and
# snarkjs ($SNARKJS, default the one in tests/interop/node_modules), each the whole process under
# GNU time: wall seconds, CPU seconds (user + system) and peak RSS of each run, then the medians
# and the medians of the per-round ratios snarkjs / zkpipe. The two zkeys of the first round
# must be the same bytes, and `snarkjs zkey verify` must accept zkpipe's (VERIFY=0 skips that
# check, which takes longer than the setup). The load average is printed before and after: on a
# shared machine the wall times follow it, the CPU times much less.
set -eu
if [ $# -lt 3 ]; then
    echo "usage: $0 BUILD_DIR CIRCUIT.r1cs PREPARED.ptau [ROUNDS] [THREADS]" >&2
    exit 2
fi
build=$1 r1cs=$2 ptau=$3 rounds=${4:-3} threads=${5:-2}
here=$(cd "$(dirname "$0")" && pwd)
snarkjs=${SNARKJS:-$here/../interop/node_modules/.bin/snarkjs}
setup=$build/tools/zkpipe-setup
[ -x "$setup" ] || { echo "$0: no zkpipe-setup in $build/tools" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/bench/batch_common.sh
. "$here/batch_common.sh" # median
: >"$tmp/runs"

run() { # way round command...: appends "way round wall cpu kib" to $tmp/runs
    way=$1 round=$2
    shift 2
    /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" >"$tmp/out" 2>&1 ||
        { cat "$tmp/out" >&2; echo "$way failed" >&2; exit 1; }
    ! grep -q '\[ERROR\]' "$tmp/out" || { cat "$tmp/out" >&2; exit 1; }
    read -r wall user sys kib <"$tmp/time"
    cpu=$(echo "$user $sys" | awk '{printf "%.2f", $1 + $2}')
    echo "$way $round $wall $cpu $kib" >>"$tmp/runs"
    echo "round $round $way: $wall s wall, $cpu s CPU, $kib KiB peak RSS"
}

col() { # WAY FIELD: the median of FIELD (3 wall, 4 cpu, 5 kib) over WAY's runs
    awk -v w="$1" -v f="$2" '$1 == w {print $f}' "$tmp/runs" | median
}

ratio() { # FIELD: the median over the rounds of snarkjs's FIELD / zkpipe's
    awk -v f="$1" '$1 == "zkpipe" {a[$2] = $f} $1 == "snarkjs" {b[$2] = $f}
        END {for (r in a) if (r in b && a[r] > 0) printf "%.1f\n", b[r] / a[r]}' "$tmp/runs" |
        median
}

echo "$(basename "$r1cs") with $(basename "$ptau"), zkpipe on $threads threads;" \
    "load average $(cut -d' ' -f1-3 /proc/loadavg)"
r=1
while [ "$r" -le "$rounds" ]; do
    run zkpipe "$r" "$setup" --threads "$threads" --ptau "$ptau" "$r1cs" "$tmp/ours.zkey"
    run snarkjs "$r" "$snarkjs" groth16 setup "$r1cs" "$ptau" "$tmp/theirs.zkey"
    if [ "$r" -eq 1 ]; then
        cmp -s "$tmp/ours.zkey" "$tmp/theirs.zkey" ||
            { echo "the zkeys differ: $(cmp "$tmp/ours.zkey" "$tmp/theirs.zkey" 2>&1)" >&2; exit 1; }
        echo "round 1: the two zkeys are the same $(wc -c <"$tmp/ours.zkey") bytes"
        if [ "${VERIFY:-1}" != 0 ]; then
            if ! "$snarkjs" zkey verify "$r1cs" "$ptau" "$tmp/ours.zkey" >"$tmp/out" 2>&1 ||
                ! grep -q 'ZKey Ok' "$tmp/out" || grep -q '\[ERROR\]' "$tmp/out"; then
                cat "$tmp/out" >&2
                echo "snarkjs zkey verify refused zkpipe's zkey" >&2
                exit 1
            fi
            echo "round 1: snarkjs zkey verify accepts zkpipe's zkey"
        fi
    fi
    r=$((r + 1))
done
for w in zkpipe snarkjs; do
    echo "$w: median $(col $w 3) s wall, $(col $w 4) s CPU, $(col $w 5) KiB peak RSS" \
        "over $rounds rounds"
done
echo "snarkjs / zkpipe: wall $(ratio 3)x, CPU $(ratio 4)x (medians of the per-round ratios);" \
    "load average $(cut -d' ' -f1-3 /proc/loadavg)"
