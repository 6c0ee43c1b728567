/* zkpipe-serve: a prover service over HTTP. Each POST /prove/NAME is one partition of one
 * engine, the zkeys keys of its cache, so that requests and resident zkeys share one byte
 * budget; the HTTP endpoint is the library's (its connection caps, deadlines, token and body
 * cap), which hands each request to this program's handler.
 *
 * Threads: the endpoint's (the handler: it checks a request, starts its witness generator if
 * it brings an input.json, and queues it, never waiting), an admitter (this file's admit_loop:
 * it reaps the generators, admits queued requests while the engine would take them, answers 429
 * to those that waited --queue-ms), the engine's workers (a job's done
 * callback answers its request) and the main thread, which waits for SIGTERM or SIGINT and then
 * drains: new requests are answered 503, those queued or in flight are answered, then it
 * stops. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_json.h"
#include "cli_mapped.h"
#include "cli_memory.h"
#include "cli_zkey.h"
#include "queue_files.h"
#include "serve_metrics.h"
#include "serve_options.h"
#include "serve_witness.h"
#include "zkpipe/zkpipe.h"

static const char prog[] = "zkpipe-serve";

/* A circuit served: its zkey (a key of the cache) and what a request of it costs. */
typedef struct circuit {
    const char *name;
    cli_zkey key;
    uint64_t estimate;   /* bytes of one partition (its stage operations' estimate) */
    uint64_t wtns_bytes; /* the size of its witness file */
    const serve_witness_cmd *witness;
} circuit;

typedef struct server server;

/* A request from its arrival to its answer. */
typedef struct request {
    server *srv;
    zkpipe_http_request *http;
    unsigned row; /* its circuit's index */
    uint64_t arrived_ns, deadline_ns;
    int json;         /* an input.json: its witness is computed first */
    serve_witness *w; /* the generator running for it, or NULL */
    int fd;           /* the witness, held as an anonymous file; -1 */
    char wtns_path[32];
    zkpipe_zkey_partition part;
    zkpipe_scalar *pub;
    uint64_t mark; /* zkpipe_mapped_damage_mark() at its submission */
    struct request *next;
} request;

struct server {
    serve_options o;
    circuit *circuits;
    unsigned ncircuits;
    size_t max_body;
    zkpipe_key_cache *cache;
    zkpipe_engine *engine;
    serve_metrics m;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    request *head, *tail;  /* waiting for admission (or for their witness), oldest first */
    uint64_t admitted;     /* submitted to the engine and not yet answered */
    uint64_t running;      /* witness generators running */
    uint64_t events;       /* arrivals and answers, ever: a pass that saw them all may sleep */
    int draining, stopped; /* (lock) */
};

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Answers with a JSON error {"error":"...","detail":"..."} or a body of ours, and counts it. */
static void answer(server *s, zkpipe_http_request *http, unsigned row, uint64_t arrived_ns,
                   unsigned code, const char *body, size_t len, unsigned retry_after_s)
{
    zkpipe_http_respond(http, code, "application/json", body, len, retry_after_s);
    serve_metrics_observe(&s->m, row, code, now_ns() - arrived_ns);
}

static void answer_error(server *s, zkpipe_http_request *http, unsigned row, uint64_t arrived_ns,
                         unsigned code, const char *error, const char *detail,
                         unsigned retry_after_s)
{
    char *body = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&body, &len);
    int ok = f != NULL;
    if (ok) {
        fputs("{\"error\":", f);
        cli_json_string(f, error);
        fputs(",\"detail\":", f);
        cli_json_string(f, detail);
        fputs("}\n", f);
        ok = fclose(f) == 0 && body != NULL;
    }
    if (ok) {
        answer(s, http, row, arrived_ns, code, body, len, retry_after_s);
    } else { /* the answer still goes out: no room for the detail */
        static const char nomem[] = "{\"error\":\"ZKPIPE_ENOMEM\",\"detail\":\"out of memory\"}\n";
        answer(s, http, row, arrived_ns, code, nomem, sizeof nomem - 1, retry_after_s);
    }
    free(body);
}

