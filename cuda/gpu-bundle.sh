#!/usr/bin/env bash
# Prepares the device check (gpu-check.sh) on a machine with nvcc but no GPU, for a GPU machine
# that has nvcc, CMake and the NVIDIA driver but none of the libraries zkpipe and its tests link
# (jansson, libmicrohttpd, cmocka and theirs) and can fetch nothing:
#   1. builds BUILD (default build-gpu) afresh: Release, the CUDA plug-in on, sm_90 machine code
#      only, and only the programs gpu-check.sh runs;
#   2. copies into BUILD/bundle-lib every shared library those programs need but the C
#      library's own (libc, libm, the loader) and the C++ runtime's (libstdc++, libgcc_s: the
#      device has its compiler's, and the programs ask for no more than GLIBCXX_3.4.21, while
#      Debian 12's own asks for its C library, 2.36), so that LD_LIBRARY_PATH=BUILD/bundle-lib
#      finds them there;
#   3. deletes what only a build needs (objects, archives, CMakeFiles): the tree travels to the
#      device and must stay small; a later run builds afresh. Writes BUILD/bundle-root, the
#      absolute path of this checkout: the tests find their fixtures and the plug-in by paths
#      CMake wrote, which gpu-check.sh makes valid there, and BUILD/bundle-glibc, the newest C
#      library version the bundle asks for;
#   4. unless --no-dry-run, runs gpu-check.sh here, where it finds no GPU: every step but the
#      device's must work (the GPU test skips, the benchmark says there is no device).
# What travels: the checkout (tracked files) and BUILD; its size is printed (the device tool
# takes 64 MiB in all).
#
#   cuda/gpu-bundle.sh [--no-dry-run] [BUILD]
set -euo pipefail
cd "$(dirname "$0")/.."
dry=1
if [ "${1:-}" = --no-dry-run ]; then
    dry=0
    shift
fi
build=${1:-build-gpu}
programs=(tests/test_cuda tests/test_cuda_host tests/test_io tests/test_plugin
          tests/bench/bench_cuda tools/zkpipe-prove tools/zkpipe-setup
          tools/zkpipe-export-circuit tools/zkpipe-verify tools/zkpipe-pipeline)

rm -rf "$build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DZKPIPE_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90-real -DZKPIPE_BUILD_TESTS=ON >/dev/null
targets=()
for p in "${programs[@]}"; do targets+=("$(basename "$p")"); done
cmake --build "$build" -j"$(nproc)" --target zkpipe zkpipe_cuda zkpipe_test_fake_plugin \
    "${targets[@]}"

# The libraries, by what the dynamic linker resolves here (the plug-in's too: it is loaded by
# path on the device, and its needs must be met there).
lib=$build/bundle-lib
rm -rf "$lib"
mkdir -p "$lib"
objects=()
for p in "${programs[@]}"; do objects+=("$build/$p"); done
objects+=("$build"/src/libzkpipe.so.* "$build"/src/libzkpipe_cuda.so.*)
ldd "${objects[@]}" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
    while read -r so; do
        case $(basename "$so") in
        libc.so.* | libm.so.* | ld-linux*.so.* | libpthread.so.* | libdl.so.* | librt.so.*) ;;
        libstdc++.so.* | libgcc_s.so.*) ;;
        *) cp -L "$so" "$lib/" ;;
        esac
    done
# The newest C library version any of it asks for: the device's must be as new.
need=$(objdump -T "${objects[@]}" "$lib"/* 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' |
    sort -t. -k1,1 -k2,2n -u | tail -n 1)
echo "$need" >"$build/bundle-glibc"

find "$build" -name CMakeFiles -type d -prune -exec rm -rf {} +
find "$build" \( -name '*.o' -o -name '*.a' \) -delete
pwd -P >"$build/bundle-root"
echo "bundle: $build, $(du -sm "$build" | cut -f1) MiB ($(ls "$lib" | wc -l) libraries: $(ls "$lib" | tr '\n' ' ')); needs $need"
echo "the checkout's tracked files: $(git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -n 1 | cut -f1) bytes"

if [ "$dry" -eq 1 ]; then
    echo "== dry run of cuda/gpu-check.sh here (no GPU: the device's steps skip)"
    OUT=${OUT:-$build} cuda/gpu-check.sh "$build"
fi
