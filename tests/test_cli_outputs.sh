#!/bin/sh
# zkpipe-prove's outputs on hostile paths and in hostile conditions (tools/cli/cli_files.h):
# a failed run leaves every pre-existing output as it was, devices, FIFOs and standard output
# are written through, symbolic links stay links, `ulimit -f` is an error and not a signal,
# leftovers of dead runs do not disturb the next run, and a zkey truncated while mapped is an
# I/O error naming it (with the LD_PRELOAD shim $3, support/truncate_on_mmap.c). An output that is an input is
# refused, and so is, at once, an input that is not a regular file (a FIFO, a device), also
# zkpipe-verify's. --durable syncs the outputs to the disk, and only it does.
#   test_cli_outputs.sh ZKPIPE_PROVE ZKPIPE_VERIFY TRUNCATE_ON_MMAP_SO
set -eu
[ $# -eq 3 ] || { echo "usage: test_cli_outputs.sh PROVE VERIFY TRUNCATE_SHIM" >&2; exit 2; }
prove=$1 verify=$2 shim=$3
fix=$(cd "$(dirname "$0")/interop/fixtures/bn128/multiplier" && pwd)
zkey=$fix/circuit.zkey wtns=$fix/witness.wtns vk=$fix/verification_key.json
. "$(dirname "$0")/support/cli_checks.sh"

d=$tmp/run
mkdir "$d"
cd "$d"
# Device nodes to write to. As root, private ones (mknod): a prover that wrongly renames onto
# a device must not replace the system's /dev/null or /dev/full, which root could.
if [ "$(id -u)" -eq 0 ] && mknod null c 1 3 2>/dev/null && mknod full c 1 7 2>/dev/null; then
    null=$d/null full=$d/full
else
    null=/dev/null full=/dev/full
fi

# 1. A bad output path: refused, and every pre-existing output as it was.
echo "old proof" >proof.json
mkdir public.json
refused "public.json a folder" public.json "$prove" "$zkey" "$wtns" proof.json public.json
same "public.json a folder" proof.json "old proof"
rmdir public.json
echo "old public" >public.json
refused "--metrics in a missing folder" nodir/m.json \
    "$prove" --metrics nodir/m.json "$zkey" "$wtns" proof.json public.json
same "--metrics in a missing folder" proof.json "old proof"
same "--metrics in a missing folder" public.json "old public"
refused "proof and public onto one file" public.json \
    "$prove" "$zkey" "$wtns" ./public.json public.json
same "proof and public onto one file" public.json "old public"
refused "a full device" "$full" "$prove" "$zkey" "$wtns" "$full" public.json
same "a full device" public.json "old public"
[ -c "$full" ] || fail "the full device was replaced"
no_leftovers "refusals" "$d"

# 2. ulimit -f 0: an error, not SIGXFSZ; nothing replaced, nothing left. (Its stderr goes
# to a pipe: under the limit it could not be written to a file either.)
said=$(sh -c 'ulimit -f 0; "$@" 2>&1; echo "exit $?"' sh "$prove" "$zkey" "$wtns" proof.json \
    public.json </dev/null)
case $said in
*"File too large"*"exit 1") ;;
*) fail "ulimit -f 0: $said" ;;
esac
same "ulimit -f 0" proof.json "old proof"
same "ulimit -f 0" public.json "old public"
no_leftovers "ulimit -f 0" "$d"

# 3. Written through: standard output, /dev/stdout, a FIFO; devices stay devices.
accepted "proof on -" "$prove" "$zkey" "$wtns" - public.json
cp "$tmp/stdout" stdout-proof.json
accepted "verify the proof from -" "$verify" "$vk" public.json stdout-proof.json
# (/proc/self/fd/1 rather than /dev/stdout: a prover that wrongly renamed onto that name
# would replace the system's link as root; under /proc nothing can be created.)
accepted "proof on /proc/self/fd/1" "$prove" "$zkey" "$wtns" /proc/self/fd/1 public.json
grep -q '"pi_a"' "$tmp/stdout" || fail "/proc/self/fd/1: no proof on stdout"
if [ "$(id -u)" -ne 0 ]; then
    accepted "proof on /dev/stdout" "$prove" "$zkey" "$wtns" /dev/stdout public.json
    grep -q '"pi_a"' "$tmp/stdout" || fail "/dev/stdout: no proof on stdout"
