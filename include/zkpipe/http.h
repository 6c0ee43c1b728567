/*! zkpipe/http.h : an embedded HTTP endpoint that shows a registry live.
 *
 *   GET /metrics  Prometheus text exposition 0.0.4 ("text/plain; version=0.0.4; charset=utf-8"):
 *                 the registry's snapshot (zkpipe_snapshot_prometheus_ex with the server's
 *                 options), then what each attached provider adds.
 *   GET /status   one JSON object ("application/json"): {"uptime_s":S,"accounting":<the
 *                 snapshot, as zkpipe_snapshot_json>,"<provider>":<its object>,...}.
 *   GET /healthz  "ok".
 *   HEAD on each of them is the same without the body; another path is 404, another method 405.
 *
 * Built on libmicrohttpd; a zkpipe built without it (ZKPIPE_HTTP=OFF, or AUTO without the
 * library) has the same functions, and zkpipe_http_start fails with ZKPIPE_EUNSUPPORTED.
 *
 * Safe by default: it binds to 127.0.0.1 unless an address is given; one thread serves every
 * connection without blocking on any (epoll, or poll where there is none: any number of
 * descriptors); at most max_connections are open at once, at most max_per_address of them from
 * one client address; each connection's request (line and headers) must arrive complete within
 * request_timeout_ms of its accept (or of the end of its previous response), however slowly
 * it trickles in; a connection that stops sending or reading for timeout_s seconds (a client
 * that never reads its answer) is dropped; each request is read into a fixed 16 KiB pool, so a
 * large header is refused (431) rather than stored. When every slot is taken and another
 * client waits in the listen queue, the idle connection that has waited longest (no complete
 * request yet, or kept alive between requests) is closed to admit it; a connection whose
 * request is being answered is never closed for another. So sockets held open by a client
 * (idle, or trickling bytes) cannot keep a scraper out: each stays at most
 * request_timeout_ms, and less as soon as anyone else needs its slot. zkpipe_http_stop takes
 * well under a second whatever the clients do. Rendering takes a snapshot (which holds up
 * ledger operations for about a microsecond) and never blocks the pipeline otherwise.
 *
 * Authentication: with a bearer_token set, GET/HEAD /metrics and /status answer 401 (with
 * "WWW-Authenticate: Bearer") unless the request carries "Authorization: Bearer <token>";
 * the token is compared in time that depends on neither its content nor its length. /healthz
 * stays open (a liveness probe carries no secret and reveals nothing), as do the 404 and 405
 * answers. Nothing is encrypted: on a network you do not trust, serve behind a TLS proxy.
 *
 * Requests of a host's own (a prover service's POST /prove/NAME): with a handler configured,
 * every request but GET/HEAD of /metrics, /status and /healthz goes to it once its body is
 * complete, under the same limits: the bearer token (401, before any body is read), a body cap
 * (413 for a Content-Length above max_body, before any body is read; a chunked body that
 * outgrows it has its connection closed), and the request deadline, which then covers the
 * body too: line, headers and body must all arrive within request_timeout_ms. The handler runs
 * on the server's thread and must not block: it keeps the request and answers it later, from
 * any thread, with zkpipe_http_respond; the connection waits meanwhile without holding the
 * loop, its deadline stopped and never evicted. Without a handler such requests are 404 (GET,
 * HEAD) or 405.
 *
 * Providers: a host (the engine, a host prover) attaches a callback under a name; every
 * /status gets "<name>": followed by the JSON value it writes, and every /metrics the
 * Prometheus families it writes, with the server's prefix and constant labels applied by the
 * zkpipe_http_out_* helpers. The server itself knows nothing of what it serves beyond the
 * registry. */
#ifndef ZKPIPE_HTTP_H
#define ZKPIPE_HTTP_H

#include "zkpipe/acct.h"
#include "zkpipe/alloc.h"
#include "zkpipe/common.h"
#include "zkpipe/histogram.h"
#include "zkpipe/status.h"

