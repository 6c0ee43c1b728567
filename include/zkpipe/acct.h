/*! zkpipe/acct.h : exact accounting of in-flight items and their buffers.
 *
 * A registry (zkpipe_acct) holds counters per (stage, kind). Each in-flight item (a partition)
 * carries a ledger; charge, release, move and close on ledgers are the only ways counters
 * change, so the counters always equal the sum over open ledgers.
 *
 * - kind: what a buffer is (abc, aux, input, density, h, device, circuit, workspace, or a
 *   host-registered name).
 * - stage: where an item is (synth, pending, queued, proving, finalize, or host-registered).
 *
 * Counters, per stage: live items (open ledgers in the stage), peak items, entered and left
 * totals. Per (stage, kind): live buffers, live bytes, peak buffers, peak bytes. Overall: live
 * items, live bytes, peak bytes. */
#ifndef ZKPIPE_ACCT_H
#define ZKPIPE_ACCT_H

#include <stdio.h>

#include "zkpipe/alloc.h"
#include "zkpipe/common.h"
#include "zkpipe/status.h"

ZKPIPE_EXTERN_C_BEGIN

/* Kinds: built-ins first, then host-registered ones up to ZKPIPE_KIND_MAX in all. */
typedef enum zkpipe_kind {
    ZKPIPE_KIND_ABC = 0,       /* a, b, c evaluation vectors */
    ZKPIPE_KIND_AUX = 1,       /* aux (private) assignment */
    ZKPIPE_KIND_INPUT = 2,     /* public input assignment */
    ZKPIPE_KIND_DENSITY = 3,   /* density bitmaps */
    ZKPIPE_KIND_H = 4,         /* quotient polynomial coefficients */
    ZKPIPE_KIND_DEVICE = 5,    /* GPU memory */
    ZKPIPE_KIND_CIRCUIT = 6,   /* the constraint system a partition is built into */
    ZKPIPE_KIND_WORKSPACE = 7, /* a prover's working memory: NTT domain, MSM buckets */
    ZKPIPE_KIND_BUILTIN_COUNT = 8
} zkpipe_kind;
#define ZKPIPE_KIND_MAX 16

/* Stages: built-ins first, then host-registered ones up to ZKPIPE_STAGE_MAX in all. */
typedef enum zkpipe_stage {
    ZKPIPE_STAGE_SYNTH = 0,    /* being synthesized; the partition permit is held */
    ZKPIPE_STAGE_PENDING = 1,  /* synthesized, waiting to enter the channel; permit held */
    ZKPIPE_STAGE_QUEUED = 2,   /* inside the channel */
    ZKPIPE_STAGE_PROVING = 3,  /* taken by a prover */
    ZKPIPE_STAGE_FINALIZE = 4, /* assembling the proof */
    ZKPIPE_STAGE_BUILTIN_COUNT = 5
} zkpipe_stage;
#define ZKPIPE_STAGE_MAX 12

/* Longest registered kind or stage name, excluding the terminating NUL. */
#define ZKPIPE_ACCT_NAME_MAX 31

/* A registry of counters. Opaque; thread-safe as documented per function. */
typedef struct zkpipe_acct zkpipe_acct;

/* One in-flight item's ledger. A plain struct the caller owns (embed it in the item; no
 * allocation per item). Its fields are private: use the functions below. A ledger has one
 * owner at a time: calls on the same ledger must not race (hand it over through a channel or
 * another synchronising operation); calls on different ledgers of one registry may run
 * concurrently from any threads. Each ledger operation is a few atomic updates (tens of
 * nanoseconds) that never wait for other ledger operations; they only wait while a snapshot
 * or peak reset of the registry is copying counters. No ledger function allocates.
 * A ledger holds no pointer to itself and the registry keeps none to it (its address only
 * picks which counter stripe an operation enters, within that one call), so an open ledger
 * may be moved (memcpy) to other storage between calls, e.g. with the item that embeds it or
 * by a language that moves values by copying them (Rust). The copy left behind must then be
 * forgotten, never used or closed: closing both would release the item twice. */
