/* zkpipe-test-probe: the HTTP and JSON checks of tests/test_observe.sh.
 *
 *   probe freeport                    a free loopback TCP port (bound, then released)
 *   probe get HOST PORT PATH          the body on stdout; exit 0 on 200
 *   probe json HOST PORT PATH         exit 0 when the 200 answer parses as JSON
 *   probe jsonfile FILE               exit 0 when the file parses as JSON
 *   probe hostile HOST PORT           unknown path, POST, a 1 MB header, 200 connections at
 *                                     once and a client that never reads; exit 0 when each got
 *                                     its code or was dropped and /healthz still answers
 *   probe query HOST PORT PROMQL      Prometheus's /api/v1/query: one line per result,
 *                                     "<labels> <value>"; exit 0 when the query succeeded
 *   probe scrape HOST PORT MS         GET /metrics and /status every MS milliseconds until the
 *                                     server is gone; prints the scrapes (the benchmark's
 *                                     scrape loop) */
#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "http_client.h"
#include "read_file.h"

static int fail(const char *what)
{
    fprintf(stderr, "probe: %s\n", what);
    return 1;
}

static int freeport(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        return fail("no free port");
    printf("%u\n", (unsigned)ntohs(a.sin_port));
    close(fd);
    return 0;
}

static int get(const char *host, uint16_t port, const char *path, int check_json)
{
    http_reply r;
    if (http_simple(host, port, "GET", path, &r) != 0)
        return fail("no answer");
    int rc = 0;
    if (r.status != 200) {
        fprintf(stderr, "probe: %s: status %d\n", path, r.status);
        rc = 1;
    } else if (check_json) {
        json_t *j = json_loadb(r.body, r.body_len, 0, NULL);
        if (!json_is_object(j))
            rc = fail("not a JSON object");
        json_decref(j);
    } else {
        fwrite(r.body, 1, r.body_len, stdout);
    }
    http_reply_free(&r);
    return rc;
}

static int jsonfile(const char *path)
{
    char *buf = read_file(path, NULL);
    if (buf == NULL)
        return fail("cannot read the file");
    json_t *j = json_loads(buf, 0, NULL);
    free(buf);
    int ok = j != NULL;
    json_decref(j);
    return ok ? 0 : fail("not JSON");
}

static int expect(const char *host, uint16_t port, const char *method, const char *path, int code)
{
    http_reply r;
    if (http_simple(host, port, method, path, &r) != 0)
        return fail("no answer");
    int ok = r.status == code;
    if (!ok)
        fprintf(stderr, "probe: %s %s: %d, not %d\n", method, path, r.status, code);
    http_reply_free(&r);
    return !ok;
}

