/* What the server (server.c, or no_http.c without libmicrohttpd) shares with the response
 * buffer that providers write into (out.c). */
#ifndef ZKPIPE_HTTP_HTTP_INTERNAL_H
#define ZKPIPE_HTTP_HTTP_INTERNAL_H

#include <stdint.h>

#include "zkpipe/http.h"

/* A response being rendered: a buffer that grows (through the allocator) up to `max` bytes and
 * is kept from one response to the next, so a steady server stops allocating. */
struct zkpipe_http_out {
    char *buf;
    size_t len; /* bytes written, excluding the NUL kept after them */
    size_t cap; /* bytes allocated */
    size_t max; /* largest response allowed */
    /* ZKPIPE_OK, or why the response is lost (a server answers 500): ZKPIPE_ELIMIT, it
     * outgrew `max`; ZKPIPE_ENOMEM, the allocator refused. */
    zkpipe_status overflow;
    zkpipe_http_format format;
    const zkpipe_prom_options *prom;
    const zkpipe_allocator *allocator;
};

/* The bearer token a server requires (auth.c); len 0: none. */
typedef struct zkpipe__http_auth {
    size_t len;
    unsigned char token[ZKPIPE_HTTP_TOKEN_MAX]; /* NUL-padded */
} zkpipe__http_auth;

/* Keeps `token` (NULL or "": none); ZKPIPE_EINVAL when it is longer than
 * ZKPIPE_HTTP_TOKEN_MAX or holds a character outside 0x21..0x7e. */
zkpipe_status zkpipe__http_auth_init(zkpipe__http_auth *auth, const char *token);

/* 1 when a request with this Authorization header value (NULL: none) may be answered: no
 * token is required, or the value is "Bearer <token>". Constant time in the token. */
int zkpipe__http_auth_check(const zkpipe__http_auth *auth, const char *authorization);

/* Erases the token from memory. */
void zkpipe__http_auth_wipe(zkpipe__http_auth *auth);

/* One connection a server holds (slots.c). */
typedef struct zkpipe__http_slot {
    int fd;             /* its socket; -1: the slot is free */
    unsigned char busy; /* a response is queued for it: its request was complete */
    unsigned char shut; /* shut down here; libmicrohttpd closes it at its next pass */
    uint64_t since_ns;  /* accepted, or its previous response finished: its deadline's start */
    uint64_t pass;      /* the pass of libmicrohttpd's loop when since_ns was set */
} zkpipe__http_slot;

/* A server's connections, one slot for each libmicrohttpd holds (it holds at most `cap`).
 * Used on the server's thread only. */
typedef struct zkpipe__http_slots {
    zkpipe__http_slot *slot;
    size_t cap, used;
    size_t shut; /* slots shut down and not yet released */
    uint64_t request_timeout_ns;
    uint64_t pass; /* passes of libmicrohttpd's loop so far (the server counts them) */
} zkpipe__http_slots;

/* `cap` free slots allocated through `a`; ZKPIPE_ENOMEM. */
zkpipe_status zkpipe__http_slots_init(zkpipe__http_slots *slots, size_t cap,
                                      uint64_t request_timeout_ns, const zkpipe_allocator *a);

void zkpipe__http_slots_free(zkpipe__http_slots *slots, const zkpipe_allocator *a);

/* A slot for a new connection on socket `fd`, idle since `now_ns`; NULL when none is free. */
zkpipe__http_slot *zkpipe__http_slots_take(zkpipe__http_slots *slots, int fd, uint64_t now_ns);

/* Frees the slot of a connection libmicrohttpd is closing. */
void zkpipe__http_slots_release(zkpipe__http_slots *slots, zkpipe__http_slot *slot);

/* Shuts down each idle connection whose request is not complete request_timeout_ns after
 * since_ns (*expired: how many), once libmicrohttpd has had a whole pass since then: bytes that
 * came while the server's thread was late (descheduled, or slowed by a long pass) are read
 * before the request is judged. Returns the ns until the next one is due (0: one is due and
 * waits for that pass; UINT64_MAX: none is idle). */
uint64_t zkpipe__http_slots_expire(zkpipe__http_slots *slots, uint64_t now_ns, uint64_t *expired);

/* 1 when every slot is taken and none is already on its way out. */
int zkpipe__http_slots_full(const zkpipe__http_slots *slots);

/* Shuts down the idle connection that has been idle longest, to make room; 0 when none may be
 * (then nothing is shut). A connection is not idle while it is answered, nor before a whole
 * pass of libmicrohttpd's loop after the one that accepted it: a request that came with the
 * connection is read by then, so a client that asks at once is never taken for an idle one. */
int zkpipe__http_slots_evict(zkpipe__http_slots *slots);

/* The caller's config as this library's struct (README.md, ABI): ZKPIPE_EINVAL for a NULL
 * config or a struct_size this library does not know. */
zkpipe_status zkpipe__http_config_in(zkpipe_http_config *dst, const zkpipe_http_config *caller);

/* Empties `out` for a new response in `format` (keeps the buffer). */
void zkpipe__http_out_reset(zkpipe_http_out *out, zkpipe_http_format format);

/* Frees the buffer. */
void zkpipe__http_out_free(zkpipe_http_out *out);

/* The snapshot's JSON (without its newline) or Prometheus text with out->prom. */
void zkpipe__http_out_snapshot(zkpipe_http_out *out, const zkpipe_snapshot *snap);

/* 1 when `name` may name a provider: [a-z0-9_]{1,ZKPIPE_ACCT_NAME_MAX}, neither "uptime_s" nor
 * "accounting" (the keys the /status object has of its own). */
int zkpipe__http_provider_name_valid(const char *name);

/* The one rendering of /metrics and /status (render.c), for the server and zkpipe_http_render:
 * empties `out`, takes a snapshot of `acct` into `snap`, then writes the registry's part and
 * each provider's in order; the JSON object begins with "uptime_s" when uptime_s >= 0.
 * Returns out->overflow (ZKPIPE_OK when the whole response is in out->buf). */
zkpipe_status zkpipe__http_render(zkpipe_http_out *out, zkpipe_http_format format,
                                  zkpipe_acct *acct, zkpipe_snapshot *snap,
                                  const zkpipe_http_provider *providers, size_t count,
                                  double uptime_s);

#endif
