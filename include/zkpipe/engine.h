/*! zkpipe/engine.h : the two-phase proving engine, for any two-phase prover.
 *
 * Jobs of P partitions go in; each partition comes out as a result (the stage operations' own
 * output, or an error). What a partition is, the engine does not know: it names its stage
 * operations
 * (zkpipe_stage_ops), an estimate of its bytes, `synthesize` and `prove`, and the engine runs
 * everything around them the same way for every kind of partition:
 *
 *   synthesis workers: take a partition, acquire its permit (one unit of the partition
 *     semaphore, and its estimated bytes of the byte budget when one is set), open its ledger
 *     in ZKPIPE_STAGE_SYNTH, call `synthesize` (which charges every buffer it allocates to
 *     that ledger and returns an opaque item), move the ledger to ZKPIPE_STAGE_PENDING, then
 *     send the item into the bounded channel, the narrow waist, still holding the permit: the
 *     channel moves the ledger to ZKPIPE_STAGE_QUEUED and releases the permit on delivery.
 *     Items in synth + pending + queued thus never exceed permits + capacity (invariant 2 of
 *     docs/ARCHITECTURE.md).
 *   prover workers: receive (the channel moves the ledger to ZKPIPE_STAGE_PROVING, once), call
 *     `prove` (which may release buffers as it goes and fills the result), move the ledger to
 *     ZKPIPE_STAGE_FINALIZE when `prove` has not, close it, give the byte budget back, and
 *     record the result. One partition per prover worker is being proved, outside invariant
 *     2, so at most permits + capacity + prover_workers partitions hold buffers at once (the
 *     resident bound, zkpipe_engine_counters.resident_bound). With config.max_batch > 1 and
 *     operations that have `prove_batch`, a prover worker takes up to max_batch items from the
 *     channel at once and proves them in one call: the bound is then permits + capacity +
 *     prover_workers * max_batch.
 *   cancel, destroy, a closed engine: an item that will never be proved goes to `discard`.
 *
 * zkpipe's own circuits and circom zkey + witness pairs are two implementations of the stage
 * operations (zkpipe/stages.h, which also reads their proofs out of the results); a host
 * brings its own (examples/host_pipeline.c).
 *
 * The backend: the engine passes its config's `backend` to the stage operations as it is
 * (zkpipe_stage_call.backend) and never resolves it. The built-in operations resolve it
 * (zkpipe_backend_resolve) when a partition of theirs is first proved, so an engine whose
 * stages are a host's own never loads the CUDA plug-in (libzkpipe_cuda), whatever its
 * backend.
 *
 * The byte budget: before synthesis a partition reserves max(its `estimate`, the largest peak
 * the ledgers of its source reached, open ones included) bytes (a source: the operations table with
 * the key its `source` operation names); a partition estimated larger than the whole budget fails
 * with ZKPIPE_ETOOBIG at once instead of waiting forever. With ZKPIPE_RESERVATION_FOLLOW (the
 * default) the reservation then follows the ledger: the bytes the partition frees go back to
 * the budget at once (a, b, c after h: the next synthesis may start), except what its source
 * has been seen to allocate again after freeing (so until a partition of the source has been
 * proved, the reservation is held whole); it never drops below what the ledger holds,
 * travels through the channel with the item and is returned whole when the ledger is closed.
 * With ZKPIPE_RESERVATION_WHOLE it is held whole until then. The ledgers hold the truth: a
 * charge beyond the reservation grows it first, inside zkpipe_ledger_charge (the ledger's
 * hook), taking the bytes from the budget ahead of every admission and waiting for them when
 * they are not free; so a stage operation's charge may block, and a host must not charge
 * while holding a lock that another partition's work needs. When nothing else could move (a
 * partition being proved, or one in synthesis while every other partition waits for the
 * budget too), one partition at a time is let past the budget: the overdraft, paid back first
 * by the units that come back. So the accounted bytes never exceed the budget by more than
 * one partition's shortfall (budget_overdraft_peak_bytes), whatever the estimates, and some
 * partition can always go on (docs/ARCHITECTURE.md has the argument). A partition that alone
 * needs more than the whole budget runs on its overdraft, and the next ones of its source
 * (reserving the whole budget, their learned size capped) run alone. Charges beyond the
 * units admitted are counted (over_reservation_events and _bytes); the peak a ledger reaches
 * raises its source's learned size at once, so partitions admitted later reserve it.
 *
 * Concurrency: with ZKPIPE_CONCURRENCY_FIXED `permits` partitions are admitted to synthesis
 * at once; with ZKPIPE_CONCURRENCY_AUTO the engine chooses, between 1 and synth_workers, from
 * what its provers see of the waist (zkpipe_concurrency; docs/ARCHITECTURE.md says the rule).
 * Either way the byte budget bounds the bytes, and the bound above holds with synth_workers
 * in place of permits.
 *
 * Memory no ledger sees: the engine estimates it (zkpipe_engine_counters.unaccounted_bytes)
 * from the process's resident set, so a gap between the ledgers and the machine shows.
 *
 * Threads, all started by zkpipe_engine_create and joined by zkpipe_engine_destroy (none
 * hidden): synth_workers + prover_workers worker threads; each prover worker owns a thread
 * pool of prover_threads threads (itself included: prover_threads - 1 more threads each);
 * stage operations may start threads of their own (the built-in prover does, for the G2 MSM
 * beside a device, joined before it returns); one reporter thread when report_ms > 0; one
 * trace flusher thread when a trace is attached.
 *
 * Watching it: zkpipe_engine_stats (counters), zkpipe_engine_histogram (each partition's
 * synthesis, wait and prove seconds), zkpipe_engine_in_flight (the partitions holding buffers
 * now, with their stage and age), and zkpipe_engine_http_provider, which serves all of it
 * through an HTTP endpoint (zkpipe/http.h). */
