/* Costs of the HTTP endpoint with a full registry (12 stages x 16 kinds, every series
 * non-zero): rendering /metrics and /status in process (zkpipe_http_render), the same over
 * loopback HTTP (connect, request, whole answer), the process's resident memory idle and with
 * 200 clients at once that asked for /metrics and do not read, and the two requests again with
 * an engine attached (zkpipe_engine_http_provider) that holds 41 partitions in flight. Prints
 * medians.
 *
 *   bench_http scrape PAIRS INTERVAL_MS -- PROGRAM ARGS...
 * The cost of being scraped: runs PROGRAM ARGS --listen 127.0.0.1:PORT (e.g. zkpipe-pipeline)
 * PAIRS times scraped (GET /metrics every INTERVAL_MS from a thread of this process, as
 * Prometheus would) and PAIRS times not, alternating A B A B, and prints each run's wall and
 * CPU seconds (the child's user + system), the ratios A/B pair by pair and their medians. */
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
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

/* zkpipe_http_render (what the server renders each response with, and --metrics files) of the
 * registry and `provider` (NULL: none), in microseconds. */
static double render_us(zkpipe_acct *acct, zkpipe_http_format format,
                        const zkpipe_http_provider *provider, size_t *bytes)
{
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    cfg.acct = acct;
    double v[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_clock_ns(CLOCK_MONOTONIC);
        for (int i = 0; i < RENDERS; i++) {
            char *text;
            check(zkpipe_http_render(&cfg, format, provider, provider != NULL, &text, bytes),
                  "render");
            free(text);
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
                                          NULL,
                                          NULL,
                                          NULL};

/* GET `path` over loopback, connect to close: wall microseconds per request, and in
 * *server_us the server's CPU per request (the process's CPU less this thread's, the client's:
 * the engine's threads, when there is one, wait meanwhile). */
static double request_us(uint16_t port, const char *path, size_t *bytes, double *server_us)
{
    double v[RUNS], cpu[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_clock_ns(CLOCK_MONOTONIC);
        double c0 =
            bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0; i < REQUESTS; i++) {
            http_reply rep;
            if (http_simple("127.0.0.1", port, "GET", path, &rep) != 0 || rep.status != 200) {
                fprintf(stderr, "bench_http: GET %s failed\n", path);
                exit(1);
            }
            *bytes = rep.body_len;
            http_reply_free(&rep);
        }
        cpu[r] = (bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID) -
                  bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0) /
                 REQUESTS / 1e3;
        v[r] = (bench_clock_ns(CLOCK_MONOTONIC) - t0) / REQUESTS / 1e3;
    }
    *server_us = bench_median(cpu, RUNS);
    return bench_median(v, RUNS);
}

/* A port nobody listens on now (the kernel's choice for a socket bound to port 0). */
static uint16_t free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        perror("bench_http: free port");
        exit(1);
    }
    close(fd);
    return ntohs(a.sin_port);
}

typedef struct scraper {
    uint16_t port;
    long interval_ms;
    atomic_int stop;
    unsigned long scrapes; /* answered 200 */
} scraper;

/* GET /metrics every interval (from the start of one to the start of the next) until told to
 * stop; a refused connection (the program not serving yet, or any more) is retried. */
static void *scrape_loop(void *arg)
{
    scraper *sc = arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!atomic_load(&sc->stop)) {
        http_reply rep;
        if (http_simple("127.0.0.1", sc->port, "GET", "/metrics", &rep) == 0) {
            sc->scrapes += rep.status == 200;
            http_reply_free(&rep);
        }
        next.tv_nsec += sc->interval_ms * 1000000L;
        next.tv_sec += next.tv_nsec / 1000000000L;
        next.tv_nsec %= 1000000000L;
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) != 0)
            ;
    }
    return NULL;
}

static double seconds(const struct timeval *t)
{
    return (double)t->tv_sec + 1e-6 * (double)t->tv_usec;
}

