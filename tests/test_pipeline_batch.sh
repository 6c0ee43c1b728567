#!/bin/sh
# zkpipe-pipeline --zkey ($1) for a user of the batch tool, with zkpipe-verify ($2), on the
# BN254 multiplier fixture: --out makes its folder (not its parent) and refuses a symbolic link
# or a file; --json lists each witness's end (name, status, error, outputs, ms) without the
# fields that do not apply; the counter line goes to stderr, and only with --report-ms.
set -eu
bin=$1
verify=$2
d=$(cd "$(dirname "$0")" && pwd)/interop/fixtures/bn128/multiplier
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
# A sanitizer report exits 66, never 1 (a refusal); skip_checks, skips_done.
. "$(dirname "$0")/support/exits.sh"
small="--zkey $d/circuit.zkey --prover-threads 1"

echo "== --out makes a missing folder"
"$bin" $small --out "$tmp/new" "$d/witness.wtns" >"$tmp/stdout" 2>"$tmp/stderr" ||
    fail "--out to a missing folder: exit $?: $(cat "$tmp/stderr")"
[ -d "$tmp/new" ] || fail "--out did not make its folder"
"$verify" "$d/verification_key.json" "$tmp/new/witness.public.json" \
    "$tmp/new/witness.proof.json" >/dev/null || fail "the proof in the made folder does not verify"
[ ! -s "$tmp/stderr" ] || fail "stderr without --report-ms: $(cat "$tmp/stderr")"
grep -q 'unaccounted~=' "$tmp/stdout" && fail "a counter line on stdout: $(cat "$tmp/stdout")"

echo "== --out is made only once every output passed its checks"
status=0
"$bin" $small --out "$tmp/never" --metrics "$d/witness.wtns" "$d/witness.wtns" >/dev/null \
    2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] && grep -q "is the same file as the input" "$tmp/err" ||
    fail "--metrics onto the witness: exit $status: $(cat "$tmp/err")"
[ ! -e "$tmp/never" ] || fail "a refused run made its --out folder"
mkdir "$tmp/twin"
cp "$d/witness.wtns" "$tmp/twin/witness.wtns"
status=0
"$bin" $small --out "$tmp/never" "$d/witness.wtns" "$tmp/twin/witness.wtns" >/dev/null \
    2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] && grep -q "is the same file as another output" "$tmp/err" ||
    fail "two witnesses onto one output: exit $status: $(cat "$tmp/err")"
[ ! -e "$tmp/never" ] || fail "a refused run made its --out folder"
"$bin" $small --out "$tmp/made/" --metrics "$tmp/made/run.prom" "$d/witness.wtns" \
    >/dev/null 2>"$tmp/err" || fail "--metrics in the new --out folder: exit $?: $(cat "$tmp/err")"
[ -s "$tmp/made/run.prom" ] && [ -s "$tmp/made/witness.proof.json" ] ||
    fail "the outputs in the new folder: $(ls "$tmp/made")"

echo "== --out refuses a missing parent, a symbolic link and a file"
refused() { # refused WHAT TEXT DIR
    status=0
    "$bin" $small --out "$3" "$d/witness.wtns" >/dev/null 2>"$tmp/err" || status=$?
    [ "$status" -eq 1 ] || fail "$1: exit $status, not 1"
    grep -q -- "$2" "$tmp/err" || fail "$1: no \"$2\" in: $(cat "$tmp/err")"
}
refused "a missing parent" "its parent is missing" "$tmp/none/out"
[ ! -e "$tmp/none" ] || fail "--out made the missing parent"
mkdir "$tmp/real"
ln -s "$tmp/real" "$tmp/link"
refused "a symbolic link" "is a symbolic link" "$tmp/link"
[ -z "$(ls "$tmp/real")" ] || fail "outputs written through the link"
: >"$tmp/file"
refused "a file" "is not a folder" "$tmp/file"

echo "== --json lists each witness"
printf 'not a witness' >"$tmp/bad.wtns"
status=0
"$bin" $small --out "$tmp/json" --json "$d/witness.wtns" "$tmp/bad.wtns" \
    >"$tmp/stdout" 2>"$tmp/stderr" || status=$?
[ "$status" -eq 1 ] || fail "a bad witness: exit $status, not 1"
json=$(tail -n 1 "$tmp/stdout")
echo "$json"
good=$(printf '%s\n' "$json" | sed -n 's/.*"witnesses":\[\({[^}]*}\),.*/\1/p')
bad=$(printf '%s\n' "$json" | sed -n 's/.*"witnesses":\[{[^}]*},\({[^}]*}\)\]}$/\1/p')
printf '%s\n' "$good" | grep -q "^{\"name\":\"$d/witness.wtns\",\"status\":\"proved\",\"proof\":\"$tmp/json/witness.proof.json\",\"public\":\"$tmp/json/witness.public.json\",\"ms\":[0-9][0-9.]*}$" ||
    fail "the good witness's entry: $good"
printf '%s\n' "$bad" | grep -q "^{\"name\":\"$tmp/bad.wtns\",\"status\":\"ZKPIPE_E[A-Z]*\",\"error\":\"[^\"]*bad.wtns[^\"]*\",\"ms\":[0-9][0-9.]*}$" ||
    fail "the bad witness's entry: $bad"
for f in log_constraints curves '"jobs"'; do
    printf '%s\n' "$json" | grep -q "$f" && fail "--zkey's JSON has $f, which does not apply"
done
if command -v python3 >/dev/null 2>&1; then
    printf '%s\n' "$json" | python3 -c 'import json, sys; json.load(sys.stdin)' ||
        fail "not valid JSON: $json"
else
    skip_checks "--json's JSON check (no python3)"
fi
"$verify" "$d/verification_key.json" "$tmp/json/witness.public.json" \
    "$tmp/json/witness.proof.json" >/dev/null || fail "the listed proof does not verify"

echo "== a witness name that is not UTF-8 stays valid JSON"
name=$(printf 'w\351"\\.wtns')
cp "$d/witness.wtns" "$tmp/$name"
"$bin" $small --out "$tmp/json" --json "$tmp/$name" >"$tmp/stdout" 2>"$tmp/stderr" ||
    fail "an odd name: exit $?: $(cat "$tmp/stderr")"
tail -n 1 "$tmp/stdout" | grep -q 'w\\ufffd\\"\\\\.wtns' ||
    fail "the odd name not escaped: $(tail -n 1 "$tmp/stdout")"

echo "== the counter line: stderr, with --report-ms only"
mkdir "$tmp/many"
for n in 1 2 3 4 5 6 7 8; do cp "$d/witness.wtns" "$tmp/many/$n.wtns"; done
"$bin" $small --out "$tmp/many" --report-ms 1 "$tmp/many/"*.wtns >"$tmp/stdout" 2>"$tmp/stderr" ||
    fail "--report-ms 1: exit $?: $(cat "$tmp/stderr")"
grep -q 'unaccounted~=' "$tmp/stdout" && fail "a counter line on stdout: $(cat "$tmp/stdout")"
grep -q 'unaccounted~=' "$tmp/stderr" || fail "no counter line on stderr: $(cat "$tmp/stderr")"
skips_done
echo "PASS"
