/* Costs of the HTTP endpoint with a full registry (12 stages x 16 kinds, every series
 * non-zero): rendering /metrics and /status in process (snapshot + exporter), the same over
 * loopback HTTP (connect, request, whole answer), the process's resident memory idle and with
 * 200 clients at once that asked for /metrics and do not read, and the two requests again with
 * an engine attached (zkpipe_engine_http_provider) that holds 41 partitions in flight. Prints
 * medians. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench_stats.h"
#include "http_client.h"
#include "zkpipe/http.h"
#include "zkpipe/zkpipe.h"

#define RUNS 7
#define RENDERS 2000
#define REQUESTS 300
#define CLIENTS 200

static void check(zkpipe_status rc, const char *what)
{
    if (rc != ZKPIPE_OK) {
        fprintf(stderr, "bench_http: %s: %s\n", what, zkpipe_status_str(rc));
        exit(1);
    }
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = 0;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return kib;
}

/* Every stage and kind registered, one ledger per stage holding a buffer of every kind. */
static void fill(zkpipe_acct *acct, zkpipe_ledger *l)
{
    char name[32];
    uint32_t id;
    for (int k = ZKPIPE_KIND_BUILTIN_COUNT; k < ZKPIPE_KIND_MAX; k++) {
        snprintf(name, sizeof name, "host_kind_%d", k);
        check(zkpipe_acct_register_kind(acct, name, &id), "kind");
    }
    for (int s = ZKPIPE_STAGE_BUILTIN_COUNT; s < ZKPIPE_STAGE_MAX; s++) {
        snprintf(name, sizeof name, "host_stage_%d", s);
        check(zkpipe_acct_register_stage(acct, name, &id), "stage");
    }
    for (uint32_t s = 0; s < ZKPIPE_STAGE_MAX; s++) {
        check(zkpipe_ledger_open(&l[s], acct, s), "open");
        for (uint32_t k = 0; k < ZKPIPE_KIND_MAX; k++)
            check(zkpipe_ledger_charge(&l[s], k, ((uint64_t)1 << 34) + k), "charge");
    }
}

static double render_us(zkpipe_acct *acct, int json, size_t *bytes)
{
    static zkpipe_snapshot snap;
    static char buf[1 << 20];
    double v[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_clock_ns(CLOCK_MONOTONIC);
        for (int i = 0; i < RENDERS; i++) {
            zkpipe_acct_snapshot(acct, &snap);
            if (json)
                zkpipe_snapshot_json(buf, sizeof buf, bytes, &snap);
            else
                zkpipe_snapshot_prometheus_ex(buf, sizeof buf, bytes, &snap, NULL);
        }
        v[r] = (bench_clock_ns(CLOCK_MONOTONIC) - t0) / RENDERS / 1e3;
    }
    return bench_median(v, RUNS);
}

/* The engine's partitions: accounted only (no memory behind the charge), held in prove until
 * the gate opens, so the engine stays full while it is scraped. */
typedef struct gate {
    pthread_mutex_t lock;
    pthread_cond_t opened;
    int shut;
} gate;

static zkpipe_status gate_synthesize(const zkpipe_stage_call *call, void **item)
{
    *item = call->ctx;
    return zkpipe_ledger_charge(call->ledger, ZKPIPE_KIND_ABC, (uint64_t)1 << 30);
}

static zkpipe_status gate_prove(const zkpipe_stage_call *call, void *item,
                                zkpipe_partition_result *out)
{
    (void)out;
    gate *g = item;
    pthread_mutex_lock(&g->lock);
    while (g->shut)
        pthread_cond_wait(&g->opened, &g->lock);
    pthread_mutex_unlock(&g->lock);
    return zkpipe_ledger_release(call->ledger, ZKPIPE_KIND_ABC, (uint64_t)1 << 30);
}

static void gate_discard(const zkpipe_stage_call *call, void *item)
{
    (void)item;
    if (call->ledger != NULL)
        zkpipe_ledger_release(call->ledger, ZKPIPE_KIND_ABC, (uint64_t)1 << 30);
}

static const zkpipe_stage_ops gate_ops = {sizeof(zkpipe_stage_ops),
                                          "bench_gate",
                                          NULL,
                                          gate_synthesize,
                                          gate_prove,
                                          gate_discard,
                                          NULL,
                                          NULL,
                                          NULL};

static double request_us(uint16_t port, const char *path, size_t *bytes)
{
    double v[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_clock_ns(CLOCK_MONOTONIC);
        for (int i = 0; i < REQUESTS; i++) {
            http_reply rep;
            if (http_simple("127.0.0.1", port, "GET", path, &rep) != 0 || rep.status != 200) {
                fprintf(stderr, "bench_http: GET %s failed\n", path);
                exit(1);
            }
            *bytes = rep.body_len;
            http_reply_free(&rep);
        }
        v[r] = (bench_clock_ns(CLOCK_MONOTONIC) - t0) / REQUESTS / 1e3;
    }
    return bench_median(v, RUNS);
}

