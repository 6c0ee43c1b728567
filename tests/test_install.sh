#!/bin/sh
# Installs the build tree ($1) into a temporary prefix, then checks what a user gets: programs
# build and run against the install with find_package(zkpipe) while the CUDA toolkit is hidden,
# and with pkg-config seeing nothing but zkpipe's own .pc; neither adds jansson or CUDA flags.
# The CUDA plug-in of a CUDA build is installed beside the core, which finds it there (or says
# why not, and proves on the CPU); a static program links it in through the `cuda` component.
# usage: test_install.sh <build dir> <source dir>
set -eu
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
lib=$(find "$prefix" -name 'libzkpipe.so' | head -n 1)
[ -n "$lib" ] || fail "no libzkpipe.so installed"
libdir=$(dirname "$lib")
[ -f "$libdir/libzkpipe.a" ] || fail "no libzkpipe.a installed"
soname=$(objdump -p "$lib" | awk '$1 == "SONAME" {print $2}')
[ -e "$libdir/$soname" ] || fail "the soname $soname is not installed"
if [ -f "$libdir/cmake/zkpipe/zkpipe-cuda-targets.cmake" ]; then cuda=ON; else cuda=OFF; fi
plugin=$libdir/$(echo "$soname" | sed 's/^libzkpipe/libzkpipe_cuda/')
if [ "$cuda" = ON ]; then
    [ -e "$plugin" ] || fail "no CUDA plug-in $plugin installed beside the core"
    objdump -p "$lib" | grep -q 'NEEDED.*\(cuda\|stdc++\)' && fail "the core needs CUDA or C++"
elif [ -e "$plugin" ]; then
    fail "a build without CUDA installed $plugin"
fi
echo "installed $soname (CUDA plug-in $cuda)"

# The command-line tools, where this build made them (ZKPIPE_BUILD_TOOLS), go to bin/ and run
# from there: each is linked with the static core, so it needs no library path.
if [ -x "$build/tools/zkpipe-pipeline" ]; then
    for t in zkpipe-prove zkpipe-verify zkpipe-pipeline; do
        [ -x "$prefix/bin/$t" ] || fail "no $t installed in bin/"
    done
    "$prefix/bin/zkpipe-pipeline" --help >/dev/null || fail "the installed zkpipe-pipeline"
    echo "installed the tools in bin/"
fi

# consumer.c prints "backend auto: NAME: WHY"; <program> <expected part of the line>
backend_line() {
    out=$("$1") || fail "$1 failed"
    echo "$out"
    echo "$out" | grep -q "^backend auto: .*$2" || fail "$1: no \"$2\" in its backend line"
}

# Flags a consumer gets must not mention jansson or CUDA (nor zkpipe's private -lm, -lpthread).
no_private_flags() { # <what> <file>
    if grep -n -i 'jansson\|cuda\|-lm\b\|pthread' "$2" >&2; then
        fail "$1 carries zkpipe's private dependencies"
    fi
}

echo "== find_package, CUDA toolkit hidden"
cmake -S "$src/tests/install" -B "$tmp/hidden" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$tmp/log" 2>&1 || {
    cat "$tmp/log" >&2
    fail "configuring against the install without the CUDA toolkit"
}
cmake --build "$tmp/hidden" >"$tmp/log" 2>&1 || {
    cat "$tmp/log" >&2
    fail "building against the install without the CUDA toolkit"
}
no_private_flags "the compile command" "$tmp/hidden/compile_commands.json"
no_private_flags "the shared consumer's link" "$tmp/hidden/CMakeFiles/consumer_shared.dir/link.txt"
# The loader (src/groth16/backend_plugin.h) with no variable set: the shared core finds the
# plug-in beside itself; a static program without it says it is not available, or, on a
# machine without the CUDA driver's library, which the loader looks for first, says that.
unset ZKPIPE_CUDA_PLUGIN
missing="cpu: \(the CUDA backend's plug-in is not available\|no CUDA device is usable: no CUDA driver\)"
if [ "$cuda" = ON ]; then
    backend_line "$tmp/hidden/consumer_shared" "(CUDA plug-in $plugin)"
