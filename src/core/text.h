/* A bounded text builder with snprintf's two-call semantics, for every writer of text in
 * zkpipe (the snapshot exporters, the HTTP endpoint's bodies, snarkjs's JSON files). */
#ifndef ZKPIPE_CORE_TEXT_H
#define ZKPIPE_CORE_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "zkpipe/status.h"

/* Appends write at most `cap` bytes into `buf` (always NUL-terminated when cap > 0) while
 * `len` keeps counting what the whole text needs, so a first call with cap 0 sizes it. */
typedef struct zkpipe__text {
    char *buf;
    size_t cap;
    size_t len; /* excluding the NUL */
} zkpipe__text;

/* Checks the buffer arguments and starts an empty `t`: ZKPIPE_EINVAL when out_len is NULL or
 * buf is NULL with cap > 0. */
zkpipe_status zkpipe__text_start(zkpipe__text *t, char *buf, size_t cap, const size_t *out_len);

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void zkpipe__text_printf(zkpipe__text *t, const char *fmt, ...);

/* Appends `n` bytes of `s`. */
void zkpipe__text_put(zkpipe__text *t, const char *s, size_t n);

/* Appends the decimal digits of `v`. */
void zkpipe__text_u64(zkpipe__text *t, uint64_t v);

/* Appends `v` as Prometheus and JSON numbers show it: shortest of %.15g, "+Inf" and "-Inf" for
 * the infinities (not valid JSON: callers write those as strings), "NaN". */
void zkpipe__text_double(zkpipe__text *t, double v);

#endif
