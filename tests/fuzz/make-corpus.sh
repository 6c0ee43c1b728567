#!/bin/sh
# Rewrites the fuzzers' committed seed corpus, corpus/<name>/ beside this script, from
# test_io's tiny circuit (`test_io --write-seeds`) and the smallest interop fixtures (both
# curves): valid files, so that fuzzing starts deep in the readers.
#   make-corpus.sh TEST_IO [FIXTURES_DIR]
# The proofs are also seeded in rapidsnark's shape and in arkworks' (points without z).
# A json seed starts with fuzz_json.c's two selector bytes: the file kind (0 verifying key,
# 1 proof, 2 public signals), then the curve to read a proof on (0 BLS12-381, 1 BN254, 2 the
# one it names) or public signals on (0, 1).
# A job seed (fuzz_job.c) is a cap byte, then a stream entry's strings each ended by a 0 byte.
set -eu
[ $# -ge 1 ] || { echo "usage: make-corpus.sh TEST_IO [FIXTURES_DIR]" >&2; exit 2; }
test_io=$1
here=$(cd "$(dirname "$0")" && pwd)
fix=${2:-$here/../interop/fixtures}
tamper=$here/../interop/json-tamper.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$test_io" --write-seeds "$tmp/seeds"
rm -rf "$here/corpus"
for k in r1cs wtns zkey json; do
    mkdir -p "$here/corpus/$k"
    cp "$tmp/seeds/$k"/* "$here/corpus/$k/"
done
seed() { # KIND CURVE-BYTE FILE NAME: a json seed
    { printf "\\$1\\$2"; cat "$3"; } >"$here/corpus/json/$4"
}
for curve in bls12381 bn128; do
    for c in factors multiplier; do
        d=$fix/$curve/$c
        cp "$d/circuit.r1cs" "$here/corpus/r1cs/$curve-$c"
        cp "$d/witness.wtns" "$here/corpus/wtns/$curve-$c"
        cp "$d/circuit.zkey" "$here/corpus/zkey/$curve-$c"
    done
    d=$fix/$curve/multiplier
    byte=0
    [ "$curve" = bn128 ] && byte=1
    seed 0 0 "$d/verification_key.json" "vk-$curve-multiplier"
    seed 1 2 "$d/proof.json" "proof-$curve-multiplier"
    "$tamper" rapidsnark "$d/proof.json" "$tmp/rapidsnark.json"
    seed 1 "$byte" "$tmp/rapidsnark.json" "proof-rapidsnark-$curve-multiplier"
    "$tamper" arkworks "$d/proof.json" "$tmp/arkworks.json"
    seed 1 "$byte" "$tmp/arkworks.json" "proof-arkworks-$curve-multiplier"
    seed 2 "$byte" "$d/public.json" "public-$curve-multiplier"
done
mkdir -p "$here/corpus/job"
job() { # NAME STRINGS...: a job seed, the witness cap 2^20
    name_=$1
    shift
    { printf '\024'; for s_ in "$@"; do printf '%s\0' "$s_"; done; } >"$here/corpus/job/$name_"
}
job inline id j1 circuit mul wtns "$(head -c 64 "$fix/bn128/multiplier/witness.wtns" | od -An -tx1 | tr -d ' \n')" sub host-1-2
job input id j.2 circuit mul_2 input sub/dir/w.wtns sub token
job ignored id j3 circuit c input w.wtns deliveries 18446744073709551615 error x status ZKPIPE_EIO
job old id pwn zkey /k.zkey wtns /etc/shadow out /etc
job dotdot id x circuit c input ../w.wtns
job twice id a id b circuit c wtns w
job neither id a circuit c
job requeued id j circuit c input w requeued x
du -sh "$here/corpus"
