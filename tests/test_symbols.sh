#!/bin/sh
# What libzkpipe.so offers a dynamic linker: exactly the public API, i.e. every function the
# headers in include/zkpipe declare with ZKPIPE_API, each listed in the version script
# cmake/zkpipe.map and exported under one of its version nodes, and nothing else (no internal
# name, nothing of CUDA, jansson or the C++ library). It needs no CUDA runtime beside it, and its
# size stays bounded.
# usage: test_symbols.sh <libzkpipe.so> <source dir> <build dir> <CUDA backend: ON|OFF>
set -eu
lib=$1
src=$2
build=$3
cuda=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
map=$src/cmake/zkpipe.map

# Declared: the preprocessor drops the comments and, with ZKPIPE_BUILDING, turns each
# ZKPIPE_API into the visibility attribute, which then marks exactly the public declarations.
for h in "$src"/include/zkpipe/*.h; do
    echo "#include \"zkpipe/${h##*/}\""
done >"$tmp/all.c"
${CC:-cc} -E -P -DZKPIPE_BUILDING -I"$src/include" -I"$build/include" "$tmp/all.c" >"$tmp/all.i"
tr '\n' ' ' <"$tmp/all.i" | grep -o '__attribute__((visibility("default"))) [^(;]*(' |
    sed -E 's/.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*) *\($/\1/' | sort >"$tmp/declared"
[ "$(wc -l <"$tmp/declared")" -gt 100 ] || fail "found only $(wc -l <"$tmp/declared") declarations"

sed -n 's/^ *\(zkpipe_[a-z0-9_]*\);$/\1/p' "$map" | sort >"$tmp/mapped"
sed -n 's/^\(ZKPIPE_[0-9.]*\) {.*/\1/p' "$map" | sort >"$tmp/nodes"
[ -s "$tmp/nodes" ] || fail "no version node in $map"

# Exported: defined dynamic symbols, "name@@NODE" (the nodes themselves are absolute symbols).
nm -D --defined-only "$lib" | awk '$2 != "A" {print $3}' | sort >"$tmp/exported_versioned"
sed 's/@.*//' "$tmp/exported_versioned" >"$tmp/exported"
nm -D --defined-only "$lib" | awk '$2 == "A" {print $3}' | sed 's/@.*//' | sort >"$tmp/abs"

if ! diff -u "$tmp/declared" "$tmp/mapped" >"$tmp/d1"; then
    cat "$tmp/d1" >&2
    fail "ZKPIPE_API declarations (-) and $map (+) differ"
fi
if ! diff -u "$tmp/mapped" "$tmp/exported" >"$tmp/d2"; then
    cat "$tmp/d2" >&2
    fail "$map (-) and the symbols $lib exports (+) differ"
fi
unversioned=$(grep -v '@@ZKPIPE_[0-9.]*$' "$tmp/exported_versioned" || true)
[ -z "$unversioned" ] || fail "exported without a version node: $unversioned"
sed 's/.*@@//' "$tmp/exported_versioned" | sort -u | while read -r node; do
    grep -qx "$node" "$tmp/nodes" || fail "version node $node is not in $map"
done
strays=$(comm -23 "$tmp/abs" "$tmp/nodes")
[ -z "$strays" ] || fail "absolute symbols exported: $strays"

# Dependencies: a host that brings its own CUDA runtime must not get a second one by name.
needed=$(objdump -p "$lib" | awk '$1 == "NEEDED" {print $2}')
echo "NEEDED: $(echo "$needed" | tr '\n' ' ')"
if echo "$needed" | grep -q 'cudart\|libcuda'; then
    fail "libzkpipe.so needs a CUDA library at run time"
fi
if [ "$cuda" = OFF ] && echo "$needed" | grep -q 'stdc++'; then
    fail "a build without CUDA needs the C++ library"
fi

# Size: everything loaded, without debug sections. The device code (.nv_fatbin) of a CUDA
# build is counted apart: it leaves the core library with the CUDA backend's plug-in.
total=$(size "$lib" | awk 'NR == 2 {print $4}')
fatbin=$(size -A "$lib" | awk '$1 == ".nv_fatbin" {print $2}')
fatbin=${fatbin:-0}
core=$((total - fatbin))
limit=$((4 * 1024 * 1024))
echo "size: $core bytes of host code and data (limit $limit), $fatbin of device code"
[ "$core" -le "$limit" ] || fail "libzkpipe.so has $core bytes of host code and data"
if [ "$cuda" = OFF ] && [ "$fatbin" -ne 0 ]; then
    fail "a build without CUDA carries device code"
fi
echo "$(wc -l <"$tmp/exported") symbols, all declared, mapped and versioned: ok"