#ifndef ZKPIPE_ENGINE_H
#define ZKPIPE_ENGINE_H

#include <stdio.h>

#include "zkpipe/acct.h"
#include "zkpipe/alloc.h"
#include "zkpipe/backend.h"
#include "zkpipe/common.h"
#include "zkpipe/histogram.h"
#include "zkpipe/http.h"
#include "zkpipe/key_cache.h"
#include "zkpipe/pool.h"
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

/* How a partition's byte reservation behaves between admission and the close of its ledger. */
typedef enum zkpipe_reservation {
    /* Follows the ledger: freed bytes go back to the budget at once (the default). */
    ZKPIPE_RESERVATION_FOLLOW = 0,
    /* Held whole until the ledger closes (the behaviour of earlier versions; for comparison). */
    ZKPIPE_RESERVATION_WHOLE = 1
} zkpipe_reservation;

/* How many partitions are admitted to synthesis at once. */
typedef enum zkpipe_concurrency {
    /* `permits` partition permits, always (the default). */
    ZKPIPE_CONCURRENCY_FIXED = 0,
    /* Adjusted online between 1 and synth_workers, starting at min(permits, synth_workers),
     * by a controller on what the provers see of the narrow waist (docs/ARCHITECTURE.md,
     * "Concurrency that tunes itself"): raised by one, at once, each time a prover finds
     * nothing to prove while every permit lent is taken and partitions wait for one (and
     * none for the budget, which a permit would not help), lowered when every prover,
     * over a whole window, found two or more items ready (by the surplus less one). The byte
     * budget bounds the bytes whatever the count; without one (budget_bytes 0) the engine
     * takes half of the machine's MemAvailable at create. */
    ZKPIPE_CONCURRENCY_AUTO = 1
} zkpipe_concurrency;

/* Engine settings; start from zkpipe_engine_config_init. */
typedef struct zkpipe_engine_config {
    /* sizeof(zkpipe_engine_config) as the caller compiled it (set by _init): a library with a
     * longer struct reads only what the caller's covers and defaults the rest. */
    size_t struct_size;
    unsigned synth_workers;  /* synthesis threads, >= 1 */
    uint64_t permits;        /* partition permits, >= 1 (auto: where the controller starts) */
    uint64_t budget_bytes;   /* byte budget over all in-flight partitions; 0: none */
    size_t capacity;         /* channel slots (the lookahead), >= 1 */
    unsigned prover_workers; /* prover threads, >= 1 */
    unsigned prover_threads; /* threads of each prover worker's pool (itself included), >= 1 */
    /* What the stage operations are asked to prove on: passed to them untouched, never
     * resolved by the engine (see the top of this file). */
    zkpipe_backend backend;
    zkpipe_release release; /* ZKPIPE_RELEASE_DELIVERY unless experimenting */
    zkpipe_acct *acct;      /* registry the ledgers live in; NULL: zkpipe_acct_default() */
    /* A reporter (zkpipe_reporter_start) writing a summary line of `acct` every report_ms
     * milliseconds to report_file, or to report_fn when it is set; 0: no reporter. The
     * engine appends its unaccounted-bytes estimate to each line (" unaccounted~=1.5 MiB",
     * see zkpipe_engine_counters.unaccounted_bytes). */
    uint32_t report_ms;
    FILE *report_file;
    zkpipe_reporter_fn report_fn;
    void *report_ctx;
    /* NULL, or a trace (zkpipe/trace.h) that receives per partition one track with a span per
     * stage, and a "live bytes" counter sample at each stage change. The engine flushes it at
     * least once a second (its own thread), so the file is valid JSON holding every event
     * older than a second however long a partition takes. For samples as buffers are charged
     * and released inside a stage too (synthesis filling its buffers), have the trace watch
     * `acct` (zkpipe_trace_watch), as zkpipe-pipeline does. Not owned: it must outlive the
     * engine. */
    zkpipe_trace *trace;
    const zkpipe_allocator *allocator; /* NULL for the C library; copied */
    zkpipe_reservation reservation;    /* ZKPIPE_RESERVATION_FOLLOW unless comparing */
    zkpipe_concurrency concurrency;    /* ZKPIPE_CONCURRENCY_FIXED: `permits` permits */
    /* NULL, or the proving keys the partitions use (zkpipe/key_cache.h): from create to destroy
     * every resident key of the cache holds its bytes of the byte budget (create fails with
     * ZKPIPE_ETOOBIG when those resident then do not fit, ZKPIPE_ESTATE when another engine
     * uses the cache), a partition whose operations name a key (zkpipe_stage_ops.key) pins it
     * from its admission to its end, loading it with the partition's own units when it is
     * released, and idle keys are released when a partition cannot otherwise be admitted.
     * Not owned: it must outlive the engine. Without a budget the keys are loaded and pinned
     * all the same, and never released. */
    zkpipe_key_cache *keys;
    /* NULL, or called once with on_destroyed_ctx when the engine is gone: every thread it
     * started joined (but the one calling, which exits right after) and its memory freed, so
     * what the fields above point to may be freed from inside. On the thread that called
     * zkpipe_engine_destroy, or, when that was one of the engine's own (see "Calls from the
     * engine's threads" in zkpipe_engine_destroy), on the last worker to leave. */
    void (*on_destroyed)(void *ctx);
    void *on_destroyed_ctx;
    /* The most items a prover worker holds at once (1..ZKPIPE_ENGINE_MAX_BATCH; default 1):
     * with more, a worker that received an item whose operations have prove_batch takes up to
     * max_batch - 1 more items already in the channel, never waiting for one, and proves them
     * together. The resident bound becomes bound + prover_workers * max_batch. */
    unsigned max_batch;
} zkpipe_engine_config;