/* Told of a ledger's byte total around every charge and release (zkpipe_ledger_set_hook):
 * `before` and `after` are the ledger's live bytes around that one operation. Runs on the
 * thread that made the operation (the ledger's owner): for a charge before any counter changes
 * (after the charge's checks: it will not fail), so a reservation can grow first and the
 * counters never show bytes it does not cover; for a release after the counters have changed,
 * so the bytes it gives back are no longer counted. It may block (the engine's waits for
 * budget bytes there); it must not call functions on the same ledger. */
typedef void (*zkpipe_ledger_hook_fn)(void *ctx, uint64_t before, uint64_t after);

typedef struct zkpipe_ledger {
    zkpipe_acct *acct;                 /* registry; NULL when the ledger is closed */
    uint32_t stage;                    /* current stage */
    uint32_t kinds_used;               /* bit k set when buffers[k] or bytes[k] is non-zero */
    uint64_t buffers[ZKPIPE_KIND_MAX]; /* live buffers per kind */
    uint64_t bytes[ZKPIPE_KIND_MAX];   /* live bytes per kind */
    zkpipe_ledger_hook_fn hook;        /* NULL, or told of every charge and release */
    void *hook_ctx;                    /* ... */
} zkpipe_ledger;

/*! zkpipe_acct_create() : a new private registry with the built-in kinds and stages.
 * @param allocator NULL for the C library; copied.
 * @param out receives the registry; the caller owns it and frees it with zkpipe_acct_destroy.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (out NULL or allocator incomplete), ZKPIPE_ENOMEM.
 * Thread safety: any thread. Allocates one block of about 8 KiB. */
ZKPIPE_API zkpipe_status zkpipe_acct_create(const zkpipe_allocator *allocator, zkpipe_acct **out);

/*! zkpipe_acct_destroy() : frees a registry made by zkpipe_acct_create. NULL is a no-op; the
 * default registry is never freed (a no-op too). All ledgers must be closed first.
 * Thread safety: no other call on `acct` may run concurrently. */
ZKPIPE_API void zkpipe_acct_destroy(zkpipe_acct *acct);

/*! zkpipe_acct_default() : the process-wide default registry, the only global state in
 * zkpipe: a static object that starts as an empty registry with the built-in kinds and stages
 * (no initialisation step, nothing allocated, never freed).
 * @return never NULL. Thread safety: any thread. */
ZKPIPE_API zkpipe_acct *zkpipe_acct_default(void);

/*! zkpipe_acct_register_kind() / zkpipe_acct_register_stage() : add a named kind or stage.
 * Registering a name that exists returns the existing id. Names: 1..ZKPIPE_ACCT_NAME_MAX
 * characters of [a-z0-9_] (they become Prometheus label values and JSON keys).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL or bad name), ZKPIPE_ELIMIT (table full).
 * Thread safety: any thread, concurrently with every other call. */
ZKPIPE_API zkpipe_status zkpipe_acct_register_kind(zkpipe_acct *acct, const char *name,
                                                   uint32_t *out_kind);
ZKPIPE_API zkpipe_status zkpipe_acct_register_stage(zkpipe_acct *acct, const char *name,
                                                    uint32_t *out_stage);

/*! zkpipe_acct_kind_name() / zkpipe_acct_stage_name() : the name of a kind or stage.
 * @return a string valid as long as the registry, or NULL when the id is not registered. */
ZKPIPE_API const char *zkpipe_acct_kind_name(const zkpipe_acct *acct, uint32_t kind);
ZKPIPE_API const char *zkpipe_acct_stage_name(const zkpipe_acct *acct, uint32_t stage);