ZKPIPE_EXTERN_C_BEGIN

/* A running server. Opaque. */
typedef struct zkpipe_http zkpipe_http;

/* Where a provider writes its part of a response. Opaque; valid only during the callback. */
typedef struct zkpipe_http_out zkpipe_http_out;

/* What a provider is asked for. */
typedef enum zkpipe_http_format {
    ZKPIPE_HTTP_PROMETHEUS = 0, /* whole families, through zkpipe_http_out_family & co. */
    ZKPIPE_HTTP_JSON = 1        /* exactly one JSON value, usually an object */
} zkpipe_http_format;

/* A provider: writes its part into `out` and returns ZKPIPE_OK, or an error, in which case
 * whatever it wrote is dropped (/status then shows "<name>":{"error":"<status name>"}).
 * Called on the server's thread, never concurrently with itself, while zkpipe_http_detach
 * waits for it: it must not call zkpipe_http_attach, _detach or _stop. */
typedef zkpipe_status (*zkpipe_http_provider_fn)(zkpipe_http_out *out, zkpipe_http_format format,
                                                 void *ctx);

/* Providers at once on one server. */
#define ZKPIPE_HTTP_PROVIDERS_MAX 8

/* Characters of a bearer token at most. */
#define ZKPIPE_HTTP_TOKEN_MAX 256

/* A request handed to a host's handler. Opaque; the server's until zkpipe_http_respond. */
typedef struct zkpipe_http_request zkpipe_http_request;

/* A host's handler (zkpipe_http_config.handler): called on the server's thread, once per
 * request, with its body complete; must not block nor call zkpipe_http_stop. It owns `req`
 * from now on and must answer it exactly once (zkpipe_http_respond, here or on any thread
 * later): until then its connection stays open, and the server may not be stopped. */
typedef void (*zkpipe_http_handler_fn)(zkpipe_http_request *req, void *ctx);

/* Server settings; start from zkpipe_http_config_init, which sets struct_size to the size the
 * caller was compiled with (a later library gives the fields an older struct lacks their
 * defaults; see README.md, ABI). */
typedef struct zkpipe_http_config {
    size_t struct_size; /* sizeof(zkpipe_http_config), set by zkpipe_http_config_init */
    /* A numeric IPv4 or IPv6 address to bind to; NULL: "127.0.0.1". "0.0.0.0" or "::" serve
     * every interface: only on a network you trust, or with bearer_token set. */
    const char *address;
    uint16_t port;            /* 0: a free port the system picks (zkpipe_http_port) */
    zkpipe_acct *acct;        /* the registry to serve; NULL: zkpipe_acct_default() */
    zkpipe_prom_options prom; /* prefix, constant labels, flags; copied (strings too) */
    unsigned max_connections; /* open connections at most, 1..4096; default 64 */
    /* A connection that neither sends nor reads for this long is closed, 1..3600; default 10:
     * the bound on sending a response to a client that reads slowly or not at all. */
    unsigned timeout_s;
    size_t max_response; /* bytes of one response at most (larger: 500); default 4 MiB */
    const zkpipe_allocator *allocator; /* NULL for the C library; copied */
    /* Fields added after the first layout: an older caller's struct gets their defaults. */
    /* A request's line and headers must be complete this many ms after the connection was
     * accepted (or its previous response sent), 1..3600000; default 2000: a scraper sends its
     * request at once, a client that trickles it is closed (counted in timed_out). A kept-alive
     * connection idle for longer between requests is closed too, and reconnects. */
    unsigned request_timeout_ms;
    /* Open connections from one client address at most, 0..4096 (0: no such cap, e.g. behind
     * a proxy that all clients come through); default 16. Connections over it are closed at
     * once. */
    unsigned max_per_address;
    /* NULL or "": no authentication. Otherwise 1..ZKPIPE_HTTP_TOKEN_MAX characters, each
     * printable ASCII other than space (0x21..0x7e), that /metrics and /status require as
     * "Authorization: Bearer <token>"; copied (the caller's may go once zkpipe_http_start
     * returns; the server's copy is wiped when it stops). Not used by zkpipe_http_render. */
    const char *bearer_token;
    /* NULL, or the handler of every request but the server's own GET/HEAD routes (above), with
     * handler_ctx. */
    zkpipe_http_handler_fn handler;
    void *handler_ctx;
    /* Bytes of a request body at most, 0..1 GiB; default 1 MiB. Each request handed to the
     * handler holds its body (one allocation through `allocator`) until it is answered, so
     * bodies take at most max_connections * max_body bytes at once. */
    size_t max_body;
} zkpipe_http_config;

