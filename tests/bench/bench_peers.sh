#!/bin/bash
# zkpipe-prove side by side with the provers it is measured against, in one run (not run by
# ctest): every comparison alternates its two commands RUNS times (A B A B ...), takes the
# ratio A/B pair by pair, and prints the medians (min-max of the ratios beside them) and the
# goal each ratio is held to:
#   tests/bench/bench_peers.sh BUILD_DIR RAPIDSNARK_PROVER BENCH_DIR [SMALL_DIR...]
#   BN254 chain16, zkpipe with every CPU path it detects     / rapidsnark  goal <= 0.20
#   BN254 chain16, zkpipe with ZKPIPE_CPU_MASK=ifma          / rapidsnark  goal <= 0.40
#     (an AVX-512 CPU without IFMA: BN254's additions on AVX-512F lanes)
#   BN254 chain16, zkpipe with ZKPIPE_CPU_MASK=avx512        / rapidsnark  goal <= 0.40
#     (a CPU without AVX-512: the scalar mulx/adcx/adox path)
#   each SMALL_DIR (default: the interop fixtures on bn128)  / rapidsnark  goal <= 0.50
#   BLS12-381 chain16, zkpipe                                / snarkjs     goal <= 1/30
# BENCH_DIR holds bn128-chain16/ and bls12381-chain16/ (../shared/bench); each fixture folder
# circuit.zkey, witness.wtns and verification_key.json (tests/bench/chain_fixture.sh makes
# one of any size). RAPIDSNARK_PROVER is rapidsnark's `prover` (built from its public source).
# Environment: RUNS (default 5), THREADS for both provers (default 2; rapidsnark through
# OMP_NUM_THREADS), SNARKJS (default node tests/interop/node_modules/.bin/snarkjs; BLS12-381
# is skipped when it is missing), SKIP (words: chain16 masked small bls). Times are whole
# processes, start-up and file writing included, wall clock from bash's $EPOCHREALTIME read just
# before and after each (a `date` process on either side would add about a millisecond of its own
# to both, which pulls a small circuit's ratio toward 1); environment settings are the shell's
# own assignments, not an `env` process in front of one side. Every proof of the last run of each
# command is checked with zkpipe-verify.
set -eu
build=$1 rapidsnark=$2 bench=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-5} threads=${THREADS:-2} skip=${SKIP:-}
snarkjs=${SNARKJS:-node $here/../interop/node_modules/.bin/snarkjs}
prove=$build/examples/zkpipe-prove verify=$build/examples/zkpipe-verify
[ -x "$prove" ] || prove=$build/tools/zkpipe-prove
[ -x "$verify" ] || verify=$build/tools/zkpipe-verify
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ $# -eq 0 ]; then
    for c in multiplier factors hashchain rangesum; do
        set -- "$@" "$here/../interop/fixtures/bn128/$c"
    done
fi

