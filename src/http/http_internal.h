/* What the server (server.c, or no_http.c without libmicrohttpd) shares with the response
 * buffer that providers write into (out.c). */
#ifndef ZKPIPE_HTTP_HTTP_INTERNAL_H
#define ZKPIPE_HTTP_HTTP_INTERNAL_H

#include "zkpipe/http.h"

/* A response being rendered: a buffer that grows (through the allocator) up to `max` bytes and
 * is kept from one response to the next, so a steady server stops allocating. */
struct zkpipe_http_out {
    char *buf;
    size_t len;   /* bytes written, excluding the NUL kept after them */
    size_t cap;   /* bytes allocated */
    size_t max;   /* largest response allowed */
    int overflow; /* the response outgrew `max` or memory: it becomes a 500 */
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

#endif
