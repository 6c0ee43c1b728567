/*! zkpipe/chan.h : the bounded channel at the narrow waist.
 *
 * A multi-producer, multi-consumer FIFO of opaque items (`void *`) with a fixed number of
 * slots. Each item may carry a ledger (zkpipe/acct.h), found through the config's `ledger_of`
 * callback; the channel moves it to ZKPIPE_STAGE_QUEUED when the item is delivered into a
 * slot and to the configured stage when a consumer receives it.
 *
 * A producer sends while still holding its synthesis permit (zkpipe/sem.h); the channel
 * releases that permit only once the item is delivered. Items in synth + pending + queued
 * therefore never exceed permits + capacity.
 *
 * Argument order: the object first, then outputs, then inputs. Only zkpipe_chan_create
 * allocates; no function here starts a thread. */
#ifndef ZKPIPE_CHAN_H
#define ZKPIPE_CHAN_H

#include "zkpipe/acct.h"
#include "zkpipe/alloc.h"
#include "zkpipe/common.h"
#include "zkpipe/sem.h"
#include "zkpipe/status.h"

ZKPIPE_EXTERN_C_BEGIN

/* A channel. Opaque; every function below may be called from any thread concurrently, except
 * zkpipe_chan_destroy. */
typedef struct zkpipe_chan zkpipe_chan;

/* Channel settings; start from zkpipe_chan_config_init, which sets struct_size to the size
 * the caller was compiled with: a later library gives the fields a caller's older struct lacks
 * their defaults (see README.md, ABI). Callbacks may be NULL. Each gets the item and `ctx`. */
typedef struct zkpipe_chan_config {
    size_t struct_size;  /* sizeof(zkpipe_chan_config), set by zkpipe_chan_config_init */
    size_t capacity;     /* slots, >= 1 */
    uint32_t recv_stage; /* stage an item's ledger enters on receive (ZKPIPE_STAGE_PROVING) */
    /* The item's ledger, or NULL when the item is not accounted (also when the callback is
     * NULL). Called without the channel's lock in send and with it elsewhere; must return the
     * same ledger for an item all the while it is in the channel. */
    zkpipe_ledger *(*ledger_of)(void *item, void *ctx);
    /* Called under the channel's lock right after the item is delivered (its ledger already
     * QUEUED) and right after it is taken by a receiver (ledger already in recv_stage). Keep
     * them short; they must not call this channel. */
    void (*on_send)(void *item, void *ctx);
    void (*on_recv)(void *item, void *ctx);
    /* Frees an item dropped by zkpipe_chan_clear or zkpipe_chan_destroy, after its ledger is
     * closed. Called without the channel's lock. NULL leaves dropped items to the caller. */
    void (*destroy_item)(void *item, void *ctx);
    void *ctx;                         /* passed to every callback untouched */
    const zkpipe_allocator *allocator; /* NULL for the C library; copied at create */
} zkpipe_chan_config;

/* A consistent copy of a channel's counters: sent = received + dropped + queued. */
typedef struct zkpipe_chan_counters {
    uint64_t sent;              /* items delivered into the channel */
    uint64_t received;          /* items taken out by receivers */
    uint64_t dropped;           /* items cleared or destroyed while inside */
    uint64_t queued;            /* items inside now */
    uint64_t capacity;          /* slots */
    uint64_t waiting_senders;   /* threads blocked in a send now */
    uint64_t waiting_receivers; /* threads blocked in a receive now */
    uint64_t closed;            /* 1 once closed */
    uint64_t reserved[8];       /* zero; room for counters added later */
} zkpipe_chan_counters;

/*! zkpipe_chan_config_init() : fills `config` with defaults: struct_size, `capacity` slots,
 * recv_stage ZKPIPE_STAGE_PROVING, no callbacks, the C library allocator. NULL is a no-op.
 * Thread safety: any thread. */
ZKPIPE_API void zkpipe_chan_config_init(zkpipe_chan_config *config, size_t capacity);

/*! zkpipe_chan_create() : a new, open, empty channel.
 * @param out receives the channel; the caller frees it with zkpipe_chan_destroy.
 * @param config copied; not needed after the call.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, a struct_size this library does not know: not set
 *         by zkpipe_chan_config_init or from newer headers; capacity 0, recv_stage >=
 *         ZKPIPE_STAGE_MAX, incomplete allocator), ZKPIPE_EOVERFLOW (capacity too large to
 *         size), ZKPIPE_ENOMEM (memory, mutex or condition variable), ZKPIPE_EUNSUPPORTED (no
 *         condition variables on CLOCK_MONOTONIC). On error nothing is leaked and *out is
 *         unchanged.
 * Thread safety: any thread. Allocates one block of about 320 + 8 * capacity bytes. */
