#!/bin/sh
# The pipeline binaries' files (--metrics, --plot, --trace, and zkpipe-pipeline --zkey's
# proofs) on hostile paths (tools/cli/cli_observe.h, cli_files.h): a bad path is refused before
# any work, with one line naming it; two outputs onto one file are refused; under `ulimit -f`
# the run fails with an error and the files that were there stay as they were; a link stays
# a link and a device is written through. With --zkey, a zkey or a witness truncated while
# mapped is an I/O error naming it (with the LD_PRELOAD shim $4, support/truncate_on_mmap.c),
# an output that is a zkey or a witness is refused before any work, and a zkey or a witness
# that is not a regular file (a FIFO, a device) is refused at once.
#   test_pipeline_outputs.sh ZKPIPE_PIPELINE ZKPIPE_HOST_PIPELINE ZKPIPE_BUFFER_PIPELINE SHIM
set -eu
[ $# -eq 4 ] || { echo "usage: test_pipeline_outputs.sh PIPELINE HOST BUFFER SHIM" >&2; exit 2; }
pipeline=$1 host=$2 buffer=$3 shim=$4
fix=$(cd "$(dirname "$0")/interop/fixtures/bn128/multiplier" && pwd)
. "$(dirname "$0")/support/cli_checks.sh"

# before LABEL NAMED CMD...: refused, before any work (nothing on stdout)
before() {
    refused "$@"
    [ ! -s "$tmp/stdout" ] || fail "$1: work was done before the refusal: $(head -n 3 "$tmp/stdout")"
}

# (unquoted where used: a list of flags)
small="--jobs 1 --partitions 2 --log-constraints 6 --curve bn254 --report-ms 0"
d=$tmp/run
mkdir "$d"
cd "$d"
echo "old metrics" >m.prom
echo "old plot" >p.svg
mkdir folder

# 1. Refused before any work, every file as it was.
before "--metrics in a missing folder" nodir/m.prom "$pipeline" $small --metrics nodir/m.prom
before "--metrics a folder" folder "$pipeline" $small --metrics folder --plot p.svg
before "--plot a folder" folder "$pipeline" $small --metrics m.prom --plot folder/
before "--metrics and --plot onto one file" m.prom "$pipeline" $small --metrics m.prom \
    --plot ./m.prom
ln -s p.svg plot-link.svg
before "--plot and --trace onto one file through a link" p.svg "$pipeline" $small \
    --trace plot-link.svg --plot p.svg
before "--metrics onto a witness's proof" witness.proof.json "$pipeline" --zkey \
    "$fix/circuit.zkey" --metrics witness.proof.json --report-ms 0 "$fix/witness.wtns"
cp "$fix/witness.wtns" multiplier.wtns
before "--zkey: a witness's output onto --plot" multiplier.public.json "$pipeline" --zkey \
    "$fix/circuit.zkey" --plot multiplier.public.json --report-ms 0 multiplier.wtns
before "host: --metrics a folder" folder "$host" --partitions 2 --metrics folder
before "host: --metrics and --plot onto one file" m.prom "$host" --partitions 2 \
    --metrics m.prom --plot "$d/m.prom"
before "buffer: --plot a folder" folder "$buffer" --plot folder
same "refusals" m.prom "old metrics"
same "refusals" p.svg "old plot"
no_leftovers "refusals" "$d"

# 2. ulimit -f 0: an error, not SIGXFSZ; neither file replaced, nothing left beside them.
for bin in "$pipeline" "$host"; do
    case $bin in
    "$pipeline") args=$small ;;
    *) args="--partitions 2" ;;
    esac
    said=$(sh -c 'ulimit -f 0; "$@" 2>&1 >/dev/null; echo "exit $?"' sh "$bin" $args \
        --metrics m.prom --plot p.svg </dev/null)
    case $said in
    *"File too large"*"exit 1") ;;
    *) fail "$(basename "$bin"): ulimit -f 0: $said" ;;
    esac
    same "ulimit -f 0" m.prom "old metrics"
    same "ulimit -f 0" p.svg "old plot"
    no_leftovers "ulimit -f 0" "$d"
    # --trace is written from the start: its first write fails, said once, and the run stops
    said=$(sh -c 'ulimit -f 0; "$@" 2>&1 >/dev/null; echo "exit $?"' sh "$bin" $args \
        --trace t.json </dev/null)
    case $said in
    *"--trace t.json: input/output error"*"exit 1") ;;
    *) fail "$(basename "$bin"): ulimit -f 0 --trace: $said" ;;
    esac
    [ "$(printf '%s\n' "$said" | awk 'END { print NR }')" -eq 2 ] ||
        fail "$(basename "$bin"): ulimit -f 0 --trace: not one line and the exit: $said"
done