/* The largest zkpipe_engine_config.max_batch. */
#define ZKPIPE_ENGINE_MAX_BATCH 1024

/* What a partition's result holds. The engine fills status and the timings; `prove` fills the
 * rest. */
typedef struct zkpipe_partition_result {
    zkpipe_status status; /* ZKPIPE_OK: the partition was proved; else the error */
    /* The index of what failed, as the operations count (the built-in circuit operations: the
     * first unsatisfied constraint, with ZKPIPE_EUNSATISFIED). */
    size_t first_failing;
    /* The stage operations' output, as their `prove` set it: a host's result, or the built-in
     * operations' proof (zkpipe_stage_proof in zkpipe/stages.h reads it). The engine never
     * reads it; when the operations have result_free the engine calls it on a non-NULL `host`
     * as the job is destroyed (so read the result before zkpipe_job_destroy). */
    void *host;
    double synth_s; /* synthesizing (from the ledger's opening to pending) */
    double wait_s;  /* from synthesized to taken by a prover (pending + queued) */
    double prove_s; /* proving */
    /* One line saying what failed ("" when nothing did or nothing was said): what the stage
     * operation wrote to its call's detail buffer, or the engine's own. */
    char detail[ZKPIPE_DETAIL_MAX];
    uint64_t reserved[4]; /* zero */
} zkpipe_partition_result;

/* What every stage operation is given. Valid for the duration of the call only. */
typedef struct zkpipe_stage_call {
    void *ctx;        /* the partition's ctx, untouched */
    size_t partition; /* the partition's index in its job */
    uint64_t job;     /* the job's number, from 1 */
    /* The partition's open ledger (in ZKPIPE_STAGE_SYNTH during synthesize, in
     * ZKPIPE_STAGE_PROVING when prove starts); NULL in estimate, and in discard when the engine
     * has already closed it (its charges are gone then; free the item without releasing). Only
     * the thread the operation runs on may charge it. With a byte budget a charge may wait for
     * budget bytes (see the top of this file): charge a buffer before allocating it, and never
     * while holding a lock that another partition's operations take. */
    zkpipe_ledger *ledger;
    zkpipe_pool *pool;       /* prove: the prover worker's pool; otherwise NULL */
    zkpipe_backend backend;  /* the engine config's, unresolved (ZKPIPE_BACKEND_AUTO too) */
    unsigned prover_threads; /* the threads of each prover pool (for estimates) */
    unsigned worker;         /* the index of the calling worker among those of its kind */
    const zkpipe_allocator *allocator; /* the engine's (not charging: charge what you keep) */
    char *detail;      /* a line describing a failure goes here (ZKPIPE_DETAIL_MAX bytes) */
    size_t detail_cap; /* ... */
    /* The handle of the partition's key (zkpipe_stage_ops.key), pinned: from synthesize to the
     * partition's end; NULL in estimate, without a key, and in discard once it is unpinned. */
    void *key;
} zkpipe_stage_call;

/* A partition's stage operations. A table of the host's (usually static const), that every
 * partition using it points at; it must outlive every job that uses it (zkpipe_stage_ops_init
 * starts one with every operation NULL and struct_size set). The engine calls
 * estimate and synthesize on a synthesis worker, prove on a prover worker and discard on
 * whichever thread gives the item up; calls for different partitions run concurrently, so the
 * functions must be thread-safe across partitions. */
