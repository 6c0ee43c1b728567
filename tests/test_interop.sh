#!/bin/sh
# circom/snarkjs interop of zkpipe-prove ($2) and zkpipe-verify ($3), on the fixtures in
# tests/interop/fixtures (both curves, several circuits).
#   test_interop.sh good PROVE VERIFY: each fixture is proved (also with --r1cs, which checks
#     the constraints first); our proof verifies with our verifier and, when node and
#     tests/interop/node_modules are there, with snarkjs; snarkjs's proofs verify with ours;
#     a tampered proof and a wrong public.json are refused.
#   test_interop.sh bad PROVE VERIFY: every case of interop/make-bad.sh is refused with exit 1
#     (2 for a bad command line; a signal or a sanitizer report is no refusal), one line on
#     stderr naming an input, and no output left.
#   test_interop.sh verdicts PROVE VERIFY TEST_SNARKJS_JSON: the JSON cases of
#     tests/test_snarkjs_json.c (--write-variants) get the same verdict from zkpipe-verify as
#     from snarkjs (when node and tests/interop/node_modules are there), or, where zkpipe is
#     deliberately stricter (README.md, "What zkpipe-verify takes"), a refusal of what
#     snarkjs takes: every such variant, and no variant without a verdict from snarkjs.
# Without node or tests/interop/node_modules the checks that need snarkjs are skipped, the
# others run, and the test exits 77 (skipped) when they pass.
set -eu
if [ $# -lt 3 ] || { [ "$1" = verdicts ] && [ $# -ne 4 ]; }; then
    echo "usage: test_interop.sh good|bad ZKPIPE_PROVE ZKPIPE_VERIFY" >&2
    echo "       test_interop.sh verdicts ZKPIPE_PROVE ZKPIPE_VERIFY TEST_SNARKJS_JSON" >&2
    exit 2
fi
mode=$1 prove=$2 verify=$3 writer=${4:-}
interop=$(cd "$(dirname "$0")/interop" && pwd)
fixtures=$interop/fixtures
# $tmp, fail, run, accepted, exit_says, expect_refusal, skip_checks, checks_done (refused is
# this test's own, below)
. "$(dirname "$0")/support/cli_checks.sh"

# refused LABEL INPUTS CMD...: exit 1 and one stderr line that names one of INPUTS
# (space-separated paths); INPUTS "-" for a usage error: exit 2, some message, any length.
refused() {
    label=$1 inputs=$2
    shift 2
    run "$label" "$@"
    want=1
    [ "$inputs" != - ] || want=2
    if ! is_refusal "$status" "$want"; then
        fail "$label: $(exit_says "$status"), expected exit $want: $(head -c 2000 "$tmp/stderr")"
        return
    fi
    if [ "$inputs" = - ]; then
        [ -s "$tmp/stderr" ] || fail "$label: nothing on stderr"
        return
    fi
    lines=$(awk 'END { print NR }' "$tmp/stderr")
    if [ "$lines" -ne 1 ]; then
        fail "$label: $lines lines on stderr, not 1: $(head -c 2000 "$tmp/stderr")"
        return
    fi
    line=$(cat "$tmp/stderr")
    for f in $inputs; do
        case $line in *"$(basename "$f")"*) return ;; esac
    done
    fail "$label: the message names none of the inputs: $line"
}

same_json() { # A B: equal up to whitespace
    [ "$(tr -d ' \t\r\n' <"$1")" = "$(tr -d ' \t\r\n' <"$2")" ]
}

snarkjs=$interop/node_modules/.bin/snarkjs
if command -v node >/dev/null 2>&1 && [ -x "$snarkjs" ]; then
    have_snarkjs=1
else
    have_snarkjs=0
fi

# snarkjs_says LABEL WANT VK PUBLIC PROOF: WANT is ok (snarkjs prints OK! and exits 0) or no.
snarkjs_says() {
    label=$1 want=$2
    shift 2
    run "$label" "$snarkjs" groth16 verify "$@"
    if [ "$status" -eq 0 ] && grep -q 'OK!' "$tmp/stdout"; then got=ok; else got=no; fi
    [ "$got" = "$want" ] || fail "$label: snarkjs said $got, expected $want: $(cat "$tmp/stdout")"
}

no_snarkjs="snarkjs's checks (node or tests/interop/node_modules missing: npm ci there)"

# The committed fixtures: 4 circuits on each of 2 curves.
fixture_count=8

