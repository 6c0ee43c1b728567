/* What the server (server.c, or no_http.c without libmicrohttpd) shares with the response
 * buffer that providers write into (out.c). */
#ifndef ZKPIPE_HTTP_HTTP_INTERNAL_H
#define ZKPIPE_HTTP_HTTP_INTERNAL_H

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
