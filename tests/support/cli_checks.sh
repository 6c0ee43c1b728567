# Shell helpers for the tests that run the example binaries, sourced (`. cli_checks.sh`) after
# the test has checked its arguments. Sets $tmp (a folder removed on exit) and $failures, and
# brings exits.sh's helpers (refusals told from crashes and sanitizer reports, skips); the test
# ends with `checks_done`.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}
# exit_says, is_refusal, expect_refusal, skip_checks, skips_done
. "$(dirname "$0")/support/exits.sh"

# run LABEL CMD...: runs CMD with a time limit ($limit seconds, 120 unless set) and no stdin,
# its output in $tmp/stdout and $tmp/stderr; sets $status.
run() {
    label=$1
    shift
    status=0
    timeout "${limit:-120}" "$@" </dev/null >"$tmp/stdout" 2>"$tmp/stderr" || status=$?
    [ "$status" -ne 124 ] || fail "$label: still running after ${limit:-120} s"
}

accepted() { # LABEL CMD...: exit 0
    run "$@"
    [ "$status" -eq 0 ] || fail "$1: $(exit_says "$status"): $(cat "$tmp/stderr")"
}

# refused LABEL NAMED CMD...: exit 1, and one line on stderr that names NAMED
refused() {
    label=$1 named=$2
    shift 2
    run "$label" "$@"
    [ "$status" -eq 1 ] || fail "$label: $(exit_says "$status"), expected 1: $(cat "$tmp/stderr")"
    [ "$(awk 'END { print NR }' "$tmp/stderr")" -eq 1 ] ||
        fail "$label: not one line on stderr: $(cat "$tmp/stderr")"
    grep -qF -- "$named" "$tmp/stderr" || fail "$label: $named not named: $(cat "$tmp/stderr")"
}

# clash LABEL OUTPUT INPUT CMD...: refused (as `refused`) with a line naming OUTPUT as the same
# file as INPUT, and nothing on stdout: no work was done
clash() {
    label=$1 output=$2 input=$3
    shift 3
    refused "$label" "$output: is the same file as the input $input," "$@"
    [ ! -s "$tmp/stdout" ] || fail "$label: work was done before the refusal: $(head -n 3 "$tmp/stdout")"
}

same() { # LABEL FILE WANT-TEXT: FILE holds WANT-TEXT
    [ "$(cat "$2" 2>/dev/null)" = "$3" ] || fail "$1: $2 changed: $(head -c 100 "$2" 2>&1)"
}

no_leftovers() { # LABEL DIR: no output set's new or old file under DIR
    left=$(find "$2" -name '*.zkpipe-*' | tr '\n' ' ')
    [ -z "$left" ] || fail "$1: left $left"
}

checks_done() { # exit 1 after any failure, 77 when a check was skipped, else "ok"
    if [ "$failures" -ne 0 ]; then
        echo "$failures failures" >&2
        exit 1
    fi
    skips_done
    echo ok
}
