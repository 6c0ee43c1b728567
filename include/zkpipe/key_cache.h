/*! zkpipe/key_cache.h : resident proving keys under the engine's byte budget.
 *
 * A proving key is most of a prover's standing memory (a zkey of 2^27 constraints maps tens of
 * gigabytes), so it is charged like a partition: a key cache holds the keys a program proves
 * with (zkpipe keys, mapped zkeys, a host's device copies), and, once an engine uses the cache
 * (zkpipe_engine_config.keys), every resident key holds units of that engine's byte budget, so
 * keys and partitions together stay within one budget.
 *
 * A key is resident (loaded) or released. Each resident key:
 *   - holds `bytes` units of the budget (the most it can occupy, given when it was added), from
 *     its load until its release;
 *   - has a ledger of its own in the stage "keys" of the cache's registry, charged under the
 *     kind its operations name with what is actually resident now (the `resident` operation:
 *     for a mapped zkey, the mapped pages in the page cache, measured with mincore; see
 *     zkpipe_zkey_memory for what that is and how it differs from RSS), brought up to date as
 *     the key is pinned and unpinned and by zkpipe_key_cache_stats. The budget holds what the
 *     key may become; the ledger shows what it is.
 *
 * Pins: a key in use is pinned, and a pinned key is never released. The engine pins the key of
 * each partition (zkpipe_stage_ops.key) from its admission to its end; a host pins a key
 * itself with zkpipe_key_pin for work of its own.
 *
 * Release (LRU): when a partition cannot be admitted with the budget units free now, the
 * admitting thread releases resident keys that no one has pinned for at least `idle_ms`
 * (zkpipe_key_cache_config), least recently used first, one at a time until the partition fits
 * or none is left, never the partition's own key. A key is released at no other time (an idle
 * key costs nothing while nothing waits for its bytes). A waiting partition keeps its place in
 * the budget's FIFO queue and looks again when the next resident key can be released, and at
 * least every 20 ms (a key may be unpinned, or loaded by another admission, at any time).
 * A partition that waited to load its key finds it loaded by another admission meanwhile: it
 * then asks for its own units only, in the same place (it would otherwise wait for room for a
 * second copy of a key it never releases).
 *
 * Reload: a released key is loaded again (its `load` operation, with the budget units taken
 * first, together with the partition's own in one FIFO request) by the next partition or pin
 * that needs it. A partition whose key cannot be loaded ends with the load's error.
 *
 * A key's bytes and a partition's together larger than the budget can never be admitted: the
 * partition fails with ZKPIPE_ETOOBIG at once, whether or not the key is resident. Keys pinned by
 * the host count against the budget like any other: a host that pins more than the budget leaves
 * beside them admits nothing.
 *
 * Threads: none. Every function may be called from any thread unless said otherwise; loads
 * run on the thread that needs the key (a synthesis worker, or the pinning host thread), with
 * the cache unlocked (other keys stay usable), and concurrent users of a key being loaded wait
 * for that one load. */
#ifndef ZKPIPE_KEY_CACHE_H
#define ZKPIPE_KEY_CACHE_H

#include "zkpipe/acct.h"
#include "zkpipe/alloc.h"
#include "zkpipe/common.h"
#include "zkpipe/status.h"

ZKPIPE_EXTERN_C_BEGIN

/* A key cache. Opaque. */
typedef struct zkpipe_key_cache zkpipe_key_cache;

/* One key the cache knows, resident or released. Opaque; valid until zkpipe_key_remove or the
 * cache's destruction. */
typedef struct zkpipe_key zkpipe_key;

/* What the cache does to a key of a given sort. A table of the host's (usually static const)
 * that must outlive every key using it. */
typedef struct zkpipe_key_ops {
    /* sizeof(zkpipe_key_ops) as the host compiled it: fields beyond it read as NULL. */
    size_t struct_size;
    /* The accounting kind its resident bytes are charged under (registered by name in the
     * cache's registry): 1..ZKPIPE_ACCT_NAME_MAX characters of [a-z0-9_], e.g. "zkey". */
    const char *kind;
    /* Makes the key resident: *handle receives what users of the key are given (any pointer,
     * NULL allowed). On error nothing may stay loaded; a line may go to `detail`. Runs on the
     * thread that needs the key, never twice at once for one key. Required. */
    zkpipe_status (*load)(void *ctx, void **handle, char *detail, size_t detail_cap);
    /* Releases what load made. Runs with the cache locked: must not call the cache. Required. */
    void (*unload)(void *ctx, void *handle);
    /* NULL, or the bytes of the resident key actually in memory now (at most its `bytes`; more
     * is taken as `bytes`). NULL: `bytes`. Runs with the cache locked: must not call it. */
    uint64_t (*resident)(void *ctx, const void *handle);
} zkpipe_key_ops;

/* Cache settings; start from zkpipe_key_cache_config_init. */
typedef struct zkpipe_key_cache_config {
    size_t struct_size; /* sizeof(zkpipe_key_cache_config) as the caller compiled it */
    /* The registry the keys' ledgers live in (stage "keys"); NULL: zkpipe_acct_default().
     * Give it the engine's, so that its snapshots show keys and partitions together. */
    zkpipe_acct *acct;
    /* A key unpinned for at least this many milliseconds may be released when a partition
     * cannot otherwise be admitted; 0: as soon as it is unpinned. */
    uint32_t idle_ms;
    const zkpipe_allocator *allocator; /* NULL for the C library; copied */
} zkpipe_key_cache_config;

