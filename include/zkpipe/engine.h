/*! zkpipe/engine.h : the two-phase proving engine.
 *
 * Jobs of P partitions go in; each partition comes out as a Groth16 proof or an error.
 *
 *   synthesis workers: take a partition, acquire its permit (one unit of the partition
 *     semaphore, and its bytes of the byte budget when one is set), build its circuit with
 *     the partition's callback (the circuit charged to the partition's ledger as kind
 *     ZKPIPE_KIND_CIRCUIT while it exists), synthesize it (every buffer charged to the
 *     ledger), free the circuit, then send the partition into the bounded channel, the
 *     narrow waist, still holding the permit: the channel releases it on delivery. Items in
 *     synth + pending + queued thus never exceed permits + capacity (invariant 2 of
 *     ARCHITECTURE.md).
 *   prover workers: receive, prove (h from a, b, c, which are released as soon as h exists;
 *     the MSMs one after another on the worker's pool; the NTT domain and the MSMs' scratch
 *     charged as kind ZKPIPE_KIND_WORKSPACE while they exist), close the ledger, report the
 *     result. One partition per prover worker is being proved, outside invariant 2, so at
 *     most permits + capacity + prover_workers partitions hold buffers at once (the resident
 *     bound, zkpipe_engine_counters.resident_bound).
 *
 * The byte budget is held from before synthesis until the partition's ledger is closed. A
 * partition takes what its ledger holds at most, its circuit aside: synthesis's bytes
 * (zkpipe_synth_estimate), plus 32 n for h, which exists before a, b and c are released,
 * plus the most the prover's workspace takes with prover_threads threads. The circuit is
 * charged but not budgeted, its size being known only once it is built: the accounted bytes
 * of all partitions never exceed the budget plus the circuits under construction (at most
 * min(synth_workers, permits) of them). One partition larger than the whole budget fails
 * with ZKPIPE_ETOOBIG at once instead of waiting forever.
 *
 * Threads, all started by zkpipe_engine_create and joined by zkpipe_engine_destroy (none
 * hidden): synth_workers + prover_workers worker threads; each prover worker owns a thread
 * pool of prover_threads threads (itself included: prover_threads - 1 more threads each);
 * on the CUDA backend a proof also starts one thread for the B (G2) MSM beside the device's
 * G1 MSMs and joins it before the proof is done; one reporter thread when report_ms > 0. */
#ifndef ZKPIPE_ENGINE_H
#define ZKPIPE_ENGINE_H

#include <stdio.h>

#include "zkpipe/acct.h"
#include "zkpipe/alloc.h"
#include "zkpipe/backend.h"
#include "zkpipe/circuit.h"
#include "zkpipe/common.h"
#include "zkpipe/groth16.h"
#include "zkpipe/status.h"
#include "zkpipe/trace.h"

ZKPIPE_EXTERN_C_BEGIN

/* The engine. Opaque; thread-safe as documented per function. */
typedef struct zkpipe_engine zkpipe_engine;

/* A submitted job. Opaque; owned by the caller (zkpipe_job_destroy) and valid until then,
 * also after the engine is destroyed. */
typedef struct zkpipe_job zkpipe_job;

/* When a synthesis worker gives its partition permit back. */
typedef enum zkpipe_release {
    /* Once the channel has taken the item: bounds the waist (the default, the design). */
    ZKPIPE_RELEASE_DELIVERY = 0,
    /* Before sending, as soon as synthesis is done. A documented experiment, never for
     * production: it reproduces the pile-up once seen in the field, where synthesized items
     * wait in front of a full channel in unbounded numbers. */
    ZKPIPE_RELEASE_EARLY = 1
} zkpipe_release;

/* Engine settings; start from zkpipe_engine_config_init. */
typedef struct zkpipe_engine_config {
    unsigned synth_workers;  /* synthesis threads, >= 1 */
    uint64_t permits;        /* partition permits, >= 1 */
    uint64_t budget_bytes;   /* byte budget over all in-flight partitions; 0: none */
    size_t capacity;         /* channel slots (the lookahead), >= 1 */
    unsigned prover_workers; /* prover threads, >= 1 */
    unsigned prover_threads; /* threads of each prover worker's pool (itself included), >= 1 */
    zkpipe_backend backend;  /* requested; resolved at create (zkpipe_backend_resolve) */
    zkpipe_release release;  /* ZKPIPE_RELEASE_DELIVERY unless experimenting */
    zkpipe_acct *acct;       /* registry the ledgers live in; NULL: zkpipe_acct_default() */
    /* A reporter (zkpipe_reporter_start) writing a summary line of `acct` every report_ms
     * milliseconds to report_file, or to report_fn when it is set; 0: no reporter. */
    uint32_t report_ms;
    FILE *report_file;
    zkpipe_reporter_fn report_fn;
    void *report_ctx;
    /* NULL, or a trace (zkpipe/trace.h) that receives per partition one track with a span per
     * stage, and a "live bytes" counter sample at each stage change. Not owned: it must
     * outlive the engine. */
    zkpipe_trace *trace;
    const zkpipe_allocator *allocator; /* NULL for the C library; copied */
} zkpipe_engine_config;