ZKPIPE_API zkpipe_status zkpipe_chan_create(zkpipe_chan **out, const zkpipe_chan_config *config);

/*! zkpipe_chan_destroy() : drops the items still inside as zkpipe_chan_clear does, then frees
 * the channel. NULL is a no-op. No thread may be blocked in or calling the channel.
 * Thread safety: no other call on `ch` may run concurrently. */
ZKPIPE_API void zkpipe_chan_destroy(zkpipe_chan *ch);

/*! zkpipe_chan_send() : delivers `item` into the channel, blocking while it is full.
 * On delivery, in this order: the item's ledger moves to ZKPIPE_STAGE_QUEUED, on_send runs,
 * `permit` is released and emptied (zeroed). From then on the channel owns the item.
 * @param item non-NULL.
 * @param permit the caller's held permit, or NULL, or an empty permit. It may be stored inside
 *        the item: it is emptied before any receiver can see the item.
 * @return ZKPIPE_OK;
 *         ZKPIPE_ECLOSED (closed before or while waiting): nothing happened, the caller keeps
 *         the item and its still-held permit;
 *         ZKPIPE_EINVAL (ch or item NULL, the item's ledger is closed, or recv_stage is not
 *         registered in the ledger's registry); ZKPIPE_ESTATE (permit already released).
 * Thread safety: any thread. Does not allocate. */
ZKPIPE_API ZKPIPE_MUST_CHECK zkpipe_status zkpipe_chan_send(zkpipe_chan *ch, void *item,
                                                            zkpipe_permit *permit);

/*! zkpipe_chan_try_send() : zkpipe_chan_send without blocking; ZKPIPE_EAGAIN when full (the
 * caller keeps item and permit). */
ZKPIPE_API zkpipe_status zkpipe_chan_try_send(zkpipe_chan *ch, void *item, zkpipe_permit *permit);

/*! zkpipe_chan_send_timed() : zkpipe_chan_send that gives up after `timeout_ns` nanoseconds on
 * CLOCK_MONOTONIC with ZKPIPE_ETIMEDOUT (the caller keeps item and permit). */
ZKPIPE_API ZKPIPE_MUST_CHECK zkpipe_status zkpipe_chan_send_timed(zkpipe_chan *ch, void *item,
                                                                  zkpipe_permit *permit,
                                                                  uint64_t timeout_ns);

/*! zkpipe_chan_recv() : takes the oldest item, blocking while the channel is empty and open.
 * Its ledger moves to the configured recv_stage, then on_recv runs; the caller owns the item.
 * After close, receivers drain what is queued, then get ZKPIPE_ECLOSED.
 * @param out receives the item (written only on ZKPIPE_OK).
 * @return ZKPIPE_OK, ZKPIPE_ECLOSED (closed and empty), ZKPIPE_EINVAL (NULL).
 * Thread safety: any thread. Does not allocate. */
ZKPIPE_API ZKPIPE_MUST_CHECK zkpipe_status zkpipe_chan_recv(zkpipe_chan *ch, void **out);

/*! zkpipe_chan_try_recv() : zkpipe_chan_recv without blocking; ZKPIPE_EAGAIN when empty. */
ZKPIPE_API zkpipe_status zkpipe_chan_try_recv(zkpipe_chan *ch, void **out);

/*! zkpipe_chan_recv_timed() : zkpipe_chan_recv that gives up after `timeout_ns` nanoseconds
 * on CLOCK_MONOTONIC with ZKPIPE_ETIMEDOUT. */
ZKPIPE_API ZKPIPE_MUST_CHECK zkpipe_status zkpipe_chan_recv_timed(zkpipe_chan *ch, void **out,
                                                                  uint64_t timeout_ns);

/*! zkpipe_chan_close() : no more sends: blocked and later senders get ZKPIPE_ECLOSED (keeping
 * item and permit); receivers drain what is queued, then get ZKPIPE_ECLOSED. Closing twice,
 * or NULL, is a no-op. Thread safety: any thread. */
ZKPIPE_API void zkpipe_chan_close(zkpipe_chan *ch);

/*! zkpipe_chan_clear() : drops every item inside, one at a time: takes it out, closes its
 * ledger and counts it as dropped under the channel's lock (so its slot cannot be refilled
 * while the item still counts as QUEUED), then calls destroy_item on it without the lock.
 * @return the number of items dropped; 0 for NULL. Thread safety: any thread. */
ZKPIPE_API uint64_t zkpipe_chan_clear(zkpipe_chan *ch);

/*! zkpipe_chan_stats() : a consistent copy of the channel's counters (taken under its lock).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL). Thread safety: any thread. */
ZKPIPE_API zkpipe_status zkpipe_chan_stats(zkpipe_chan *ch, zkpipe_chan_counters *out);

ZKPIPE_EXTERN_C_END

#endif