static void request_free(request *r)
{
    if (r->fd >= 0)
        close(r->fd);
    serve_witness_free(r->w);
    free(r->pub);
    free(r);
}

/* The engine's answer for a request: its proof, or why not. */
static void job_done(zkpipe_job *job, void *ctx)
{
    request *r = ctx;
    server *s = r->srv;
    circuit *c = &s->circuits[r->row];
    zkpipe_partition_result res;
    zkpipe_groth16_proof proof;
    zkpipe_status st = zkpipe_job_result(job, 0, &res);
    if (st == ZKPIPE_OK)
        st = zkpipe_stage_proof(&proof, &res);
    char *pj = NULL, *qj = NULL;
    size_t pl = 0, ql = 0;
    /* The zkey's pages could not be read while this request used them (truncated or its
     * storage failed: they read as zeros): no result of it counts, and the fault is ours. */
    if (zkpipe_zkey_files_damaged(c->key.files, c->key.source, r->mark)) {
        st = res.status = ZKPIPE_EIO;
        snprintf(res.detail, sizeof res.detail, "the zkey could not be read while proving");
    }
    if (st == ZKPIPE_OK)
        st = cli_proof_render(&pj, &pl, &qj, &ql, &proof, r->pub, c->key.num_public);
    if (st == ZKPIPE_OK) {
        /* {"proof":<proof.json>,"public":<public.json>}: each as snarkjs writes it. */
        size_t cap = pl + ql + 32;
        char *body = malloc(cap);
        if (body != NULL) {
            int n =
                snprintf(body, cap, "{\"proof\":%.*s,\"public\":%.*s}\n", (int)pl, pj, (int)ql, qj);
            answer(s, r->http, r->row, r->arrived_ns, 200, body, (size_t)n, 0);
        } else {
            answer_error(s, r->http, r->row, r->arrived_ns, 503, "ZKPIPE_ENOMEM", "out of memory",
                         1);
        }
        free(body);
    } else {
        /* What the client sent wrong is 422: a witness that does not satisfy the circuit (the
         * zkey was checked at its open), or one the reader refused (its line names the witness
         * by the server's descriptor path, cut here). The same codes about anything else (a
         * zkey reloaded by the key cache that changed meanwhile) are the server's: 500. What
         * the server lacks now is 503. */
        const char *d = res.detail;
        size_t pl2 = strlen(r->wtns_path);
        int witness = strncmp(d, r->wtns_path, pl2) == 0 && d[pl2] == ':';
        if (witness)
            d += pl2 + 1 + (d[pl2 + 1] == ' ');
        unsigned code = st == ZKPIPE_EUNSATISFIED ||
                                (witness && (st == ZKPIPE_EMISMATCH || st == ZKPIPE_EFORMAT ||
                                             st == ZKPIPE_ENONCANONICAL || st == ZKPIPE_EOVERFLOW))
                            ? 422
                        : st == ZKPIPE_ECANCELED || st == ZKPIPE_ENOMEM || st == ZKPIPE_ETOOBIG
                            ? 503
                            : 500;
        answer_error(s, r->http, r->row, r->arrived_ns, code, zkpipe_status_name(st),
                     d[0] != '\0' ? d : zkpipe_status_str(st), code == 503 ? 1 : 0);
    }
    free(pj);
    free(qj);
    zkpipe_job_destroy(job); /* from its own callback: freed once it has ended */
    request_free(r);
    pthread_mutex_lock(&s->lock);
    s->admitted--;
    atomic_store(&s->m.admitted, s->admitted);
    s->events++;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
}

/* Whether the engine would admit a request of `c` now (zkpipe_engine_admissible: a permit free
 * beyond those of partitions submitted and not yet started, room under the resident bound, and
 * its estimate within the free budget and what idle keys could give back). The engine admits by
 * itself; this keeps out of it the requests that would wait there, so that they wait here,
 * where --queue-ms bounds the wait. Under the lock. */
