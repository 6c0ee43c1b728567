/* The HTTP endpoint on libmicrohttpd: one thread of ours runs libmicrohttpd's loop (epoll, or
 * poll) and serves every connection; renders happen on it under the server's lock, into a
 * response buffer kept from one response to the next, and libmicrohttpd sends a copy. Static
 * answers (401, 404, 405, /healthz) are made once and shared by every connection.
 *
 * The loop is ours, not libmicrohttpd's internal thread, because libmicrohttpd has neither a
 * whole-request deadline (its timeout restarts with every byte) nor a way to close a
 * connection from outside a request: between two of its passes (MHD_run_wait) the loop shuts
 * down the sockets of connections past their deadline, or the longest idle one when every
 * slot is taken and a client waits in the listen queue, and libmicrohttpd closes them on its
 * next pass (slots.c says why that is race-free). It also bounds zkpipe_http_stop: stop sets
 * `stopping` and shuts down the listening socket, which wakes the loop's wait on it (the loop
 * also looks at least every IDLE_POLL_MS), then MHD_stop_daemon closes every connection without
 * waiting for any. */
#define _DEFAULT_SOURCE /* struct tcp_info */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "core/alloc_internal.h"
#include "core/clock_internal.h"
#include "core/detail.h"
#include "http/http_internal.h"
#include "http/request.h"

#define CONTENT_PROMETHEUS "text/plain; version=0.0.4; charset=utf-8"
#define CONTENT_JSON "application/json"
/* Each connection's request (line and headers) must fit in this pool. */
#define CONNECTION_POOL_BYTES (16 * 1024)
/* The loop's longest wait while every slot is taken: how late it sees a client waiting then
 * (libmicrohttpd does not watch the listening socket while it is at its limit). */
#define FULL_POLL_MS 100
/* Its longest wait otherwise: a bound on stop should the listening socket's shutdown not wake
 * it; an idle server wakes this often and no more. */
#define IDLE_POLL_MS 1000

struct zkpipe_http {
    zkpipe_allocator allocator;
    zkpipe_acct *acct;
    struct MHD_Daemon *daemon;
    int listen_fd;
    uint16_t port;
    uint64_t started_ns;
    struct MHD_Response *not_found, *not_allowed, *healthy, *unauthorized;
    zkpipe__http_auth auth;
    zkpipe_http_handler_fn handler; /* NULL: none */
    void *handler_ctx;
    size_t max_body;
    struct MHD_Response *too_large;
    /* With a handler: an answer from another thread resumes its connection, and this wakes
     * the loop (libmicrohttpd's own wake-up does not reach an external loop's wait) */
    int wake_fd;  /* eventfd; -1 without a handler */
    int epoll_fd; /* libmicrohttpd's, which the loop waits on beside wake_fd; -1: poll mode */
    zkpipe__http_slots slots; /* the loop's thread only */
    pthread_t thread;
    atomic_int stopping;

    /* The prom options, deep-copied: the pointers lead into `strings`. */
    zkpipe_prom_options prom;
    zkpipe_prom_label labels[ZKPIPE_PROM_LABELS_MAX];
    char *strings;

    pthread_mutex_t lock;                                      /* providers, names, out, snap */
    zkpipe_http_provider providers[ZKPIPE_HTTP_PROVIDERS_MAX]; /* providers[i].name: names[i] */
    char names[ZKPIPE_HTTP_PROVIDERS_MAX][ZKPIPE_ACCT_NAME_MAX + 1];
    size_t provider_count;
    zkpipe_http_out out;
    zkpipe_snapshot snap;

    _Atomic uint64_t requests, ok, not_found_count, not_allowed_count, errors, connections, open,
        unauthorized_count, timed_out, evicted, too_large_count, handled, handling;
};

static uint64_t now_ns(void)
{
    struct timespec t = zkpipe__clock_now();
    return (uint64_t)t.tv_sec * UINT64_C(1000000000) + (uint64_t)t.tv_nsec;
}