int main(void)
{
    zkpipe_acct *acct;
    check(zkpipe_acct_create(NULL, &acct), "create");
    static zkpipe_ledger l[ZKPIPE_STAGE_MAX];
    fill(acct, l);
    size_t prom_bytes = 0, json_bytes = 0;
    printf("bench_http: full registry (%d stages x %d kinds), medians of %d runs\n",
           ZKPIPE_STAGE_MAX, ZKPIPE_KIND_MAX, RUNS);
    double us = render_us(acct, 0, &prom_bytes);
    printf("render /metrics in process (snapshot + text): %8.1f us, %zu bytes\n", us, prom_bytes);
    us = render_us(acct, 1, &json_bytes);
    printf("render /status in process (snapshot + JSON):  %8.1f us, %zu bytes\n", us, json_bytes);

    long before = rss_kib();
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    cfg.acct = acct;
    cfg.max_connections = 256;
    cfg.timeout_s = 60;
    zkpipe_http *srv;
    check(zkpipe_http_start(&srv, &cfg), "start");
    uint16_t port = zkpipe_http_port(srv);
    size_t got = 0;
    us = request_us(port, "/metrics", &got);
    printf("GET /metrics over loopback (connect to close): %7.1f us, %zu bytes\n", us, got);
    us = request_us(port, "/status", &got);
    printf("GET /status over loopback (connect to close):  %7.1f us, %zu bytes\n", us, got);
    long idle = rss_kib();

    int fds[CLIENTS], opened = 0;
    const char *q = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
    for (int i = 0; i < CLIENTS; i++) {
        fds[i] = http_connect("127.0.0.1", port);
        int small = 4096;
        if (fds[i] >= 0) {
            setsockopt(fds[i], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
            opened += send(fds[i], q, strlen(q), MSG_NOSIGNAL) > 0;
        }
    }
    struct timespec settle = {1, 0};
    nanosleep(&settle, NULL);
    zkpipe_http_counters c;
    zkpipe_http_stats(srv, &c);
    long loaded = rss_kib();
    for (int i = 0; i < CLIENTS; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    nanosleep(&settle, NULL);
    long after = rss_kib();
    printf("resident memory: %ld KiB before the server; +%ld KiB serving (after %d requests)\n",
           before, idle - before, 2 * RUNS * REQUESTS);
    printf("  with %d clients that asked for /metrics and do not read (%llu open, %llu "
           "accepted in all): +%ld KiB\n",
           opened, (unsigned long long)c.open, (unsigned long long)c.connections, loaded - before);
    printf("  once they closed: +%ld KiB\n", after - before);
    /* An engine full of partitions: permits 32 + capacity 8 + one being proved. */
    gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 1};
    zkpipe_engine_config ec;
    zkpipe_engine_config_init(&ec);
    ec.acct = acct;
    ec.backend = ZKPIPE_BACKEND_CPU;
    ec.synth_workers = 32; /* each blocks in front of the full channel with its partition */
    ec.permits = 32;
    ec.capacity = 8;
    ec.report_ms = 0;
    zkpipe_engine *e;
    check(zkpipe_engine_create(&e, &ec), "engine");
    enum { HELD = 41, SUBMITTED = 48 };
    static zkpipe_partition parts[SUBMITTED];
    for (int i = 0; i < SUBMITTED; i++)
        parts[i] = (zkpipe_partition){&gate_ops, &g, {0, 0}};
    zkpipe_job *job;
    check(zkpipe_engine_submit(e, &job, parts, SUBMITTED, NULL, NULL), "submit");
    for (size_t n = 0; n < HELD;) {
        struct timespec nap = {0, 1000000};
        nanosleep(&nap, NULL);
        check(zkpipe_engine_in_flight(e, NULL, 0, &n), "in flight");
    }
    check(zkpipe_http_attach(srv, "engine", zkpipe_engine_http_provider, e), "attach");
    us = request_us(port, "/metrics", &got);
    printf("  with an engine, %d partitions in flight: GET /metrics %7.1f us, %zu bytes\n", HELD,
           us, got);
    us = request_us(port, "/status", &got);
    printf("  with an engine, %d partitions in flight: GET /status  %7.1f us, %zu bytes\n", HELD,
           us, got);
    check(zkpipe_http_detach(srv, "engine"), "detach");
    pthread_mutex_lock(&g.lock);
    g.shut = 0;
    pthread_cond_broadcast(&g.opened);
    pthread_mutex_unlock(&g.lock);
    check(zkpipe_job_wait(job), "wait");
    zkpipe_job_destroy(job);
    zkpipe_engine_destroy(e);
    zkpipe_http_stop(srv);
    for (uint32_t s = 0; s < ZKPIPE_STAGE_MAX; s++)
        zkpipe_ledger_close(&l[s]);
    zkpipe_acct_destroy(acct);
    return 0;
}