/* One partition of a job: a circuit with its witness, and the proving key for it. The
 * callback is the whole source: code that builds a circuit, as here, or a loader that fills
 * the system from an R1CS file and a witness file, with nothing else to change. */
typedef struct zkpipe_partition {
    /* Fills `cs` (empty, ZKPIPE_CS_WITNESS mode, over the key's curve, using the engine's
     * allocator through a wrapper that charges each block, plus a header of 16 bytes or the
     * block's alignment, to the partition's ledger as kind ZKPIPE_KIND_CIRCUIT) with the
     * partition's constraints and witness; returns ZKPIPE_OK or an error that becomes the
     * partition's result. Called on a synthesis worker thread. */
    zkpipe_status (*build)(zkpipe_cs *cs, void *ctx, size_t partition);
    void *ctx; /* passed to build untouched; must stay valid until the job has finished */
    /* Bytes synthesis will charge (zkpipe_synth_estimate), used for the byte budget; 0: the
     * engine derives it from the key's counts. A circuit built larger than announced fails
     * with ZKPIPE_EMISMATCH before synthesis. */
    uint64_t synth_bytes;
    const zkpipe_groth16_pk *pk; /* must stay valid until the job has finished */
} zkpipe_partition;

/* What became of one partition. */
typedef struct zkpipe_partition_result {
    zkpipe_status status;       /* ZKPIPE_OK: `proof` holds the proof; else the error */
    size_t first_failing;       /* with ZKPIPE_EUNSATISFIED: the first failing constraint */
    zkpipe_groth16_proof proof; /* valid when status is ZKPIPE_OK */
    double synth_s;             /* building the circuit and synthesizing it */
    double wait_s;              /* from synthesized to taken by a prover (pending + queued) */
    double prove_s;             /* proving */
    uint64_t reserved[4];       /* zero */
} zkpipe_partition_result;

/* Called once per job, when its last partition has ended, on the engine thread that ended it
 * (or in zkpipe_engine_destroy). The job's results are readable from inside; it must not
 * destroy the job nor call the engine. */
typedef void (*zkpipe_job_done_fn)(zkpipe_job *job, void *ctx);

/* Engine counters (zkpipe_engine_stats). Partitions, since the engine was created. */
typedef struct zkpipe_engine_counters {
    uint64_t submitted;      /* partitions submitted */
    uint64_t proved;         /* ended with a proof */
    uint64_t failed;         /* ended with an error other than ZKPIPE_ECANCELED */
    uint64_t canceled;       /* ended with ZKPIPE_ECANCELED */
    uint64_t in_flight;      /* in synth + pending + queued now */
    uint64_t peak_in_flight; /* highest in_flight, counted at the ledger moves themselves */
    uint64_t bound;          /* permits + capacity: what peak_in_flight stays within with
                              * ZKPIPE_RELEASE_DELIVERY */
    uint64_t resident_bound; /* bound + prover_workers: the most partitions holding buffers
                              * at once with ZKPIPE_RELEASE_DELIVERY, those being proved
                              * included; peak accounted bytes stay within it times one
                              * partition's peak */
    uint64_t reserved[7];    /* zero */
} zkpipe_engine_counters;

/*! zkpipe_engine_config_init() : defaults: 2 synthesis workers, 2 permits, no byte budget,
 * capacity 2, 1 prover worker of 1 thread, backend auto, release on delivery, the default
 * registry, no reporter, no trace, the C library allocator. NULL is a no-op.
 * Thread safety: any thread. */
ZKPIPE_API void zkpipe_engine_config_init(zkpipe_engine_config *config);

/*! zkpipe_engine_create() : resolves the backend, creates the semaphores, the channel, the
 * prover pools and the reporter, and starts the workers.
 * @param out receives the engine; the caller frees it with zkpipe_engine_destroy.
 * @param config copied; what it points to (acct, report_file, report_ctx, trace) must
 *        outlive the engine.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, a zero count, unknown backend or release policy,
 *         report_ms > 0 without a sink, incomplete allocator), ZKPIPE_ENODEVICE (backend cuda
 *         with no usable device), ZKPIPE_ENOMEM, ZKPIPE_ETHREAD, ZKPIPE_EUNSUPPORTED (no
 *         condition variables on CLOCK_MONOTONIC). On error nothing is left running or
 *         allocated and *out is untouched.
 * Thread safety: any thread. Allocates the engine (about 500 bytes plus 8 per worker thread), two
 * semaphores, a channel, the pools and a reporter; starts the threads listed at the top. */