/* One run of argv (its last argument "127.0.0.1:PORT" filled in here), scraped or not; its
 * wall and CPU seconds. Exits when it cannot run or fails. */
static void run_once(char **argv, char *listen, int scraped, long interval_ms, double *wall,
                     double *cpu, unsigned long *scrapes)
{
    scraper sc = {free_port(), interval_ms, 0, 0};
    snprintf(listen, 32, "127.0.0.1:%u", (unsigned)sc.port);
    pthread_t t;
    fflush(stdout); /* or the child's copy of the buffer is printed again */
    double t0 = bench_clock_ns(CLOCK_MONOTONIC);
    pid_t pid = fork();
    if (pid == 0) {
        freopen("/dev/null", "w", stdout);
        freopen("/dev/null", "w", stderr);
        execvp(argv[0], argv);
        _exit(127);
    }
    if (pid < 0 || (scraped && pthread_create(&t, NULL, scrape_loop, &sc) != 0)) {
        perror("bench_http: scrape");
        exit(1);
    }
    int status;
    struct rusage before, after; /* of the children reaped: the difference is this one */
    getrusage(RUSAGE_CHILDREN, &before);
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench_http: %s failed (status %d)\n", argv[0], status);
        exit(1);
    }
    *wall = (bench_clock_ns(CLOCK_MONOTONIC) - t0) * 1e-9;
    getrusage(RUSAGE_CHILDREN, &after);
    *cpu = seconds(&after.ru_utime) + seconds(&after.ru_stime) - seconds(&before.ru_utime) -
           seconds(&before.ru_stime);
    if (scraped) {
        atomic_store(&sc.stop, 1);
        pthread_join(t, NULL);
    }
    *scrapes = sc.scrapes;
}

#define PAIRS_MAX 50

