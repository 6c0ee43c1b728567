#!/bin/sh
# Writes bad inputs for zkpipe-prove and zkpipe-verify, derived from the good fixtures, and a
# list of cases, one a line:
#   prove  <name> <zkey> <wtns>
#   r1cs   <name> <r1cs> <zkey> <wtns>    (zkpipe-prove --r1cs: the constraints checked first)
#   verify <name> <verification_key.json> <public.json> <proof.json>
# Each path is F:<path in the fixtures folder> or B:<file in the output folder>, so the list
# stays valid wherever the two folders are. Every case must be refused.
# Usage: make-bad.sh FIXTURES_DIR OUT_DIR
set -eu
[ $# -eq 2 ] || { echo "usage: make-bad.sh FIXTURES_DIR OUT_DIR" >&2; exit 2; }
fix=$1 out=$2
tamper="$(dirname "$0")/json-tamper.sh"
mkdir -p "$out"
cases=$out/cases
: >"$cases"

# Little-endian integers and single bytes, with od and dd only.
u32() {
    od -An -tu1 -j "$2" -N4 "$1" | awk '{ print $1 + 256 * ($2 + 256 * ($3 + 256 * $4)) }'
}
u64() {
    echo $(($(u32 "$1" "$2") + 4294967296 * $(u32 "$1" $(($2 + 4)))))
}
put_bytes() { # file offset bytes (text, or \0ooo octal escapes)
    printf '%b' "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
octal() { # byte values -> \0ooo escapes
    for v in "$@"; do printf '\\0%03o' "$v"; done
}
put_u32() {
    put_bytes "$1" "$2" "$(octal $(($3 & 255)) $(($3 >> 8 & 255)) $(($3 >> 16 & 255)) \
        $(($3 >> 24 & 255)))"
}
flip_low_bit() {
    put_bytes "$1" "$2" "$(octal $(($(od -An -tu1 -j "$2" -N1 "$1") ^ 1)))"
}
hex_bytes() { # hex string -> \0ooo escapes
    for h in $(echo "$1" | sed 's/../& /g'); do octal $((0x$h)); done
}

# section FILE ID: the payload offset and length of the first section ID (iden3 container).
section() {
    off=12
    i=0
    n=$(u32 "$1" 8)
    while [ "$i" -lt "$n" ]; do
        if [ "$(u32 "$1" "$off")" -eq "$2" ]; then
            sec_off=$((off + 12))
            sec_len=$(u64 "$1" $((off + 4)))
            return 0
        fi
        off=$((off + 12 + $(u64 "$1" $((off + 4)))))
        i=$((i + 1))
    done
    echo "make-bad.sh: $1 has no section $2" >&2
    exit 1
}

# first_point FILE ID SIZE: offset of the first point in section ID that is not all zeros.
first_point() {
    section "$1" "$2"
    p=$sec_off
    while [ "$p" -lt $((sec_off + sec_len)) ]; do
        if [ -n "$(od -An -tx1 -j "$p" -N "$3" "$1" | tr -d ' 0\n')" ]; then
            echo "$p"
            return 0
        fi
        p=$((p + $3))
    done
    echo "make-bad.sh: section $2 of $1 holds no point" >&2
    exit 1
}

add() { echo "$*" >>"$cases"; }

copy() { # good-fixture bad-name: a fresh copy to corrupt
    cp "$fix/$1" "$out/$2"
    chmod u+w "$out/$2"
    echo "$out/$2"
}

truncated() { # good-fixture bad-name length
    head -c "$3" "$fix/$1" >"$out/$2"
}

# container GOOD-FIXTURE PREFIX EXT BAD-MAGIC: what can be wrong with any iden3 container.
container() {
    size=$(wc -c <"$fix/$1")
    truncated "$1" "$2-empty.$3" 0
    truncated "$1" "$2-cut-in-header.$3" 10
    truncated "$1" "$2-cut-in-half.$3" $((size / 2))
    truncated "$1" "$2-cut-last-byte.$3" $((size - 1))
    put_bytes "$(copy "$1" "$2-bad-magic.$3")" 0 "$4"
    put_u32 "$(copy "$1" "$2-bad-version.$3")" 4 99
    # The high half of the first section's length: 2^44 bytes more than the file holds.
    put_u32 "$(copy "$1" "$2-section-overrun.$3")" 20 4096
}

# (4, y) on y^2 = x^3 + 4 over BLS12-381's base field, not in G1 (r·P != O), as a zkey stores
# it: x and y little-endian in Montgomery form.
BLS_G1_OUTSIDE=f3ff0c00000027aa0a0034fc3200cc537f800a6b7ae98f47d724bae6be7ed3b12fab78bf3b73c98e7ede833d5145d6097e1426621d63ff7dfa944cb4c4ff555cdcccb2cec74a4c53d4e4cd0a1157abc0bd6848a00ccb7d3cc7723de9d4a51b16

for curve in bls12381 bn128; do
    case $curve in
    bls12381)
        other=bn128
        r=52435875175126190479447740508185965837690552500527637822603658699938581184513
        ;;
    bn128)
        other=bls12381
        r=21888242871839275222246405745257275088548364400416034343698204186575808495617
        ;;
    esac
    g=$curve/hashchain
    zkey=$g/circuit.zkey wtns=$g/witness.wtns
    vk=$g/verification_key.json pub=$g/public.json proof=$g/proof.json
    c=$curve-

    # zkey: container, header, points, coefficients.
    container "$zkey" "${c}zkey" zkey zkez
    f=$(copy "$zkey" "${c}zkey-not-groth16.zkey")
    section "$f" 1
    put_u32 "$f" "$sec_off" 2
    # Header: n8q, q, n8r, r, nVars, nPublic, domainSize, alpha1, ...
    section "$fix/$zkey" 2
    n8q=$(u32 "$fix/$zkey" "$sec_off")
    n8r=$(u32 "$fix/$zkey" $((sec_off + 4 + n8q)))
    nvars_at=$((sec_off + 4 + n8q + 4 + n8r))
    alpha_at=$((nvars_at + 12))
    npublic=$(u32 "$fix/$zkey" $((nvars_at + 4)))
    flip_low_bit "$(copy "$zkey" "${c}zkey-bad-prime.zkey")" $((sec_off + 4)) # q - 1
    f=$(copy "$zkey" "${c}zkey-nvars-mismatch.zkey")
    put_u32 "$f" "$nvars_at" $(($(u32 "$f" "$nvars_at") + 1))
    put_u32 "$(copy "$zkey" "${c}zkey-domain-not-power-of-two.zkey")" $((nvars_at + 8)) 1000
    put_u32 "$(copy "$zkey" "${c}zkey-domain-too-small.zkey")" $((nvars_at + 8)) 2
    flip_low_bit "$(copy "$zkey" "${c}zkey-alpha-off-curve.zkey")" $((alpha_at + n8q))
    for s in 5:A:2 6:B1:2 7:B2:4 8:C:2 9:H:2; do
        id=${s%%:*} name=${s#*:} name=${name%:*} words=${s##*:}
        f=$(copy "$zkey" "${c}zkey-$name-off-curve.zkey")
        p=$(first_point "$f" "$id" $((words * n8q)))
        flip_low_bit "$f" $((p + words * n8q / 2)) # the lowest byte of y (y.c0 in G2)
    done
    f=$(copy "$zkey" "${c}zkey-coef-wire-out-of-range.zkey")
    section "$f" 4
    put_u32 "$f" $((sec_off + 4 + 8)) 4000000000
    f=$(copy "$zkey" "${c}zkey-coef-row-out-of-range.zkey")
    section "$f" 4
    put_u32 "$f" $((sec_off + 4 + 4)) 4000000000
    f=$(copy "$zkey" "${c}zkey-coef-bad-matrix.zkey")
    section "$f" 4
    put_u32 "$f" $((sec_off + 4)) 2
    if [ "$curve" = bls12381 ]; then
        put_bytes "$(copy "$zkey" "${c}zkey-alpha-not-in-subgroup.zkey")" "$alpha_at" \
            "$(hex_bytes "$BLS_G1_OUTSIDE")"
    fi
    for f in "$out/$c"zkey-*; do
        add prove "$(basename "$f" .zkey)" "B:$(basename "$f")" "F:$wtns"
    done
    add prove "${c}zkey-missing" "B:${c}no-such.zkey" "F:$wtns"
    # A valid point where another belongs: the A query's point of wire 1 over wire 0's (the
    # constant 1, so every proof's A moves). The zkey opens; the prover's own check refuses its
    # proofs: from the witness alone as ZKPIPE_EUNSATISFIED (a bad witness looks the same),
    # with the .r1cs checked first as ZKPIPE_EVERIFY, naming the zkey.
    sh "$(dirname "$0")/zkey-wrong-point.sh" "$fix/$zkey" "$out/${c}key-wrong-point.zkey"
    add prove "${c}key-wrong-point" "B:${c}key-wrong-point.zkey" "F:$wtns"
    add r1cs "${c}key-wrong-point-r1cs" "F:$g/circuit.r1cs" "B:${c}key-wrong-point.zkey" "F:$wtns"

    # wtns: container, header, values, and zkey/wtns pairs that do not belong together.
    container "$wtns" "${c}wtns" wtns wtnz
    f=$(copy "$wtns" "${c}wtns-count-mismatch.wtns")
    section "$f" 1
    n8=$(u32 "$f" "$sec_off")
    put_u32 "$f" $((sec_off + 4 + n8)) $(($(u32 "$f" $((sec_off + 4 + n8))) + 1))
    # The first private wire, right after the constant and the public ones.
    f=$(copy "$wtns" "${c}wtns-unsatisfied.wtns")
    section "$f" 2
    flip_low_bit "$f" $((sec_off + (npublic + 1) * n8))
    f=$(copy "$wtns" "${c}wtns-value-not-reduced.wtns")
    section "$f" 2
    put_bytes "$f" $((sec_off + (npublic + 1) * n8)) "$(hex_bytes "$(printf '%0*d' $((2 * n8)) 0 |
        tr 0 f)")"
    for f in "$out/$c"wtns-*; do
        add prove "$(basename "$f" .wtns)" "F:$zkey" "B:$(basename "$f")"
    done
    add prove "${c}wtns-missing" "F:$zkey" "B:${c}no-such.wtns"
    add prove "${c}wtns-other-curve" "F:$zkey" "F:$other/hashchain/witness.wtns"
    add prove "${c}wtns-other-circuit" "F:$zkey" "F:$curve/rangesum/witness.wtns"
    add prove "${c}wtns-smaller-circuit" "F:$zkey" "F:$curve/multiplier/witness.wtns"

    # r1cs, and a witness that breaks a constraint the r1cs can name.
    container "$g/circuit.r1cs" "${c}r1cs" r1cs r1cz
    for f in "$out/$c"r1cs-*; do
        add r1cs "$(basename "$f" .r1cs)" "B:$(basename "$f")" "F:$zkey" "F:$wtns"
    done
    add r1cs "${c}r1cs-other-curve" "F:$other/hashchain/circuit.r1cs" "F:$zkey" "F:$wtns"
    add r1cs "${c}r1cs-other-circuit" "F:$curve/rangesum/circuit.r1cs" "F:$zkey" "F:$wtns"
    add r1cs "${c}r1cs-unsatisfied" "F:$g/circuit.r1cs" "F:$zkey" "B:${c}wtns-unsatisfied.wtns"

    # verify: JSON that is not what it claims, proofs that do not verify, wrong publics.
    printf 'not a proof {"pi_a": [' >"$out/${c}proof-garbage.json"
    : >"$out/${c}proof-empty.json"
    truncated "$proof" "${c}proof-cut-in-half.json" $(($(wc -c <"$fix/$proof") / 2))
    "$tamper" bump "$fix/$proof" "$out/${c}proof-off-curve.json"
    "$tamper" swap-ac "$fix/$proof" "$out/${c}proof-invalid.json"
    for f in "$out/$c"proof-*; do
        add verify "$(basename "$f" .json)" "F:$vk" "F:$pub" "B:$(basename "$f")"
    done
    add verify "${c}proof-other-curve" "F:$vk" "F:$pub" "F:$other/hashchain/proof.json"
    add verify "${c}proof-other-circuit" "F:$vk" "F:$pub" "F:$curve/rangesum/proof.json"
    add verify "${c}proof-missing" "F:$vk" "F:$pub" "B:${c}no-such-proof.json"
    cp "$out/${c}proof-garbage.json" "$out/${c}vk-garbage.json"
    add verify "${c}vk-garbage" "B:${c}vk-garbage.json" "F:$pub" "F:$proof"
    add verify "${c}vk-other-curve" "F:$other/hashchain/verification_key.json" "F:$pub" "F:$proof"
    add verify "${c}vk-other-circuit" "F:$curve/rangesum/verification_key.json" "F:$pub" \
        "F:$proof"
    "$tamper" bump "$fix/$pub" "$out/${c}public-wrong-value.json"
    "$tamper" drop-last "$fix/$pub" "$out/${c}public-too-few.json"
    "$tamper" set-first "$fix/$pub" "$out/${c}public-not-reduced.json" "$r"
    printf '["12", "x"]' >"$out/${c}public-garbage.json"
    for f in "$out/$c"public-*; do
        add verify "$(basename "$f" .json)" "F:$vk" "B:$(basename "$f")" "F:$proof"
    done
done
