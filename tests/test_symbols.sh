#!/bin/sh
# What libzkpipe.so offers a dynamic linker: exactly the public API, i.e. every function the
# headers in include/zkpipe declare with ZKPIPE_API, each listed in the version script
# cmake/zkpipe.map and exported under one of its version nodes, and nothing else (no internal
# name, nothing of CUDA, jansson or the C++ library). It links nothing of CUDA or C++ (the CUDA
# backend is a plug-in), and its size stays bounded. The CUDA plug-in, when built, exports its
# entry point alone, under its own version node, with the core's soname policy.
# usage: test_symbols.sh <libzkpipe.so> <source dir> <build dir> <libzkpipe_cuda.so | none>
set -eu
lib=$1
src=$2
build=$3
plugin=$4
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
# ZKPIPE_MUST_CHECK's attribute sits between the visibility and the return type: dropped.
tr '\n' ' ' <"$tmp/all.i" | sed 's/__attribute__((warn_unused_result)) //g' | grep -o '__attribute__((visibility("default"))) [^(;]*(' |
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

# Dependencies: nothing of CUDA or C++, in every build: the CUDA backend is a plug-in.
needed=$(objdump -p "$lib" | awk '$1 == "NEEDED" {print $2}')
echo "NEEDED: $(echo "$needed" | tr '\n' ' ')"
if echo "$needed" | grep -q 'cuda\|stdc++'; then
    fail "libzkpipe.so needs a CUDA or C++ library at run time"
fi
if nm -D "$lib" | grep -q ' U .*\(cuda\|_Z\)'; then
    nm -D "$lib" | grep ' U .*\(cuda\|_Z\)' >&2
    fail "libzkpipe.so refers to CUDA or C++ symbols"
fi

# Size: everything loaded, without debug sections; no device code.
total=$(size "$lib" | awk 'NR == 2 {print $4}')
fatbin=$(size -A "$lib" | awk '$1 == ".nv_fatbin" {print $2}')
limit=$((4 * 1024 * 1024))
echo "size: $total bytes loaded (limit $limit), file $(wc -c <"$lib") bytes"
[ "$total" -le "$limit" ] || fail "libzkpipe.so has $total bytes of code and data"
[ -z "$fatbin" ] || fail "libzkpipe.so carries $fatbin bytes of device code"
echo "$(wc -l <"$tmp/exported") symbols, all declared, mapped and versioned: ok"

if [ "$plugin" = none ]; then # nothing more to check: this build made no plug-in
    echo "no CUDA plug-in in this build: the core's checks alone apply"
    exit 0
fi
# The plug-in: its entry point alone, versioned; the CUDA runtime inside (no libcudart
# needed); a soname of the same policy as the core's, which the core looks for.
exports=$(nm -D --defined-only "$plugin" | awk '$2 != "A" {print $3}')
[ "$exports" = "zkpipe__cuda_plugin_entry@@ZKPIPE_CUDA_PLUGIN_1" ] ||
    fail "the plug-in exports more or less than its entry point: $exports"
pneeded=$(objdump -p "$plugin" | awk '$1 == "NEEDED" {print $2}')
echo "plug-in NEEDED: $(echo "$pneeded" | tr '\n' ' ')"
if echo "$pneeded" | grep -q 'cudart\|zkpipe'; then
    fail "the plug-in needs the CUDA runtime or the core by name"
fi
core_soname=$(objdump -p "$lib" | awk '$1 == "SONAME" {print $2}')
plugin_soname=$(objdump -p "$plugin" | awk '$1 == "SONAME" {print $2}')
[ "$plugin_soname" = "$(echo "$core_soname" | sed 's/^libzkpipe/libzkpipe_cuda/')" ] ||
    fail "the plug-in's soname $plugin_soname does not follow the core's $core_soname"
ptotal=$(size "$plugin" | awk 'NR == 2 {print $4}')
pfatbin=$(size -A "$plugin" | awk '$1 == ".nv_fatbin" {print $2}')
echo "plug-in: $ptotal bytes loaded, ${pfatbin:-0} of them device code, file $(wc -c <"$plugin") bytes: ok"
