/* A node of a proving fleet: zkpipe-pipeline --queue redis://HOST:PORT/STREAM (or
 * unix:///PATH?stream=STREAM). Nodes share one job queue, a Redis stream read through one
 * consumer group, and each proves what it takes through its own engine.
 *
 * Credentials (queue_auth.h): each of the node's connections sends AUTH with the password of
 * --redis-password-file, the URL or $ZKPIPE_REDIS_PASSWORD (and the URL's ACL user) when it
 * connects, reconnections included; a Redis not on this machine is refused without a password
 * (unless --insecure-no-auth) before any connection. Credentials refused (a wrong password, none
 * for a server that wants one, one for a server that has none) stop the node at once with one
 * line: not retried. The password is never printed. TLS: through stunnel (README).
 *
 * What an operator configures, and what a job may name: a job never names a path of the node's
 * host. The node proves the circuits it was given (--circuit NAME=FILE.zkey, repeatable: the zkey
 * paths are the operator's); reads a job's witness either from the job itself (field wtns: the
 * .wtns bytes, at most --max-wtns-mib, default 64) or, with --inputs DIR, from a file the job
 * names beneath DIR (field input: resolved with openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or
 * openat with O_NOFOLLOW one component at a time where the kernel lacks it; no "..", no absolute
 * name, no symbolic link; opened without blocking and checked to be a regular file before
 * anything reads it, so a FIFO or a device is that job's error at once); and returns every
 * result in STREAM:results, the proof and public signals as fields of the result entry (so a
 * fleet needs no shared file system). With --out DIR it also writes DIR/ID.public.json and
 * DIR/ID.proof.json, each through a temporary file created in DIR (O_EXCL|O_NOFOLLOW) and
 * renamed over the name: a symbolic link planted there is replaced, never followed. The library
 * maps a witness by name: the node gives it /proc/self/fd/N of the descriptor it checked (a job's
 * bytes in a sealed memfd), so that what is proved is the file checked, never a path resolved
 * again.
 *
 * Jobs: stream entries with fields id (the caller's name for it: 1 to 128 bytes of
 * [A-Za-z0-9._-], also its output files' name), circuit (one of --circuit's names), wtns or
 * input, and optionally sub (the submission's token, copied into the result). Every field is
 * checked and bounded by one parser (queue_job.h) before the node acts on it; a job that fails
 * it gets a result with ZKPIPE_EINVAL and a bounded line saying why (its id, when unusable, a
 * cut and marked copy). Fields the node writes itself (deliveries, status, error) are ignored
 * in a job. For each job the node proves the witness with the circuit's zkey (opened once and
 * kept while jobs use it), checks the proof against the zkey's verifying key, and then, in one
 * step (a Lua script, atomic on the server), appends a result entry to STREAM:results and XACKs
 * the job: at least once, never a result without its ACK or an ACK without its result. Result
 * fields: id, status ("ok" or the zkpipe status name), message, node, prove_s, entry (the job's
 * stream id), sub, deliveries, and for a proved job proof and public (snarkjs's JSON).
 *
 * Deliveries are counted by Redis, never taken from a job: an entry's own from XPENDING (a
 * delivery by XREADGROUP or XAUTOCLAIM counts one), plus, for an entry the node requeued, those
 * of the entries before it, kept in the hash STREAM:deliveries (field: the entry's id), which
 * only the transition script writes: set with the fresh entry it adds (marked with a field
 * requeued, so that a new job's take costs no lookup), dropped when an entry is acknowledged. A
 * plain XADD makes an entry without a count there, with or without that field: a new job. (A
 * client that can write any Redis key could still write that hash: the fleet's Redis is the
 * fleet's, and its access is for its nodes and submitters to share.)
 *
 * Backpressure: a node reads a job (XREADGROUP, or XAUTOCLAIM) only when its engine can admit
 * it (zkpipe_engine_admissible, for the largest estimate among the zkeys it has open: a permit
 * free that no job already submitted is waiting for, room in the byte budget, when set, with
 * what idle keys would give back), and it holds fewer than permits + capacity + prover_workers
 * jobs (its engine's resident_bound). That is the exact
 * bound on the jobs a node holds un-ACKed: taken from the stream and not yet ACKed, requeued or
 * dead-lettered, whatever stage they are in (waiting for a permit, synthesized, queued in the
 * channel, being proved, or being written and acknowledged). It prints the most it held.
 *
 * Nothing lost: a node renews its hold on the jobs it has (XCLAIM ... JUSTID, every quarter of
 * --claim-idle-ms, which does not count as a delivery; only those still its own), on a thread
 * and a Redis connection of its own, so that nothing else the node does (opening a zkey,
 * waiting for a permit, writing outputs) delays it. A job whose node died or lost Redis for
 * longer than --claim-idle-ms is taken over by another node (XAUTOCLAIM) and proved again; the
 * first node, should it come back, proves it too (at least once: one more result entry, and
 * with --out the same files, replaced whole).
 * A job that fails for a reason another try or another node may not have (ZKPIPE_EIO: a file it
 * could not read or write, an input not there yet; ENOMEM, EDEVICE, ENODEVICE, ETHREAD,
 * ETOOBIG: this node's means; EVERIFY) is requeued at once (a fresh entry with the job's own
 * checked fields, its deliveries counted on in STREAM:deliveries, added as the old one is
 * ACKed, in one step); one that fails for a reason in the job itself (the witness does not
 * satisfy the circuit, another curve, a malformed file or entry, a circuit the node was not
 * given, an input it may not read) gets its result with that error. A job delivered
 * --max-deliveries times without an outcome goes to STREAM:dead with its last error (and a result
 * entry saying so), never silently dropped: the dead letter holds the job's own checked fields
 * (bounded as above) and what became of it.
 *
 * Every transition is guarded by a key of its own (STREAM:guard:..., kept 10 minutes), so that
 * one whose reply was lost and that runs twice (sent again on a new connection, or run late by a
 * server that was stopped) writes its result once: one result entry per delivery.
 *
 * Redis lost: the node keeps proving what it holds, retries with backoff, and says so in one line
 * (and one when Redis is back). A group gone with a server restarted without persistence is
 * created again. On each new connection the node first reads its own pending entries (jobs
 * it held in an earlier life under the same --consumer, or whose outcome it could not send);
 * one it does not hold is taken only once XPENDING says it is still this node's, so that a job
 * finished between that read and its take is not proved again. SIGTERM or SIGINT: take no more
 * jobs, finish those held (giving up on the ACKs after --claim-idle-ms without Redis: those jobs
 * stay pending for other nodes), exit; a job delivered after the signal (by a read sent before it)
 * is handed back at once, requeued untouched without counting that delivery. A second one: exit
 * now, leaving every job not yet acknowledged pending for other nodes, which take them over after
 * --claim-idle-ms; a thread still blocked 300 ms later (a worker reading a slow file, a command to
 * a stopped Redis) is not waited for: the process ends there, with status 0, its summary printed
 * (every job held counted as left pending) but not its final --metrics (an output being written may
 * leave its .zkpipe-new- file, removed by the next run that writes it).
 *
 * Inputs changed under the node: a zkey or witness truncated (or whose storage fails) while
 * mapped raises SIGBUS in the thread reading it; the node leaves it to the library
 * (zkpipe_mapped_recover, through cli_mapped_recover), the thread reads zeros from there on, and
 * the job ends with an I/O error naming the file (requeued: the next delivery opens the file as
 * it is then); the zkey is opened anew for later jobs (zkpipe_zkey_files_damaged). The node
 * lives on.
 *
 * Keys: the node opens the zkeys through a zkpipe_zkey_files set (zkpipe/stages.h: one source
 * per file while it is the same file, a replaced one opened anew, at most 4 unused kept open),
 * whose sources are keys of its engine's key cache (zkpipe/key_cache.h): under --budget-mib each
 * holds its bytes of the budget, one unused for --key-idle-ms is unmapped when a job's partition
 * cannot otherwise be admitted and opened again by the next job that names it; a job is taken
 * when zkpipe_engine_admissible says the engine admits a partition of the largest estimate.
 * /metrics carries the key series (zkpipe_keys_resident, zkpipe_key_resident_bytes,
 * zkpipe_key_loads_total, zkpipe_key_releases_total, ...).
 *
 * --metrics FILE: what /metrics serves: the registry's counters, the engine's series
 * (zkpipe_partitions_total{result=...}, the budget, permits, the partition histograms) and the
 * node's queue series (zkpipe_queue_jobs_held, _peak_held, _held_bound, _taken_total, ...),
 * rewritten whole every second while it runs (for Prometheus's node_exporter textfile
 * collector) and once at exit, once its engine has finished what it held (stopping now: as it
 * stood then). */
#ifndef ZKPIPE_EXAMPLES_QUEUE_NODE_H
#define ZKPIPE_EXAMPLES_QUEUE_NODE_H

#include "cli_observe.h"
#include "queue_options.h"
#include "zkpipe/engine.h"

/*! queue_node_run() : runs the node until it is stopped or, with --exit-when-idle-ms, idle; the
 * engine is made from `cfg` (the engine flags), observed as `obs` asks (--listen, --trace, ...).
 * Prints a summary (and, with json, one JSON object as the last stdout line).
 * @return the exit status: 0 when every job it took was finished and acknowledged or handed
 * back, or it was told to stop now (what it held then is left pending on purpose); 1 when jobs
 * were left pending otherwise (Redis away at the stop, updates refused), the last --metrics
 * write failed, Redis refused its credentials, or it could not start; 2 when its credentials
 * or the server's address were refused before any connection. Call it before any other thread is
 * started: it blocks SIGTERM and SIGINT in every thread and takes them on its own, and takes
 * SIGBUS. */
int queue_node_run(const queue_options *q, const zkpipe_engine_config *cfg,
                   const cli_observe_options *obs, int full_check, uint32_t key_idle_ms, int json);

#endif