static void count(_Atomic uint64_t *c)
{
    atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

/* Copies the options' strings into one block so the caller's may go away. */
static zkpipe_status copy_prom(zkpipe_http *s, const zkpipe_prom_options *o)
{
    size_t bytes = o->prefix != NULL ? strlen(o->prefix) + 1 : 0;
    for (size_t i = 0; i < o->label_count; i++)
        bytes += strlen(o->labels[i].name) + strlen(o->labels[i].value) + 2;
    s->prom = *o;
    if (bytes == 0)
        return ZKPIPE_OK;
    char *p = s->strings = zkpipe__alloc(&s->allocator, bytes, 1);
    if (p == NULL)
        return ZKPIPE_ENOMEM;
    if (o->prefix != NULL) {
        s->prom.prefix = strcpy(p, o->prefix);
        p += strlen(p) + 1;
    }
    for (size_t i = 0; i < o->label_count; i++) {
        s->labels[i].name = strcpy(p, o->labels[i].name);
        p += strlen(p) + 1;
        s->labels[i].value = strcpy(p, o->labels[i].value);
        p += strlen(p) + 1;
    }
    s->prom.labels = o->label_count > 0 ? s->labels : NULL;
    return ZKPIPE_OK;
}

/* The connection's slot (NULL only if libmicrohttpd held more connections than its limit). */
static zkpipe__http_slot *slot_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *i =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return i != NULL ? i->socket_context : NULL;
}

/* Its request is complete and answered: its deadline no longer runs, nor may it be evicted,
 * until the answer is sent (timeout_s bounds the sending). */
static void mark_busy(struct MHD_Connection *c)
{
    zkpipe__http_slot *x = slot_of(c);
    if (x != NULL)
        x->busy = 1;
}

static enum MHD_Result queue_static(zkpipe_http *s, struct MHD_Connection *c, unsigned code,
                                    struct MHD_Response *r, _Atomic uint64_t *counter)
{
    mark_busy(c);
    count(&s->requests);
    count(counter);
    return MHD_queue_response(c, code, r);
}

/* Renders and queues a copy of the response; MHD_NO (the connection is closed) when
 * libmicrohttpd is out of memory. */
static enum MHD_Result queue_rendered(zkpipe_http *s, struct MHD_Connection *c,
                                      zkpipe_http_format format)
{
    pthread_mutex_lock(&s->lock);
    double up = (double)(now_ns() - s->started_ns) * 1e-9;
    int ok = zkpipe__http_render(&s->out, format, s->acct, &s->snap, s->providers,
                                 s->provider_count, up) == ZKPIPE_OK;
    struct MHD_Response *r =
        ok ? MHD_create_response_from_buffer(s->out.len, s->out.buf, MHD_RESPMEM_MUST_COPY)
           : MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    pthread_mutex_unlock(&s->lock);
    if (r == NULL)
        return MHD_NO;
    mark_busy(c);
    enum MHD_Result rc = MHD_YES;
    if (ok)
        rc =
            MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                                    format == ZKPIPE_HTTP_JSON ? CONTENT_JSON : CONTENT_PROMETHEUS);
    if (rc == MHD_YES)
        rc = MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (rc == MHD_YES) {
        count(&s->requests);
        count(ok ? &s->ok : &s->errors);
        rc = MHD_queue_response(c, ok ? MHD_HTTP_OK : MHD_HTTP_INTERNAL_SERVER_ERROR, r);
    }
    MHD_destroy_response(r);
    return rc;
}

/* The Content-Length the client announced: 0 when none (or chunked), SIZE_MAX when it is not a
 * number that fits. */
static size_t content_length(struct MHD_Connection *c)
{
    const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (v == NULL)
        return 0;
    size_t n = 0;
    for (; *v >= '0' && *v <= '9'; v++) {
        if (n > (SIZE_MAX - 9) / 10)
            return SIZE_MAX;
        n = n * 10 + (size_t)(*v - '0');
    }
    return n;
}

/* Queues the handler's answer once it has been given; MHD_NO (the connection is closed) when
 * it could not be made. */
