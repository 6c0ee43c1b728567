#!/bin/sh
# zkpipe-export-circuit and zkpipe-setup against snarkjs (tests/interop/node_modules), on both
# curves:
#   - the exported test circuit is an r1cs and a witness snarkjs takes; the seeded zkey proves
#     and verifies with zkpipe and with snarkjs, says INSECURE on stderr and in its
#     contribution name, and is the same file for the same seed;
#   - from a phase-2-prepared powers of tau made here (power 7), the zkey is snarkjs's
#     `groth16 setup` file byte for byte, at the ceremony's level and below, and `snarkjs zkey
#     verify` accepts it;
#   - refused with exit 1, one line naming the file, and nothing written (no zkey, nothing
#     beside it): a ptau too small for the circuit, of the other curve, truncated, not prepared;
#     a truncated r1cs; an output that is an input; usage errors exit 2.
# Without node and snarkjs, the parts that need them are skipped (the seeded zkey still proves
# and verifies with zkpipe).
#   test_setup.sh EXPORT SETUP PROVE VERIFY
set -eu
[ $# -eq 4 ] || { echo "usage: test_setup.sh EXPORT SETUP PROVE VERIFY" >&2; exit 2; }
export_circuit=$1 setup=$2 prove=$3 verify=$4
snarkjs=$(cd "$(dirname "$0")/interop" && pwd)/node_modules/.bin/snarkjs
. "$(dirname "$0")/support/cli_checks.sh"
have_snarkjs=0
if command -v node >/dev/null 2>&1 && [ -x "$snarkjs" ]; then
    have_snarkjs=1
else
    skip_checks "snarkjs's checks (node or tests/interop/node_modules missing: npm ci there)"
fi
cd "$tmp"

sj() { # snarkjs ARGS...: fails on a nonzero exit or an [ERROR] line (it exits 0 on some)
    "$snarkjs" "$@" >"$tmp/sj.out" 2>&1 && ! grep -q '\[ERROR\]' "$tmp/sj.out" ||
        { fail "snarkjs $*: $(cat "$tmp/sj.out")"; return 1; }
}

nothing_written() { # LABEL ZKEY
    [ ! -e "$2" ] || fail "$1: $2 was written"
    no_leftovers "$1" "$tmp"
    rm -f "$2"
}

for curve in bn254 bls12-381; do
    accepted "export $curve" "$export_circuit" --curve "$curve" --log-constraints 6 --public 2 \
        "$curve.r1cs" "$curve.wtns"
    accepted "seeded $curve" "$setup" --insecure-seed 5 "$curve.r1cs" "$curve.zkey"
    grep -q 'INSECURE' "$tmp/stderr" || fail "seeded $curve: no INSECURE on stderr"
    grep -aq 'INSECURE seeded setup' "$curve.zkey" || fail "seeded $curve: no INSECURE in the zkey"
    accepted "seeded $curve again" "$setup" --insecure-seed 5 "$curve.r1cs" "again.zkey"
    cmp -s "$curve.zkey" again.zkey || fail "seeded $curve: two runs with one seed differ"
    accepted "seeded $curve, seed 6" "$setup" --insecure-seed 6 "$curve.r1cs" "again.zkey"
    ! cmp -s "$curve.zkey" again.zkey || fail "seeded $curve: seeds 5 and 6 give one zkey"
    accepted "prove $curve" "$prove" "$curve.zkey" "$curve.wtns" proof.json public.json
    if [ "$have_snarkjs" -eq 1 ]; then
        sj wtns check "$curve.r1cs" "$curve.wtns"
        sj zkey export verificationkey "$curve.zkey" vk.json
        accepted "zkpipe-verify $curve" "$verify" vk.json public.json proof.json
        sj groth16 verify vk.json public.json proof.json
        sj groth16 prove "$curve.zkey" "$curve.wtns" sproof.json spublic.json
        sj groth16 verify vk.json spublic.json sproof.json
        accepted "zkpipe-verify snarkjs's $curve" "$verify" vk.json spublic.json sproof.json
    fi
done

if [ "$have_snarkjs" -eq 1 ]; then
    for curve in bn254 bls12-381; do
        scurve=bn128
        [ "$curve" = bn254 ] || scurve=bls12381
        sj powersoftau new "$scurve" 7 p0.ptau
        sj powersoftau beacon p0.ptau "$curve-raw.ptau" 0102030405 10 -n=test
        sj powersoftau prepare phase2 "$curve-raw.ptau" "$curve.ptau"
        for k in 7 5; do
            accepted "export 2^$k $curve" "$export_circuit" --curve "$curve" --log-constraints "$k" \
                "c$k.r1cs" "c$k.wtns"
            accepted "ptau setup 2^$k $curve" "$setup" --ptau "$curve.ptau" "c$k.r1cs" ours.zkey
            sj groth16 setup "c$k.r1cs" "$curve.ptau" theirs.zkey
            cmp ours.zkey theirs.zkey >/dev/null ||
                fail "ptau setup 2^$k $curve: not snarkjs's zkey: $(cmp ours.zkey theirs.zkey 2>&1)"
            sj zkey verify "c$k.r1cs" "$curve.ptau" ours.zkey
            grep -q 'ZKey Ok' "$tmp/sj.out" || fail "zkey verify 2^$k $curve: $(cat "$tmp/sj.out")"
            rm -f ours.zkey theirs.zkey
        done
    done
    accepted "export 2^8" "$export_circuit" --log-constraints 8 c8.r1cs c8.wtns
    refused "ptau too small" "2^8" "$setup" --ptau bn254.ptau c8.r1cs out.zkey
    nothing_written "ptau too small" out.zkey
    # bn254.r1cs: 2^6 rows, on BN254.
    refused "ptau of the other curve" bls12-381.ptau \
        "$setup" --ptau bls12-381.ptau bn254.r1cs out.zkey
    nothing_written "ptau of the other curve" out.zkey
    head -c 100000 bn254.ptau >short.ptau
    refused "truncated ptau" short.ptau "$setup" --ptau short.ptau bn254.r1cs out.zkey
    nothing_written "truncated ptau" out.zkey
    refused "unprepared ptau" "prepare phase2" "$setup" --ptau bn254-raw.ptau bn254.r1cs out.zkey
    nothing_written "unprepared ptau" out.zkey
    clash "zkey onto the ptau" bn254.ptau bn254.ptau "$setup" --ptau bn254.ptau bn254.r1cs \
        bn254.ptau
fi

head -c 3000 bn254.r1cs >short.r1cs
refused "truncated r1cs" short.r1cs "$setup" --insecure-seed 1 short.r1cs out.zkey
nothing_written "truncated r1cs" out.zkey
clash "zkey onto the r1cs" bn254.r1cs bn254.r1cs "$setup" --insecure-seed 1 bn254.r1cs bn254.r1cs
ln -s bn254.r1cs link.zkey
clash "zkey onto a link to the r1cs" link.zkey bn254.r1cs \
    "$setup" --insecure-seed 1 bn254.r1cs link.zkey
mkdir folder.zkey
refused "zkey a folder" folder.zkey "$setup" --insecure-seed 1 bn254.r1cs folder.zkey
run "no toxic waste" "$setup" bn254.r1cs out.zkey
[ "$status" -eq 2 ] || fail "no toxic waste: exit $status"
run "both sources" "$setup" --insecure-seed 1 --ptau x.ptau bn254.r1cs out.zkey
[ "$status" -eq 2 ] || fail "both sources: exit $status"
run "export K 3" "$export_circuit" --log-constraints 3 a.r1cs a.wtns
[ "$status" -eq 2 ] || fail "export K 3: exit $status"
# The argument walk the three tools share (tools/cli/cli_args.c): the same refusals, exit 2.
for t in "$setup --insecure-seed 1" "$export_circuit" "$prove"; do
    name=${t%% *}
    name=${name##*/}
    # shellcheck disable=SC2086 # the tool and its first flags, split on purpose
    for bad in "--bogus 1" "--seed" "--threads -1" "--threads x" "a b c d e"; do
        run "$name $bad" $t $bad
        [ "$status" -eq 2 ] || fail "$name $bad: exit $status, not 2"
    done
    # shellcheck disable=SC2086
    $t --version | grep -q "(zkpipe)" || fail "$name --version"
    # shellcheck disable=SC2086
    $t --help | grep -q "^usage:" || fail "$name --help"
done
# After "--" every argument is a file, even one that looks like a flag: missing files, exit 1.
run "prove after --" "$prove" -- --a.zkey b.wtns c.json d.json
[ "$status" -eq 1 ] || fail "prove -- FILES: exit $status, not 1"
nothing_written "usage errors" out.zkey
checks_done