/* Key cache counters (zkpipe_key_cache_stats). */
typedef struct zkpipe_key_cache_counters {
    uint64_t keys;          /* known (added and not removed) */
    uint64_t resident_keys; /* of them, loaded now */
    uint64_t pinned_keys;   /* of them, pinned now (by partitions in flight or the host) */
    uint64_t
        resident_bytes;     /* what their ledgers hold: actually resident, refreshed by this call */
    uint64_t charged_bytes; /* budget units the resident keys hold now (their `bytes`) */
    uint64_t loads;         /* loads, ever (a key added loaded counts one) */
    uint64_t releases;      /* idle keys released for an admission, ever */
    uint64_t load_failures; /* loads that failed, ever */
    uint64_t budget_taken;  /* budget units keys have taken, ever */
    uint64_t budget_returned; /* ... and given back, ever: equal to budget_taken once no key is
                               * resident under a budget (every key released, removed, or the
                               * engine gone) */
    uint32_t idle_ms;         /* the setting */
    uint32_t bound;           /* 1 while an engine's budget charges the keys */
    /* Of charged_bytes, those of keys no one has pinned: what releasing keys could give back
     * (once idle for idle_ms). A host deciding whether the engine can admit more work counts
     * them as available. */
    uint64_t unpinned_bytes;
    uint64_t reserved[3]; /* zero */
} zkpipe_key_cache_counters;

/*! zkpipe_key_cache_config_init() : defaults: the default registry, idle_ms 0, the C library
 * allocator; struct_size set. NULL is a no-op. */
ZKPIPE_API void zkpipe_key_cache_config_init(zkpipe_key_cache_config *config);

/*! zkpipe_key_cache_create() : an empty cache (registers the stage "keys" in its registry).
 * @param out receives the cache; the caller frees it with zkpipe_key_cache_destroy.
 * @param config copied; NULL: the defaults.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL out, a struct_size this library cannot read, allocator
 *         incomplete), ZKPIPE_ENOMEM, ZKPIPE_ELIMIT (the registry's stage table is full).
 * Allocates about 200 bytes; starts no thread. */
ZKPIPE_API zkpipe_status zkpipe_key_cache_create(zkpipe_key_cache **out,
                                                 const zkpipe_key_cache_config *config);

/*! zkpipe_key_cache_destroy() : unloads every key still known and frees the cache. NULL is a
 * no-op. No key may be pinned and no engine may be using the cache (destroy it first).
 * Thread safety: no other call on the cache or its keys may run concurrently. */
ZKPIPE_API void zkpipe_key_cache_destroy(zkpipe_key_cache *cache);

/*! zkpipe_key_add() : makes a key known to the cache.
 * @param out receives the key.
 * @param ops, ctx its operations and their context (both must stay valid until the key is
 *        removed).
 * @param bytes the most the resident key occupies: the budget units it holds while resident
 *        (> 0).
 * @param handle what `load` would give, when the key is loaded already (`loaded` 1): it is
 *        resident from now on, charged to the budget if the cache is in use by an engine; when
 *        the units are not free now, idle keys are released for them, and if that is not
 *        enough the key is unloaded at once (`unload` on `handle`) and added released;
 *        `loaded` 0: released until first needed (handle ignored).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, bytes 0, ops without load or unload, a bad kind),
 *         ZKPIPE_ENOMEM, ZKPIPE_ELIMIT (the registry's kind table is full); on error nothing
 *         is added and `handle` is the caller's still.
 * Allocates about 300 bytes. */
ZKPIPE_API zkpipe_status zkpipe_key_add(zkpipe_key_cache *cache, zkpipe_key **out,
                                        const zkpipe_key_ops *ops, void *ctx, uint64_t bytes,
                                        void *handle, int loaded);

/*! zkpipe_key_remove() : unloads the key if resident (its units back to the budget, its ledger
 * closed) and forgets it. NULL is a no-op. The key must not be pinned, and no partition that
 * names it may be submitted or in flight. */
ZKPIPE_API void zkpipe_key_remove(zkpipe_key *key);

/*! zkpipe_key_pin() : pins the key for the caller's own use, loading it first when released
 * (taking its units of the budget, waiting for them and releasing idle keys as an admission
 * does). *handle receives the key's handle, valid until the matching zkpipe_key_unpin.
 * Pins nest: each pin needs its unpin.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL), ZKPIPE_ETOOBIG (the key is larger than the budget),
 *         ZKPIPE_ECLOSED (the engine is being destroyed), or the load's error (with its line in
 *         `detail`, which may be NULL).
 * Thread safety: any thread; may block for the budget and for the load. */
ZKPIPE_API zkpipe_status zkpipe_key_pin(zkpipe_key *key, void **handle, char *detail,
                                        size_t detail_cap);

/*! zkpipe_key_unpin() : undoes one zkpipe_key_pin; the key counts as used now (its idle time
 * starts again). NULL, or a key not pinned, is a no-op. */
ZKPIPE_API void zkpipe_key_unpin(zkpipe_key *key);

/*! zkpipe_key_is_resident() : 1 when the key is loaded now, 0 otherwise (NULL included); stale
 * as soon as it returns unless the caller holds a pin. */
ZKPIPE_API int zkpipe_key_is_resident(const zkpipe_key *key);

/*! zkpipe_key_cache_stats() : the cache's counters, refreshing each resident key's ledger with
 * what is resident now (one `resident` operation per resident key: for a mapped zkey one
 * mincore over its mapping). @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL). Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_key_cache_stats(zkpipe_key_cache *cache,
                                                zkpipe_key_cache_counters *out);

ZKPIPE_EXTERN_C_END

#endif