ZKPIPE_API zkpipe_status zkpipe_engine_create(zkpipe_engine **out,
                                              const zkpipe_engine_config *config);

/*! zkpipe_engine_backend() : the backend the engine proves on (ZKPIPE_BACKEND_CPU or
 * ZKPIPE_BACKEND_CUDA) and, in *why when why is not NULL, a static one-line reason for the
 * choice. ZKPIPE_BACKEND_AUTO for NULL. Thread safety: any thread. */
ZKPIPE_API zkpipe_backend zkpipe_engine_backend(const zkpipe_engine *engine, const char **why);

/*! zkpipe_engine_submit() : queues a job of `count` partitions (copied; what they point to
 * must stay valid until the job has finished). Partitions start in submission order.
 * @param out receives the job; the caller owns it (zkpipe_job_destroy).
 * @param done NULL, or called once when every partition has ended (see zkpipe_job_done_fn).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL engine, out or parts, count 0, a partition without
 *         build or pk), ZKPIPE_ECLOSED (the engine is closed: nothing was queued),
 *         ZKPIPE_EOVERFLOW, ZKPIPE_ENOMEM, ZKPIPE_EUNSUPPORTED.
 * Thread safety: any thread, concurrently with every call but zkpipe_engine_destroy.
 * Allocates one block of about 900 bytes per partition through the engine's allocator. */
ZKPIPE_API zkpipe_status zkpipe_engine_submit(zkpipe_engine *engine, zkpipe_job **out,
                                              const zkpipe_partition *parts, size_t count,
                                              zkpipe_job_done_fn done, void *ctx);

/*! zkpipe_engine_close() : later submissions fail with ZKPIPE_ECLOSED; jobs already
 * submitted go on. Closing twice, or NULL, is a no-op. Thread safety: any thread. */
ZKPIPE_API void zkpipe_engine_close(zkpipe_engine *engine);

/*! zkpipe_engine_drain() : closes the engine and waits until every submitted job has
 * finished. NULL is a no-op. Thread safety: any thread but the engine's own (not from a
 * build or done callback). */
ZKPIPE_API void zkpipe_engine_drain(zkpipe_engine *engine);

/*! zkpipe_engine_stats() : a copy of the engine's counters.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL). Thread safety: any thread. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_engine_stats(zkpipe_engine *engine, zkpipe_engine_counters *out);

/*! zkpipe_engine_destroy() : closes the engine, cancels every job not yet finished (their
 * partitions not yet proving end with ZKPIPE_ECANCELED; proofs under way complete), joins
 * every thread and frees the engine. Every job still ends, with its done callback; every
 * ledger is closed; the caller's job handles stay valid. Use zkpipe_engine_drain first to
 * finish the work instead. NULL is a no-op.
 * Thread safety: once, with no other call on the engine running or starting, not from a
 * callback. */
ZKPIPE_API void zkpipe_engine_destroy(zkpipe_engine *engine);

/*! zkpipe_job_wait() : blocks until every partition of `job` has ended (and its done callback
 * has returned). @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL).
 * Thread safety: any thread but the engine's; any number of waiters. */
ZKPIPE_API zkpipe_status zkpipe_job_wait(zkpipe_job *job);

/*! zkpipe_job_wait_timed() : zkpipe_job_wait giving up after `timeout_ns` nanoseconds on
 * CLOCK_MONOTONIC. @return ZKPIPE_OK, ZKPIPE_ETIMEDOUT, ZKPIPE_EINVAL. */
ZKPIPE_API zkpipe_status zkpipe_job_wait_timed(zkpipe_job *job, uint64_t timeout_ns);

/*! zkpipe_job_cancel() : partitions of `job` that have not started proving end with
 * ZKPIPE_ECANCELED (at the worker's next step; a wait for a permit is not interrupted);
 * proofs under way complete. Harmless on a finished job. NULL is a no-op.
 * Thread safety: any thread, also from callbacks. */
ZKPIPE_API void zkpipe_job_cancel(zkpipe_job *job);

/*! zkpipe_job_partitions() : the job's partition count; 0 for NULL. Thread safety: any. */
ZKPIPE_API size_t zkpipe_job_partitions(const zkpipe_job *job);

/*! zkpipe_job_result() : what became of partition `index`.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, index out of range), ZKPIPE_ESTATE (the job has
 *         not finished: wait first). Thread safety: any thread. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_job_result(const zkpipe_job *job, size_t index,
                                           zkpipe_partition_result *out);

/*! zkpipe_job_destroy() : frees the job; if it has not finished, cancels it and waits for it
 * first. NULL is a no-op. Thread safety: once per job, not from a callback. */
ZKPIPE_API void zkpipe_job_destroy(zkpipe_job *job);

ZKPIPE_EXTERN_C_END

#endif