/*! zkpipe_ledger_open() : opens `ledger` in `stage` of `acct` with nothing charged. The item
 * counts as live in `stage` (and has entered it) from now on. The ledger's previous contents
 * are ignored: it must not be open (opening an open ledger loses its counts for good).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL or unregistered stage).
 * Thread safety: see zkpipe_ledger. */
ZKPIPE_API ZKPIPE_MUST_CHECK zkpipe_status zkpipe_ledger_open(zkpipe_ledger *ledger,
                                                              zkpipe_acct *acct, uint32_t stage);

/*! zkpipe_ledger_charge() : one more live buffer of `kind` with `bytes` bytes (0 allowed).
 * With a hook set, it runs first and may block: a partition's ledger in the engine waits here
 * for budget bytes beyond its reservation (zkpipe/engine.h), so charge while holding no lock
 * that another partition's work needs.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, closed ledger or unregistered kind),
 *         ZKPIPE_EOVERFLOW (the ledger's byte total would wrap). */
ZKPIPE_API ZKPIPE_MUST_CHECK zkpipe_status zkpipe_ledger_charge(zkpipe_ledger *ledger,
                                                                uint32_t kind, uint64_t bytes);

/*! zkpipe_ledger_release() : one live buffer of `kind` with `bytes` bytes is gone.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL, ZKPIPE_EUNDERFLOW (no buffer of that kind is live, or more
 *         bytes than charged): then nothing changes, neither in the ledger nor in counters. */
ZKPIPE_API zkpipe_status zkpipe_ledger_release(zkpipe_ledger *ledger, uint32_t kind,
                                               uint64_t bytes);

/*! zkpipe_ledger_move() : moves the item with all its buffers to `stage` as one step: a
 * snapshot sees it in the old stage or the new one, never both or neither. Moving to the
 * current stage is a no-op that still counts as leaving and entering it.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, closed ledger or unregistered stage). */
ZKPIPE_API ZKPIPE_MUST_CHECK zkpipe_status zkpipe_ledger_move(zkpipe_ledger *ledger,
                                                              uint32_t stage);

/*! zkpipe_ledger_close() : releases whatever is still charged and removes the item from its
 * stage. Closing a closed (or zero-filled) ledger, or NULL, is a harmless no-op. */
ZKPIPE_API void zkpipe_ledger_close(zkpipe_ledger *ledger);

/*! zkpipe_ledger_set_hook() : from now until the ledger is closed, `hook` (NULL: none) is told
 * of the ledger's live bytes around each zkpipe_ledger_charge (before the counters change) and
 * zkpipe_ledger_release (after) on it; neither moves nor close call it. This is how a byte
 * reservation follows its ledger (the engine's do; a host holding zkpipe_sem permits can give units
 * back from its own hook with zkpipe_permit_release_units). `ctx` must stay valid while the hook is
 * set; it travels with the ledger when the ledger is moved to other storage.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL or closed ledger). Thread safety: see zkpipe_ledger. */
ZKPIPE_API zkpipe_status zkpipe_ledger_set_hook(zkpipe_ledger *ledger, zkpipe_ledger_hook_fn hook,
                                                void *ctx);

/*! zkpipe_ledger_bytes() : the ledger's live bytes now (0 for a closed ledger or NULL).
 * Thread safety: see zkpipe_ledger. */
ZKPIPE_API uint64_t zkpipe_ledger_bytes(const zkpipe_ledger *ledger);

/*! zkpipe_ledger_is_open() : 1 when the ledger is open, 0 otherwise (NULL included). */
ZKPIPE_API int zkpipe_ledger_is_open(const zkpipe_ledger *ledger);

/*! zkpipe_ledger_stage() : the ledger's current stage; undefined for a closed ledger,
 * UINT32_MAX for NULL. */
ZKPIPE_API uint32_t zkpipe_ledger_stage(const zkpipe_ledger *ledger);

