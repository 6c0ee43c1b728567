# What the batch benchmarks share (bench_zkey_batch.sh, bench_fleet.sh), sourced once they set
# $build (the build folder), $tmp (a scratch folder), $copies, $rounds and $vk (the fixture's
# verification_key.json): the witness copied $copies times, a timed run, the proofs checked,
# medians and per-round ratios.

batch_copies() { # WTNS: $tmp/in/w1.wtns ... $tmp/in/w$copies.wtns, copies of WTNS
    mkdir -p "$tmp/in"
    for i in $(seq 1 "$copies"); do cp "$1" "$tmp/in/w$i.wtns"; done
    : >"$tmp/runs"
}

timed() { # way round rss command... : the whole process under GNU time, its outputs in a
    # fresh $tmp/out; appends "way round seconds kib" to $tmp/runs and prints the run, without
    # its RSS when rss is 0 (a run whose timed process is not the one proving)
    way=$1 round=$2 rss_=$3
    shift 3
    rm -rf "$tmp/out" && mkdir -p "$tmp/out"
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
        { cat "$tmp/err" >&2; echo "$way failed" >&2; exit 1; }
    read -r secs kib <"$tmp/time"
    echo "$way $round $secs $kib" >>"$tmp/runs"
    rss=", $kib KiB peak RSS"
    [ "$rss_" != 0 ] || rss=
    echo "round $round $way: $secs s wall$rss"
}

check_proofs() { # every proof in $tmp/out verifies, and there are $copies of them
    n=0
    for p in "$tmp"/out/*.proof.json; do
        "$build/tools/zkpipe-verify" "$vk" "${p%.proof.json}.public.json" "$p" \
            >/dev/null || { echo "proof $p does not verify" >&2; exit 1; }
        n=$((n + 1))
    done
    [ "$n" -eq "$copies" ] || { echo "$n proofs, expected $copies" >&2; exit 1; }
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

per_round() { # A B EXPR: EXPR of a and b (A's and B's seconds) in each round, one a line
    awk -v A="$1" -v B="$2" '$1 == A {a[$2] = $3} $1 == B {b[$2] = $3}
        END {for (r in a) if (r in b) print r, a[r], b[r]}' "$tmp/runs" |
        awk "{a = \$2; b = \$3; printf \"%.3f\\n\", $3}"
}

way_line() { # WAY [RSS]: "WAY: median S s wall, K KiB peak RSS over R rounds of C proofs",
    # without the RSS when RSS is 0 (a run whose timed process is not the one proving)
    secs=$(awk -v w="$1" '$1 == w {print $3}' "$tmp/runs" | median)
    kib=$(awk -v w="$1" '$1 == w {print $4}' "$tmp/runs" | median)
    rss=", $kib KiB peak RSS"
    [ "${2:-1}" != 0 ] || rss=
    printf '%s' "$1: median $secs s wall$rss over $rounds rounds of $copies proofs"
}