fi
mkfifo fifo
# The test's shell is the reader, there before the prover starts (a background `cat fifo` may
# not have opened it yet on a loaded machine): Linux opens a FIFO read-write without waiting,
# and the proof, far below a pipe's 64 KiB, waits in the pipe until one read takes it whole.
exec 3<>fifo
accepted "proof into a FIFO" "$prove" "$zkey" "$wtns" fifo public.json
timeout 20 dd bs=65536 count=1 status=none <&3 >from-fifo.json || true
exec 3>&-
[ -p fifo ] || fail "the FIFO was replaced"
accepted "verify the proof from the FIFO" "$verify" "$vk" public.json from-fifo.json
refused "a FIFO nobody reads" fifo "$prove" "$zkey" "$wtns" fifo public.json
accepted "proof onto a null device" "$prove" "$zkey" "$wtns" "$null" public.json
[ -c "$null" ] || fail "the null device was replaced by a file"
cp public.json public.before
refused "public onto a full device" "$full" "$prove" "$zkey" "$wtns" proof.json "$full"
[ -c "$full" ] || fail "the full device was replaced"
cmp -s public.json public.before || fail "a failed run changed public.json"

# 4. A symbolic link stays a link; its target gets the proof.
mkdir real
ln -s real/proof.json link.json
accepted "proof through a link" "$prove" "$zkey" "$wtns" link.json public.json
[ -L link.json ] || fail "link.json is no longer a link"
accepted "verify through the link" "$verify" "$vk" public.json real/proof.json
no_leftovers "written through" "$d"

# 5. Leftovers of a dead run do not disturb the next run; a live run's are kept. (They are
# swept only where the new files are staged by name, the file system having no O_TMPFILE:
# test_cli_files forces that path, and kills runs while staged on both.)
sh -c 'exit 0' &
dead=$!
wait "$dead"
echo stale >"proof.json.zkpipe-new-$dead"
echo stale >"public.json.zkpipe-old-$dead"
echo live >"proof.json.zkpipe-new-$$"
accepted "a run after a dead one" "$prove" "$zkey" "$wtns" proof.json public.json
[ -e "proof.json.zkpipe-new-$$" ] || fail "a live process's file was removed"
rm -f "proof.json.zkpipe-new-$$" "proof.json.zkpipe-new-$dead" "public.json.zkpipe-old-$dead"
accepted "verify after a dead run" "$verify" "$vk" public.json proof.json

# 6. A zkey truncated while mapped: an I/O error naming it, not SIGBUS (exit 135).
cp "$zkey" victim.zkey
cp proof.json proof.before
run "truncated zkey" env LD_PRELOAD="$shim" ZKPIPE_TEST_TRUNCATE_ON_MMAP="$d/victim.zkey" \
    "$prove" "$d/victim.zkey" "$wtns" proof.json public.json
[ "$(wc -c <victim.zkey)" -eq 0 ] || fail "the shim did not truncate the zkey"
[ "$status" -eq 1 ] || fail "truncated zkey: exit $status: $(cat "$tmp/stderr")"
grep -q 'victim.zkey: I/O error' "$tmp/stderr" || fail "truncated zkey: $(cat "$tmp/stderr")"
cmp -s proof.json proof.before || fail "truncated zkey: proof.json changed"
no_leftovers "truncated zkey" "$d"

# 7. An output that is an input (by its name, a symbolic link, a hard link, a descriptor;
# --metrics too): refused before any work with one line naming both, exit 1, the inputs byte
# for byte as they were and nothing left beside them.
cp "$zkey" in.zkey
cp "$wtns" in.wtns
cp "$fix/circuit.r1cs" in.r1cs
for f in in.zkey in.wtns in.r1cs; do cp "$f" "$f.before"; done
ln -s in.zkey zkey-link.json
ln in.wtns wtns-hard.json
clash "proof.json the zkey" in.zkey in.zkey "$prove" in.zkey in.wtns in.zkey public.json
clash "public.json the witness" in.wtns in.wtns "$prove" in.zkey in.wtns proof.json in.wtns
clash "proof.json a link to the zkey" zkey-link.json in.zkey \
    "$prove" in.zkey in.wtns zkey-link.json public.json
