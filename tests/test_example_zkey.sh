#!/bin/sh
# zkpipe-pipeline --zkey ($1), with zkpipe-verify ($2), on the interop fixtures of both curves:
# a batch of witnesses through the engine, each good one writing NAME.proof.json and
# NAME.public.json that verify with zkpipe-verify and, when node and tests/interop/node_modules
# are there, with snarkjs; the public signals are snarkjs's own; a bad witness among good ones
# fails alone with one stderr line naming it, writes nothing, and makes the exit status 1.
set -eu
[ $# -eq 2 ] || { echo "usage: test_example_zkey.sh ZKPIPE_PIPELINE ZKPIPE_VERIFY" >&2; exit 2; }
bin=$1 verify=$2
interop=$(cd "$(dirname "$0")/interop" && pwd)
fixtures=$interop/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
snarkjs=$interop/node_modules/.bin/snarkjs
have_snarkjs=0
if command -v node >/dev/null 2>&1 && [ -x "$snarkjs" ]; then have_snarkjs=1; fi
[ "$have_snarkjs" -eq 1 ] || echo "note: no node or snarkjs: proofs checked with zkpipe-verify only"

field() {
    v=$(printf '%s\n' "$2" | sed -n "s/.*\"$1\":\([0-9][0-9]*\).*/\1/p")
    [ -n "$v" ] || fail "no numeric \"$1\" in: $2"
    echo "$v"
}

for curve in bn128 bls12381; do
    for circuit in multiplier factors rangesum; do
        d=$fixtures/$curve/$circuit
        out=$tmp/$curve-$circuit
        mkdir -p "$out/in"
        # Three names for the same good witness, and one whose first private value is off by one
        # bit (circom's values start at byte 76; the one and the public signals come first).
        for n in a b c; do cp "$d/witness.wtns" "$out/in/$n.wtns"; done
        np=$(grep -c '"' "$d/public.json" || true)
        perl -e 'open(my $f, "<:raw", $ARGV[0]) or die; local $/; my $w = <$f>;
            my $at = 76 + 32 * ($ARGV[2] + 1);
            substr($w, $at, 1) = chr(ord(substr($w, $at, 1)) ^ 1);
            open(my $g, ">:raw", $ARGV[1]) or die; print $g $w;' \
            "$d/witness.wtns" "$out/in/bad.wtns" "$np"
        status=0
        "$bin" --zkey "$d/circuit.zkey" --out "$out" --report-ms 0 --json --synth-workers 2 \
            --prover-workers 2 --prover-threads 1 "$out/in/a.wtns" "$out/in/bad.wtns" \
            "$out/in/b.wtns" "$out/in/c.wtns" >"$out/stdout" 2>"$out/stderr" || status=$?
        [ "$status" -eq 1 ] || fail "$curve/$circuit: exit $status with a bad witness, not 1"
        json=$(tail -n 1 "$out/stdout")
        [ "$(field partitions "$json")" -eq 4 ] || fail "$curve/$circuit: $json"
        [ "$(field proofs_verified "$json")" -eq 3 ] || fail "$curve/$circuit: $json"
        [ "$(field errors "$json")" -eq 1 ] || fail "$curve/$circuit: $json"
        [ "$(field live_bytes_at_exit "$json")" -eq 0 ] || fail "$curve/$circuit: $json"
        [ "$(field peak_in_flight "$json")" -le "$(field bound "$json")" ] ||
            fail "$curve/$circuit: the waist exceeded its bound: $json"
        [ "$(awk 'END { print NR }' "$out/stderr")" -eq 1 ] ||
            fail "$curve/$circuit: not one stderr line: $(cat "$out/stderr")"
        grep -q "bad.wtns" "$out/stderr" || fail "$curve/$circuit: the line does not name bad.wtns"
        grep -q "ZKPIPE_EUNSATISFIED" "$out/stderr" || fail "$curve/$circuit: $(cat "$out/stderr")"
        [ ! -e "$out/bad.proof.json" ] && [ ! -e "$out/bad.public.json" ] ||
            fail "$curve/$circuit: the bad witness left outputs"
        ls "$out" | grep -q 'zkpipe-new\|zkpipe-old' && fail "$curve/$circuit: temporary files left: $(ls "$out")"
        for n in a b c; do
            [ -s "$out/$n.proof.json" ] && [ -s "$out/$n.public.json" ] ||
                fail "$curve/$circuit: no outputs for $n"
            [ "$(tr -d ' \n' <"$out/$n.public.json")" = "$(tr -d ' \n' <"$d/public.json")" ] ||
                fail "$curve/$circuit: $n.public.json is not snarkjs's public.json"
            "$verify" "$d/verification_key.json" "$out/$n.public.json" "$out/$n.proof.json" \
                >/dev/null || fail "$curve/$circuit: zkpipe-verify refuses $n's proof"
            # snarkjs costs a second a call: the first proof of each batch.
            if [ "$have_snarkjs" -eq 1 ] && [ "$n" = a ]; then
                node "$snarkjs" groth16 verify "$d/verification_key.json" "$out/$n.public.json" \
                    "$out/$n.proof.json" >"$out/snarkjs.log" 2>&1 ||
                    fail "$curve/$circuit: snarkjs refuses $n's proof: $(cat "$out/snarkjs.log")"
                grep -q "OK" "$out/snarkjs.log" || fail "$curve/$circuit: snarkjs: not OK"
            fi
        done
        # Each proof was blinded afresh.
        cmp -s "$out/a.proof.json" "$out/b.proof.json" && fail "$curve/$circuit: equal proofs"
    done
done

# Every witness good: exit 0. The flag errors.
d=$fixtures/bn128/multiplier
"$bin" --zkey "$d/circuit.zkey" --out "$tmp" --report-ms 0 "$d/witness.wtns" >/dev/null ||
    fail "one good witness: exit $?"
for bad in "--zkey $d/circuit.zkey" "--out $tmp" "$d/witness.wtns" "--full-check"; do
    # shellcheck disable=SC2086 # split on purpose
    if "$bin" $bad >/dev/null 2>"$tmp/usage"; then fail "'$bad' was accepted"; else rc=$?; fi
    [ "$rc" -eq 2 ] || fail "'$bad' exited with $rc, not 2"
done
# Outputs refused before any work: two witnesses named alike in two folders (their outputs
# would be one pair of files), and an --out folder that does not exist.
mkdir -p "$tmp/x" "$tmp/y" "$tmp/same"
cp "$d/witness.wtns" "$tmp/x/w.wtns"
cp "$d/witness.wtns" "$tmp/y/w.wtns"
status=0
"$bin" --zkey "$d/circuit.zkey" --out "$tmp/same" --report-ms 0 "$tmp/x/w.wtns" "$tmp/y/w.wtns" \
    >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] && grep -q "w.public.json" "$tmp/err" ||
    fail "two witnesses onto one output: exit $status: $(cat "$tmp/err")"