static enum MHD_Result queue_answer(zkpipe_http *s, struct MHD_Connection *c,
                                    zkpipe_http_request *req)
{
    unsigned code;
    int answered;
    struct MHD_Response *r = zkpipe__http_request_take(req, &code, &answered);
    if (!answered) /* not expected: resumed without an answer */
        return MHD_YES;
    count(&s->requests);
    if (r == NULL) {
        count(&s->errors);
        return MHD_NO;
    }
    /* The codes the counters name; the host counts its others itself. */
    _Atomic uint64_t *counter = code == MHD_HTTP_OK                      ? &s->ok
                                : code == MHD_HTTP_CONTENT_TOO_LARGE     ? &s->too_large_count
                                : code == MHD_HTTP_UNAUTHORIZED          ? &s->unauthorized_count
                                : code == MHD_HTTP_NOT_FOUND             ? &s->not_found_count
                                : code == MHD_HTTP_METHOD_NOT_ALLOWED    ? &s->not_allowed_count
                                : code >= MHD_HTTP_INTERNAL_SERVER_ERROR ? &s->errors
                                                                         : NULL;
    if (counter != NULL)
        count(counter);
    enum MHD_Result rc = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return rc;
}

/* A request for the host's handler: refused before its body when unauthorized or announced
 * too large, its body gathered as it comes, then handed over; answered when the handler (or
 * another thread, later) has answered. */
static enum MHD_Result handle_host(zkpipe_http *s, struct MHD_Connection *c, const char *url,
                                   const char *method, const char *upload_data,
                                   size_t *upload_data_size, void **req_cls)
{
    zkpipe_http_request *req = *req_cls;
    if (req == NULL) {
        *upload_data_size = 0; /* none yet on the first call */
        const char *authorization =
            MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
        if (!zkpipe__http_auth_check(&s->auth, authorization)) {
            *req_cls = s;
            return queue_static(s, c, MHD_HTTP_UNAUTHORIZED, s->unauthorized,
                                &s->unauthorized_count);
        }
        size_t expected = content_length(c);
        if (expected > s->max_body) {
            *req_cls = s;
            return queue_static(s, c, MHD_HTTP_CONTENT_TOO_LARGE, s->too_large,
                                &s->too_large_count);
        }
        const char *type =
            MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
        req = zkpipe__http_request_new(&s->allocator, c, s->wake_fd, method, url, type, expected);
        if (req == NULL)
            return MHD_NO;
        *req_cls = req;
        return MHD_YES;
    }
    if (*upload_data_size != 0) {
        int enomem;
        if (zkpipe__http_request_append(req, upload_data, *upload_data_size, s->max_body,
                                        &enomem) != 0) {
            /* A chunked body past the cap: libmicrohttpd cannot answer in the middle of a
             * body, so the connection is closed. */
            count(enomem ? &s->errors : &s->too_large_count);
            return MHD_NO;
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (!zkpipe__http_request_dispatched(req)) {
        mark_busy(c);
        count(&s->handled);
        count(&s->handling);
        if (!zkpipe__http_request_dispatch(req, s->handler, s->handler_ctx))
            return MHD_YES; /* suspended until answered */
    }
    return queue_answer(s, c, req);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **req_cls)
{
    (void)version;
    zkpipe_http *s = cls;
    int get = strcmp(method, MHD_HTTP_METHOD_GET) == 0 || strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
    int own = get && (strcmp(url, "/healthz") == 0 || strcmp(url, "/metrics") == 0 ||
                      strcmp(url, "/status") == 0);
    if (s->handler != NULL && !own && *req_cls != s)
        return handle_host(s, c, url, method, upload_data, upload_data_size, req_cls);
    if (!get) {
        /* Answered on the first call, before any body: libmicrohttpd then closes the
         * connection after the answer instead of reading the body. */
        *upload_data_size = 0;
        if (*req_cls != NULL)
            return MHD_YES;
        *req_cls = s;
        return queue_static(s, c, MHD_HTTP_METHOD_NOT_ALLOWED, s->not_allowed,
                            &s->not_allowed_count);
    }
    /* A GET is answered on the last call, once the request is complete, so the connection can
     * be kept alive for the next scrape; a body, if any, is dropped piece by piece as it
     * comes (never more than the connection's pool). */
    if (*req_cls == NULL || *upload_data_size != 0) {
        *req_cls = s;
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (strcmp(url, "/healthz") == 0)
        return queue_static(s, c, MHD_HTTP_OK, s->healthy, &s->ok);
    int metrics = strcmp(url, "/metrics") == 0;
    if (!metrics && strcmp(url, "/status") != 0)
        return queue_static(s, c, MHD_HTTP_NOT_FOUND, s->not_found, &s->not_found_count);
    const char *authorization =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!zkpipe__http_auth_check(&s->auth, authorization))
        return queue_static(s, c, MHD_HTTP_UNAUTHORIZED, s->unauthorized, &s->unauthorized_count);
    return queue_rendered(s, c, metrics ? ZKPIPE_HTTP_PROMETHEUS : ZKPIPE_HTTP_JSON);
}

/* A request ended (answered, or the connection failed): a kept-alive connection is idle
 * again, its deadline counting from now. */
static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    zkpipe_http *s = cls;
    if (*req_cls != NULL && *req_cls != s) {
        zkpipe_http_request *req = *req_cls;
        if (zkpipe__http_request_dispatched(req))
            atomic_fetch_sub_explicit(&s->handling, 1, memory_order_relaxed);
        zkpipe__http_request_free(req);
        *req_cls = NULL;
    }
    zkpipe__http_slot *x = slot_of(c);
    if (x != NULL) {
        x->busy = 0;
        x->since_ns = now_ns();
        x->pass = s->slots.pass;
    }
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    zkpipe_http *s = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *i =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        *socket_context =
            i != NULL ? zkpipe__http_slots_take(&s->slots, i->connect_fd, now_ns()) : NULL;
        count(&s->connections);
        count(&s->open);
    } else {
        if (*socket_context != NULL)
            zkpipe__http_slots_release(&s->slots, *socket_context);
        atomic_fetch_sub_explicit(&s->open, 1, memory_order_relaxed);
    }
}

