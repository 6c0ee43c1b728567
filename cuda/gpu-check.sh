#!/usr/bin/env bash
# The device check, on a GPU machine, over the bundle cuda/gpu-bundle.sh built (and dry-ran)
# where the libraries are: that machine need have only the NVIDIA driver, ctest and a shell.
#   1. BUILD's absolute paths (the tests' fixtures, the plug-in) made valid: where the bundle
#      was built at another root (BUILD/bundle-root), that path becomes a link to here;
#   2. the bundle's libraries on the search path (BUILD/bundle-lib), every program resolved
#      and the C library checked against the newest version the bundle asks for;
#   3. the GPU tests: test_cuda (the kernels against the CPU, both curves: NTT, coset NTT, h,
#      G1 MSM with random, zero, one and equal scalars, up to 2^22 with
#      ZKPIPE_TEST_CUDA_LOG=22), the kernels' host test,
#      test_plugin_present (the shared plug-in loaded and its device chosen) and test_io (a zkey
#      proof on CUDA, through the loaded plug-in, equal to the CPU's for the same r and s);
#      then every interop fixture (tests/interop/fixtures: snarkjs's zkeys and witnesses) proved
#      with --backend cuda and its proof checked by zkpipe-verify against snarkjs's key;
#   4. the engine: zkpipe-pipeline (synthesis workers, the narrow waist, prover workers) on
#      2^18-row partitions under a 256 MiB byte budget, CUDA provers then CPU ones, every proof
#      verified, the accounting's figures as JSON;
#   5. bench_cuda: G1 MSM 2^20, 2^22, 2^24, NTT 2^20 .. 2^24, a 2^20-row proof on both backends;
#   6. circuits made here (zkpipe-export-circuit, zkpipe-setup --insecure-seed): 2^16 rows on
#      both curves and 2^20 on BN254, each proved by zkpipe-prove on the CPU and on CUDA, three
#      runs each (its own check against the verifying key passes before a proof is written).
# Each step has its own time limit and a failure does not stop the next; the whole fits in 5
# minutes on a 16-core H100 or H200 host. Figures to $OUT/gpu-check.txt when OUT is set, else
# BUILD/gpu-check.txt.
#
#   cuda/gpu-check.sh [BUILD]        (default build-gpu)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=${1:-build-gpu}
report=${OUT:-$build}/gpu-check.txt
: >"$report"
say() { echo "$@" | tee -a "$report"; }
t0=$(date +%s)
step() { say "== $* (at $(($(date +%s) - t0)) s)"; }

say "== $(date -u +%FT%TZ) zkpipe $(git rev-parse --short HEAD 2>/dev/null || echo '?') on $(uname -n)"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader \
    2>&1 | tee -a "$report" || say "no nvidia-smi"
nproc | sed 's/^/cores: /' | tee -a "$report"

if [ ! -f "$build/bundle-root" ]; then
    say "no bundle in $build: run cuda/gpu-bundle.sh where the libraries are, carry $build"
    exit 1
fi
root=$(cat "$build/bundle-root")
if [ "$(cd "$root" 2>/dev/null && pwd -P)" != "$(pwd -P)" ]; then
    if [ -e "$root" ]; then
        say "the bundle's root $root is another folder here: cannot run it"
        exit 1
    fi
    if ! mkdir -p "$(dirname "$root")" || ! ln -s "$(pwd -P)" "$root"; then
        say "cannot link $root to $(pwd -P)"
        exit 1
    fi
    say "linked $root to $(pwd -P)"
fi
build=$root/$build
export LD_LIBRARY_PATH=$build/bundle-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
say "C library: $(ldd --version 2>&1 | head -n 1); the bundle needs $(cat "$build/bundle-glibc")"
missing=$(ldd "$build"/tests/test_cuda "$build"/tests/test_io "$build"/tools/zkpipe-prove \
    "$build"/src/libzkpipe_cuda.so.* 2>&1 | grep -E 'not found|version .* not found' || true)
[ -z "$missing" ] || say "UNRESOLVED: $missing"

