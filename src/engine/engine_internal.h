/* The engine's objects as its three files share them: engine.c (life cycle, submission),
 * workers.c (the synthesis and prover loops, a partition's end) and job.c (the job handle).
 * The engine knows partitions only through their stage operations (zkpipe/engine.h). */
#ifndef ZKPIPE_ENGINE_ENGINE_INTERNAL_H
#define ZKPIPE_ENGINE_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "engine/admission.h"
#include "engine/autotune.h"
#include "engine/observe.h"
#include "engine/reservation.h"
#include "engine/unaccounted.h"
#include "zkpipe/chan.h"
#include "zkpipe/engine.h"
#include "zkpipe/pool.h"
#include "zkpipe/sem.h"

/* Stage change times kept per partition: one per built-in stage, then the end. */
#define ZKPIPE__ENGINE_MARKS (ZKPIPE_STAGE_BUILTIN_COUNT + 1)

/* One partition on its way through the engine; the channel carries pointers to these. Owned
 * by one thread at a time: the synthesis worker, the channel, then the prover worker. */
struct zkpipe__item {
    zkpipe_ledger ledger;
    zkpipe_job *job;
    size_t index;                      /* in the job */
    zkpipe_stage_ops ops;              /* the partition's, fields past its struct_size NULL */
    const zkpipe_stage_ops *table;     /* the host's table itself: names the source */
    void *ctx;                         /* the partition's */
    void *payload;                     /* what synthesize made; NULL when nothing is held */
    uint32_t track;                    /* trace track: one per partition of the engine's life */
    int in_waist;                      /* counted in the engine's in_flight */
    int proving;                       /* counted in the engine's proving */
    zkpipe_permit permit;              /* one unit of the partition semaphore */
    zkpipe__reservation res;           /* the partition's bytes of the budget */
    const void *source;                /* the key ops.source gave (NULL without one) */
    zkpipe__key_claim key;             /* the proving key it uses, pinned from admission on */
    uint64_t at[ZKPIPE__ENGINE_MARKS]; /* zkpipe_trace_now() at each stage entered; 0: not */
    zkpipe__item_watch watch;          /* its place among the partitions in flight */
};

/* Job states, in order. */
enum { JOB_RUNNING = 0, JOB_RESULTS = 1, JOB_FINISHED = 2 };

struct zkpipe_job {
    zkpipe_allocator allocator;
    zkpipe_job *next; /* in the engine's queue while partitions remain untaken */
    size_t count;
    size_t taken;            /* partitions handed to synthesis workers (engine lock) */
    atomic_size_t remaining; /* partitions not yet ended */
    atomic_int canceled;
    atomic_int state;     /* JOB_*; JOB_RESULTS: results final, callback may run */
    uint64_t id;          /* submission number, from 1 */
    pthread_mutex_t lock; /* guards the wait for JOB_FINISHED */
    pthread_cond_t finished;
    zkpipe_job_done_fn done;
    void *ctx;
    zkpipe__item *items;
    zkpipe_partition_result *results;
    /* The engine that runs it: compared with the calling thread's (reentry.h), never read. */
    const zkpipe_engine *engine;
    /* Destroyed from one of its engine's threads before it finished: its last partition's end
     * frees it (lock). */
    int orphaned;
};

/* What one prover worker holds of a batch (max_batch entries each): the items it received,
 * then, for those proved together, their calls, payloads, results and statuses. */
typedef struct zkpipe__batch {
    zkpipe__item **held;
    zkpipe__item **items;
    zkpipe_stage_call *calls;
    void **payloads;
    zkpipe_partition_result **outs;
    zkpipe_status *statuses;
} zkpipe__batch;

/* A test hook: runs on the prover worker after each receive, before proving. */
typedef void (*zkpipe__prove_hook)(void *ctx);