/* How many clients wait in the listen queue: Linux gives a listening socket's queue length
 * as TCP_INFO's tcpi_unacked; elsewhere 1 when any does. */
static size_t clients_waiting(int listen_fd)
{
#if defined(__linux__)
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    if (getsockopt(listen_fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 &&
        len >= offsetof(struct tcp_info, tcpi_unacked) + sizeof ti.tcpi_unacked)
        return ti.tcpi_unacked;
#endif
    struct pollfd p = {listen_fd, POLLIN, 0};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN) != 0;
}

/* Clears the wake-up eventfd (non-blocking: EAGAIN when nothing was written); 0 when it failed. */
static int wake_drained(zkpipe_http *s)
{
    uint64_t n;
    return read(s->wake_fd, &n, sizeof n) >= 0 || errno == EAGAIN;
}

/* One pass of libmicrohttpd's loop, waiting at most `ms` for its sockets or, with a handler,
 * for an answer given on another thread. */
static enum MHD_Result run(zkpipe_http *s, int32_t ms)
{
    if (s->wake_fd < 0)
        return MHD_run_wait(s->daemon, ms);
    if (s->epoll_fd >= 0) {
        /* libmicrohttpd's epoll is edge-triggered: connections it has left work for (a
         * response to send on) raise no new event, and its own timeout says so (0). */
        MHD_UNSIGNED_LONG_LONG due;
        if (MHD_get_timeout(s->daemon, &due) == MHD_YES && due < (MHD_UNSIGNED_LONG_LONG)ms)
            ms = (int32_t)due;
        struct pollfd p[2] = {{s->epoll_fd, POLLIN, 0}, {s->wake_fd, POLLIN, 0}};
        if (poll(p, 2, ms) < 0 && errno != EINTR)
            return MHD_NO;
    } else if (atomic_load_explicit(&s->handling, memory_order_relaxed) > 0) {
        /* poll mode: no descriptor of libmicrohttpd's to wait on beside ours, so answers are
         * looked for every few milliseconds while any is awaited */
        enum MHD_Result rc = MHD_run_wait(s->daemon, ms < 5 ? ms : 5);
        return wake_drained(s) ? rc : MHD_NO;
    } else {
        return MHD_run_wait(s->daemon, ms);
    }
    return wake_drained(s) ? MHD_run(s->daemon) : MHD_NO;
}