good() {
    [ "$have_snarkjs" -eq 1 ] || skip_checks "$no_snarkjs"
    n=0
    for dir in "$fixtures"/*/*/; do
        dir=${dir%/}
        name=$(basename "$(dirname "$dir")")/$(basename "$dir")
        out=$tmp/$(echo "$name" | tr / -)
        mkdir -p "$out"
        vk=$dir/verification_key.json
        n=$((n + 1))

        accepted "$name: prove --r1cs" "$prove" --r1cs "$dir/circuit.r1cs" "$dir/circuit.zkey" \
            "$dir/witness.wtns" "$out/proof.json" "$out/public.json"
        accepted "$name: prove" "$prove" --threads 2 --metrics "$out/metrics.json" \
            "$dir/circuit.zkey" "$dir/witness.wtns" "$out/proof.json" "$out/public.json"
        [ "$status" -eq 0 ] || continue
        same_json "$out/public.json" "$dir/public.json" ||
            fail "$name: public.json differs from snarkjs's"
        proof=$(tr -d ' \t\r\n' <"$out/proof.json")
        curve=$(basename "$(dirname "$dir")")
        for want in '"protocol":"groth16"' "\"curve\":\"$curve\"" \
            '"pi_a":[' '"pi_b":[[' '"pi_c":['; do
            case $proof in *"$want"*) ;; *) fail "$name: proof.json has no $want" ;; esac
        done
        [ "$(tr -d ' \t\r\n' <"$out/metrics.json" | head -c 1)" = "{" ] ||
            fail "$name: --metrics wrote no JSON object"
        accepted "$name: verify our proof" "$verify" "$vk" "$out/public.json" "$out/proof.json"
        for p in proof.json proof_det.json; do
            accepted "$name: verify snarkjs's $p" "$verify" "$vk" "$dir/public.json" "$dir/$p"
        done
        # rapidsnark's proof.json has no "curve": the key's is taken; arkworks-based exporters
        # also leave out z (README.md, "What zkpipe-verify takes").
        for p in "$out/proof.json" "$dir/proof.json"; do
            for shape in rapidsnark arkworks; do
                if ! "$interop/json-tamper.sh" "$shape" "$p" "$out/$shape.json"; then
                    fail "$name: $p has no pi_a, pi_b, pi_c"
                    continue
                fi
                accepted "$name: verify $p in $shape's shape" "$verify" "$vk" \
                    "$dir/public.json" "$out/$shape.json"
                # snarkjs on arkworks' shape once a fixture: each run costs seconds
                if [ "$have_snarkjs" -eq 1 ] &&
                    { [ "$shape" = rapidsnark ] || [ "$p" = "$dir/proof.json" ]; }; then
                    snarkjs_says "$name: snarkjs on $p in $shape's shape" ok "$vk" \
                        "$dir/public.json" "$out/$shape.json"
                fi
            done
        done

        if ! "$interop/json-tamper.sh" swap-ac "$out/proof.json" "$out/tampered.json"; then
            fail "$name: our proof.json has no pi_a, pi_b, pi_c to tamper with"
            continue
        fi
        # Which file is wrong when the pairing check fails is unknowable: any may be named.
        refused "$name: tampered proof" "$vk $out/public.json $out/tampered.json" \
            "$verify" "$vk" "$out/public.json" "$out/tampered.json"
        if ! "$interop/json-tamper.sh" bump "$dir/public.json" "$out/wrong_public.json" \
            2>/dev/null; then
            echo '["1"]' >"$out/wrong_public.json" # no signal to change: one too many
        fi
        refused "$name: wrong public.json" "$vk $out/wrong_public.json $out/proof.json" \
            "$verify" "$vk" "$out/wrong_public.json" "$out/proof.json"

        if [ "$have_snarkjs" -eq 1 ]; then
            snarkjs_says "$name: snarkjs on our proof" ok "$vk" "$out/public.json" "$out/proof.json"
            snarkjs_says "$name: snarkjs on our tampered proof" no "$vk" "$out/public.json" \
                "$out/tampered.json"
        fi
    done
    [ "$n" -eq "$fixture_count" ] || fail "$n fixtures in $fixtures, not $fixture_count"

    # Defaults (all threads, no metrics) give the same public signals.
    dir=$fixtures/bn128/multiplier
    out=$tmp/defaults
    mkdir -p "$out"
    accepted "defaults: prove" "$prove" "$dir/circuit.zkey" "$dir/witness.wtns" \
        "$out/proof.json" "$out/public.json"
    if [ "$status" -eq 0 ]; then
        same_json "$out/public.json" "$dir/public.json" || fail "defaults: public.json differs"
        accepted "defaults: verify" "$verify" "$dir/verification_key.json" "$out/public.json" \
            "$out/proof.json"
    fi
    for opt in --help --version; do
        accepted "zkpipe-prove $opt" "$prove" "$opt"
        [ -s "$tmp/stdout" ] || fail "zkpipe-prove $opt printed nothing"
    done
    echo "$n fixtures proved and verified"
}