struct zkpipe_engine {
    zkpipe_allocator allocator;
    zkpipe_engine_config config; /* config.allocator points at `allocator` */
    zkpipe_acct *acct;
    zkpipe_sem *permits;
    zkpipe_sem *budget; /* NULL without a byte budget */
    int keys_bound;     /* config.keys charges its keys to `budget` */
    zkpipe__admission adm;
    zkpipe_chan *ch;
    zkpipe_reporter *reporter;
    zkpipe_pool **pools;     /* one per prover worker */
    zkpipe__batch *batches;  /* one per prover worker */
    void *batch_space;       /* what the batches point into */
    atomic_uint pools_taken; /* by prover workers as they start: their index */
    atomic_uint synth_taken; /* by synthesis workers as they start: their index */
    pthread_t *threads;      /* synthesis workers, then prover workers */
    unsigned started;        /* threads started */

    pthread_mutex_t lock;
    pthread_cond_t work;     /* a job was queued, or the engine closed */
    pthread_cond_t idle;     /* a job finished */
    zkpipe_job *head, *tail; /* jobs with untaken partitions (lock) */
    size_t unfinished;       /* jobs submitted and not finished (lock) */
    int closed;              /* no more submissions (lock) */
    uint64_t jobs;           /* jobs submitted (lock) */
    uint32_t tracks;         /* trace tracks handed out (lock) */
    atomic_int canceling;    /* zkpipe_engine_destroy: end whatever has not started proving */
    atomic_uint live;        /* worker threads started and not yet leaving */
    /* zkpipe_engine_destroy was called on a worker thread: the last worker out tears down. */
    atomic_int deferred;

    atomic_uint_fast64_t submitted, proved, failed, canceled, in_flight, peak_in_flight, proving;

    /* Histograms, the in-flight list, the trace flusher (observe.c). */
    zkpipe__observe *observe;

    /* ZKPIPE_CONCURRENCY_AUTO: the controller of the permits' limit (autotune.h). */
    int autotuning;
    zkpipe__autotune tune;
    atomic_uint_fast64_t prover_idle_ns;
    zkpipe__unaccounted unaccounted;
    char report_line[1152]; /* the reporter's line with the estimate (its thread only) */

    zkpipe__prove_hook prove_hook;
    void *prove_hook_ctx;
};

/* Sets the test hook; call before the first submission. */
void zkpipe__engine_set_prove_hook(zkpipe_engine *engine, zkpipe__prove_hook hook, void *ctx);

/* The worker thread bodies (arg: the engine). */
void *zkpipe__synth_worker(void *arg);
void *zkpipe__prove_worker(void *arg);
/* A worker thread leaves its loop; the last one out completes a deferred destroy (after which
 * `e` is gone). */
void zkpipe__engine_worker_exit(zkpipe_engine *e);

/* Ends a partition with `status`: discards the item it still holds, closes its ledger, gives
 * its permits back, records the result and, for the job's last partition, finishes the job. */
void zkpipe__item_end(zkpipe_engine *e, zkpipe__item *it, zkpipe_status status);

/* The channel's callbacks for items. */
zkpipe_ledger *zkpipe__item_ledger(void *item, void *ctx);
void zkpipe__item_on_send(void *item, void *ctx);
void zkpipe__item_on_recv(void *item, void *ctx);
void zkpipe__item_drop(void *item, void *ctx);

/* Job side (job.c): a new job of `count` partitions (their operations copied into the items)
 * with everything else zeroed; ZKPIPE_OK, ZKPIPE_EOVERFLOW, ZKPIPE_ENOMEM, ZKPIPE_EUNSUPPORTED. */
zkpipe_status zkpipe__job_create(zkpipe_job **out, const zkpipe_allocator *a,
                                 const zkpipe_partition *parts, size_t count,
                                 zkpipe_job_done_fn done, void *ctx);
/* Frees a job that never ran. */
void zkpipe__job_free(zkpipe_job *job);
/* The last partition has ended: results final, callback, then waiters released; an orphaned
 * job is freed. */
void zkpipe__job_finish(zkpipe_job *job);

/* Engine side (engine.c): the next partition to synthesize, or NULL once the engine is closed
 * and no partition is left. Blocks while there is none. */
zkpipe__item *zkpipe__engine_take(zkpipe_engine *e);
/* A job has finished: counted out, drain woken. */
void zkpipe__engine_job_done(zkpipe_engine *e);

#endif