/* Counters of one (stage, kind) pair in a snapshot. */
typedef struct zkpipe_snapshot_kind {
    uint64_t live_buffers;
    uint64_t live_bytes;
    uint64_t peak_buffers;
    uint64_t peak_bytes;
} zkpipe_snapshot_kind;

/* Counters of one stage in a snapshot. */
typedef struct zkpipe_snapshot_stage {
    uint64_t live_items;   /* open ledgers in the stage */
    uint64_t peak_items;   /* highest live_items since creation or the last peak reset */
    uint64_t entered;      /* items that entered the stage, ever (monotonic) */
    uint64_t left;         /* items that left it, ever (monotonic); entered - left = live */
    uint64_t live_buffers; /* sum of kind[].live_buffers */
    uint64_t live_bytes;   /* sum of kind[].live_bytes */
    zkpipe_snapshot_kind kind[ZKPIPE_KIND_MAX];
} zkpipe_snapshot_stage;

/* A consistent copy of a registry's counters: plain values the caller owns (a few KiB; fine
 * on a stack). Entries at or past kind_count / stage_count are zero and names empty. */
typedef struct zkpipe_snapshot {
    uint32_t kind_count;  /* registered kinds (built-ins included) */
    uint32_t stage_count; /* registered stages (built-ins included) */
    uint64_t live_items;  /* open ledgers; the sum of stage[].live_items */
    uint64_t live_bytes;  /* bytes charged and not released; the sum over all stages and kinds */
    uint64_t peak_bytes;  /* highest live_bytes since creation or the last peak reset */
    char kind_names[ZKPIPE_KIND_MAX][ZKPIPE_ACCT_NAME_MAX + 1];
    char stage_names[ZKPIPE_STAGE_MAX][ZKPIPE_ACCT_NAME_MAX + 1];
    zkpipe_snapshot_stage stage[ZKPIPE_STAGE_MAX];
    uint64_t reserved[16]; /* zero; room for fields added later */
} zkpipe_snapshot;

/*! zkpipe_acct_snapshot() : copies every counter of `acct` into `out` as of one instant: no
 * ledger operation is seen half done (an item is in exactly one stage, with all its buffers),
 * and live <= peak everywhere.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL argument).
 * Thread safety: any thread, concurrently with every other call. Ledger operations that start
 * while the copy is made wait for it (about a microsecond); concurrent snapshots take turns.
 * Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_acct_snapshot(zkpipe_acct *acct, zkpipe_snapshot *out);

/*! zkpipe_snapshot_in_waist() : the items of `snap` in ZKPIPE_STAGE_SYNTH, _PENDING and
 * _QUEUED together: what an engine's bound (zkpipe_engine_counters.bound: permits + capacity)
 * is about, as one consistent count. Add the items in ZKPIPE_STAGE_PROVING for what the
 * resident bound is about (zkpipe_snapshot_resident). 0 for NULL. Thread safety: any thread;
 * reads only `snap`. */
ZKPIPE_API uint64_t zkpipe_snapshot_in_waist(const zkpipe_snapshot *snap);

/*! zkpipe_snapshot_resident() : zkpipe_snapshot_in_waist plus the items in
 * ZKPIPE_STAGE_PROVING and ZKPIPE_STAGE_FINALIZE: the partitions holding buffers, what
 * zkpipe_engine_counters.resident_bound is about. 0 for NULL. Thread safety: as above. */
ZKPIPE_API uint64_t zkpipe_snapshot_resident(const zkpipe_snapshot *snap);

/*! zkpipe_acct_live_bytes() : the bytes charged to `acct`'s ledgers and not released, now
 * (a snapshot's live_bytes without the copy: one atomic load; it may be stale as soon as it
 * is returned). @return 0 for NULL. Thread safety: any thread; never blocks. */
ZKPIPE_API uint64_t zkpipe_acct_live_bytes(const zkpipe_acct *acct);