else
    backend_line "$tmp/hidden/consumer_shared" "$missing.*the CPU runs the proof"
fi
backend_line "$tmp/hidden/consumer_static" "$missing"
ZKPIPE_CUDA_PLUGIN=$tmp/elsewhere/libzkpipe_cuda.so backend_line "$tmp/hidden/consumer_shared" \
    "cpu: the CUDA backend's plug-in is not available ($tmp/elsewhere/libzkpipe_cuda.so: .*): the CPU runs the proof"

if [ "$cuda" = ON ]; then
    echo "== find_package, the CUDA plug-in linked into a static program"
    if cmake -S "$src/tests/install" -B "$tmp/nocuda" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON -DCONSUMER_CUDA=ON >"$tmp/log" 2>&1; then
        fail "the cuda component was found without the CUDA toolkit"
    fi
    grep -q 'component `cuda` needs the CUDA toolkit' "$tmp/log" || {
        cat "$tmp/log" >&2
        fail "no clear message for the cuda component without the toolkit"
    }
    cmake -S "$src/tests/install" -B "$tmp/static" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCONSUMER_CUDA=ON >"$tmp/log" 2>&1 &&
        cmake --build "$tmp/static" >"$tmp/log" 2>&1 || {
        cat "$tmp/log" >&2
        fail "linking the static library with the cuda component"
    }
    backend_line "$tmp/static/consumer_static_cuda" "(CUDA plug-in linked in)"
fi

echo "== pkg-config, nothing but zkpipe.pc visible"
# PKG_CONFIG_LIBDIR replaces the default search path: no other package's .pc can be read.
pc() { PKG_CONFIG_LIBDIR="$libdir/pkgconfig" PKG_CONFIG_PATH='' pkg-config "$@"; }
flags=$(pc --cflags --libs zkpipe) || fail "pkg-config --cflags --libs zkpipe"
echo "flags: $flags"
inc=$(cd "$prefix/include" && pwd -P)
real_libdir=$(cd "$libdir" && pwd -P)
for flag in $flags; do
    case $flag in
    -I*) [ "$(cd "${flag#-I}" && pwd -P)" = "$inc" ] || fail "unexpected $flag" ;;
    -L*) [ "$(cd "${flag#-L}" && pwd -P)" = "$real_libdir" ] || fail "unexpected $flag" ;;
    -lzkpipe) ;;
    *) fail "unexpected flag $flag" ;;
    esac
done
# shellcheck disable=SC2086
${CC:-cc} -o "$tmp/consumer_pc" "$src/tests/install/consumer.c" $flags
LD_LIBRARY_PATH="$libdir" "$tmp/consumer_pc" >/dev/null
# A static link takes the private libraries from Libs.private.
static_libs=$(pc --static --libs zkpipe | sed "s|-lzkpipe\b|$libdir/libzkpipe.a|")
echo "static: $static_libs"
# shellcheck disable=SC2086
${CC:-cc} -o "$tmp/consumer_pc_static" "$src/tests/install/consumer.c" $(pc --cflags zkpipe) \
    $static_libs
objdump -p "$tmp/consumer_pc_static" | grep -q 'NEEDED.*libzkpipe' &&
    fail "the static link still needs libzkpipe.so"
"$tmp/consumer_pc_static" >/dev/null
if [ "$cuda" = ON ]; then
    echo "== pkg-config, the CUDA plug-in linked into a static program"
    cuda_libs=$(pc --static --libs zkpipe-cuda) || fail "pkg-config --static --libs zkpipe-cuda"
    echo "cuda: $cuda_libs"
    # shellcheck disable=SC2086
    ${CC:-cc} -o "$tmp/consumer_pc_cuda" "$src/tests/install/consumer.c" $(pc --cflags zkpipe) \
        $static_libs $cuda_libs || fail "linking the static plug-in with zkpipe-cuda.pc's flags"
    backend_line "$tmp/consumer_pc_cuda" "(CUDA plug-in linked in)"
fi
echo "install check passed"