/* What the server has done since it started (zkpipe_http_stats). */
typedef struct zkpipe_http_counters {
    uint64_t requests;     /* requests answered, by any code */
    uint64_t ok;           /* 200 */
    uint64_t not_found;    /* 404 */
    uint64_t not_allowed;  /* 405 */
    uint64_t errors;       /* 500: a response over max_response, or out of memory */
    uint64_t connections;  /* connections accepted (those over the limit are not) */
    uint64_t open;         /* connections open now */
    uint64_t unauthorized; /* 401: no or a wrong bearer token */
    /* Connections closed without a complete request within request_timeout_ms. */
    uint64_t timed_out;
    uint64_t evicted;   /* idle connections closed to admit a new one (max_connections) */
    uint64_t too_large; /* 413: a body over max_body (answered, or its connection closed) */
    uint64_t handled;   /* requests handed to the handler */
    /* Of them, those not yet over: unanswered, or answered and their response not yet sent
     * (or its connection closed). 0 means every answer has left (a drain waits for it). */
    uint64_t handling;
    uint64_t reserved[3]; /* zero */
} zkpipe_http_counters;

/*! zkpipe_http_config_init() : the defaults above (loopback, a free port, the default
 * registry, prefix "zkpipe", every series). NULL is a no-op. Thread safety: any thread. */
ZKPIPE_API void zkpipe_http_config_init(zkpipe_http_config *config);

/*! zkpipe_http_start() : binds and starts serving on one new thread.
 * @param out receives the server; stop it with zkpipe_http_stop. `acct` must outlive it.
 * @param config copied, strings included.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, a struct_size this library does not know: not set
 *         by zkpipe_http_config_init or from newer headers; an address that is not a numeric
 *         IPv4/IPv6 one, counts or times out of range, invalid prom options, allocator
 *         incomplete, a bearer token too long or with a character outside 0x21..0x7e),
 *         ZKPIPE_EIO (the address cannot be bound: in use, not local, no permission),
 *         ZKPIPE_ENOMEM, ZKPIPE_EUNSUPPORTED (built without libmicrohttpd). On error nothing
 *         is left.
 * Thread safety: any thread. The new thread runs libmicrohttpd's loop, the providers and the
 * deadlines; idle, it wakes once a second (every 100 ms while every connection is taken). Allocates
 * the server (about 10 KiB: it holds a snapshot), a slot table (32 bytes per connection allowed)
 * and the copied options through the allocator; libmicrohttpd allocates its own state with malloc:
 * per open connection a 16 KiB pool, and one copy of each response until it is sent. The
 * response buffer (the largest response rendered so far, at most max_response) is kept for
 * reuse. Measured with a full registry: about 0.4 MiB resident for a serving server, 3.7 MiB
 * with 200 connections open that asked for /metrics and do not read (bench_http). */
ZKPIPE_API zkpipe_status zkpipe_http_start(zkpipe_http **out, const zkpipe_http_config *config);

/*! zkpipe_http_port() : the port the server listens on (the chosen one when config.port was
 * 0); 0 for NULL. Thread safety: any thread. */
ZKPIPE_API uint16_t zkpipe_http_port(const zkpipe_http *server);