static void *serve(void *arg)
{
    zkpipe_http *s = arg;
    while (!atomic_load_explicit(&s->stopping, memory_order_acquire)) {
        uint64_t expired;
        uint64_t next_ns = zkpipe__http_slots_expire(&s->slots, now_ns(), &expired);
        atomic_fetch_add_explicit(&s->timed_out, expired, memory_order_relaxed);
        /* One idle connection closed for each client waiting, at most every idle one. */
        size_t waiting = zkpipe__http_slots_full(&s->slots) ? clients_waiting(s->listen_fd) : 0;
        for (; waiting > 0 && zkpipe__http_slots_evict(&s->slots); waiting--)
            count(&s->evicted);
        /* Rounded up, so that the next pass finds the deadline passed. */
        uint64_t wait_ms = next_ns / 1000000 + 1;
        uint64_t most = zkpipe__http_slots_full(&s->slots) ? FULL_POLL_MS : IDLE_POLL_MS;
        if (run(s, (int32_t)(wait_ms < most ? wait_ms : most)) != MHD_YES) {
            /* Not expected (an epoll failure): keep serving what can be, without spinning. */
            struct timespec t = {0, 10 * 1000000L};
            nanosleep(&t, NULL);
        }
        s->slots.pass++;
    }
    return NULL;
}

static struct MHD_Response *static_response(const char *text, const char *type)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
    if (r != NULL && MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type) != MHD_YES) {
        MHD_destroy_response(r);
        r = NULL;
    }
    return r;
}

static void free_server(zkpipe_http *s)
{
    if (s->not_found != NULL)
        MHD_destroy_response(s->not_found);
    if (s->not_allowed != NULL)
        MHD_destroy_response(s->not_allowed);
    if (s->healthy != NULL)
        MHD_destroy_response(s->healthy);
    if (s->unauthorized != NULL)
        MHD_destroy_response(s->unauthorized);
    if (s->too_large != NULL)
        MHD_destroy_response(s->too_large);
    if (s->wake_fd >= 0)
        close(s->wake_fd);
    zkpipe__http_auth_wipe(&s->auth);
    zkpipe__http_slots_free(&s->slots, &s->allocator);
    zkpipe__http_out_free(&s->out);
    if (s->strings != NULL)
        zkpipe__free(&s->allocator, s->strings);
    zkpipe_allocator a = s->allocator;
    zkpipe__free(&a, s);
}

/* The static answers; 0 when one could not be made. */
static int make_static(zkpipe_http *s)
{
    s->not_found = static_response("not found\n", "text/plain");
    s->not_allowed = static_response("method not allowed\n", "text/plain");
    s->healthy = static_response("ok\n", "text/plain");
    s->unauthorized = static_response("unauthorized\n", "text/plain");
    s->too_large = static_response("request body too large\n", "text/plain");
    return s->not_found != NULL && s->healthy != NULL && s->not_allowed != NULL &&
           s->unauthorized != NULL && s->too_large != NULL &&
           MHD_add_response_header(s->not_allowed, MHD_HTTP_HEADER_ALLOW, "GET, HEAD") == MHD_YES &&
           MHD_add_response_header(s->unauthorized, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer") ==
               MHD_YES;
}

/* The numeric address (NULL: 127.0.0.1) with `port`, in `ss`; 0 when it is not one. */
static int parse_address(struct sockaddr_storage *ss, const char *address, uint16_t port)
{
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    if (address == NULL)
        address = "127.0.0.1";
    if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        return 1;
    }
    if (inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        return 1;
    }
    return 0;
}

