# Exit statuses and skips for the shell tests, sourced (`. exits.sh`) by a test that defines
# fail() first.
#
# The command-line tools refuse with exit 1 (bad input, a proof that fails, an I/O error) or 2
# (a bad command line), as README.md documents. Nothing else is a refusal: a sanitizer report
# exits 66 (set below for ASan and UBSan, whose default 1 would pass for a refusal, and in
# .ci/run; 66 is TSan's default), a signal 128 + N, timeout(1) 124; none of the tools exits with
# those codes of its own.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=66"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:exitcode=66"

# exit_says STATUS: what STATUS means, for a failure message.
exit_says() {
    case $1 in
    0) echo "exit 0 (accepted)" ;;
    1 | 2) echo "exit $1 (a refusal)" ;;
    66) echo "exit 66 (a sanitizer report)" ;;
    124) echo "exit 124 (timed out)" ;;
    *)
        if [ "$1" -gt 128 ]; then
            echo "exit $1 (signal $(($1 - 128)): a crash or a kill)"
        else
            echo "exit $1 (no documented meaning)"
        fi
        ;;
    esac
}

# is_refusal STATUS [CODE]: STATUS is the refusal CODE, or 1 or 2 when CODE is not given.
is_refusal() {
    case ${2:-} in
    '') [ "$1" -eq 1 ] || [ "$1" -eq 2 ] ;;
    *) [ "$1" -eq "$2" ] ;;
    esac
}

# expect_refusal LABEL STATUS [CODE]: fail unless STATUS is a refusal (CODE when given).
expect_refusal() {
    is_refusal "$2" "${3:-}" || fail "$1: $(exit_says "$2"), expected a refusal${3:+ (exit $3)}"
}

# skip_checks WHAT: says that the checks WHAT cannot run here (a tool missing); the test goes on
# with the others, and skips_done ends it with 77, which ctest reports as skipped, not passed.
skipped_checks=""
skip_checks() {
    echo "SKIP: $*"
    skipped_checks="$skipped_checks${skipped_checks:+; }$*"
}

# skips_done: exit 77 when a check was skipped (after every other check passed); where CI is
# set (.ci/run installs every tool the tests use) a skipped check fails instead.
skips_done() {
    [ -n "$skipped_checks" ] || return 0
    if [ -n "${CI:-}" ]; then
        echo "FAIL: CI is set, and checks were skipped: $skipped_checks" >&2
        exit 1
    fi
    echo "skipped (the other checks passed): $skipped_checks"
    exit 77
}