/*! zkpipe_acct_reset_peaks() : sets every peak of `acct` to its current live value, in one
 * step with respect to snapshots and ledger operations.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (acct NULL).
 * Thread safety: as zkpipe_acct_snapshot. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_acct_reset_peaks(zkpipe_acct *acct);

/* Exporters. Each writes a text rendering of `snap` into `buf` the way snprintf does: at most
 * `cap` bytes, NUL-terminated when cap > 0, and the full length (excluding the NUL) in
 * *out_len, so calling with cap 0 (buf may then be NULL) sizes the buffer for a second call;
 * the text was truncated when *out_len >= cap.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (snap or out_len NULL, buf NULL with cap > 0, or a
 *         malformed snapshot: counts above the maxima or names not as zkpipe_acct_register_*
 *         allows). Thread safety: any thread; reads only `snap`. They do not allocate. */

/*! zkpipe_snapshot_summary() : one human line without a newline, e.g.
 * "synth=3 (12.0 GiB) pending=1 (4.0 GiB) ... finalize=0 (0 B) live=28.0 GiB peak=32.0 GiB":
 * items and live bytes per stage, then overall live and peak bytes (binary units). */
ZKPIPE_API zkpipe_status zkpipe_snapshot_summary(char *buf, size_t cap, size_t *out_len,
                                                 const zkpipe_snapshot *snap);

/*! zkpipe_snapshot_json() : one JSON object and a newline:
 * {"live_items":N,"live_bytes":N,"peak_bytes":N,"stages":{"<stage>":{"live_items":N,
 * "peak_items":N,"entered":N,"left":N,"live_buffers":N,"live_bytes":N,"kinds":{"<kind>":
 * {"live_buffers":N,"live_bytes":N,"peak_buffers":N,"peak_bytes":N},...}},...}}
 * with every registered stage and kind, in id order. */
ZKPIPE_API zkpipe_status zkpipe_snapshot_json(char *buf, size_t cap, size_t *out_len,
                                              const zkpipe_snapshot *snap);

/*! zkpipe_snapshot_prometheus() : Prometheus text exposition (format 0.0.4) with HELP and
 * TYPE lines. Families: zkpipe_inflight_items, zkpipe_inflight_bytes,
 * zkpipe_inflight_peak_bytes (no labels); zkpipe_stage_items, zkpipe_stage_peak_items,
 * zkpipe_stage_entered_total, zkpipe_stage_left_total, zkpipe_stage_buffers,
 * zkpipe_stage_bytes (label stage); zkpipe_buffers, zkpipe_buffer_bytes, zkpipe_peak_buffers,
 * zkpipe_peak_buffer_bytes (labels stage and kind). */
ZKPIPE_API zkpipe_status zkpipe_snapshot_prometheus(char *buf, size_t cap, size_t *out_len,
                                                    const zkpipe_snapshot *snap);

/* Longest family name prefix, and most constant labels, of zkpipe_prom_options. */
#define ZKPIPE_PROM_PREFIX_MAX 64
#define ZKPIPE_PROM_LABELS_MAX 8

/* zkpipe_prom_options flags. ZKPIPE_PROM_OMIT_ZERO: leave out every (stage, kind) series whose
 * four counters (live and peak buffers and bytes) are all zero. A series that was ever non-zero
 * keeps a non-zero peak until the next peak reset, so series do not come and go between
 * scrapes. */
#define ZKPIPE_PROM_OMIT_ZERO 1u

/* A constant label: `name` [a-zA-Z_][a-zA-Z0-9_]*, not beginning with "__" and none of the
 * labels zkpipe's own families use ("stage", "kind", "le"); `value` any string (escaped). */
typedef struct zkpipe_prom_label {
    const char *name;
    const char *value;
} zkpipe_prom_label;