typedef struct zkpipe_stage_ops {
    /* sizeof(zkpipe_stage_ops) as the host compiled it: fields beyond it read as NULL. It
     * must reach at least through `discard` (the first published table ended there). */
    size_t struct_size;
    const char *name; /* for messages and traces; may be NULL */
    /* The most bytes the partition's ledger will hold at once, for the byte budget; NULL: 0.
     * Errors end the partition with that status. */
    zkpipe_status (*estimate)(const zkpipe_stage_call *call, uint64_t *bytes);
    /* Synthesis: every buffer it allocates and keeps is charged to call->ledger; *item is what
     * goes through the channel (any non-NULL pointer). On error nothing may stay allocated or
     * charged (the engine closes the ledger anyway) and *item is ignored. */
    zkpipe_status (*synthesize)(const zkpipe_stage_call *call, void **item);
    /* Proving: consumes `item` (frees everything it holds, whatever the status), releasing
     * buffers from call->ledger as they go, and fills `out`'s host and first_failing (the
     * status it returns becomes out->status). */
    zkpipe_status (*prove)(const zkpipe_stage_call *call, void *item, zkpipe_partition_result *out);
    /* Frees an item that will never be proved (cancel, destroy, a closed engine). */
    void (*discard)(const zkpipe_stage_call *call, void *item);
    /* NULL, or frees a result's `host` pointer when its job is destroyed. */
    void (*result_free)(void *ctx, size_t partition, void *host);
    /* NULL, or checks a partition's context at submission: an error refuses the whole job
     * (zkpipe_engine_submit returns it) before anything is queued. Called on the submitting
     * thread; must not block. */
    zkpipe_status (*validate)(void *ctx, size_t partition);
    /* NULL, or the key of the partition's source: partitions of one table with equal keys
     * share what their closed ledgers taught the byte budget (see the top of this file); a
     * table without it is one source. Any pointer the operations choose (the built-ins: the
     * proving key, the zkey source); called on a synthesis worker, must not block. */
    const void *(*source)(void *ctx, size_t partition);
    /* NULL, or the proving key the partition uses, from a key cache (zkpipe/key_cache.h; NULL:
     * none): the engine pins it from the partition's admission to its end, loading it first
     * when released (the call's `key` is its handle), so it is never released while the
     * partition is in flight. Called on a synthesis worker before admission; must not block. */
    zkpipe_key *(*key)(void *ctx, size_t partition);
    /* NULL, or proves n partitions of this table in one call (a GPU prover's batch), on a
     * prover worker, when config.max_batch > 1 (see there): for each i < n, calls[i] is what
     * `prove` would be given (each partition keeps its own ledger, in ZKPIPE_STAGE_PROVING, to
     * charge and release), items[i] is consumed as by `prove`, outs[i] is filled as by `prove`,
     * and statuses[i] receives that partition's status, so a batch whose partitions fail
     * individually reports them individually (write each one's line to calls[i].detail). n is
     * 1 when nothing more was ready; `prove` is still required (partitions proved alone). */
    void (*prove_batch)(const zkpipe_stage_call *calls, void *const *items,
                        zkpipe_partition_result *const *outs, zkpipe_status *statuses, size_t n);
} zkpipe_stage_ops;

/* One partition of a job: its operations and their context (both must stay valid until the
 * job has finished). */
typedef struct zkpipe_partition {
    const zkpipe_stage_ops *ops;
    void *ctx;
    uint64_t reserved[2]; /* zero */
} zkpipe_partition;

/* Called once per job, when its last partition has ended, on the engine thread that ended it
 * (or in zkpipe_engine_destroy). The job's results are readable from inside; calls into the
 * engine and the job work as from a stage operation (zkpipe_engine_destroy,
 * zkpipe_job_destroy), wait and drain being refused. */
typedef void (*zkpipe_job_done_fn)(zkpipe_job *job, void *ctx);

/* Engine counters (zkpipe_engine_stats). Partitions, since the engine was created, and what
 * the engine holds now. */