/* ZKPIPE_OK with the address in *ss, or ZKPIPE_EINVAL with the line naming the field. */
static zkpipe_status config_check(const zkpipe_http_config *c, struct sockaddr_storage *ss)
{
    const char *bad =
        zkpipe__allocator_or_default(c->allocator) == NULL
            ? "allocator lacks its alloc or free function"
        : !parse_address(ss, c->address, c->port) ? "address is not a numeric IPv4 or IPv6 address"
        : c->max_connections < 1 || c->max_connections > 4096 ? "max_connections is not in 1..4096"
        : c->timeout_s < 1 || c->timeout_s > 3600             ? "timeout_s is not in 1..3600"
        : c->max_response < 64                                ? "max_response is below 64"
        : c->request_timeout_ms < 1 || c->request_timeout_ms > 3600000
            ? "request_timeout_ms is not in 1..3600000"
        : c->max_per_address > 4096                        ? "max_per_address is past 4096"
        : c->max_body > ((size_t)1 << 30)                  ? "max_body is past 1 GiB"
        : zkpipe_prom_options_check(&c->prom) != ZKPIPE_OK ? "prom is not valid"
                                                           : NULL;
    if (bad != NULL)
        return zkpipe__refuse(ZKPIPE_EINVAL, "zkpipe_http_config.%s", bad);
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_http_start(zkpipe_http **out, const zkpipe_http_config *caller)
{
    zkpipe_http_config cfg;
    const zkpipe_http_config *config = &cfg;
    if (out == NULL || zkpipe__http_config_in(&cfg, caller) != ZKPIPE_OK)
        return ZKPIPE_EINVAL;
    struct sockaddr_storage ss;
    zkpipe_status check = config_check(config, &ss);
    if (check != ZKPIPE_OK)
        return check;
    const zkpipe_allocator *a = zkpipe__allocator_or_default(config->allocator);
    zkpipe_http *s = zkpipe__calloc(a, 1, sizeof *s, _Alignof(zkpipe_http));
    if (s == NULL)
        return ZKPIPE_ENOMEM;
    s->allocator = *a;
    s->acct = config->acct != NULL ? config->acct : zkpipe_acct_default();
    s->out.max = config->max_response;
    s->out.allocator = &s->allocator;
    s->out.prom = &s->prom;
    s->started_ns = now_ns();
    s->handler = config->handler;
    s->handler_ctx = config->handler_ctx;
    s->max_body = config->max_body;
    s->wake_fd = s->epoll_fd = -1;
    zkpipe_status st = zkpipe__http_auth_init(&s->auth, config->bearer_token);
    if (st == ZKPIPE_OK)
        st = copy_prom(s, &config->prom);
    if (st == ZKPIPE_OK)
        st = zkpipe__http_slots_init(&s->slots, config->max_connections,
                                     (uint64_t)config->request_timeout_ms * 1000000, a);
    if (st == ZKPIPE_OK && !make_static(s))
        st = ZKPIPE_ENOMEM;
    if (st == ZKPIPE_OK && s->handler != NULL &&
        (s->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
        st = ZKPIPE_ENOMEM;
    if (st == ZKPIPE_OK && pthread_mutex_init(&s->lock, NULL) != 0)
        st = ZKPIPE_ENOMEM;
    if (st != ZKPIPE_OK) {
        free_server(s);
        return st;
    }
    /* No internal thread: the loop is serve()'s. epoll or poll, never select, so that a
     * descriptor number past FD_SETSIZE is no problem. */
    unsigned flags =
        MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES ? MHD_USE_EPOLL : MHD_USE_POLL;
    if (ss.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    if (s->handler != NULL) /* answers from other threads resume their connections */
        flags |= MHD_ALLOW_SUSPEND_RESUME;
    s->daemon =
        MHD_start_daemon(flags, 0, NULL, NULL, handle, s, MHD_OPTION_SOCK_ADDR,
                         (struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT,
                         (unsigned)config->max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                         (unsigned)config->max_per_address, MHD_OPTION_CONNECTION_TIMEOUT,
                         (unsigned)config->timeout_s, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                         (size_t)CONNECTION_POOL_BYTES, MHD_OPTION_NOTIFY_CONNECTION, on_connection,
                         s, MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_END);
    const union MHD_DaemonInfo *port =
        s->daemon != NULL ? MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT) : NULL;
    const union MHD_DaemonInfo *fd =
        s->daemon != NULL ? MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_LISTEN_FD) : NULL;
    st = port == NULL || fd == NULL ? ZKPIPE_EIO : ZKPIPE_OK;
    if (st == ZKPIPE_OK) {
        s->port = port->port;
        s->listen_fd = fd->listen_fd;
        const union MHD_DaemonInfo *ep =
            (flags & MHD_USE_EPOLL) != 0 ? MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_EPOLL_FD)
                                         : NULL;
        if (ep != NULL)
            s->epoll_fd = ep->epoll_fd;
        if (pthread_create(&s->thread, NULL, serve, s) != 0)
            st = ZKPIPE_ENOMEM;
    }
    if (st != ZKPIPE_OK) {
        if (s->daemon != NULL)
            MHD_stop_daemon(s->daemon);
        pthread_mutex_destroy(&s->lock);
        free_server(s);
        return st;
    }
    *out = s;
    return ZKPIPE_OK;
}

uint16_t zkpipe_http_port(const zkpipe_http *server)
{
    return server != NULL ? server->port : 0;
}

zkpipe_status zkpipe_http_attach(zkpipe_http *s, const char *name, zkpipe_http_provider_fn fn,
                                 void *ctx)
{
    if (s == NULL || fn == NULL || !zkpipe__http_provider_name_valid(name))
        return ZKPIPE_EINVAL;
    zkpipe_status st = ZKPIPE_OK;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->provider_count; i++)
        if (strcmp(s->providers[i].name, name) == 0)
            st = ZKPIPE_EINVAL;
    if (st == ZKPIPE_OK && s->provider_count == ZKPIPE_HTTP_PROVIDERS_MAX)
        st = ZKPIPE_ELIMIT;
    if (st == ZKPIPE_OK) {
        size_t i = s->provider_count++;
        strcpy(s->names[i], name);
        s->providers[i] = (zkpipe_http_provider){s->names[i], fn, ctx};
    }
    pthread_mutex_unlock(&s->lock);
    return st;
}

zkpipe_status zkpipe_http_detach(zkpipe_http *s, const char *name)
{
    if (s == NULL || name == NULL)
        return ZKPIPE_EINVAL;
    pthread_mutex_lock(&s->lock);
    size_t at = 0;
    while (at < s->provider_count && strcmp(s->names[at], name) != 0)
        at++;
    zkpipe_status st = at < s->provider_count ? ZKPIPE_OK : ZKPIPE_EINVAL;
    if (st == ZKPIPE_OK) { /* close the gap, each name still in its own slot */
        s->provider_count--;
        for (size_t i = at; i < s->provider_count; i++) {
            strcpy(s->names[i], s->names[i + 1]);
            s->providers[i] = s->providers[i + 1];
            s->providers[i].name = s->names[i];
        }
    }
    pthread_mutex_unlock(&s->lock);
    return st;
}

static uint64_t load(_Atomic uint64_t *c)
{
    return atomic_load_explicit(c, memory_order_relaxed);
}

zkpipe_status zkpipe_http_stats(zkpipe_http *s, zkpipe_http_counters *out)
{
    if (s == NULL || out == NULL)
        return ZKPIPE_EINVAL;
    memset(out, 0, sizeof *out);
    out->requests = load(&s->requests);
    out->ok = load(&s->ok);
    out->not_found = load(&s->not_found_count);
    out->not_allowed = load(&s->not_allowed_count);
    out->errors = load(&s->errors);
    out->connections = load(&s->connections);
    out->open = load(&s->open);
    out->unauthorized = load(&s->unauthorized_count);
    out->timed_out = load(&s->timed_out);
    out->evicted = load(&s->evicted);
    out->too_large = load(&s->too_large_count);
    out->handled = load(&s->handled);
    out->handling = load(&s->handling);
    return ZKPIPE_OK;
}

void zkpipe_http_stop(zkpipe_http *s)
{
    if (s == NULL)
        return;
    atomic_store_explicit(&s->stopping, 1, memory_order_release);
    /* Wakes the loop at once: the socket stays open (libmicrohttpd closes it), so its number
     * cannot be reused under the loop; an accept on it now fails, which libmicrohttpd expects
     * during shutdown. */
    shutdown(s->listen_fd, SHUT_RDWR);
    pthread_join(s->thread, NULL);
    MHD_stop_daemon(s->daemon);
    pthread_mutex_destroy(&s->lock);
    free_server(s);
}