/* How the Prometheus exposition is written, so that two registries (or two provers of a
 * fleet) never collide. A zero-filled struct means: prefix "zkpipe", no labels, every series.
 * Its size is fixed (it is embedded in zkpipe_http_config): fields added later take reserved
 * space, where zero keeps today's behaviour, so reserved must be zero (checked). */
typedef struct zkpipe_prom_options {
    /* NULL: "zkpipe"; "": no prefix; else [a-zA-Z_:][a-zA-Z0-9_:]*, up to
     * ZKPIPE_PROM_PREFIX_MAX characters. Families are named <prefix>_<name>. */
    const char *prefix;
    const zkpipe_prom_label *labels; /* added to every sample; may be NULL when count is 0 */
    size_t label_count;              /* 0..ZKPIPE_PROM_LABELS_MAX */
    unsigned flags;                  /* 0 or ZKPIPE_PROM_OMIT_ZERO */
    uint64_t reserved[4];            /* zero */
} zkpipe_prom_options;

/*! zkpipe_prom_options_check() : ZKPIPE_OK when `opts` is valid as described above (NULL is),
 * else ZKPIPE_EINVAL (also for non-zero reserved space). Thread safety: any thread. Does not
 * allocate. */
ZKPIPE_API zkpipe_status zkpipe_prom_options_check(const zkpipe_prom_options *opts);

/*! zkpipe_snapshot_prometheus_ex() : zkpipe_snapshot_prometheus with a prefix, constant labels
 * and ZKPIPE_PROM_OMIT_ZERO (opts NULL: the same text as zkpipe_snapshot_prometheus).
 * @return as the other exporters, and ZKPIPE_EINVAL for invalid options. */
ZKPIPE_API zkpipe_status zkpipe_snapshot_prometheus_ex(char *buf, size_t cap, size_t *out_len,
                                                       const zkpipe_snapshot *snap,
                                                       const zkpipe_prom_options *opts);

/* A reporter thread that writes a registry's summary line at a fixed interval. Opaque. */
typedef struct zkpipe_reporter zkpipe_reporter;

/* A reporter sink: receives each summary line (NUL-terminated, no newline), on the
 * reporter's thread. `line` is valid only during the call. */
typedef void (*zkpipe_reporter_fn)(const char *line, void *ctx);

/*! zkpipe_reporter_start() : starts one thread that, every `interval_ms` milliseconds (first
 * line one interval after the start), snapshots `acct` and writes its zkpipe_snapshot_summary
 * line either to `file` (plus a newline, then fflush) or to `fn(line, ctx)`: exactly one of
 * `file` and `fn` must be non-NULL. Intervals are measured on CLOCK_MONOTONIC; when the sink
 * is slower than the interval, ticks are skipped rather than bunched.
 * @param allocator NULL for the C library; copied.
 * @param out receives the reporter; stop it with zkpipe_reporter_stop. `acct`, `file` and
 *        `ctx` must stay valid until then.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (out or acct NULL, interval_ms 0, not exactly one sink,
 *         allocator incomplete), ZKPIPE_ENOMEM (allocation or synchronisation object),
 *         ZKPIPE_EUNSUPPORTED (no CLOCK_MONOTONIC condition variables), ZKPIPE_ETHREAD.
 * Thread safety: any thread. Allocates one block of about 9 KiB and starts one thread. */
ZKPIPE_API zkpipe_status zkpipe_reporter_start(zkpipe_acct *acct, uint32_t interval_ms, FILE *file,
                                               zkpipe_reporter_fn fn, void *ctx,
                                               const zkpipe_allocator *allocator,
                                               zkpipe_reporter **out);

/*! zkpipe_reporter_stop() : wakes and joins the reporter's thread at once (waiting at most
 * for a line being written) and frees the reporter. Nothing is written after it returns.
 * NULL is a no-op. Thread safety: once per reporter, not from its own sink callback. */
ZKPIPE_API void zkpipe_reporter_stop(zkpipe_reporter *reporter);

ZKPIPE_EXTERN_C_END

#endif
