/* The HTTP endpoint against clients that hold its connections: a request that trickles in is
 * cut at its deadline, one address gets at most its share, the longest idle connection makes
 * room for a new one (one being answered never does), stop does not wait for idle clients,
 * and while 1000 idle and 100 trickling clients keep coming back, scrapes are answered through
 * eviction alone. Loopback only; the attackers come from 127.0.1.x (all of 127/8 is loopback),
 * the scraper from 127.0.0.1. Registered only where the build has libmicrohttpd.
 *
 * No check times the server: where a bound matters, the timeouts that would otherwise end the
 * wait are set to an hour (LONG_S), so that only the behaviour under test can end it, and every
 * wait is for an event, with HANG_MS as the guard against a hang. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "http_client.h"
#include "nap.h"
#include "zkpipe/http.h"
#include "zkpipe/zkpipe.h"

#define HOST "127.0.0.1"
/* The longest any wait for an event here may take before the test fails: long enough for a
 * loaded machine under a sanitizer; a hang guard, not a performance bound. */
#define HANG_MS 60000
/* The server's timeouts where only eviction, a deadline or stop may close a connection. */
#define LONG_S 3600

static int64_t monotonic_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static zkpipe_http *start(zkpipe_http_config *cfg)
{
    zkpipe_http *srv = NULL;
    assert_int_equal(zkpipe_http_start(&srv, cfg), ZKPIPE_OK);
    return srv;
}

static zkpipe_http_counters stats(zkpipe_http *srv)
{
    zkpipe_http_counters c;
    assert_int_equal(zkpipe_http_stats(srv, &c), ZKPIPE_OK);
    return c;
}

/* Waits (at most HANG_MS) for the server's open connections to reach `want`. */
static void wait_open(zkpipe_http *srv, uint64_t want)
{
    int64_t end = monotonic_ms() + HANG_MS;
    while (stats(srv).open != want && monotonic_ms() < end)
        nap_ms(5);
    assert_int_equal(stats(srv).open, want);
}

/* Waits (at most HANG_MS) for the counter at `offset` in zkpipe_http_counters to reach `want`:
 * the server counts a connection it closed just after closing it. */
static void wait_counter(zkpipe_http *srv, size_t offset, uint64_t want)
{
    int64_t end = monotonic_ms() + HANG_MS;
    uint64_t got;
    for (;;) {
        zkpipe_http_counters c = stats(srv);
        memcpy(&got, (const char *)&c + offset, sizeof got);
        if (got >= want || monotonic_ms() >= end)
            break;
        nap_ms(5);
    }
    assert_true(got >= want);
}

/* A connection to 127.0.0.1:port from source address `from` (127.x.y.z), with a receive
 * buffer of `rcvbuf` bytes (0: the system's); -1 on failure. */
static int connect_with(const char *from, uint16_t port, int rcvbuf)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    /* Before connect, so the window the server sees stays that small. */
    if (rcvbuf > 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    struct sockaddr_in src = {.sin_family = AF_INET}, dst = {.sin_family = AF_INET};
    inet_pton(AF_INET, from, &src.sin_addr);
    inet_pton(AF_INET, HOST, &dst.sin_addr);
    dst.sin_port = htons(port);
    if (bind(fd, (struct sockaddr *)&src, sizeof src) != 0 ||
        connect(fd, (struct sockaddr *)&dst, sizeof dst) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int connect_from(const char *from, uint16_t port)
{
    return connect_with(from, port, 0);
}

/* 1 when the server has closed `fd` (EOF or reset), 0 when it is still open after `ms`. */
static int closed_within(int fd, int ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, ms) != 1)
        return 0;
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno == ECONNRESET);
}