static int admissible(server *s, const circuit *c)
{
    uint64_t n = 0;
    return zkpipe_engine_admissible(s->engine, c->estimate, &n) == ZKPIPE_OK && n > 0;
}

/* Submits `r` (its witness in r->fd) to the engine; answers it on failure. With the lock held:
 * released around the work. */
static void submit(server *s, request *r)
{
    circuit *c = &s->circuits[r->row];
    s->admitted++;
    atomic_store(&s->m.admitted, s->admitted);
    pthread_mutex_unlock(&s->lock);
    char why[256] = "";
    zkpipe_status st = ZKPIPE_OK;
    if (r->fd < 0) {
        size_t len;
        const void *body = zkpipe_http_request_body(r->http, &len);
        r->fd = queue_input_memfd(body, len, why, sizeof why);
        st = r->fd >= 0 ? ZKPIPE_OK : ZKPIPE_ENOMEM;
    }
    if (st == ZKPIPE_OK) {
        snprintf(r->wtns_path, sizeof r->wtns_path, "/proc/self/fd/%d", r->fd);
        r->pub = calloc(c->key.num_public + 1, sizeof *r->pub);
        st = r->pub != NULL ? ZKPIPE_OK : ZKPIPE_ENOMEM;
    }
    if (st == ZKPIPE_OK) {
        r->part.source = c->key.source;
        r->part.wtns_path = r->wtns_path;
        r->part.public_out = r->pub;
        zkpipe_partition p = {zkpipe_zkey_stage_ops(), &r->part, {0, 0}};
        r->mark = zkpipe_mapped_damage_mark();
        /* The job may be done, and r freed by job_done, before submit returns: its handle goes
         * to a local (job_done destroys the job). */
        zkpipe_job *job;
        st = zkpipe_engine_submit(s->engine, &job, &p, 1, job_done, r);
        if (st == ZKPIPE_OK) {
            pthread_mutex_lock(&s->lock);
            return; /* job_done answers it */
        }
    }
    answer_error(s, r->http, r->row, r->arrived_ns, 503, zkpipe_status_name(st),
                 why[0] != '\0' ? why : zkpipe_status_str(st), 1);
    request_free(r);
    pthread_mutex_lock(&s->lock);
    s->admitted--;
    atomic_store(&s->m.admitted, s->admitted);
}

/* Unlinks `r` (after `prev`, NULL for the head) from the queue. Under the lock. */
static void unlink_request(server *s, request *prev, request *r)
{
    if (prev != NULL)
        prev->next = r->next;
    else
        s->head = r->next;
    if (s->tail == r)
        s->tail = prev;
    r->next = NULL;
    atomic_fetch_sub(&s->m.waiting, 1);
}

