/* A bounded text builder with snprintf's two-call semantics, for every writer of text in
 * zkpipe (the snapshot exporters, snarkjs's JSON files). */
#ifndef ZKPIPE_CORE_TEXT_H
#define ZKPIPE_CORE_TEXT_H

#include <stddef.h>

/* Appends write at most `cap` bytes into `buf` (always NUL-terminated when cap > 0) while
 * `len` keeps counting what the whole text needs, so a first call with cap 0 sizes it. */
typedef struct zkpipe__text {
    char *buf;
    size_t cap;
    size_t len; /* excluding the NUL */
} zkpipe__text;

/* Starts an empty text over `buf` (NULL only with cap 0). */
void zkpipe__text_start(zkpipe__text *t, char *buf, size_t cap);

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void zkpipe__text_printf(zkpipe__text *t, const char *fmt, ...);

#endif