static int hostile(const char *host, uint16_t port)
{
    int bad = expect(host, port, "GET", "/no/such/path", 404);
    bad |= expect(host, port, "POST", "/metrics", 405);
    bad |= expect(host, port, "DELETE", "/status", 405);
    size_t hlen = (size_t)1 << 20;
    char *req = malloc(hlen + 64);
    if (req == NULL)
        return fail("out of memory");
    int n = snprintf(req, 64, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ");
    memset(req + n, 'a', hlen);
    memcpy(req + n + hlen, "\r\n\r\n", 4);
    http_reply r;
    if (http_exchange(host, port, req, (size_t)n + hlen + 4, 5000, &r) == 0) {
        if (r.status == 200)
            bad |= fail("a 1 MB header was served");
        http_reply_free(&r);
    }
    free(req);
    /* A client that asks for /metrics and never reads, then 200 connections at once. */
    int stuck = http_connect(host, port);
    if (stuck >= 0) {
        const char *q = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
        if (send(stuck, q, strlen(q), MSG_NOSIGNAL) < 0)
            bad |= fail("send");
    }
    enum { CLIENTS = 200 };
    int fds[CLIENTS], opened = 0;
    for (int i = 0; i < CLIENTS; i++)
        opened += (fds[i] = http_connect(host, port)) >= 0;
    /* Every one of them is answered (asked for /healthz) or dropped, none hangs. */
    const char *q = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    int answered = 0, dropped = 0;
    for (int i = 0; i < CLIENTS; i++) {
        if (fds[i] < 0)
            continue;
        char buf[256];
        ssize_t got = -1;
        if (send(fds[i], q, strlen(q), MSG_NOSIGNAL) > 0) {
            struct pollfd p = {fds[i], POLLIN, 0};
            got = poll(&p, 1, 15000) == 1 ? recv(fds[i], buf, sizeof buf - 1, 0) : -2;
        }
        if (got > 0 && strncmp(buf, "HTTP/1.1 200", 12) == 0)
            answered++;
        else if (got != -2)
            dropped++;
        close(fds[i]);
    }
    if (answered + dropped != opened)
        bad |= fail("a connection hung");
    fprintf(stderr, "probe: %d connections: %d answered, %d dropped\n", opened, answered, dropped);
    if (stuck >= 0)
        close(stuck);
    bad |= expect(host, port, "GET", "/healthz", 200);
    return bad;
}

/* The PromQL query URL-encoded into a path. */
static int query(const char *host, uint16_t port, const char *promql)
{
    char path[2048];
    size_t n = (size_t)snprintf(path, sizeof path, "/api/v1/query?query=");
    for (const unsigned char *c = (const unsigned char *)promql; *c != '\0'; c++) {
        if (n + 4 >= sizeof path)
            return fail("query too long");
        if (isalnum(*c) || strchr("-_.~", *c) != NULL)
            path[n++] = (char)*c;
        else
            n += (size_t)snprintf(path + n, 4, "%%%02X", *c);
    }
    path[n] = '\0';
    http_reply r;
    if (http_simple(host, port, "GET", path, &r) != 0)
        return fail("no answer from Prometheus");
    json_t *j = json_loadb(r.body, r.body_len, 0, NULL);
    http_reply_free(&r);
    const char *status = json_string_value(json_object_get(j, "status"));
    if (status == NULL || strcmp(status, "success") != 0) {
        json_decref(j);
        return fail("the query failed");
    }
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(json_object_get(j, "data"), "result"), i, item)
    {
        char *labels = json_dumps(json_object_get(item, "metric"), JSON_COMPACT);
        const char *value = json_string_value(json_array_get(json_object_get(item, "value"), 1));
        printf("%s %s\n", labels != NULL ? labels : "{}", value != NULL ? value : "?");
        free(labels);
    }
    json_decref(j);
    return 0;
}

static int scrape(const char *host, uint16_t port, int ms)
{
    long scrapes = 0;
    for (int misses = 0; misses < 20;) {
        http_reply r;
        int ok = http_simple(host, port, "GET", "/metrics", &r) == 0;
        if (ok)
            http_reply_free(&r);
        ok = ok && http_simple(host, port, "GET", "/status", &r) == 0;
        if (ok)
            http_reply_free(&r);
        /* Before the server is up and after it is gone: misses, 20 in a row end the loop. */
        misses = ok ? 0 : misses + (scrapes > 0 ? 20 : 1);
        scrapes += ok;
        poll(NULL, 0, ms);
    }
    printf("%ld scrapes\n", scrapes);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "freeport") == 0)
        return freeport();
    if (argc == 3 && strcmp(argv[1], "jsonfile") == 0)
        return jsonfile(argv[2]);
    if (argc < 4)
        return fail("usage: see the top of tests/probe.c");
    uint16_t port = (uint16_t)atoi(argv[3]);
    if (argc == 5 && strcmp(argv[1], "get") == 0)
        return get(argv[2], port, argv[4], 0);
    if (argc == 5 && strcmp(argv[1], "json") == 0)
        return get(argv[2], port, argv[4], 1);
    if (argc == 4 && strcmp(argv[1], "hostile") == 0)
        return hostile(argv[2], port);
    if (argc == 5 && strcmp(argv[1], "scrape") == 0)
        return scrape(argv[2], port, atoi(argv[4]));
    if (argc == 5 && strcmp(argv[1], "query") == 0)
        return query(argv[2], port, argv[4]);
    return fail("usage: see the top of tests/probe.c");
}
