/* A request the server hands to the host's handler (zkpipe_http_config.handler): its line,
 * content type and body, kept until it is answered, and the answer, made on whichever thread
 * answers and queued by the server's (request.c). */
#ifndef ZKPIPE_HTTP_REQUEST_H
#define ZKPIPE_HTTP_REQUEST_H

#include <microhttpd.h>

#include "zkpipe/http.h"

/* A new request on connection `c`, its strings copied, with room for `expected` body bytes
 * (its Content-Length; 0 when unknown or none); its answer is signalled on the eventfd
 * `wake_fd`. NULL when out of memory. */
zkpipe_http_request *zkpipe__http_request_new(const zkpipe_allocator *a, struct MHD_Connection *c,
                                              int wake_fd, const char *method, const char *path,
                                              const char *content_type, size_t expected);

/* Appends `n` body bytes, growing the buffer up to `max` bytes: 0, or -1 when the body would
 * pass `max` (or memory ran out: *enomem set). */
int zkpipe__http_request_append(zkpipe_http_request *req, const char *data, size_t n, size_t max,
                                int *enomem);

/* Hands the complete request to `fn`; when it has not been answered once fn returns, suspends
 * its connection (an answer from another thread resumes it). Returns 1 when it was answered
 * during the call. On the server's thread. */
int zkpipe__http_request_dispatch(zkpipe_http_request *req, zkpipe_http_handler_fn fn, void *ctx);

/* 1 once the request has been handed to the handler. */
int zkpipe__http_request_dispatched(const zkpipe_http_request *req);

/* The answer, taken once it has been given (the caller queues and destroys it), with its code;
 * NULL when there is none yet or it could not be made. *answered says whether one was given. */
struct MHD_Response *zkpipe__http_request_take(zkpipe_http_request *req, unsigned *code,
                                               int *answered);

/* Frees the request (the server's, once its connection is done with it). */
void zkpipe__http_request_free(zkpipe_http_request *req);

#endif
