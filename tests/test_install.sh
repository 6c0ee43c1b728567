#!/bin/sh
# Installs the build tree ($1) into a temporary prefix, then checks what a user gets: the shared
# library exports only public zkpipe_ names, and a program builds and runs against the install
# with find_package(zkpipe) (shared and static targets) and with pkg-config.
set -eu
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
lib=$(find "$tmp/prefix" -name 'libzkpipe.so' | head -n 1)
[ -n "$lib" ] || fail "no libzkpipe.so installed"
libdir=$(dirname "$lib")
[ -f "$libdir/libzkpipe.a" ] || fail "no libzkpipe.a installed"

leaked=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^zkpipe_[a-z0-9]' || true)
[ -z "$leaked" ] || fail "symbols exported beyond the public API: $leaked"
nm -D --defined-only "$lib" | grep -q ' zkpipe_version_string$' || fail "public API not exported"

cmake -S "$src/tests/install" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
LD_LIBRARY_PATH="$libdir" "$tmp/consumer/consumer_shared"
"$tmp/consumer/consumer_static"

PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --exists zkpipe || fail "zkpipe.pc not found"
# shellcheck disable=SC2046
cc -o "$tmp/consumer_pc" "$src/tests/install/consumer.c" \
    $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs zkpipe)
LD_LIBRARY_PATH="$libdir" "$tmp/consumer_pc"
echo "install check passed"