/* The descriptors the flood needs (soft limit raised to the hard one), or a clear failure. */
static void need_descriptors(rlim_t want)
{
    struct rlimit r;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &r), 0);
    if (r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        assert_int_equal(setrlimit(RLIMIT_NOFILE, &r), 0);
    }
    if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur < want)
        fail_msg("this test needs %lu descriptors, RLIMIT_NOFILE allows %lu (ulimit -n)",
                 (unsigned long)want, (unsigned long)r.rlim_cur);
}

static void request_deadline_cuts_a_trickle(void **state)
{
    (void)state;
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    cfg.request_timeout_ms = 500;
    cfg.timeout_s = LONG_S;
    zkpipe_http *srv = start(&cfg);
    /* Before the connection: the server's deadline counts from its accept, later still. */
    int64_t t0 = monotonic_ms();
    int fd = connect_from(HOST, zkpipe_http_port(srv));
    assert_true(fd >= 0);
    /* A byte every 50 ms of a header that never ends: the connection is never idle and its
     * request never complete, so only a deadline on the whole request ends it (counted in
     * timed_out). */
    const char *head = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ";
    int closed = 0;
    for (size_t i = 0; !closed && monotonic_ms() - t0 < HANG_MS; i++) {
        char c = i < strlen(head) ? head[i] : 'a';
        if (send(fd, &c, 1, MSG_NOSIGNAL) != 1)
            closed = 1;
        else
            closed = closed_within(fd, 50);
    }
    int64_t took = monotonic_ms() - t0;
    print_message("a trickled request cut after %lld ms\n", (long long)took);
    assert_true(closed);
    assert_true(took >= 450); /* not before its deadline */
    close(fd);
    wait_counter(srv, offsetof(zkpipe_http_counters, timed_out), 1);
    zkpipe_http_stop(srv);
}

static void one_address_gets_its_share(void **state)
{
    (void)state;
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    cfg.max_per_address = 2;
    cfg.request_timeout_ms = LONG_S * 1000;
    cfg.timeout_s = LONG_S;
    zkpipe_http *srv = start(&cfg);
    uint16_t port = zkpipe_http_port(srv);
    int a = connect_from("127.0.0.1", port), b = connect_from("127.0.0.1", port);
    wait_open(srv, 2);
    int c = connect_from("127.0.0.1", port);
    assert_true(a >= 0 && b >= 0 && c >= 0);
    assert_true(closed_within(c, HANG_MS));
    /* Another address still gets in; the first two were left alone. */
    int d = connect_from("127.0.0.2", port);
    assert_true(d >= 0);
    wait_open(srv, 3);
    assert_false(closed_within(a, 0));
    assert_false(closed_within(b, 0));
    close(a), close(b), close(c), close(d);
    zkpipe_http_stop(srv);
}

/* A JSON string of *ctx KiB in /status. */
static zkpipe_status big(zkpipe_http_out *out, zkpipe_http_format format, void *ctx)
{
    if (format != ZKPIPE_HTTP_JSON)
        return ZKPIPE_OK;
    zkpipe_http_out_write(out, "\"", 1);
    for (size_t i = 0; i < *(size_t *)ctx; i++)
        zkpipe_http_out_printf(out, "%01023d", 0);
    zkpipe_http_out_write(out, "\"", 1);
    return ZKPIPE_OK;
}