static int scrape_cost(int argc, char **argv)
{
    int pairs = argc > 2 ? atoi(argv[2]) : 0;
    long interval_ms = argc > 3 ? atol(argv[3]) : 0;
    if (argc < 6 || pairs < 1 || pairs > PAIRS_MAX || interval_ms < 1 ||
        strcmp(argv[4], "--") != 0) {
        fprintf(stderr, "usage: bench_http scrape PAIRS(1..%d) INTERVAL_MS -- PROGRAM ARGS...\n",
                PAIRS_MAX);
        return 2;
    }
    int n = argc - 5;
    char **child = calloc((size_t)n + 3, sizeof *child);
    char listen[32];
    if (child == NULL)
        return 1;
    memcpy(child, argv + 5, (size_t)n * sizeof *child);
    child[n] = "--listen";
    child[n + 1] = listen;
    double wall[2][PAIRS_MAX], cpu[2][PAIRS_MAX], wall_ratio[PAIRS_MAX], cpu_ratio[PAIRS_MAX];
    unsigned long scrapes = 0, s;
    printf("bench_http scrape: %d pairs, A scraped every %ld ms, B not; both with --listen\n",
           pairs, interval_ms);
    printf("pair  A wall s  B wall s  A/B wall   A cpu s  B cpu s  A/B cpu  scrapes\n");
    for (int i = 0; i < pairs; i++) {
        run_once(child, listen, 1, interval_ms, &wall[0][i], &cpu[0][i], &s);
        scrapes += s;
        unsigned long none;
        run_once(child, listen, 0, interval_ms, &wall[1][i], &cpu[1][i], &none);
        wall_ratio[i] = wall[0][i] / wall[1][i];
        cpu_ratio[i] = cpu[0][i] / cpu[1][i];
        printf("%4d  %8.3f  %8.3f  %8.4f  %8.3f  %7.3f  %7.4f  %7lu\n", i + 1, wall[0][i],
               wall[1][i], wall_ratio[i], cpu[0][i], cpu[1][i], cpu_ratio[i], s);
    }
    /* bench_median sorts: after it, [0] is the least and [pairs - 1] the most. */
    double aw = bench_median(wall[0], (size_t)pairs), bw = bench_median(wall[1], (size_t)pairs);
    double ac = bench_median(cpu[0], (size_t)pairs), bc = bench_median(cpu[1], (size_t)pairs);
    double wr = bench_median(wall_ratio, (size_t)pairs),
           cr = bench_median(cpu_ratio, (size_t)pairs);
    printf("median: A wall %.3f s, B wall %.3f s, A/B %.4f (%.4f..%.4f); A cpu %.3f s, B cpu "
           "%.3f s, A/B %.4f (%.4f..%.4f); %.1f scrapes per scraped run\n",
           aw, bw, wr, wall_ratio[0], wall_ratio[pairs - 1], ac, bc, cr, cpu_ratio[0],
           cpu_ratio[pairs - 1], (double)scrapes / pairs);
    free(child);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "scrape") == 0)
        return scrape_cost(argc, argv);
    if (argc > 1) {
        fprintf(stderr, "usage: bench_http [scrape PAIRS INTERVAL_MS -- PROGRAM ARGS...]\n");
        return 2;
    }
    zkpipe_acct *acct;
    check(zkpipe_acct_create(NULL, &acct), "create");
    static zkpipe_ledger l[ZKPIPE_STAGE_MAX];
    fill(acct, l);
    size_t prom_bytes = 0, json_bytes = 0;
    printf("bench_http: full registry (%d stages x %d kinds), medians of %d runs\n",
           ZKPIPE_STAGE_MAX, ZKPIPE_KIND_MAX, RUNS);
    double us = render_us(acct, ZKPIPE_HTTP_PROMETHEUS, NULL, &prom_bytes);
    printf("render /metrics in process (zkpipe_http_render): %8.1f us, %zu bytes\n", us,
           prom_bytes);
    us = render_us(acct, ZKPIPE_HTTP_JSON, NULL, &json_bytes);
    printf("render /status in process (zkpipe_http_render):  %8.1f us, %zu bytes\n", us,
           json_bytes);

    long before = rss_kib();
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    cfg.acct = acct;
    cfg.max_connections = 256;
    cfg.max_per_address = 0; /* the clients below all come from 127.0.0.1 */
    cfg.timeout_s = 60;
    zkpipe_http *srv;
    check(zkpipe_http_start(&srv, &cfg), "start");
    uint16_t port = zkpipe_http_port(srv);
    size_t got = 0;
    double server = 0;
    us = request_us(port, "/metrics", &got, &server);
    printf(
        "GET /metrics over loopback (connect to close): %7.1f us, %zu bytes; server CPU %.1f us\n",
        us, got, server);
    us = request_us(port, "/status", &got, &server);
    printf(
        "GET /status over loopback (connect to close):  %7.1f us, %zu bytes; server CPU %.1f us\n",
        us, got, server);
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
    const zkpipe_http_provider engine = {"engine", zkpipe_engine_http_provider, e};
    us = render_us(acct, ZKPIPE_HTTP_PROMETHEUS, &engine, &got);
    printf("  with an engine, %d partitions in flight: render /metrics %7.1f us, %zu bytes\n", HELD,
           us, got);
    us = render_us(acct, ZKPIPE_HTTP_JSON, &engine, &got);
    printf("  with an engine, %d partitions in flight: render /status  %7.1f us, %zu bytes\n", HELD,
           us, got);
    check(zkpipe_http_attach(srv, "engine", zkpipe_engine_http_provider, e), "attach");
    us = request_us(port, "/metrics", &got, &server);
    printf("  with an engine, %d partitions in flight: GET /metrics %7.1f us, %zu bytes; server "
           "CPU %.1f us\n",
           HELD, us, got, server);
    us = request_us(port, "/status", &got, &server);
    printf("  with an engine, %d partitions in flight: GET /status  %7.1f us, %zu bytes; server "
           "CPU %.1f us\n",
           HELD, us, got, server);
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