typedef struct zkpipe_engine_counters {
    uint64_t submitted;         /* partitions submitted */
    uint64_t proved;            /* ended with ZKPIPE_OK */
    uint64_t failed;            /* ended with an error other than ZKPIPE_ECANCELED */
    uint64_t canceled;          /* ended with ZKPIPE_ECANCELED */
    uint64_t in_flight;         /* in synth + pending + queued now */
    uint64_t peak_in_flight;    /* highest in_flight, counted at the ledger moves themselves */
    uint64_t bound;             /* permits + capacity (synth_workers + capacity with
                                 * ZKPIPE_CONCURRENCY_AUTO): what peak_in_flight stays within
                                 * with ZKPIPE_RELEASE_DELIVERY */
    uint64_t resident_bound;    /* bound + prover_workers * max_batch: the most partitions
                                 * holding buffers at once with ZKPIPE_RELEASE_DELIVERY, those
                                 * being proved included */
    uint64_t proving;           /* partitions being proved now */
    uint64_t permits_available; /* permits an acquire could take now */
    uint64_t budget_bytes;      /* the byte budget (0: none) */
    uint64_t budget_available;  /* of it, not reserved now */
    uint64_t channel_items;     /* items in the channel now */
    uint64_t channel_capacity;
    uint64_t waiting_senders; /* synthesis workers blocked in front of a full channel */
    /* Partitions whose ledger charged beyond the budget units they were admitted with (their
     * reservation grew to cover it), and the sum of each one's largest excess. */
    uint64_t over_reservation_events;
    uint64_t over_reservation_bytes;
    /* Budget bytes given back before their ledgers closed, as the ledgers freed them. */
    uint64_t budget_returned_early;
    /* Partitions admitted to synthesis at once now: `permits`, or with
     * ZKPIPE_CONCURRENCY_AUTO the controller's current choice (1 .. synth_workers). */
    uint64_t permits_admitted;
    /* Nanoseconds the prover workers together spent waiting for an item to prove. */
    uint64_t prover_idle_ns;
    /* An estimate of the bytes the process holds that no ledger accounts for: its resident
     * set (Linux /proc/self/statm) minus the accounted live bytes of the engine's registry,
     * less that same difference when the engine was created (the baseline); 0 when below the
     * baseline or where the resident set cannot be read. Sampled as each partition finishes
     * synthesis and ends, on each reporter line and by this call; the peak is over those
     * samples. It counts everything the process maps and touches (allocator caches, freed
     * pages not yet returned, other libraries, stacks), so read it as a trend, not a ledger. */
    uint64_t unaccounted_bytes;
    uint64_t unaccounted_peak_bytes;
    /* Waits for the byte budget (0 without one): admissions that waited for their
     * reservation, and growths (a ledger charging beyond what its reservation held) that
     * waited for the bytes, each with the nanoseconds they waited in all. When these rise
     * while prover_idle_ns does too, the budget, not the CPU, is what limits throughput. */
    uint64_t budget_admission_waits;
    uint64_t budget_admission_wait_ns;
    uint64_t budget_growth_waits;
    uint64_t budget_growth_wait_ns;
    /* Overdrafts: growths let past the budget because nothing else could move (see the top of
     * this file), and the largest excess one reached: the accounted bytes stay within
     * budget_bytes + overdraft_peak_bytes. */
    uint64_t budget_overdrafts;
    uint64_t budget_overdraft_peak_bytes;
    uint64_t reserved[8]; /* zero */
} zkpipe_engine_counters;

/* Longest source name kept, excluding the terminating NUL. */
#define ZKPIPE_ENGINE_SOURCE_NAME_MAX 31

/* What the engine knows of one partition source (zkpipe_engine_sources). */
typedef struct zkpipe_engine_source {
    char name[ZKPIPE_ENGINE_SOURCE_NAME_MAX + 1]; /* the operations' name, cut; "" for none */
    const void *key;         /* what the operations' `source` returned (NULL without one) */
    uint64_t estimate_bytes; /* the last estimate its partitions announced */
    uint64_t learned_bytes;  /* the largest peak its ledgers reached (open ones too); 0 first */
    uint64_t reserved_bytes; /* the last reservation: max(estimate, learned), within the budget */
    uint64_t partitions;     /* its closed ledgers */
    uint64_t over_reservation_events; /* of them, those that charged beyond their admission */
    uint64_t over_reservation_bytes;  /* ... the sum of their largest excesses */
    uint64_t reserved[4];             /* zero */
} zkpipe_engine_source;

/*! zkpipe_stage_ops_init() : zeroes `ops` (every operation NULL, name NULL) and sets its
 * struct_size; the host then sets its operations. NULL is a no-op. Thread safety: any thread. */
ZKPIPE_API void zkpipe_stage_ops_init(zkpipe_stage_ops *ops);

/*! zkpipe_engine_config_init() : defaults: 2 synthesis workers, 2 permits, no byte budget,
 * capacity 2, 1 prover worker of 1 thread proving one partition at a time, backend auto, release on
 * delivery, the default registry, no reporter, no trace, the C library allocator, reservations that
 * follow the ledger, fixed concurrency; struct_size set. NULL is a no-op. Thread safety: any
 * thread. */
ZKPIPE_API void zkpipe_engine_config_init(zkpipe_engine_config *config);