static void oldest_idle_makes_room(void **state)
{
    (void)state;
    enum { MAX = 4 };
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    cfg.max_connections = MAX;
    cfg.max_per_address = 0;
    /* Nothing times out: eviction alone closes a connection here. */
    cfg.request_timeout_ms = LONG_S * 1000;
    cfg.timeout_s = LONG_S;
    cfg.max_response = (size_t)16 << 20;
    zkpipe_http *srv = start(&cfg);
    uint16_t port = zkpipe_http_port(srv);
    int idle[MAX];
    for (int i = 0; i < MAX; i++) { /* one by one, so that their order is known */
        idle[i] = connect_from(HOST, port);
        assert_true(idle[i] >= 0);
        wait_open(srv, (uint64_t)i + 1);
    }
    http_reply r;
    assert_int_equal(http_simple(HOST, port, "GET", "/healthz", &r), 0);
    assert_int_equal(r.status, 200);
    http_reply_free(&r);
    assert_true(closed_within(idle[0], HANG_MS));
    for (int i = 1; i < MAX; i++)
        assert_false(closed_within(idle[i], 0));
    wait_counter(srv, offsetof(zkpipe_http_counters, evicted), 1);
    for (int i = 0; i < MAX; i++)
        close(idle[i]);
    wait_open(srv, 0);

    /* Connections being answered (8 MiB each, more than the server's socket buffer can take,
     * never read) are not idle: a newcomer waits in the listen queue and nobody is evicted for
     * it. */
    size_t kib = 8 << 10;
    assert_int_equal(zkpipe_http_attach(srv, "big", big, &kib), ZKPIPE_OK);
    int busy[MAX];
    const char *req = "GET /status HTTP/1.1\r\nHost: x\r\n\r\n";
    for (int i = 0; i < MAX; i++) {
        busy[i] = connect_with(HOST, port, 4096);
        assert_true(busy[i] >= 0);
        assert_int_equal(send(busy[i], req, strlen(req), MSG_NOSIGNAL), (ssize_t)strlen(req));
    }
    wait_counter(srv, offsetof(zkpipe_http_counters, requests), 1 + MAX);
    int late = connect_from(HOST, port);
    assert_true(late >= 0);
    /* A check that nothing happens: a wrong eviction would come within the server's next pass
     * (FULL_POLL_MS); a slow machine can only hide one, never fail a correct server. */
    nap_ms(300);
    assert_int_equal(stats(srv).evicted, 1);
    assert_int_equal(stats(srv).open, MAX);
    for (int i = 0; i < MAX; i++)
        close(busy[i]);
    close(late);
    zkpipe_http_stop(srv);
}

static void stop_does_not_wait_for_idle_clients(void **state)
{
    (void)state;
    enum { IDLE = 1000 };
    need_descriptors(IDLE + 64);
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    cfg.max_per_address = 0;
    /* The clients would hold their connections for an hour: a stop that waited for them would
     * not return within HANG_MS (nor before ctest's timeout). */
    cfg.request_timeout_ms = LONG_S * 1000;
    cfg.timeout_s = LONG_S;
    zkpipe_http *srv = start(&cfg);
    /* 64 open at the server, the rest in its listen queue. */
    static int fds[IDLE];
    for (int i = 0; i < IDLE; i++) {
        fds[i] = connect_from(HOST, zkpipe_http_port(srv));
        assert_true(fds[i] >= 0);
    }
    wait_open(srv, cfg.max_connections);
    int64_t t0 = monotonic_ms();
    zkpipe_http_stop(srv);
    int64_t took = monotonic_ms() - t0;
    print_message("stop with %d idle clients: %lld ms\n", IDLE, (long long)took);
    assert_true(took < HANG_MS);
    for (int i = 0; i < IDLE; i++)
        close(fds[i]);
}

/* The attackers: IDLE connections that send nothing and SLOW ones that send a byte of a header
 * that never ends every ~100 ms, each reconnected as soon as the server drops it, from
 * ADDRESSES source addresses, until `stop`. */
enum { IDLE = 1000, SLOW = 100, ADDRESSES = 250 };
typedef struct flood {
    uint16_t port;
    atomic_int stop;
    atomic_int ready; /* every connection has been made once */
    int fd[IDLE + SLOW];
    size_t sent[IDLE + SLOW];
    uint64_t reconnects, failed;
} flood;

static void attach(flood *f, int i)
{
    char from[32];
    snprintf(from, sizeof from, "127.0.1.%d", 1 + i % ADDRESSES);
    f->fd[i] = connect_from(from, f->port);
    f->sent[i] = 0;
    f->failed += f->fd[i] < 0;
}