resolve() { # F:path or B:path from make-bad.sh's list
    case $1 in
    F:*) echo "$fixtures/${1#F:}" ;;
    B:*) echo "$tmp/bad/${1#B:}" ;;
    *) echo "$1" ;;
    esac
}

bad() {
    sh "$interop/make-bad.sh" "$fixtures" "$tmp/bad"
    n=0 wrong_point=0
    while read -r kind name a b c; do
        a=$(resolve "$a") b=$(resolve "$b") c=$(resolve "${c:-}")
        out=$tmp/out-$name
        mkdir "$out"
        case $kind in
        prove) refused "$name" "$a $b" "$prove" "$a" "$b" "$out/proof.json" "$out/public.json" ;;
        r1cs)
            refused "$name" "$a $b $c" \
                "$prove" --r1cs "$a" "$b" "$c" "$out/proof.json" "$out/public.json"
            ;;
        verify) refused "$name" "$a $b $c" "$verify" "$a" "$b" "$c" ;;
        *) fail "unknown case kind $kind" ;;
        esac
        # The prover's own check on a well-formed zkey with a wrong point (make-bad.sh): its
        # status says which cause the inputs allow.
        case $name in
        *key-wrong-point-r1cs) want="$b: .*(ZKPIPE_EVERIFY)" ;;
        *key-wrong-point) want="(ZKPIPE_EUNSATISFIED)" ;;
        *) want= ;;
        esac
        if [ -n "$want" ]; then
            wrong_point=$((wrong_point + 1))
            grep -q -- "$want" "$tmp/stderr" || fail "$name: not $want: $(cat "$tmp/stderr")"
        fi
        left=$(find "$out" -mindepth 1 | tr '\n' ' ')
        [ -z "$left" ] || fail "$name: left files behind: $left"
        n=$((n + 1))
    done <"$tmp/bad/cases"
    [ "$n" -gt 0 ] || fail "make-bad.sh listed no cases"
    [ "$wrong_point" -eq 4 ] || fail "$wrong_point wrong-point cases, not 2 on each curve"

    # Usage errors, and an output folder that does not exist.
    dir=$fixtures/bn128/multiplier
    zkey=$dir/circuit.zkey wtns=$dir/witness.wtns
    refused "prove without arguments" - "$prove"
    refused "prove with 3 files" - "$prove" "$zkey" "$wtns" "$tmp/proof.json"
    p=$tmp/p.json q=$tmp/q.json
    refused "prove --threads abc" - "$prove" --threads abc "$zkey" "$wtns" "$p" "$q"
    refused "prove --bogus" - "$prove" --bogus "$zkey" "$wtns" "$p" "$q"
    refused "verify with 2 files" - "$verify" "$dir/verification_key.json" "$dir/public.json"
    for f in "$p" "$q" "$tmp/proof.json"; do
        [ ! -e "$f" ] || fail "a refused command line left $f"
    done
    # Inputs that are not regular files or over the limits: refused without reading them whole.
    vk=$dir/verification_key.json pub=$dir/public.json proof=$dir/proof.json
    head -c 65537 /dev/zero | tr '\0' ' ' >"$tmp/big-proof.json"
    refused "verify /dev/zero as proof.json" /dev/zero "$verify" "$vk" "$pub" /dev/zero
    case $(cat "$tmp/stderr") in
    *"/dev/zero: cannot read: not a regular file"*) ;;
    *) fail "/dev/zero: not refused as a device: $(cat "$tmp/stderr")" ;;
    esac
    refused "verify /dev/zero as public.json" /dev/zero "$verify" "$vk" /dev/zero "$proof"
    refused "verify /dev/zero as the key" /dev/zero "$verify" /dev/zero "$pub" "$proof"
    refused "verify a proof.json over 64 KiB" "$tmp/big-proof.json" \
        "$verify" "$vk" "$pub" "$tmp/big-proof.json"
    case $(cat "$tmp/stderr") in *65536*) ;; *) fail "over 64 KiB: the limit is not named" ;; esac
    refused "verify a folder as the key" "$tmp" "$verify" "$tmp" "$pub" "$proof"
    refused "prove into a missing folder" "$tmp/no-such-dir/proof.json" \
        "$prove" "$zkey" "$wtns" "$tmp/no-such-dir/proof.json" "$tmp/public.json"
    [ ! -e "$tmp/public.json" ] || fail "prove into a missing folder left public.json"
    echo "$n bad inputs tried"
}

