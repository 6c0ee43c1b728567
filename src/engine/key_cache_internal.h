/* What the engine does with a key cache (zkpipe/key_cache.h): bind it to its byte budget,
 * admit a partition and pin its key in one step, unpin at the partition's end. */
#ifndef ZKPIPE_ENGINE_KEY_CACHE_INTERNAL_H
#define ZKPIPE_ENGINE_KEY_CACHE_INTERNAL_H

#include "zkpipe/engine.h"
#include "zkpipe/http.h"
#include "zkpipe/key_cache.h"
#include "zkpipe/sem.h"

/* Charges every resident key to `budget` (its units taken now) and every later load too.
 * ZKPIPE_OK; ZKPIPE_ESTATE (another engine uses the cache); ZKPIPE_ETOOBIG (the resident keys
 * do not fit: nothing is charged). */
zkpipe_status zkpipe__key_cache_bind(zkpipe_key_cache *cache, zkpipe_sem *budget);

/* Gives every key's units back and stops charging: the engine is going. */
void zkpipe__key_cache_unbind(zkpipe_key_cache *cache);

/* The budget units held by resident keys no one has pinned: what releasing keys could give an
 * admission. Reads no key's residency (unlike zkpipe_key_cache_stats). */
uint64_t zkpipe__key_cache_releasable(zkpipe_key_cache *cache);

/* Admits a partition of `units` budget units (into *permit, empty when units is 0 or `budget`
 * is NULL) that uses `key` (NULL: none), pinning the key and loading it first when it is
 * released: the partition's units and the key's are asked for in one request, and idle keys
 * are released LRU while the request does not fit (zkpipe/key_cache.h). `member`: the request
 * is a joined member's admission (zkpipe__sem_admit; the engine's partitions), not a plain
 * acquire (a host's pin). `cache` is the engine's (NULL: none); a key of another cache is
 * pinned after the units are taken, with its own cache's budget. *handle receives the key's
 * handle. On error nothing is held or pinned and a line may be in `detail`. Returns what
 * zkpipe_sem_acquire does, or the load's error. */
zkpipe_status zkpipe__key_admit(zkpipe_key_cache *cache, zkpipe_key *key, zkpipe_sem *budget,
                                uint64_t units, int member, zkpipe_permit *permit, void **handle,
                                char *detail, size_t detail_cap);

/* A zkpipe__sem_look_fn (ctx: a cache bound to the budget) for a partition growing its
 * reservation: releases one idle key, as a waiting admission does (never a pinned one, so
 * never the partition's own); never lowers the request. */
uint64_t zkpipe__keys_look(void *cache, uint64_t *units);

/* The cache's series of an engine's HTTP provider (key_cache_http.c): /status's "keys" object
 * and the /metrics families zkpipe_keys, _keys_resident, _keys_pinned, _key_resident_bytes,
 * _key_budget_bytes, _key_loads_total, _key_releases_total, _key_load_failures_total (zeros
 * without a cache). */
void zkpipe__keys_json(zkpipe_http_out *out, zkpipe_engine *e);
void zkpipe__keys_prometheus(zkpipe_http_out *out, zkpipe_engine *e);

#endif
