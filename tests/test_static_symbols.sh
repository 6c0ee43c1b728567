#!/bin/sh
# The static library ($1) defines no global symbol outside zkpipe_ (the public API) and
# zkpipe__ (internal): a host linking it statically meets none of its names. Weak definitions
# (nm's V and W: C++ template instances and the CUDA toolkit's NVTX and CCCL header code, when
# the CUDA backend is built in) are left out: the linker merges them, they never collide.
set -eu
lib=$1
command -v nm >/dev/null 2>&1 || { echo "no nm: skipped"; exit 77; }
# nm's own exit kept (a pipe would lose it), and some zkpipe_ symbol found: an empty or
# unreadable library never passes.
syms=$(nm -g --defined-only "$lib") || { echo "FAIL: nm cannot read $lib" >&2; exit 1; }
defined=$(printf '%s\n' "$syms" | awk 'NF == 3 && $2 ~ /^[TDRBCGS]$/ { print $3 }')
printf '%s\n' "$defined" | grep -q '^zkpipe_' || { echo "FAIL: no zkpipe_ symbol in $lib" >&2; exit 1; }
bad=$(printf '%s\n' "$defined" | grep -v '^zkpipe_' || true)
if [ -n "$bad" ]; then
    echo "FAIL: global symbols outside zkpipe_:" >&2
    echo "$bad" | head -40 >&2
    exit 1
fi
echo "PASS"
