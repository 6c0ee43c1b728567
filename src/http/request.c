/* Requests for a host's handler. The handler owns a request from its dispatch to its answer
 * and may answer from any thread: the answer is stored under the request's lock, and a
 * connection suspended meanwhile is resumed, so that the server's thread calls back into the
 * access handler and queues it. The request itself stays the server's to free: libmicrohttpd
 * says when its connection is done with it (the completion notice), after the answer is sent. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc_internal.h"
#include "http/request.h"

struct zkpipe_http_request {
    const zkpipe_allocator *allocator; /* the server's: it outlives every request */
    struct MHD_Connection *conn;
    int wake_fd;          /* the server's loop's */
    pthread_mutex_t lock; /* suspended, answered, response, code */
    int dispatched;       /* the server's thread only */
    int suspended, answered;
    struct MHD_Response *response;
    unsigned code;
    char *method, *path, *content_type; /* in `strings` */
    char *body;
    size_t len, cap;
    char strings[];
};

static char *put(char **at, const char *s)
{
    char *p = *at;
    size_t n = strlen(s) + 1;
    memcpy(p, s, n);
    *at += n;
    return p;
}

zkpipe_http_request *zkpipe__http_request_new(const zkpipe_allocator *a, struct MHD_Connection *c,
                                              int wake_fd, const char *method, const char *path,
                                              const char *content_type, size_t expected)
{
    size_t strings =
        strlen(method) + strlen(path) + 2 + (content_type != NULL ? strlen(content_type) + 1 : 0);
    zkpipe_http_request *r =
        zkpipe__calloc(a, 1, sizeof *r + strings, _Alignof(zkpipe_http_request));
    if (r == NULL)
        return NULL;
    if (pthread_mutex_init(&r->lock, NULL) != 0) {
        zkpipe__free(a, r);
        return NULL;
    }
    r->allocator = a;
    r->conn = c;
    r->wake_fd = wake_fd;
    char *at = r->strings;
    r->method = put(&at, method);
    r->path = put(&at, path);
    r->content_type = content_type != NULL ? put(&at, content_type) : NULL;
    /* The body and its NUL in one block of the announced size: no growth for a client that
     * says how much it sends (the common case). */
    r->cap = expected + 1;
    r->body = zkpipe__alloc(a, r->cap, 1);
    if (r->body == NULL) {
        zkpipe__http_request_free(r);
        return NULL;
    }
    r->body[0] = '\0';
    return r;
}

int zkpipe__http_request_append(zkpipe_http_request *req, const char *data, size_t n, size_t max,
                                int *enomem)
{
    *enomem = 0;
    if (n > max || req->len > max - n)
        return -1;
    if (req->len + n + 1 > req->cap) {
        size_t cap = req->cap * 2 > req->len + n + 1 ? req->cap * 2 : req->len + n + 1;
        if (cap > max + 1)
            cap = max + 1;
        char *body = zkpipe__alloc(req->allocator, cap, 1);
        if (body == NULL) {
            *enomem = 1;
            return -1;
        }
        memcpy(body, req->body, req->len);
        zkpipe__free(req->allocator, req->body);
        req->body = body;
        req->cap = cap;
    }
    memcpy(req->body + req->len, data, n);
    req->len += n;
    req->body[req->len] = '\0';
    return 0;
}

int zkpipe__http_request_dispatch(zkpipe_http_request *req, zkpipe_http_handler_fn fn, void *ctx)
{
    req->dispatched = 1;
    fn(req, ctx);
    /* From here the request may be another thread's: only its lock and the connection. */
    pthread_mutex_lock(&req->lock);
    int answered = req->answered;
    if (!answered) {
        MHD_suspend_connection(req->conn);
        req->suspended = 1;
    }
    pthread_mutex_unlock(&req->lock);
    return answered;
}

int zkpipe__http_request_dispatched(const zkpipe_http_request *req)
{
    return req->dispatched;
}

struct MHD_Response *zkpipe__http_request_take(zkpipe_http_request *req, unsigned *code,
                                               int *answered)
{
    pthread_mutex_lock(&req->lock);
    struct MHD_Response *r = req->response;
    req->response = NULL;
    *code = req->code;
    *answered = req->answered;
    pthread_mutex_unlock(&req->lock);
    return r;
}

void zkpipe__http_request_free(zkpipe_http_request *req)
{
    if (req == NULL)
        return;
    if (req->response != NULL)
        MHD_destroy_response(req->response);
    if (req->body != NULL)
        zkpipe__free(req->allocator, req->body);
    pthread_mutex_destroy(&req->lock);
    zkpipe__free(req->allocator, req);
}

const char *zkpipe_http_request_method(const zkpipe_http_request *req)
{
    return req != NULL ? req->method : NULL;
}

const char *zkpipe_http_request_path(const zkpipe_http_request *req)
{
    return req != NULL ? req->path : NULL;
}

const char *zkpipe_http_request_content_type(const zkpipe_http_request *req)
{
    return req != NULL ? req->content_type : NULL;
}

const void *zkpipe_http_request_body(const zkpipe_http_request *req, size_t *len)
{
    if (len != NULL)
        *len = req != NULL ? req->len : 0;
    return req != NULL && req->len > 0 ? req->body : NULL;
}

static struct MHD_Response *make_response(unsigned code, const char *content_type, const void *body,
                                          size_t len, unsigned retry_after_s)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)(len > 0 ? body : ""), MHD_RESPMEM_MUST_COPY);
    if (r == NULL)
        return NULL;
    char retry[16];
    snprintf(retry, sizeof retry, "%u", retry_after_s);
    enum MHD_Result ok = MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (ok == MHD_YES && content_type != NULL && code != 204)
        ok = MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    if (ok == MHD_YES && retry_after_s > 0)
        ok = MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, retry);
    if (ok != MHD_YES) {
        MHD_destroy_response(r);
        return NULL;
    }
    return r;
}

zkpipe_status zkpipe_http_respond(zkpipe_http_request *req, unsigned code, const char *content_type,
                                  const void *body, size_t len, unsigned retry_after_s)
{
    if (req == NULL)
        return ZKPIPE_EINVAL;
    zkpipe_status st = ZKPIPE_OK;
    if (code < 100 || code > 599 || (body == NULL && len > 0)) {
        static const char bad[] = "the server made an invalid answer\n";
        st = ZKPIPE_EINVAL;
        code = 500;
        content_type = "text/plain";
        body = bad;
        len = sizeof bad - 1;
        retry_after_s = 0;
    }
    /* Made outside the lock: the copy of a large body holds no one up. */
    struct MHD_Response *r = make_response(code, content_type, body, len, retry_after_s);
    if (r == NULL && st == ZKPIPE_OK)
        st = ZKPIPE_ENOMEM;
    pthread_mutex_lock(&req->lock);
    req->response = r;
    req->code = code;
    req->answered = 1;
    if (req->suspended) {
        req->suspended = 0;
        MHD_resume_connection(req->conn);
        /* Under the lock: the server cannot take the answer, so neither end the request nor
         * stop (which closes wake_fd), before this is written. Full (it never is: the loop
         * reads it each pass) or not, the loop wakes. */
        uint64_t one = 1;
        ssize_t wrote = write(req->wake_fd, &one, sizeof one);
        (void)wrote;
    }
    pthread_mutex_unlock(&req->lock);
    return st;
}
