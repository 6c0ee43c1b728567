#!/usr/bin/env bash
# The device check: builds (Release, CUDA on, sm_90 machine code only, for speed), runs the
# tests labelled gpu (GPU against CPU, bit for bit, the plug-in linked in), the kernels' host
# test, test_plugin_present (the shared plug-in loaded and its device chosen) and test_io (a zkey
# proof on CUDA, through the loaded plug-in, equals the CPU's), then bench_cuda (G1 MSM 2^20, 2^22, 2^24; NTT 2^20 .. 2^24;
# a 2^20-row proof on both backends) and zkpipe-prove on the 2^16 chain16 fixtures of
# shared/bench on both backends when they are there.
# Figures go to $OUT/gpu-check.txt when OUT is set, else ./gpu-check.txt. Meant to finish in
# under 5 minutes on an H200 host with 16 cores. Needs cmake, a C compiler, nvcc, cmocka.
#
#   cuda/gpu-check.sh [build-dir]        (default build-gpu)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
report=${OUT:-.}/gpu-check.txt
: >"$report"
say() { echo "$@" | tee -a "$report"; }

say "== $(date -u +%FT%TZ) zkpipe $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm --format=csv,noheader \
    2>&1 | tee -a "$report" || true

pkg-config --exists cmocka || say "cmocka is missing: the tests (and bench_cuda) cannot build"
start=$(date +%s)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DZKPIPE_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90-real -DZKPIPE_BUILD_EXAMPLES=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target zkpipe_cuda test_cuda test_cuda_host test_io \
    test_plugin bench_cuda zkpipe-prove
say "build: $(($(date +%s) - start)) s"

say "== tests"
timeout 240 ctest --test-dir "$build" -R '^test_cuda|^test_io$|^test_plugin_present$' --output-on-failure 2>&1 | tee -a "$report" ||
    say "GPU TESTS FAILED (output above); timing anyway"

say "== bench_cuda (median ms of 3 after a warm-up; wall time of each launcher call)"
timeout 300 "$build/tests/bench/bench_cuda" 3 24 24 20 2>&1 | tee -a "$report"
for bench in shared/bench ../shared/bench; do
    [ -d "$bench" ] || continue
    for curve in bn128 bls12381; do
        dir=$bench/$curve-chain16
        [ -f "$dir/circuit.zkey" ] || continue
        for backend in cpu cuda; do
            for run in 1 2 3; do
                rm -f "$build/metrics.json"
                timeout 60 "$build/tools/zkpipe-prove" --backend "$backend" \
                    --metrics "$build/metrics.json" "$dir/circuit.zkey" "$dir/witness.wtns" \
                    "$build/proof.json" "$build/public.json" 2>&1 | tee -a "$report" || true
                say "zkpipe-prove $curve chain16 $backend run $run: $(grep -o '"timings":{[^}]*}' \
                    "$build/metrics.json" 2>/dev/null || echo failed)"
            done
        done
    done
    break
done
say "== done in $(($(date +%s) - start)) s"