/*! zkpipe_http_attach() : adds provider `fn` under `name` (1..ZKPIPE_ACCT_NAME_MAX characters
 * of [a-z0-9_], not "uptime_s" nor "accounting"; copied); `ctx` must stay valid until it is
 * detached or the server stopped.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, bad or taken name), ZKPIPE_ELIMIT (already
 *         ZKPIPE_HTTP_PROVIDERS_MAX). Thread safety: any thread but the server's own (not from
 *         a provider). Waits for a response being rendered. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_http_attach(zkpipe_http *server, const char *name,
                                            zkpipe_http_provider_fn fn, void *ctx);

/*! zkpipe_http_detach() : removes the provider attached under `name`; when it returns, the
 * provider is not running and will not be called again.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, or no provider of that name).
 * Thread safety: as zkpipe_http_attach. */
ZKPIPE_API zkpipe_status zkpipe_http_detach(zkpipe_http *server, const char *name);

/*! zkpipe_http_stats() : a copy of the server's counters.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL). Thread safety: any thread. */
ZKPIPE_API zkpipe_status zkpipe_http_stats(zkpipe_http *server, zkpipe_http_counters *out);

/* A provider as zkpipe_http_render takes it: what zkpipe_http_attach takes, as one value. */
typedef struct zkpipe_http_provider {
    const char *name; /* as zkpipe_http_attach's */
    zkpipe_http_provider_fn fn;
    void *ctx;
} zkpipe_http_provider;

/*! zkpipe_http_render() : what GET /metrics (ZKPIPE_HTTP_PROMETHEUS) or GET /status
 * (ZKPIPE_HTTP_JSON) would answer on a server started with `config` and these `count`
 * providers attached in this order, rendered on the calling thread without a server, by the
 * code the server renders with: a file a program writes at exit (--metrics) carries the very
 * series a scraper saw. The JSON has no "uptime_s" (there is no server); otherwise both are
 * byte for byte a response's body. Works in a zkpipe built without libmicrohttpd too.
 * @param config as for zkpipe_http_start; only acct, prom, max_response and allocator are
 *        used (address, port, the connection limits, the timeouts and bearer_token are not
 *        checked).
 * @param providers may be NULL when count is 0; each is called once, here, on this thread;
 *        a provider's error drops what it wrote, as on a server.
 * @param text receives the text, NUL-terminated, allocated through config's allocator (NULL
 *        allocator: free it with free()); *len its bytes without the NUL.
 * @return ZKPIPE_OK; ZKPIPE_EINVAL (NULL config, text or len, a struct_size this library does
 *         not know, invalid prom options, max_response under 64, allocator incomplete, more
 *         than ZKPIPE_HTTP_PROVIDERS_MAX providers, a provider without fn, a bad or repeated
 *         name); ZKPIPE_ELIMIT (the text would pass max_response); ZKPIPE_ENOMEM. On error
 *         *text is NULL and nothing is left allocated.
 * Thread safety: any thread; concurrent calls are independent. The providers' own rules
 * hold (zkpipe_engine_http_provider: the engine alive). Takes a snapshot of the registry. */
ZKPIPE_API zkpipe_status zkpipe_http_render(const zkpipe_http_config *config,
                                            zkpipe_http_format format,
                                            const zkpipe_http_provider *providers, size_t count,
                                            char **text, size_t *len);

/*! zkpipe_http_request_method() : the request's method ("POST", ...);
 *  zkpipe_http_request_path() : its path, without the query string, percent-escapes decoded
 *  (libmicrohttpd decodes them: "%2e%2e" is "..", so compare it, never use it as a name);
 *  zkpipe_http_request_content_type() : its Content-Type header, or NULL when it has none.
 * Each string is the server's, valid until the request is answered; NULL for NULL.
 * Thread safety: the thread that owns the request. */