# one_run TAG DIR SIDE: runs side A or B of the current comparison on DIR, appends its wall
# time in microseconds to $tmp/TAG.SIDE. The commands are in $cmd_a and $cmd_b (eval'd: env
# assignments).
one_run() {
    eval "cmd=\$cmd_$3"
    local t0 t1
    t0=${EPOCHREALTIME//[!0-9]/} # microseconds: the value always has six decimals
    eval "$cmd" "\"$2/circuit.zkey\"" "\"$2/witness.wtns\"" "\"$tmp/$1.$3.proof.json\"" \
        "\"$tmp/$1.$3.public.json\"" >/dev/null 2>"$tmp/err" || return 1
    t1=${EPOCHREALTIME//[!0-9]/}
    echo "$((t1 - t0))" >>"$tmp/$1.$3"
}

# compare TAG LABEL DIR GOAL_RATIO: alternates $cmd_a and $cmd_b on DIR, prints the line.
compare() {
    tag=$1 label=$2 dir=$3 goal=$4
    # a warm-up of each (the page cache), not counted; a side that fails skips the line (e.g.
    # rapidsnark refuses a circuit without public signals)
    for side in a b; do
        one_run "$tag" "$dir" $side || {
            printf "%-52s skipped: side %s failed: %s\n" "$label" $side "$(head -n 1 "$tmp/err")"
            return 0
        }
    done
    : >"$tmp/$tag.a"
    : >"$tmp/$tag.b"
    i=0
    while [ $i -lt "$runs" ]; do
        one_run "$tag" "$dir" a && one_run "$tag" "$dir" b ||
            { echo "$label: a run failed: $(head -n 1 "$tmp/err")" >&2; exit 1; }
        i=$((i + 1))
    done
    for side in a b; do
        "$verify" "$dir/verification_key.json" "$tmp/$tag.$side.public.json" \
            "$tmp/$tag.$side.proof.json" >/dev/null ||
            { echo "$tag: side $side's proof does not verify" >&2; exit 1; }
    done
    paste "$tmp/$tag.a" "$tmp/$tag.b" | awk -v label="$label" -v goal="$goal" '
        function median(v, n,   i, j, t) {
            for (i = 2; i <= n; i++)
                for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
            return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
        }
        { a[NR] = $1; b[NR] = $2; r[NR] = $1 / $2 }
        END {
            ma = median(a, NR); mb = median(b, NR); mr = median(r, NR)
            printf "%-52s %9.4f s %9.4f s  ratio %.3f (%.3f-%.3f)  goal <= %.3f  %s\n",
                   label, ma / 1e6, mb / 1e6, mr, r[1], r[NR], goal,
                   mr <= goal ? "met" : "NOT met"
        }'
}

has() { case " $skip " in *" $1 "*) return 1 ;; esac; return 0; }

printf "%s, %s threads, %s pairs per line, medians (ratio: A/B pair by pair, min-max)\n" \
    "$(date -u +%Y-%m-%dT%H:%MZ)" "$threads" "$runs"
printf "%-52s %11s %11s\n" "A / B" "A" "B"
rs="OMP_NUM_THREADS=$threads $rapidsnark"
zk="$prove --threads $threads"
cmd_b=$rs
if has chain16; then
    cmd_a=$zk
    compare c16 "BN254 chain16: zkpipe / rapidsnark" "$bench/bn128-chain16" 0.20
fi
if has masked; then
    cmd_a="ZKPIPE_CPU_MASK=ifma $zk"
    compare c16m "BN254 chain16: zkpipe (ifma masked) / rapidsnark" "$bench/bn128-chain16" 0.40
    cmd_a="ZKPIPE_CPU_MASK=avx512 $zk"
    compare c16s "BN254 chain16: zkpipe (avx512 masked) / rapidsnark" "$bench/bn128-chain16" 0.40
fi
if has small; then
    n=0
    for dir in "$@"; do
        n=$((n + 1))
        cmd_a=$zk
        compare "s$n" "$(basename "$dir"): zkpipe / rapidsnark" "$dir" 0.50
    done
fi
if has bls; then
    if $snarkjs --version >/dev/null 2>&1 || [ $? -eq 99 ]; then
        cmd_a=$zk
        cmd_b="$snarkjs groth16 prove"
        compare bls "BLS12-381 chain16: zkpipe / snarkjs" "$bench/bls12381-chain16" 0.0333
    else
        echo "BLS12-381 chain16: skipped, no snarkjs ($snarkjs)"
    fi
fi
# the CPU paths zkpipe took, plain and masked (zkpipe/cpu.h), from its --metrics JSON
for mask in "" ifma avx512; do
    ZKPIPE_CPU_MASK=$mask $zk --metrics "$tmp/m.json" "$1/circuit.zkey" "$1/witness.wtns" \
        "$tmp/p.json" "$tmp/q.json"
    echo "zkpipe CPU paths (ZKPIPE_CPU_MASK=$mask): $(sed -n 's/.*"cpu":\({[^}]*}\).*/\1/p' "$tmp/m.json")"
done