/*! zkpipe_engine_create() : creates the semaphores, the channel, the prover pools and the reporter,
 * takes the baseline of the unaccounted-bytes estimate, and starts the workers.
 * @param out receives the engine; the caller frees it with zkpipe_engine_destroy.
 * @param config copied (as far as its struct_size reaches); what it points to (acct,
 *        report_file, report_ctx, trace) must outlive the engine.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, a struct_size this library cannot read, a zero
 *         count, unknown backend, release policy, reservation or concurrency, report_ms > 0
 *         without a sink, incomplete allocator: zkpipe_last_detail names the field),
 * ZKPIPE_EUNSUPPORTED (no condition variables on CLOCK_MONOTONIC; ZKPIPE_CONCURRENCY_AUTO without a
 * budget where MemAvailable cannot be read). On error nothing is left running or allocated and *out
 * is untouched. Thread safety: any thread. Allocates the engine (about 600 bytes plus 8 per worker
 * thread), two semaphores, a channel, the pools and a reporter; starts the threads listed at the
 * top. */
ZKPIPE_API ZKPIPE_MUST_CHECK zkpipe_status zkpipe_engine_create(zkpipe_engine **out,
                                                                const zkpipe_engine_config *config);

/*! zkpipe_engine_submit() : queues a job of `count` partitions (copied; what they point to
 * must stay valid until the job has finished). Partitions start in submission order.
 * @param out receives the job; the caller owns it (zkpipe_job_destroy). Written before any
 *        partition starts and not touched after, so `done` may read it and free where it lies,
 *        even before this call returns.
 * @param done NULL, or called once when every partition has ended (see zkpipe_job_done_fn); it
 *        may run on an engine thread before this call returns.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL engine, out or parts, count 0, a partition without
 *         ops, ops whose struct_size does not reach `discard`, or without synthesize,
 *         prove or discard, non-zero reserved fields: for a partition's, zkpipe_last_detail
 *         names the partition and the field), an error of an operations' validate,
 *         ZKPIPE_ECLOSED (the engine is closed: nothing was queued), ZKPIPE_EOVERFLOW,
 *         ZKPIPE_ENOMEM, ZKPIPE_EUNSUPPORTED.
 * Thread safety: any thread, concurrently with every call but zkpipe_engine_destroy.
 * Allocates one block of about 1.3 KB per partition through the engine's allocator. */
ZKPIPE_API ZKPIPE_MUST_CHECK zkpipe_status zkpipe_engine_submit(zkpipe_engine *engine,
                                                                zkpipe_job **out,
                                                                const zkpipe_partition *parts,
                                                                size_t count,
                                                                zkpipe_job_done_fn done, void *ctx);

/*! zkpipe_engine_close() : later submissions fail with ZKPIPE_ECLOSED; jobs already
 * submitted go on. Closing twice, or NULL, is a no-op. Thread safety: any thread. */
ZKPIPE_API void zkpipe_engine_close(zkpipe_engine *engine);

/*! zkpipe_engine_drain() : closes the engine and waits until every submitted job has
 * finished. NULL is a no-op (ZKPIPE_OK).
 * @return ZKPIPE_OK; ZKPIPE_ESTATE, doing nothing, on one of the engine's own threads (a
 *         stage operation or done callback: it would wait for itself), with a detail line in
 *         the stage call's detail buffer when called from a stage operation.
 * Thread safety: any thread. */
ZKPIPE_API zkpipe_status zkpipe_engine_drain(zkpipe_engine *engine);

/*! zkpipe_engine_stats() : a copy of the engine's counters (each read atomically; the
 * semaphore and channel figures are their own consistent snapshots), sampling the
 * unaccounted-bytes estimate (one read of /proc/self/statm).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL). Thread safety: any thread. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_engine_stats(zkpipe_engine *engine, zkpipe_engine_counters *out);

/*! zkpipe_engine_admissible() : how many more partitions the engine would admit to synthesis
 * now, by its own admission rule, for a host that holds work back until the engine can take it
 * (a queue consumer that takes only as many jobs as it can start, leaving the rest to other
 * consumers). The least of:
 *   - permits: permits_available less the partitions submitted and not yet started (each takes
 *     a permit first);
 *   - the resident bound: resident_bound less the partitions submitted and not yet ended;
 *   - the byte budget (when there is one): how many reservations of `partition_bytes` (raised
 *     to the largest peak the engine has learned of any source, capped at the budget) fit in
 *     budget_available plus what releasing the engine's key cache's unpinned keys would give
 *     back (zkpipe_key_cache_counters.unpinned_bytes: the engine releases them for an
 *     admission that needs their units).
 * A closed engine admits none.
 * @param partition_bytes the estimate (zkpipe_stage_ops.estimate) of the largest partition the
 *        caller would submit; 0 when unknown (then the learned peaks alone count).
 * @param out receives the count. It is a snapshot, stale once returned: partitions submitted by
 *        other threads meanwhile take from the same permits and budget.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL). Thread safety: any thread, concurrently with every
 *         call but zkpipe_engine_destroy. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_engine_admissible(zkpipe_engine *engine, uint64_t partition_bytes,
                                                  uint64_t *out);

/*! zkpipe_engine_sources() : what the engine has learned of each partition source, most
 * recently used first. The engine remembers the 64 most recently used sources.
 * @param out room for `cap` entries (NULL when cap is 0); the first min(cap, *count) filled.
 * @param count receives how many sources the engine knows.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL engine or count, NULL out with cap > 0).
 * Thread safety: any thread. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_engine_sources(zkpipe_engine *engine, zkpipe_engine_source *out,
                                               size_t cap, size_t *count);

/*! zkpipe_engine_destroy() : closes the engine, cancels every job not yet finished (their
 * partitions not yet proving end with ZKPIPE_ECANCELED and their items are discarded; proofs
 * under way complete), joins every thread and frees the engine. Every job still ends, with its
 * done callback; every ledger is closed; the caller's job handles stay valid. Use
 * zkpipe_engine_drain first to finish the work instead. NULL is a no-op.
 * Calls from the engine's threads: from a stage operation or done callback of this engine,
 * destroy stops the engine as above and returns at once; the teardown is deferred to the last
 * worker thread to leave (after the calling operation has returned and every partition has
 * ended), which frees the engine and then calls config.on_destroyed, the only way to learn
 * when what the configuration points to may go. The engine must not be used after the call.
 * Thread safety: once, with no other call on the engine running or starting from other
 * threads; from any thread but the reporter's sink. */