ZKPIPE_API const char *zkpipe_http_request_method(const zkpipe_http_request *req);
ZKPIPE_API const char *zkpipe_http_request_path(const zkpipe_http_request *req);
ZKPIPE_API const char *zkpipe_http_request_content_type(const zkpipe_http_request *req);

/*! zkpipe_http_request_body() : the request's body (*len bytes, at most max_body; a NUL follows
 * them, not counted), the server's, valid until the request is answered. NULL and *len 0 for
 * NULL or an empty body. Thread safety: as zkpipe_http_request_method. */
ZKPIPE_API const void *zkpipe_http_request_body(const zkpipe_http_request *req, size_t *len);

/*! zkpipe_http_respond() : answers `req` with status `code` (100..599), a body of `len` bytes
 * (copied; NULL when len is 0) of type `content_type` (NULL: none), "Cache-Control: no-store",
 * and with retry_after_s > 0 a "Retry-After: <retry_after_s>" header; the server sends it on
 * its thread. `req` is gone when this returns, whatever the result.
 * @return ZKPIPE_OK; ZKPIPE_EINVAL (NULL req, a code out of range, NULL body with len > 0:
 *         answered 500 instead); ZKPIPE_ENOMEM (the response could not be made: the connection
 *         is closed instead).
 * Thread safety: any thread, once per request. Allocates the response (its body's copy) with
 * malloc, freed once sent. */
ZKPIPE_API zkpipe_status zkpipe_http_respond(zkpipe_http_request *req, unsigned code,
                                             const char *content_type, const void *body, size_t len,
                                             unsigned retry_after_s);

/*! zkpipe_http_stop() : stops listening, closes every connection, joins the server's thread
 * and frees everything: it returns as soon as the render in progress (if any) is done, however
 * many clients are connected and whatever they do (it waits for no client). Every request
 * handed to the handler must have been answered first (a host draining refuses new ones at
 * once and waits for zkpipe_http_counters.handling to reach 0, so that its answers are sent
 * too). NULL is a no-op. Thread safety: once per server, not from a provider nor a handler. */
ZKPIPE_API void zkpipe_http_stop(zkpipe_http *server);

/* Writing from a provider. Each appends to the response; none fails on its own: a response
 * that grows past max_response becomes a 500 as a whole. `out` NULL is a no-op. */

/*! zkpipe_http_out_format() : the format asked for (as passed to the provider). */
ZKPIPE_API zkpipe_http_format zkpipe_http_out_format(const zkpipe_http_out *out);

/*! zkpipe_http_out_write() : `len` bytes of `text` as they are (JSON, or Prometheus text the
 * provider formats itself). */
ZKPIPE_API void zkpipe_http_out_write(zkpipe_http_out *out, const char *text, size_t len);

/*! zkpipe_http_out_printf() : printf-formatted text as it is. */
ZKPIPE_API void zkpipe_http_out_printf(zkpipe_http_out *out, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*! zkpipe_http_out_family() : a family's HELP and TYPE lines, named <prefix>_<name> (name
 * as zkpipe_histogram_prometheus takes it; type "gauge", "counter", ...; help escaped). */
ZKPIPE_API void zkpipe_http_out_family(zkpipe_http_out *out, const char *name, const char *type,
                                       const char *help);

/*! zkpipe_http_out_sample() : one sample `<prefix>_<name>{<constant labels>,<labels>} value`;
 * `labels` is NULL or already formatted (`result="proved"`, values escaped by the caller). */
ZKPIPE_API void zkpipe_http_out_sample(zkpipe_http_out *out, const char *name, const char *labels,
                                       double value);

/*! zkpipe_http_out_histogram() : in Prometheus, the whole family (zkpipe_histogram_prometheus
 * with the server's options); in JSON, the object of zkpipe_histogram_json. */
ZKPIPE_API void zkpipe_http_out_histogram(zkpipe_http_out *out, const char *name, const char *help,
                                          const zkpipe_histogram_snapshot *snap);

ZKPIPE_EXTERN_C_END

#endif
