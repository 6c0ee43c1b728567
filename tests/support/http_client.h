/* A small blocking HTTP/1.1 client for the tests and the probe: it sends a request as given
 * and reads the answer until the server closes the connection. */
#ifndef ZKPIPE_TESTS_HTTP_CLIENT_H
#define ZKPIPE_TESTS_HTTP_CLIENT_H

#include <stddef.h>
#include <stdint.h>

typedef struct http_reply {
    int status; /* the status line's code; 0 when the server closed without one */
    char *raw;  /* everything received, NUL-terminated (malloc'd) */
    size_t raw_len;
    const char *body; /* into raw: after the blank line, or the end */
    size_t body_len;
} http_reply;

/* A TCP connection to host (numeric IPv4/IPv6) and port; -1 on failure. */
int http_connect(const char *host, uint16_t port);

/* Sends `len` bytes of `request` on a new connection and reads until the server closes it or
 * `timeout_ms` passes without data. Returns 0 with *out filled (free with http_reply_free),
 * or -1 when the connection could not be made or nothing at all came back. */
int http_exchange(const char *host, uint16_t port, const char *request, size_t len, int timeout_ms,
                  http_reply *out);

/* "METHOD path HTTP/1.1" with Host and Connection: close. */
int http_simple(const char *host, uint16_t port, const char *method, const char *path,
                http_reply *out);

/* The value of header `name` (case-insensitive) copied into buf, or NULL when absent. */
const char *http_header(const http_reply *r, const char *name, char *buf, size_t cap);

void http_reply_free(http_reply *r);

#endif