[ -z "$(ls "$tmp/same")" ] || fail "a refused set wrote: $(ls "$tmp/same")"
[ ! -s "$tmp/out" ] || fail "a refused set did work: $(cat "$tmp/out")"
status=0
# --out makes its folder, never its parent (tests/test_pipeline_batch.sh): a missing parent.
"$bin" --zkey "$d/circuit.zkey" --out "$tmp/nowhere/out" "$d/witness.wtns" >/dev/null \
    2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] && grep -q "nowhere" "$tmp/err" || fail "a missing --out parent: exit $status"
status=0
"$bin" --zkey "$tmp/missing.zkey" "$d/witness.wtns" >/dev/null 2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] && grep -q "missing.zkey" "$tmp/err" || fail "a missing zkey: exit $status"
# A bad zkey: one line that names it, once.
echo "not a zkey" >"$tmp/bad.zkey"
status=0
"$bin" --zkey "$tmp/bad.zkey" "$d/witness.wtns" >/dev/null 2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] && grep -q "^zkpipe-pipeline: $tmp/bad.zkey: [a-z]" "$tmp/err" ||
    fail "a bad zkey: exit $status: $(cat "$tmp/err")"
[ "$(grep -o "bad.zkey" "$tmp/err" | wc -l)" -eq 1 ] ||
    fail "a bad zkey named more than once: $(cat "$tmp/err")"
echo "PASS"