static void *admit_loop(void *arg)
{
    server *s = arg;
    pthread_mutex_lock(&s->lock);
    while (!s->stopped) {
        uint64_t now = now_ns(), next = now + 1000000000u, seen = s->events;
        /* First come, first admitted: the head waits for room, and those behind it for the
         * head, so that a large request is not starved by small ones. A request whose witness
         * is still being computed does not hold up those behind it. */
        int blocked = 0;
        for (request *prev = NULL, *r = s->head; r != NULL;) {
            request *next_r = r->next;
            int ready = 1;
            if (r->json) {
                int done = serve_witness_poll(r->w, now);
                if (done == 0) {
                    ready = 0;
                } else {
                    s->running--;
                    atomic_store(&s->m.witnesses_running, s->running);
                    r->json = 0;
                    if (done < 0) {
                        unlink_request(s, prev, r);
                        pthread_mutex_unlock(&s->lock);
                        answer_error(s, r->http, r->row, r->arrived_ns, 422, "witness",
                                     serve_witness_error(r->w), 0);
                        request_free(r);
                        pthread_mutex_lock(&s->lock);
                        r = next_r;
                        continue;
                    }
                    r->fd = serve_witness_take_fd(r->w);
                    /* --queue-ms is the wait for the engine, from when there is a witness. */
                    r->deadline_ns = now + (uint64_t)s->o.queue_ms * 1000000u;
                }
            }
            if (ready && !blocked && admissible(s, &s->circuits[r->row])) {
                unlink_request(s, prev, r);
                submit(s, r);
            } else if (ready && now >= r->deadline_ns) {
                unlink_request(s, prev, r);
                pthread_mutex_unlock(&s->lock);
                unsigned after = (unsigned)(s->o.queue_ms / 1000) + 1;
                answer_error(s, r->http, r->row, r->arrived_ns, 429, "busy",
                             "the engine could not admit the request in time", after);
                request_free(r);
                pthread_mutex_lock(&s->lock);
            } else {
                if (ready) {
                    blocked = 1;
                    if (r->deadline_ns < next)
                        next = r->deadline_ns;
                } else {
                    uint64_t poll = now + 5000000u; /* a generator is looked at every 5 ms */
                    if (poll < next)
                        next = poll;
                }
                prev = r;
            }
            r = next_r;
        }
        if (s->stopped)
            break;
        /* The lock was let go during the pass (to submit, to answer): an arrival or an answer
         * meanwhile signalled no one, so look again at once. */
        if (s->events != seen)
            continue;
        /* Woken by a new request or an answer; else at the next deadline. A request that is
         * admissible but was not (its budget still shown as taken by one just finished) is
         * looked at again within 20 ms. */
        if (blocked && next > now + 20000000u)
            next = now + 20000000u;
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        uint64_t wait = next > now ? next - now : 0;
        uint64_t at = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec + wait;
        t.tv_sec = (time_t)(at / 1000000000u);
        t.tv_nsec = (long)(at % 1000000000u);
        pthread_cond_timedwait(&s->wake, &s->lock, &t);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* The circuit a path "/prove/NAME" names: its index, or -1. The name is compared with those
 * the operator gave, never used otherwise. */
static int circuit_of(const server *s, const char *path)
{
    if (strncmp(path, "/prove/", 7) != 0)
        return -1;
    for (unsigned i = 0; i < s->ncircuits; i++)
        if (strcmp(path + 7, s->circuits[i].name) == 0)
            return (int)i;
    return -1;
}

/* The endpoint's handler, on its thread: checks and queues, never blocks. */
static void handle(zkpipe_http_request *http, void *ctx)
{
    server *s = ctx;
    uint64_t t0 = now_ns();
    const char *path = zkpipe_http_request_path(http);
    int at = circuit_of(s, path);
    unsigned row = at >= 0 ? (unsigned)at : s->ncircuits;
    const char *type = zkpipe_http_request_content_type(http);
    int json = type != NULL && strncmp(type, "application/json", 16) == 0;
    size_t len;
    zkpipe_http_request_body(http, &len);
    if (at < 0) {
        answer_error(s, http, row, t0, 404, "not found", "POST /prove/NAME, NAME a circuit", 0);
        return;
    }
    if (strcmp(zkpipe_http_request_method(http), "POST") != 0) {
        answer_error(s, http, row, t0, 405, "method not allowed", "POST /prove/NAME", 0);
        return;
    }
    circuit *c = &s->circuits[at];
    if (json && c->witness == NULL) {
        answer_error(s, http, row, t0, 415, "unsupported media type",
                     "this circuit takes a .wtns (application/octet-stream): the server has no "
                     "witness generator for it",
                     0);
        return;
    }
    if (json ? len > s->o.max_input_kib * 1024 : len > s->max_body) {
        answer_error(s, http, row, t0, 413, "too large", "the body is larger than allowed", 0);
        return;
    }
    if (!json && len != c->wtns_bytes) {
        /* The zkey fixes the witness's size: anything else is refused before any work. */
        char d[160];
        snprintf(d, sizeof d, "a witness of %zu bytes; this circuit's are %llu bytes", len,
                 (unsigned long long)c->wtns_bytes);
        answer_error(s, http, row, t0, 422, "ZKPIPE_EMISMATCH", d, 0);
        return;
    }
    request *r = calloc(1, sizeof *r);
    if (r == NULL) {
        answer_error(s, http, row, t0, 503, "ZKPIPE_ENOMEM", "out of memory", 1);
        return;
    }
    r->srv = s;
    r->http = http;
    r->row = row;
    r->fd = -1;
    r->arrived_ns = t0;
    r->deadline_ns = t0 + (uint64_t)s->o.queue_ms * 1000000u;
    pthread_mutex_lock(&s->lock);
    if (s->draining) {
        pthread_mutex_unlock(&s->lock);
        free(r);
        answer_error(s, http, row, t0, 503, "shutting down", "the server is stopping", 1);
        return;
    }
    if (json && s->running >= s->o.cfg.synth_workers + s->o.cfg.prover_workers) {
        /* Generators are processes of their own, as busy as the provers: a few at once. */
        pthread_mutex_unlock(&s->lock);
        free(r);
        answer_error(s, http, row, t0, 429, "busy", "every witness generator is busy", 1);
        return;
    }
    if (json) {
        /* The generator runs before the request waits for the engine; its own time limit, not
         * --queue-ms, bounds it. */
        const void *body = zkpipe_http_request_body(http, &len);
        char why[256];
        r->w = serve_witness_start(c->witness, body, len, s->o.witness_timeout_ms, why, sizeof why);
        if (r->w == NULL) {
            pthread_mutex_unlock(&s->lock);
            free(r);
            answer_error(s, http, row, t0, 503, "witness", why, 1);
            return;
        }
        r->json = 1;
        s->running++;
        atomic_store(&s->m.witnesses_running, s->running);
    }
    if (s->tail != NULL)
        s->tail->next = r;
    else
        s->head = r;
    s->tail = r;
    atomic_fetch_add(&s->m.waiting, 1);
    s->events++;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
}

/* Opens each zkey as a key of the cache, once the engine charges the cache to its budget. */
static int open_circuits(server *s)
{
    const queue_options *q = &s->o.circuits;
    s->circuits = calloc(q->ncircuits, sizeof *s->circuits);
    if (s->circuits == NULL)
        return -1;
    for (unsigned i = 0; i < q->ncircuits; i++) {
        circuit *c = &s->circuits[s->ncircuits];
        char detail[ZKPIPE_DETAIL_MAX];
        zkpipe_status st = cli_zkey_open(&c->key, q->circuits[i].zkey, 0, s->o.cfg.prover_threads,
                                         s->cache, detail, sizeof detail);
        zkpipe_zkey_info info;
        if (st == ZKPIPE_OK && (st = zkpipe_zkey_source_info(&info, c->key.source)) == ZKPIPE_OK) {
            st = zkpipe_zkey_source_estimate(c->key.source, s->o.cfg.prover_threads, &c->estimate);
            if (st != ZKPIPE_OK)
                snprintf(detail, sizeof detail, "%s: cannot estimate its requests' bytes",
                         q->circuits[i].zkey);
            /* circom's .wtns: "wtns", version, 2 sections; the header section (12 bytes of
             * section head, n8, the prime, the count) and the values (n8 bytes each). */
            c->wtns_bytes = 12 + 12 + 4 + 32 + 4 + 12 + (uint64_t)info.num_vars * 32;
        }
        if (st != ZKPIPE_OK) {
            if (c->key.source != NULL)
                cli_zkey_close(&c->key);
            fprintf(stderr, "%s: --circuit %s: %s (%s)\n", prog, q->circuits[i].name, detail,
                    zkpipe_status_name(st));
            return -1;
        }
        if (s->o.cfg.budget_bytes != 0 && c->estimate > s->o.cfg.budget_bytes) {
            fprintf(stderr,
                    "%s: --circuit %s: one request needs %llu MiB, more than --budget-mib\n", prog,
                    q->circuits[i].name, (unsigned long long)(c->estimate >> 20) + 1);
            cli_zkey_close(&c->key);
            return -1;
        }
        c->name = q->circuits[i].name;
        c->witness = serve_witness_of(&s->o, c->name);
        if (c->wtns_bytes > s->max_body)
            s->max_body = c->wtns_bytes;
        s->ncircuits++;
    }
    if (s->o.max_body_kib != 0)
        s->max_body = s->o.max_body_kib * 1024;
    return 0;
}

/* Starts an endpoint at addr:port: the handler's (handler non-NULL) or a metrics-only one. */
static zkpipe_http *listen_on(server *s, const char *addr, uint16_t port, const char *token,
                              int with_handler)
{
    zkpipe_http_config h;
    zkpipe_http_config_init(&h);
    h.address = addr;
    h.port = port;
    h.bearer_token = token[0] != '\0' ? token : NULL;
    h.max_connections = (unsigned)s->o.max_connections;
    h.max_per_address = (unsigned)s->o.max_per_address;
    h.request_timeout_ms = (unsigned)s->o.request_timeout_ms;
    if (with_handler) {
        h.handler = handle;
        h.handler_ctx = s;
        size_t input = s->o.max_input_kib * 1024;
        h.max_body = s->max_body > input ? s->max_body : input;
    }
    zkpipe_http *srv = NULL;
    zkpipe_status st = zkpipe_http_start(&srv, &h);
    if (st == ZKPIPE_OK &&
        (zkpipe_http_attach(srv, "engine", zkpipe_engine_http_provider, s->engine) != ZKPIPE_OK ||
         zkpipe_http_attach(srv, "serve", serve_metrics_provider, &s->m) != ZKPIPE_OK))
        st = ZKPIPE_ENOMEM;
    if (st != ZKPIPE_OK) {
        const char *d = zkpipe_last_detail();
        fprintf(stderr, "%s: cannot listen on %s port %u: %s%s%s%s\n", prog, addr, port,
                zkpipe_status_str(st), d[0] != '\0' ? " (" : "", d, d[0] != '\0' ? ")" : "");
        zkpipe_http_stop(srv);
        return NULL;
    }
    return srv;
}

/* Waits until every request has been answered and its answer sent. */
static void drain(server *s, zkpipe_http *http)
{
    pthread_mutex_lock(&s->lock);
    s->draining = 1;
    atomic_store(&s->m.draining, 1);
    while (s->head != NULL || s->admitted > 0) {
        pthread_cond_broadcast(&s->wake);
        pthread_mutex_unlock(&s->lock);
        usleep(10000);
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    /* The answers have been given; wait for them to leave (each is bounded by the endpoint's
     * send timeout), at most 10 s: clients that keep asking meanwhile are answered 503 at once,
     * never suspended, so stopping then cuts no request short but theirs. */
    zkpipe_http_counters hc;
    for (int i = 0; i < 1000 && zkpipe_http_stats(http, &hc) == ZKPIPE_OK && hc.handling > 0; i++)
        usleep(10000);
}

int main(int argc, char **argv)
{
    cli_memory_return_freed();
    static server srv;
    server *s = &srv;
    int r = serve_options_parse(&s->o, argc, argv);
    if (r != 0) {
        serve_options_free(&s->o);
        return r == 2 ? 0 : 2;
    }
    char token[ZKPIPE_HTTP_TOKEN_MAX + 2] = "";
    if (s->o.token_file != NULL && !serve_token_read(s->o.token_file, token, sizeof token))
        return 2;
    /* Signals are taken by this thread alone (sigwait), so every thread started from here
     * blocks them; a client that hangs up must not kill the process. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* A zkey truncated or unreadable under a request fails that request, not the process. */
    if (cli_mapped_recover() != 0) {
        fprintf(stderr, "%s: cannot take SIGBUS: %s\n", prog, strerror(errno));
        return 1;
    }

    zkpipe_key_cache_config kc;
    zkpipe_key_cache_config_init(&kc);
    kc.idle_ms = (uint32_t)s->o.key_idle_ms;
    zkpipe_status st = zkpipe_key_cache_create(&s->cache, &kc);
    const char *why = NULL;
    s->o.cfg.keys = s->cache;
    if (st == ZKPIPE_OK)
        st = zkpipe_backend_resolve(&s->o.cfg.backend, s->o.cfg.backend, &why);
    if (st == ZKPIPE_OK)
        st = zkpipe_engine_create(&s->engine, &s->o.cfg);
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "%s: cannot start the engine: %s (%s)\n", prog, zkpipe_status_str(st),
                why != NULL ? why : zkpipe_last_detail());
        zkpipe_key_cache_destroy(s->cache);
        return 1;
    }
    int failed = open_circuits(s) != 0;
    const char *names[QUEUE_CIRCUITS_MAX];
    for (unsigned i = 0; i < s->ncircuits; i++)
        names[i] = s->circuits[i].name;
    if (!failed && (serve_metrics_init(&s->m, names, s->ncircuits) != 0 ||
                    pthread_mutex_init(&s->lock, NULL) != 0)) {
        fprintf(stderr, "%s: out of memory\n", prog);
        failed = 1;
    }
    pthread_condattr_t ca;
    if (!failed &&
        (pthread_condattr_init(&ca) != 0 || pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
         pthread_cond_init(&s->wake, &ca) != 0))
        failed = 1;
    pthread_t admitter;
    int admitting = 0;
    zkpipe_http *http = NULL, *metrics = NULL;
    if (!failed) {
        admitting = pthread_create(&admitter, NULL, admit_loop, s) == 0;
        failed = !admitting;
    }
    if (!failed)
        failed = (http = listen_on(s, s->o.listen_addr, s->o.listen_port, token, 1)) == NULL;
    if (!failed && s->o.metrics_addr[0] != '\0')
        failed = (metrics = listen_on(s, s->o.metrics_addr, s->o.metrics_port, token, 0)) == NULL;
    memset(token, 0, sizeof token);
    if (!failed) {
        printf("%s: serving %u circuit%s on %s port %u (backend %s, budget %llu MiB, queue %lu "
               "ms)\n",
               prog, s->ncircuits, s->ncircuits == 1 ? "" : "s", s->o.listen_addr,
               zkpipe_http_port(http), zkpipe_backend_name(s->o.cfg.backend),
               (unsigned long long)(s->o.cfg.budget_bytes >> 20), s->o.queue_ms);
        if (metrics != NULL)
            printf("%s: metrics on %s port %u\n", prog, s->o.metrics_addr,
                   zkpipe_http_port(metrics));
        fflush(stdout);
        int sig;
        sigwait(&stop, &sig);
        printf("%s: %s: draining\n", prog, sig == SIGTERM ? "SIGTERM" : "SIGINT");
        fflush(stdout);
        drain(s, http);
    }
    zkpipe_http_stop(metrics);
    zkpipe_http_stop(http);
    if (admitting) {
        pthread_mutex_lock(&s->lock);
        s->stopped = 1;
        pthread_cond_signal(&s->wake);
        pthread_mutex_unlock(&s->lock);
        pthread_join(admitter, NULL);
    }
    zkpipe_engine_destroy(s->engine);
    for (unsigned i = 0; i < s->ncircuits; i++)
        cli_zkey_close(&s->circuits[i].key);
    free(s->circuits);
    zkpipe_key_cache_destroy(s->cache);
    serve_metrics_free(&s->m);
    serve_options_free(&s->o);
    if (!failed) {
        printf("%s: stopped\n", prog);
        fflush(stdout);
    }
    return failed ? 1 : 0;
}