step "tests"
if command -v ctest >/dev/null 2>&1; then
    ZKPIPE_TEST_CUDA_LOG=22 timeout 200 ctest --test-dir "$build" \
        -R '^test_cuda|^test_io$|^test_plugin_present$' \
        --output-on-failure 2>&1 | tee -a "$report" || say "GPU TESTS FAILED (output above)"
else # the same programs as ctest would run them
    for t in test_cuda test_cuda_host test_io "test_plugin present"; do
        # shellcheck disable=SC2086 # "test_plugin present": a program and its argument
        (cd "$build/tests" && unset ZKPIPE_CUDA_PLUGIN && ZKPIPE_SOURCE_DIR=$root \
            ZKPIPE_TEST_CUDA_LOG=22 timeout 200 ./$t) >>"$report" 2>&1
        say "$t: exit $?"
    done
fi

step "the interop fixtures (snarkjs's keys) proved on CUDA, checked with their verification_key.json"
for d in tests/interop/fixtures/*/*/; do
    if [ ! -f "$d/circuit.zkey" ] || [ ! -f "$d/witness.wtns" ]; then continue; fi
    out=$(mktemp -d)
    if timeout 30 "$build/tools/zkpipe-prove" --backend cuda "$d/circuit.zkey" "$d/witness.wtns" \
        "$out/proof.json" "$out/public.json" >"$out/log" 2>&1 &&
        timeout 30 "$build/tools/zkpipe-verify" "$d/verification_key.json" "$out/public.json" \
            "$out/proof.json" >>"$out/log" 2>&1; then
        say "ok   $d"
    else
        say "FAIL $d: $(tail -n 3 "$out/log")"
    fi
    rm -rf "$out"
done

step "the engine with CUDA provers, then CPU ones, under a byte budget"
for backend in cuda cpu; do
    timeout 60 "$build/tools/zkpipe-pipeline" --backend "$backend" --log-constraints 18 \
        --jobs 2 --partitions 4 --synth-workers 4 --permits 4 --prover-workers 2 \
        --budget-mib 256 --json >"$build/pipeline.log" 2>&1
    st=$?
    say "zkpipe-pipeline --backend $backend (exit $st): $(tail -n 1 "$build/pipeline.log")"
    [ "$st" -eq 0 ] || tail -n 5 "$build/pipeline.log" | tee -a "$report"
done
rm -f "$build/pipeline.log"

step "bench_cuda (median ms of 3 after a warm-up; wall time of each launcher call)"
timeout 100 "$build/tests/bench/bench_cuda" 3 24 24 20 2>&1 | tee -a "$report" ||
    say "bench_cuda failed or ran out of time"

step "proofs: zkpipe-prove on the CPU and on CUDA"
fix=$(mktemp -d)
prove() { # CURVE LOG: a circuit of 2^LOG rows made here, proved three times on each backend
    local c=$fix/$1-$2
    if ! timeout 60 "$build/tools/zkpipe-export-circuit" --curve "$1" --log-constraints "$2" \
        "$c.r1cs" "$c.wtns" >>"$report" 2>&1 ||
        ! timeout 60 "$build/tools/zkpipe-setup" --insecure-seed 1 "$c.r1cs" "$c.zkey" \
            >>"$report" 2>&1; then
        say "$1 2^$2: no circuit (made in time)"
        return
    fi
    for backend in cpu cuda; do
        for run in 1 2 3; do
            rm -f "$c.metrics"
            timeout 60 "$build/tools/zkpipe-prove" --backend "$backend" --metrics "$c.metrics" \
                "$c.zkey" "$c.wtns" "$c.proof.json" "$c.public.json" >>"$report" 2>&1
            say "zkpipe-prove $1 2^$2 $backend run $run (exit $?): $(grep -o \
                '"timings":{[^}]*}' "$c.metrics" 2>/dev/null || echo 'no timings')"
        done
    done
    rm -f "$c".*
}
prove bn254 16
prove bls12-381 16
prove bn254 20
rm -rf "$fix"
step "done"
