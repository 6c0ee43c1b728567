#!/bin/sh
# Edits a snarkjs proof.json or public.json without a JSON tool, for the interop tests:
#   json-tamper.sh swap-ac   IN OUT   proof with pi_a and pi_c exchanged (on the curve, invalid)
#   json-tamper.sh bump      IN OUT   the first number's last digit changed (9 -> 8, d -> d+1)
#   json-tamper.sh drop-last IN OUT   public signals without the last one
#   json-tamper.sh set-first IN OUT V public signals with the first one replaced by V
#   json-tamper.sh rapidsnark IN OUT  the proof as rapidsnark's prover writes it: one line,
#                                     keys sorted, no "curve"
#   json-tamper.sh arkworks  IN OUT   the proof as arkworks-based exporters write it: points
#                                     without z, no "curve"
# It reads any layout: the quoted strings are taken in order, the numbers filed under the
# proof key before them.
set -eu
if [ $# -lt 3 ]; then
    echo "usage: json-tamper.sh swap-ac|bump|drop-last|set-first|rapidsnark|arkworks IN OUT [V]" >&2
    exit 2
fi
mode=$1 in=$2 out=$3 value=${4:-}
awk -v mode="$mode" -v value="$value" '
{ text = text $0 "\n" }

function join(list, from, to,    s, i) {
    s = ""
    for (i = from; i <= to; i++) s = s (i > from ? "," : "") "\"" list[i] "\""
    return s
}

function pairs(list, n,    s, i) {
    s = ""
    for (i = 1; i <= n; i += 2) s = s (i > 1 ? "," : "") "[" join(list, i, i + 1) "]"
    return s
}

END {
    if (mode == "bump") {
        if (!match(text, /[0-9]"/)) exit 1
        d = substr(text, RSTART, 1)
        printf "%s%s%s", substr(text, 1, RSTART - 1), d == 9 ? 8 : d + 1, substr(text, RSTART + 1)
        exit 0
    }
    key = ""; n = 0; na = nb = nc = 0
    s = text
    while (match(s, /"[^"]*"/)) {
        tok = substr(s, RSTART + 1, RLENGTH - 2)
        s = substr(s, RSTART + RLENGTH)
        if (want != "") { meta[want] = tok; want = ""; continue }
        if (tok == "protocol" || tok == "curve") { want = tok; continue }
        if (tok ~ /^pi_[abc]$/) { key = tok; continue }
        if (tok !~ /^[0-9]+$/) continue
        if (key == "pi_a") a[++na] = tok
        else if (key == "pi_b") b[++nb] = tok
        else if (key == "pi_c") c[++nc] = tok
        else num[++n] = tok
    }
    if (mode == "swap-ac") {
        if (na != 3 || nb != 6 || nc != 3) exit 1
        printf "{\"pi_a\":[%s],\"pi_b\":[%s],", join(c, 1, 3), pairs(b, 6)
        printf "\"pi_c\":[%s],", join(a, 1, 3)
        printf "\"protocol\":\"%s\",\"curve\":\"%s\"}\n", meta["protocol"], meta["curve"]
    } else if (mode == "rapidsnark") {
        if (na != 3 || nb != 6 || nc != 3) exit 1
        printf "{\"pi_a\":[%s],\"pi_b\":[%s],", join(a, 1, 3), pairs(b, 6)
        printf "\"pi_c\":[%s],\"protocol\":\"groth16\"}", join(c, 1, 3)
    } else if (mode == "arkworks") {
        if (na != 3 || nb != 6 || nc != 3) exit 1
        printf "{\"pi_a\":[%s],\"pi_b\":[%s],", join(a, 1, 2), pairs(b, 4)
        printf "\"pi_c\":[%s],\"protocol\":\"groth16\"}\n", join(c, 1, 2)
    } else if (mode == "drop-last") {
        if (n < 1) exit 1
        printf "[%s]\n", join(num, 1, n - 1)
    } else if (mode == "set-first") {
        if (n < 1 || value !~ /^[0-9]+$/) exit 1
        num[1] = value
        printf "[%s]\n", join(num, 1, n)
    } else {
        exit 2
    }
}' "$in" >"$out" || { echo "json-tamper.sh: cannot $mode $in" >&2; rm -f "$out"; exit 1; }