# 3. Written: both files replaced; a link stays a link and its target is written; a device
# is written through.
mkdir real
ln -s real/metrics.prom link.prom
accepted "--metrics and --plot" "$pipeline" $small --metrics m.prom --plot p.svg
grep -q '^zkpipe_inflight_bytes 0$' m.prom || fail "--metrics: $(head -c 100 m.prom)"
grep -q '<svg' p.svg || fail "--plot: $(head -c 100 p.svg)"
accepted "host: --metrics through a link" "$host" --partitions 2 --metrics link.prom
[ -L link.prom ] || fail "link.prom is no longer a link"
grep -q 'kind="host_state"' real/metrics.prom || fail "host --metrics through a link"
# (as root a private null device: a binary that wrongly renamed onto it must not replace the
# system's /dev/null)
null=/dev/null
if [ "$(id -u)" -eq 0 ] && mknod null c 1 3 2>/dev/null; then
    null=$d/null
fi
accepted "--metrics onto a null device" "$pipeline" $small --metrics "$null"
[ -c "$null" ] || fail "the null device was replaced"
no_leftovers "written" "$d"

# 4. --zkey: the zkey, or one witness of a batch, truncated while mapped: an I/O error naming
# it (exit 1), not SIGBUS (exit 135); the outputs that were there as they were.
cp "$fix/witness.wtns" a.wtns
cp "$fix/witness.wtns" b.wtns
for victim in victim.zkey b.wtns; do
    cp "$fix/circuit.zkey" victim.zkey
    cp "$fix/witness.wtns" b.wtns
    echo "old proof" >b.proof.json
    run "$victim truncated" env LD_PRELOAD="$shim" ZKPIPE_TEST_TRUNCATE_ON_MMAP="$d/$victim" \
        "$pipeline" --zkey "$d/victim.zkey" --report-ms 0 "$d/a.wtns" "$d/b.wtns"
    [ ! -s "$d/$victim" ] || fail "$victim: the shim did not truncate it"
    [ "$status" -eq 1 ] || fail "$victim truncated: exit $status: $(cat "$tmp/stderr")"
    grep -q "$victim: I/O error" "$tmp/stderr" || fail "$victim truncated: $(cat "$tmp/stderr")"
    same "$victim truncated" b.proof.json "old proof"
    no_leftovers "$victim truncated" "$d"
done

# 5. --zkey: an output that is an input (a witness's pair landing on the zkey or on the
# witness, by its name, a symbolic or a hard link; --metrics, --trace, --plot): refused before
# any work naming both, exit 1, every input byte for byte as it was.
mkdir clash
cd clash
cp "$fix/circuit.zkey" in.zkey
cp "$fix/witness.wtns" in.wtns
cp "$fix/circuit.zkey" k.proof.json
cp "$fix/witness.wtns" k.wtns
cp "$fix/witness.wtns" s.wtns
ln -s in.zkey s.public.json
cp "$fix/witness.wtns" h.wtns
ln h.wtns h.proof.json
for f in in.zkey in.wtns k.proof.json k.wtns s.wtns h.wtns; do cp "$f" "$f.before"; done
z="--zkey in.zkey --report-ms 0"
clash "--zkey: the zkey named as a witness's proof" ./k.proof.json k.proof.json \
    "$pipeline" --zkey k.proof.json --report-ms 0 in.wtns k.wtns
clash "--zkey: a witness's public.json a link to the zkey" ./s.public.json in.zkey \
    "$pipeline" $z in.wtns s.wtns
clash "--zkey: a witness's proof.json a hard link to it" ./h.proof.json h.wtns \
    "$pipeline" $z h.wtns
clash "--zkey: --out holds a link to the zkey" "$d/clash/s.public.json" in.zkey \
    "$pipeline" $z --out "$d/clash" s.wtns
clash "--zkey: --metrics the zkey" in.zkey in.zkey "$pipeline" $z --metrics in.zkey in.wtns
clash "--zkey: --trace the witness" in.wtns in.wtns "$pipeline" $z --trace in.wtns in.wtns
clash "--zkey: --plot a link to the zkey" s.public.json in.zkey \
    "$pipeline" $z --plot s.public.json --out "$d" in.wtns
for f in in.zkey in.wtns k.proof.json k.wtns s.wtns h.wtns; do
    cmp -s "$f" "$f.before" || fail "a refused run changed $f"
done
[ -L s.public.json ] || fail "s.public.json is no longer a link"
no_leftovers "outputs that are inputs" "$d"

# 6. --zkey: a zkey or a witness that is not a regular file (a FIFO nobody writes, a device)
# is refused at once, never waited on: exit 1 within 10 s, naming it.
mkfifo in.fifo
limit=10
for bad in "$d/clash/in.fifo" /dev/null /dev/zero; do
    refused "--zkey $bad" "$bad: not a regular file" "$pipeline" --zkey "$bad" --report-ms 0 \
        --out "$d/clash" in.wtns
    refused "witness $bad" "$bad: not a regular file" "$pipeline" $z --out "$d/clash" "$bad"
done
limit=
[ ! -e in.proof.json ] || fail "a refused run wrote in.proof.json"
no_leftovers "inputs that are not files" "$d"
cd "$d"

checks_done