ZKPIPE_API void zkpipe_engine_destroy(zkpipe_engine *engine);

/*! zkpipe_job_wait() : blocks until every partition of `job` has ended (and its done callback
 * has returned). @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL), ZKPIPE_ESTATE (on a thread of the
 * engine running the job, a stage operation or done callback, where it could wait for
 * itself: refused at once, with a detail line in the stage call's detail buffer).
 * Thread safety: any thread; any number of waiters. */
ZKPIPE_API zkpipe_status zkpipe_job_wait(zkpipe_job *job);

/*! zkpipe_job_wait_timed() : zkpipe_job_wait giving up after `timeout_ns` nanoseconds on
 * CLOCK_MONOTONIC. @return ZKPIPE_OK, ZKPIPE_ETIMEDOUT, ZKPIPE_EINVAL, ZKPIPE_ESTATE (as
 * zkpipe_job_wait). */
ZKPIPE_API zkpipe_status zkpipe_job_wait_timed(zkpipe_job *job, uint64_t timeout_ns);

/*! zkpipe_job_cancel() : partitions of `job` that have not started proving end with
 * ZKPIPE_ECANCELED (at the worker's next step; a wait for a permit is not interrupted) and
 * their items are discarded; proofs under way complete. Harmless on a finished job. NULL is a
 * no-op. Thread safety: any thread, also from callbacks. */
ZKPIPE_API void zkpipe_job_cancel(zkpipe_job *job);

/*! zkpipe_job_partitions() : the job's partition count; 0 for NULL. Thread safety: any. */
ZKPIPE_API size_t zkpipe_job_partitions(const zkpipe_job *job);

/*! zkpipe_job_result() : a copy of what became of partition `index`.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, index out of range), ZKPIPE_ESTATE (the job has
 *         not finished: wait first). Thread safety: any thread. Does not allocate. */
ZKPIPE_API ZKPIPE_MUST_CHECK zkpipe_status zkpipe_job_result(const zkpipe_job *job, size_t index,
                                                             zkpipe_partition_result *out);

/*! zkpipe_job_destroy() : frees the job (and, through the operations' result_free, the hosts'
 * results); if it has not finished, cancels it and waits for it first. On a thread of the
 * engine running the job (a stage operation, of this job or another, or a done callback) it
 * cancels the job and returns at once: the job is freed as its last partition ends (so a
 * partition may drop its own job). NULL is a no-op.
 * Thread safety: once per job, from any thread. */
ZKPIPE_API void zkpipe_job_destroy(zkpipe_job *job);

/* Watching the engine. */

/* The phases of a partition whose seconds the engine observes (zkpipe_engine_histogram). */
typedef enum zkpipe_engine_phase {
    /* From the ledger's opening to pending; observed as each synthesis succeeds. */
    ZKPIPE_PHASE_SYNTH = 0,
    /* From synthesized to taken by a prover (pending + queued); observed as a prover takes it. */
    ZKPIPE_PHASE_WAIT = 1,
    /* From taken by a prover to the partition's end, for every partition that ends with any
     * status but ZKPIPE_ECANCELED once taken (a failed proof counts, a canceled one does not). */
    ZKPIPE_PHASE_PROVE = 2,
    ZKPIPE_PHASE_COUNT = 3
} zkpipe_engine_phase;

/*! zkpipe_engine_histogram() : a consistent copy of the engine's histogram of `phase`, over
 * every partition since the engine was created. Values are nanoseconds (unit 1e-9: the
 * exports show seconds) in zkpipe/histogram.h's default buckets, 1 ms to 1000 s, which hold a
 * test circuit's millisecond partitions and production partitions of minutes alike.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, unknown phase). Thread safety: any thread.
 * Does not allocate; waits only for observations under way (a few atomic additions). */
ZKPIPE_API zkpipe_status zkpipe_engine_histogram(zkpipe_engine *engine, zkpipe_engine_phase phase,
                                                 zkpipe_histogram_snapshot *out);