# zkpipe_says LABEL CMD...: sets $got to ok (exit 0), no (refused: exit 1), or what else the
# exit said (a crash, a sanitizer report, a usage error), which fails.
zkpipe_says() {
    run "$@"
    case $status in
    0) got=ok ;;
    1) got=no ;;
    *)
        got=$(exit_says "$status")
        fail "$1: $got: $(head -c 2000 "$tmp/stderr")"
        ;;
    esac
}

verdicts() {
    export ZKPIPE_SOURCE_DIR="${ZKPIPE_SOURCE_DIR:-$(cd "$interop/../.." && pwd)}"
    mkdir "$tmp/variants"
    "$writer" --write-variants "$tmp/variants" || { fail "cannot write the variants"; return; }
    if [ "$have_snarkjs" -eq 1 ]; then
        (cd "$interop" && node verify-many.cjs "$tmp/variants/cases") >"$tmp/snarkjs" ||
            fail "verify-many.cjs failed"
    else
        skip_checks "$no_snarkjs"
    fi
    n=0 n_ok=0 n_no=0 stricter=0 want_stricter=0
    while read -r expect name vk pub proof; do
        zkpipe_says "$name" "$verify" "$vk" "$pub" "$proof"
        theirs=$(awk -v n="$name" '$1 == n { print $2 }' "$tmp/snarkjs" 2>/dev/null || true)
        if [ "$have_snarkjs" -eq 1 ] && [ -z "$theirs" ]; then
            fail "$name: no verdict from snarkjs"
        fi
        case $expect in
        ok | no)
            if [ "$expect" = ok ]; then n_ok=$((n_ok + 1)); else n_no=$((n_no + 1)); fi
            [ "$got" = "$expect" ] || fail "$name: zkpipe-verify said $got, expected $expect"
            [ -z "$theirs" ] || [ "$theirs" = "$expect" ] ||
                fail "$name: snarkjs said $theirs, expected $expect"
            ;;
        stricter)
            want_stricter=$((want_stricter + 1))
            [ "$got" = no ] || fail "$name: zkpipe-verify took it"
            if [ "$theirs" = ok ]; then
                stricter=$((stricter + 1))
            elif [ -n "$theirs" ]; then
                fail "$name: snarkjs refused it too: expect no, not stricter"
            fi
            ;;
        *) fail "$name: unknown expectation $expect" ;;
        esac
        n=$((n + 1))
    done <"$tmp/variants/cases"
    # Each kind of verdict is among the variants: a writer that lost one would pass unseen.
    [ "$n_ok" -gt 0 ] && [ "$n_no" -gt 0 ] && [ "$want_stricter" -gt 0 ] ||
        fail "$n variants: $n_ok ok, $n_no no, $want_stricter stricter: a kind is missing"
    if [ "$have_snarkjs" -eq 1 ]; then
        [ "$(awk 'END { print NR }' "$tmp/snarkjs")" -eq "$n" ] ||
            fail "snarkjs gave $(awk 'END { print NR }' "$tmp/snarkjs") verdicts for $n variants"
        [ "$stricter" -eq "$want_stricter" ] ||
            fail "snarkjs took $stricter of the $want_stricter variants expected stricter"
    fi
    if [ "$have_snarkjs" -eq 1 ]; then
        echo "$n JSON variants: the same verdict as snarkjs but for $stricter that zkpipe" \
            "refuses ($want_stricter expected)"
    else
        echo "$n JSON variants judged by zkpipe alone ($want_stricter expected stricter)"
    fi
}

case $mode in
good) good ;;
bad) bad ;;
verdicts) verdicts ;;
*)
    echo "test_interop.sh: unknown mode $mode" >&2
    exit 2
    ;;
esac
checks_done
