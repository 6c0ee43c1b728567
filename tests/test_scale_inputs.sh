#!/bin/sh
# Bad input at scale, in seconds: zkeys of gigabytes made as sparse files (every point the
# point at infinity, no coefficient entries: valid, and no real data written), for
# zkpipe-prove and zkpipe-pipeline --zkey:
#   - a 2.3 GB zkey truncated while mapped (the LD_PRELOAD shim support/truncate_on_mmap.c):
#     an I/O error naming it, exit 1, within 200 MB of peak RSS, nothing written;
#   - a zkey whose sections claim 2^28 points: a file that does not hold them is refused at
#     its section table, and one that does (16 GiB of holes) at its header (2^28 rows has no odd
#     coset on BN254), both without reading the points;
#   - a witness for another circuit size: refused naming both sizes, nothing written.
# (A zkey rewritten under its mapping is test_io's zkey_rewritten_after_open_is_an_io_error.)
#   test_scale_inputs.sh EXPORT SETUP PROVE PIPELINE TRUNCATE_SHIM
set -eu
[ $# -eq 5 ] || { echo "usage: test_scale_inputs.sh EXPORT SETUP PROVE PIPELINE SHIM" >&2; exit 2; }
export_circuit=$1 setup=$2 prove=$3 pipeline=$4 shim=$5
. "$(dirname "$0")/support/cli_checks.sh"
cd "$tmp"

le32() {
    printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) \
        $(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"
}
le64() { le32 $(($1 & 4294967295)) && le32 $(($1 >> 32)); }

# sparse_zkey REAL OUT NV N [LEN]: a BN254 zkey with NV variables (one public) and a domain of
# N rows, section 1 and the header's primes and points from REAL (a zkpipe-setup zkey: 12 +
# 16 + 12 + 72 bytes before the counts, 576 of points after them), its sections in
# zkey_write's order, every payload a hole; LEN: cut the file there (default: whole).
sparse_zkey() {
    real=$1 out=$2 nv=$3 n=$4 cut=${5:-}
    {
        head -c 112 "$real"
        le32 "$nv"
        le32 1
        le32 "$n"
        tail -c +125 "$real" | head -c 576
    } >"$out"
    pos=700
    for s in "4 4" "3 128" "9 $((n * 64))" "8 $(((nv - 2) * 64))" "5 $((nv * 64))" \
        "6 $((nv * 64))" "7 $((nv * 128))" "10 68"; do
        set -- $s
        { le32 "$1" && le64 "$2"; } | dd of="$out" bs=1 seek="$pos" conv=notrunc status=none
        pos=$((pos + 12 + $2))
    done
    truncate -s "${cut:-$pos}" "$out"
}

nothing_written() { # LABEL FILE...
    label=$1
    shift
    for f in "$@"; do
        [ ! -e "$f" ] || fail "$label: $f was written"
    done
    no_leftovers "$label" "$tmp"
}

# peak_below LABEL KIB: the last run (under /usr/bin/time -f %M into $tmp/rss) stayed below
peak_below() {
    peak=$(tail -n 1 "$tmp/rss")
    [ "$peak" -lt "$2" ] || fail "$1: peak RSS $peak KiB, over $2 KiB"
}

accepted "export" "$export_circuit" --log-constraints 6 c6.r1cs c6.wtns
accepted "setup" "$setup" --insecure-seed 1 c6.r1cs c6.zkey
mkdir out

# 1. 2.3 GB, truncated as soon as it is mapped.
sparse_zkey c6.zkey big.zkey $((3 << 21)) $((1 << 22))
[ "$(wc -c <big.zkey)" -gt 2147483648 ] || fail "the sparse zkey is not over 2 GiB"
for tool in prove pipeline; do
    sparse_zkey c6.zkey big.zkey $((3 << 21)) $((1 << 22))
    if [ "$tool" = prove ]; then
        set -- "$prove" big.zkey c6.wtns proof.json public.json
    else
        set -- "$pipeline" --zkey big.zkey --out out c6.wtns
    fi
    run "$tool: truncated 2.3 GB zkey" env LD_PRELOAD="$shim" \
        ZKPIPE_TEST_TRUNCATE_ON_MMAP="$tmp/big.zkey" /usr/bin/time -o "$tmp/rss" -f %M "$@"
    [ ! -s big.zkey ] || fail "$tool: the shim did not truncate the zkey"
    [ "$status" -eq 1 ] || fail "$tool: truncated zkey: exit $status: $(cat "$tmp/stderr")"
    grep -q 'big.zkey: I/O error' "$tmp/stderr" || fail "$tool: truncated zkey: $(cat "$tmp/stderr")"
    peak_below "$tool: truncated zkey" 204800
    nothing_written "$tool: truncated zkey" proof.json public.json out/c6.proof.json
done

# 2. Sections claiming 2^28 points.
sparse_zkey c6.zkey claim.zkey $((1 << 20)) $((1 << 28)) 100000
refused "2^28 points, a short file" claim.zkey "$prove" claim.zkey c6.wtns proof.json public.json
grep -q 'truncated: section' "$tmp/stderr" || fail "2^28 points, short: $(cat "$tmp/stderr")"
nothing_written "2^28 points, a short file" proof.json public.json
sparse_zkey c6.zkey claim.zkey $((1 << 20)) $((1 << 28))
[ "$(wc -c <claim.zkey)" -gt 17000000000 ] || fail "the sparse 2^28 zkey is not 17 GB"
run "2^28 points" /usr/bin/time -o "$tmp/rss" -f %M "$prove" claim.zkey c6.wtns proof.json \
    public.json
[ "$status" -eq 1 ] || fail "2^28 points: exit $status: $(cat "$tmp/stderr")"
grep -q 'claim.zkey: section 2: domain size 2^28 is too large' "$tmp/stderr" ||
    fail "2^28 points: $(cat "$tmp/stderr")"
peak_below "2^28 points" 102400
nothing_written "2^28 points" proof.json public.json
rm -f claim.zkey

# 3. A witness of 64 values for a zkey of 2^18 variables.
sparse_zkey c6.zkey mid.zkey $((1 << 18)) $((1 << 18))
refused "another circuit's witness" "the key 262144 variables" \
    "$prove" mid.zkey c6.wtns proof.json public.json
nothing_written "another circuit's witness" proof.json public.json
run "pipeline: another circuit's witness" "$pipeline" --zkey mid.zkey --out out c6.wtns
[ "$status" -eq 1 ] || fail "pipeline: another circuit's witness: exit $status"
grep -q 'c6.wtns' "$tmp/stderr" || fail "pipeline: witness not named: $(cat "$tmp/stderr")"
nothing_written "pipeline: another circuit's witness" out/c6.proof.json
checks_done