clash "public.json a hard link to the witness" wtns-hard.json in.wtns \
    "$prove" in.zkey in.wtns proof.json wtns-hard.json
clash "--metrics the zkey" in.zkey in.zkey "$prove" --metrics in.zkey in.zkey in.wtns \
    proof.json public.json
clash "--metrics the --r1cs" "$d/in.r1cs" in.r1cs \
    "$prove" --r1cs in.r1cs --metrics "$d/in.r1cs" in.zkey in.wtns proof.json public.json
clash "proof.json on - appending to the zkey" "-" in.zkey \
    sh -c 'exec "$0" in.zkey in.wtns - public.json >>in.zkey' "$prove"
for f in in.zkey in.wtns in.r1cs; do
    cmp -s "$f" "$f.before" || fail "a refused run changed $f"
done
[ -L zkey-link.json ] || fail "zkey-link.json is no longer a link"
same "outputs that are inputs" proof.json "$(cat proof.before)"
no_leftovers "outputs that are inputs" "$d"
cp in.wtns hard-a.json
ln hard-a.json hard-b.json
refused "proof.json and public.json hard links of one file" hard-a.json \
    "$prove" in.zkey in.wtns hard-a.json hard-b.json
cmp -s hard-a.json in.wtns || fail "a refused run changed hard-a.json"

# 8. An input that is not a regular file (a FIFO nobody writes, a device) is refused at once,
# never waited on: exit 1 within 10 s, naming it.
mkfifo in.fifo
limit=10
for bad in "$d/in.fifo" /dev/null /dev/zero; do
    refused "zkey $bad" "$bad: not a regular file" "$prove" "$bad" in.wtns p.json q.json
    refused "witness $bad" "$bad: not a regular file" "$prove" in.zkey "$bad" p.json q.json
    refused "--r1cs $bad" "$bad: not a regular file" \
        "$prove" --r1cs "$bad" in.zkey in.wtns p.json q.json
    refused "verify: the key $bad" "$bad: cannot read: not a regular file" \
        "$verify" "$bad" public.json proof.json
    refused "verify: public.json $bad" "$bad: cannot read: not a regular file" \
        "$verify" "$vk" "$bad" proof.json
    refused "verify: proof.json $bad" "$bad: cannot read: not a regular file" \
        "$verify" "$vk" public.json "$bad"
done
limit=
[ ! -e p.json ] && [ ! -e q.json ] || fail "a refused run wrote an output"
no_leftovers "inputs that are not files" "$d"

# 9. --durable: the same outputs, replaced the same way (a failed run leaves them as they were),
# synced to the disk: with strace at hand, each file and their folder fsynced, and nothing
# synced without the flag.
accepted "--durable" "$prove" --durable "$zkey" "$wtns" proof.json public.json
accepted "verify the --durable proof" "$verify" "$vk" public.json proof.json
cp proof.json kept.json
said=$(sh -c 'ulimit -f 0; "$@" 2>&1; echo "exit $?"' sh "$prove" --durable "$zkey" "$wtns" \
    proof.json public.json </dev/null)
case $said in
*"File too large"*"exit 1") ;;
*) fail "--durable under ulimit -f 0: $said" ;;
esac
cmp -s proof.json kept.json || fail "--durable under ulimit -f 0 replaced proof.json"
no_leftovers "--durable" "$d"
if ! command -v strace >/dev/null 2>&1 || ! strace -f -qq -o /dev/null true 2>/dev/null; then
    skip_checks "the count of fsync calls (no strace, or ptrace not allowed here)"
else
    for flag in "" --durable; do
        # LeakSanitizer cannot run under ptrace: its leak check is the other runs' job here.
        ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
            strace -f -qq -e trace=fsync,fdatasync -o syncs.txt \
            "$prove" $flag "$zkey" "$wtns" proof.json public.json >/dev/null ||
            fail "prove under strace ($flag)"
        n=$(grep -c 'sync(' syncs.txt || true)
        case "$flag:$n" in
        :0 | --durable:3) ;;
        *) fail "${flag:-no flag}: $n syncs, expected ${flag:+3 (two files, one folder)}${flag:-0}" ;;
        esac
    done
    rm -f syncs.txt
fi
accepted "verify after the syncs" "$verify" "$vk" public.json proof.json

checks_done