static void *attack(void *arg)
{
    static const char header[] = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ";
    flood *f = arg;
    for (int i = 0; i < IDLE + SLOW; i++)
        attach(f, i);
    atomic_store(&f->ready, 1);
    static struct pollfd p[IDLE + SLOW];
    int64_t next_byte = monotonic_ms();
    while (!atomic_load(&f->stop)) {
        for (int i = 0; i < IDLE + SLOW; i++)
            p[i] = (struct pollfd){f->fd[i], POLLIN, 0};
        poll(p, IDLE + SLOW, 20);
        for (int i = 0; i < IDLE + SLOW; i++) {
            if (f->fd[i] >= 0 && p[i].revents == 0)
                continue;
            if (f->fd[i] >= 0)
                close(f->fd[i]);
            attach(f, i);
            f->reconnects++;
        }
        if (monotonic_ms() < next_byte)
            continue;
        next_byte = monotonic_ms() + 100;
        for (int i = IDLE; i < IDLE + SLOW; i++) {
            size_t at = f->sent[i];
            char c = at < sizeof header - 1 ? header[at] : 'a';
            if (f->fd[i] >= 0 && send(f->fd[i], &c, 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1)
                f->sent[i]++;
        }
    }
    for (int i = 0; i < IDLE + SLOW; i++)
        if (f->fd[i] >= 0)
            close(f->fd[i]);
    return NULL;
}

static void scrapes_get_through_a_flood(void **state)
{
    (void)state;
    need_descriptors(IDLE + SLOW + 64);
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg); /* the defaults: 64 connections, 16 per address */
    /* No attacker's connection ever times out: a scraper gets a slot through eviction alone
     * (a server without it would leave the scraper in the listen queue for the hour). */
    cfg.request_timeout_ms = LONG_S * 1000;
    cfg.timeout_s = LONG_S;
    cfg.acct = acct;
    zkpipe_http *srv = start(&cfg);
    static flood f; /* static: a failed assertion leaves this frame while the attack runs */
    memset(&f, 0, sizeof f);
    f.port = zkpipe_http_port(srv);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, attack, &f), 0);
    while (!atomic_load(&f.ready))
        nap_ms(10);
    /* Scrapes spread over a few seconds, each meeting a table full of attackers. */
    const char *scrape = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    int64_t worst = 0;
    for (int i = 0; i < 10; i++) {
        nap_ms(300);
        int64_t t0 = monotonic_ms();
        http_reply r;
        int rc = http_exchange(HOST, f.port, scrape, strlen(scrape), HANG_MS, &r);
        int64_t took = monotonic_ms() - t0;
        assert_int_equal(rc, 0);
        assert_int_equal(r.status, 200);
        assert_non_null(strstr(r.body, "# TYPE zkpipe_stage_items gauge\n"));
        http_reply_free(&r);
        worst = took > worst ? took : worst;
    }
    atomic_store(&f.stop, 1);
    pthread_join(t, NULL);
    zkpipe_http_counters c = stats(srv);
    print_message("flood: slowest scrape %lld ms; %llu reconnects, %llu failed connects; server: "
                  "%llu connections, %llu evicted, %llu timed out\n",
                  (long long)worst, (unsigned long long)f.reconnects, (unsigned long long)f.failed,
                  (unsigned long long)c.connections, (unsigned long long)c.evicted,
                  (unsigned long long)c.timed_out);
    assert_int_equal(c.timed_out, 0);
    assert_true(c.evicted > 0);
    zkpipe_http_stop(srv);
    zkpipe_acct_destroy(acct);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(request_deadline_cuts_a_trickle),
        cmocka_unit_test(one_address_gets_its_share),
        cmocka_unit_test(oldest_idle_makes_room),
        cmocka_unit_test(stop_does_not_wait_for_idle_clients),
        cmocka_unit_test(scrapes_get_through_a_flood),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