/* A partition in flight (zkpipe_engine_in_flight). */
typedef struct zkpipe_partition_info {
    uint64_t job;         /* the job's number, from 1 */
    size_t index;         /* the partition's index in its job */
    uint32_t stage;       /* the engine's stage for it: ZKPIPE_STAGE_SYNTH .. ZKPIPE_STAGE_FINALIZE
                           * (a host's prove may move the ledger to stages of its own meanwhile) */
    uint64_t age_ns;      /* since its synthesis began (its ledger opened) */
    uint64_t stage_ns;    /* since it entered `stage` */
    uint64_t reserved[2]; /* zero */
} zkpipe_partition_info;

/*! zkpipe_engine_in_flight() : the partitions holding a ledger now (from the start of their
 * synthesis to their end, those being proved included), oldest first: the first
 * min(cap, *count) of them are copied into `out`, and *count receives how many there are.
 * @param out room for `cap` entries; may be NULL when cap is 0 (to count only).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL engine or count, NULL out with cap > 0).
 * Thread safety: any thread. Holds the engine's list for the copy of at most `cap` entries
 * (partitions entering or ending wait that long); does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_engine_in_flight(zkpipe_engine *engine, zkpipe_partition_info *out,
                                                 size_t cap, size_t *count);

/* The partitions in flight that /status lists at most (the oldest; it counts them all). */
#define ZKPIPE_ENGINE_HTTP_LISTED 32

/*! zkpipe_engine_http_provider() : a zkpipe_http_provider_fn serving the engine `engine`
 * (its ctx): attach it with zkpipe_http_attach(server, "engine", zkpipe_engine_http_provider,
 * engine), and detach it (or stop the server) before zkpipe_engine_destroy; or hand it to
 * zkpipe_http_render for the same text without a server (e.g. a --metrics file at exit).
 *   /metrics (with the server's prefix and labels, here "zkpipe"): counters
 *     zkpipe_partitions_submitted_total, zkpipe_partitions_total{result="proved|failed|
 *     canceled"}, zkpipe_prover_idle_seconds_total, zkpipe_budget_returned_early_bytes_total,
 *     zkpipe_over_reservation_events_total, zkpipe_over_reservation_bytes_total; gauges
 *     zkpipe_partitions_in_flight, _peak_in_flight, _proving, _bound, _resident_bound,
 *     _oldest_age_seconds, zkpipe_permits (the semaphore's permits: in auto mode the most the
 *     controller admits), zkpipe_permits_available, zkpipe_permits_admitted,
 *     zkpipe_budget_bytes, zkpipe_budget_available_bytes, zkpipe_channel_items,
 *     zkpipe_channel_capacity, zkpipe_channel_waiting_senders, zkpipe_unaccounted_bytes,
 *     zkpipe_unaccounted_peak_bytes, and per partition source zkpipe_source_estimate_bytes,
 *     _learned_bytes, _reserved_bytes{source="name",rank="i"}; histograms
 *     zkpipe_partition_synth_seconds, zkpipe_partition_wait_seconds and
 *     zkpipe_partition_prove_seconds (_bucket, _sum, _count).
 *   /status: {"backend":"auto|cpu|cuda" (as configured: the engine resolves none),
 *     "submitted":N,"proved":N,"failed":N,"canceled":N,
 *     "in_flight":N,"peak_in_flight":N,"proving":N,"bound":N,"resident_bound":N,
 *     "permits":{"total":N,"available":N,"admitted":N,"concurrency":"fixed|auto"},
 *     "budget":{"total_bytes":N,"used_bytes":N,"available_bytes":N},
 *     "channel":{"items":N,"capacity":N,"waiting_senders":N},"prover_idle_s":S,
 *     "unaccounted":{"bytes":N,"peak_bytes":N},
 *     "synth_seconds":H,"wait_seconds":H,"prove_seconds":H (zkpipe_histogram_json),
 *     "partitions":{"count":N,"listed":[{"job":J,"index":I,"stage":"queued","age_s":S,
 *     "stage_age_s":S},...]},"admission":{"reservation":"follow|whole",
 *     "returned_early_bytes":N,"over_reservation_events":N,"over_reservation_bytes":N,
 *     "sources":[{"name":S,"estimate_bytes":N,"learned_bytes":N,"reserved_bytes":N,
 *     "partitions":N,"over_reservation_events":N,"over_reservation_bytes":N},...]}} with the
 *     oldest ZKPIPE_ENGINE_HTTP_LISTED partitions in flight and up to 16 sources.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL out or engine). Thread safety: as the server calls
 *         it; reads the engine only through the calls above. Does not allocate (the server's
 *         response buffer grows as needed). */
ZKPIPE_API zkpipe_status zkpipe_engine_http_provider(zkpipe_http_out *out,
                                                     zkpipe_http_format format, void *engine);

ZKPIPE_EXTERN_C_END

#endif
