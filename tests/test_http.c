/* The HTTP endpoint: routes, content types, the snapshot and providers in /metrics and
 * /status, exposition options, refused settings, the bearer token, and hostile clients (a 1 MB
 * header, a body, more connections than allowed, a client that never reads) while ledgers keep
 * moving. Built without libmicrohttpd, it checks that start says so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <jansson.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fail_alloc.h"
#include "http_client.h"
#include "nap.h"
#include "sanitize.h"
#include "skips.h"
#include "zkpipe/http.h"
#include "zkpipe/zkpipe.h"

#define HOST "127.0.0.1"

typedef struct fixture {
    zkpipe_acct *acct;
    zkpipe_http *srv;
    uint16_t port;
} fixture;

static zkpipe_http *start(zkpipe_http_config *cfg)
{
    zkpipe_http *srv = NULL;
    assert_int_equal(zkpipe_http_start(&srv, cfg), ZKPIPE_OK);
    assert_non_null(srv);
    assert_int_not_equal(zkpipe_http_port(srv), 0);
    return srv;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_int_equal(zkpipe_acct_create(NULL, &f->acct), ZKPIPE_OK);
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    cfg.acct = f->acct;
    f->srv = start(&cfg);
    f->port = zkpipe_http_port(f->srv);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    zkpipe_http_stop(f->srv);
    zkpipe_acct_destroy(f->acct);
    free(f);
    return 0;
}

static http_reply get(uint16_t port, const char *method, const char *path)
{
    http_reply r;
    assert_int_equal(http_simple(HOST, port, method, path, &r), 0);
    return r;
}

static void assert_header(const http_reply *r, const char *name, const char *want)
{
    char v[256];
    const char *got = http_header(r, name, v, sizeof v);
    assert_non_null(got);
    assert_string_equal(got, want);
}

static void routes_and_codes(void **state)
{
    fixture *f = *state;
    http_reply r = get(f->port, "GET", "/healthz");
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "ok\n");
    http_reply_free(&r);

    r = get(f->port, "GET", "/metrics");
    assert_int_equal(r.status, 200);
    assert_header(&r, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    assert_non_null(strstr(r.body, "# TYPE zkpipe_stage_items gauge\n"));
    assert_non_null(strstr(r.body, "zkpipe_stage_items{stage=\"synth\"} 0\n"));
    http_reply_free(&r);

    r = get(f->port, "HEAD", "/metrics");
    assert_int_equal(r.status, 200);
    assert_int_equal(r.body_len, 0);
    http_reply_free(&r);

    const char *missing[] = {"/", "/metrics/", "/nope", "/status.json", "/metricsx"};
    for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
        r = get(f->port, "GET", missing[i]);
        assert_int_equal(r.status, 404);
        http_reply_free(&r);
    }
    /* The query string is not part of the path. */
    r = get(f->port, "GET", "/healthz?x=1");
    assert_int_equal(r.status, 200);
    http_reply_free(&r);

    const char *methods[] = {"POST", "PUT", "DELETE", "OPTIONS", "PATCH"};
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
        r = get(f->port, methods[i], "/metrics");
        assert_int_equal(r.status, 405);
        assert_header(&r, "Allow", "GET, HEAD");
        http_reply_free(&r);
    }
    /* A POST with a body is answered without the body being kept. */
    char req[512];
    int n = snprintf(req, sizeof req,
                     "POST /status HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n"
                     "Connection: close\r\n\r\n%s",
                     "partial body");
    assert_int_equal(http_exchange(HOST, f->port, req, (size_t)n, 60000, &r), 0);
    assert_int_equal(r.status, 405);
    http_reply_free(&r);

    zkpipe_http_counters c;
    assert_int_equal(zkpipe_http_stats(f->srv, &c), ZKPIPE_OK);
    assert_int_equal(c.not_found, 5);
    assert_int_equal(c.not_allowed, 6);
    assert_int_equal(c.ok, 4);
    assert_int_equal(c.requests, 15);
    assert_true(c.connections >= 15);
}

/* /status parsed, every number read as a double (a counter past 2^63 too). */
static json_t *parse(const char *text)
{
    return json_loads(text, JSON_DECODE_INT_AS_REAL, NULL);
}

static json_t *get_json(uint16_t port)
{
    http_reply r = get(port, "GET", "/status");
    assert_int_equal(r.status, 200);
    assert_header(&r, "Content-Type", "application/json");
    json_t *j = parse(r.body);
    if (j == NULL)
        fail_msg("not JSON: %s", r.body);
    http_reply_free(&r);
    return j;
}

static double num(const json_t *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    const json_t *v = o;
    for (char *tok = strtok(buf, "."); tok != NULL; tok = strtok(NULL, "."))
        v = json_object_get(v, tok);
    if (!json_is_number(v))
        fail_msg("no number at %s", path);
    return json_number_value(v);
}

static void status_shows_the_snapshot(void **state)
{
    fixture *f = *state;
    zkpipe_ledger l;
    assert_int_equal(zkpipe_ledger_open(&l, f->acct, ZKPIPE_STAGE_QUEUED), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_ABC, 12345), ZKPIPE_OK);
    json_t *j = get_json(f->port);
    assert_true(num(j, "uptime_s") >= 0);
    assert_int_equal(num(j, "accounting.live_items"), 1);
    assert_int_equal(num(j, "accounting.live_bytes"), 12345);
    assert_int_equal(num(j, "accounting.stages.queued.kinds.abc.live_bytes"), 12345);
    json_decref(j);

    http_reply r = get(f->port, "GET", "/metrics");
    assert_non_null(strstr(r.body, "zkpipe_buffer_bytes{stage=\"queued\",kind=\"abc\"} 12345\n"));
    http_reply_free(&r);
    zkpipe_ledger_close(&l);
    j = get_json(f->port);
    assert_int_equal(num(j, "accounting.live_bytes"), 0);
    json_decref(j);
}

/* A registry of its own with `l` open in stage synth, holding `bytes` of `kind`. */
static zkpipe_acct *registry_with(zkpipe_ledger *l, uint32_t kind, uint64_t bytes)
{
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_open(l, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(l, kind, bytes), ZKPIPE_OK);
    return acct;
}

static void options_shape_the_exposition(void **state)
{
    (void)state;
    zkpipe_ledger l;
    zkpipe_acct *acct = registry_with(&l, ZKPIPE_KIND_AUX, 7);
    char gpu[] = "0";
    zkpipe_prom_label labels[] = {{"instance", "a\"b\\c\nd"}, {"gpu", gpu}};
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    cfg.acct = acct;
    cfg.prom.prefix = "prover";
    cfg.prom.labels = labels;
    cfg.prom.label_count = 2;
    cfg.prom.flags = ZKPIPE_PROM_OMIT_ZERO;
    zkpipe_http *srv = start(&cfg);
    gpu[0] = '9'; /* copied at start */
    http_reply r = get(zkpipe_http_port(srv), "GET", "/metrics");
    assert_int_equal(r.status, 200);
    assert_null(strstr(r.body, "zkpipe_"));
    assert_non_null(strstr(r.body, "prover_stage_items{instance=\"a\\\"b\\\\c\\nd\",gpu=\"0\","
                                   "stage=\"synth\"} 1\n"));
    assert_non_null(
        strstr(r.body, "prover_inflight_bytes{instance=\"a\\\"b\\\\c\\nd\",gpu=\"0\"} 7\n"));
    assert_non_null(strstr(r.body, "stage=\"synth\",kind=\"aux\"} 7\n"));
    assert_null(strstr(r.body, "kind=\"abc\""));
    http_reply_free(&r);
    zkpipe_http_stop(srv);
    zkpipe_ledger_close(&l);
    zkpipe_acct_destroy(acct);
}

static void bad_settings_are_refused(void **state)
{
    (void)state;
    zkpipe_http *srv = (zkpipe_http *)&srv;
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    assert_int_equal(zkpipe_http_start(NULL, &cfg), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_http_start(&srv, NULL), ZKPIPE_EINVAL);
    const char *bad_addresses[] = {"localhost", "1.2.3", "127.0.0.1:80", "", "::1::2"};
    for (size_t i = 0; i < sizeof bad_addresses / sizeof bad_addresses[0]; i++) {
        cfg.address = bad_addresses[i];
        assert_int_equal(zkpipe_http_start(&srv, &cfg), ZKPIPE_EINVAL);
    }
    cfg.address = NULL;
    cfg.max_connections = 0;
    assert_int_equal(zkpipe_http_start(&srv, &cfg), ZKPIPE_EINVAL);
    zkpipe_http_config_init(&cfg);
    cfg.timeout_s = 0;
    assert_int_equal(zkpipe_http_start(&srv, &cfg), ZKPIPE_EINVAL);
    zkpipe_http_config_init(&cfg);
    cfg.request_timeout_ms = 0;
    assert_int_equal(zkpipe_http_start(&srv, &cfg), ZKPIPE_EINVAL);
    cfg.request_timeout_ms = 3600001;
    assert_int_equal(zkpipe_http_start(&srv, &cfg), ZKPIPE_EINVAL);
    zkpipe_http_config_init(&cfg);
    cfg.max_per_address = 4097;
    assert_int_equal(zkpipe_http_start(&srv, &cfg), ZKPIPE_EINVAL);
    zkpipe_http_config_init(&cfg);
    const char *bad_prefixes[] = {"9x", "a-b", "a b"};
    for (size_t i = 0; i < 3; i++) {
        cfg.prom.prefix = bad_prefixes[i];
        assert_int_equal(zkpipe_http_start(&srv, &cfg), ZKPIPE_EINVAL);
    }
    zkpipe_http_config_init(&cfg);
    const char *bad_labels[] = {"stage", "kind", "le", "__x", "1a", "a-b", ""};
    for (size_t i = 0; i < sizeof bad_labels / sizeof bad_labels[0]; i++) {
        zkpipe_prom_label l = {bad_labels[i], "v"};
        cfg.prom.labels = &l;
        cfg.prom.label_count = 1;
        assert_int_equal(zkpipe_http_start(&srv, &cfg), ZKPIPE_EINVAL);
    }
    zkpipe_prom_label twice[] = {{"a", "1"}, {"a", "2"}};
    cfg.prom.labels = twice;
    cfg.prom.label_count = 2;
    assert_int_equal(zkpipe_http_start(&srv, &cfg), ZKPIPE_EINVAL);
    cfg.prom.label_count = ZKPIPE_PROM_LABELS_MAX + 1;
    assert_int_equal(zkpipe_http_start(&srv, &cfg), ZKPIPE_EINVAL);
    assert_ptr_equal(srv, (zkpipe_http *)&srv);

    /* The port is taken: EIO, nothing left behind. */
    zkpipe_http_config_init(&cfg);
    zkpipe_http *first = start(&cfg);
    cfg.port = zkpipe_http_port(first);
    assert_int_equal(zkpipe_http_start(&srv, &cfg), ZKPIPE_EIO);
    zkpipe_http_stop(first);
    zkpipe_http_stop(NULL);
}

typedef struct prov {
    const char *json;
    zkpipe_status rc;
    int calls;
    zkpipe_histogram *h;
} prov;

static zkpipe_status provide(zkpipe_http_out *out, zkpipe_http_format format, void *ctx)
{
    prov *p = ctx;
    p->calls++;
    assert_int_equal(zkpipe_http_out_format(out), format);
    if (format == ZKPIPE_HTTP_JSON) {
        zkpipe_http_out_printf(out, "{\"text\":%s,\"h\":", p->json);
        zkpipe_histogram_snapshot hs;
        assert_int_equal(zkpipe_histogram_read(p->h, &hs), ZKPIPE_OK);
        zkpipe_http_out_histogram(out, "x", "x", &hs);
        zkpipe_http_out_write(out, "}", 1);
    } else {
        zkpipe_http_out_family(out, "provided_total", "counter", "Things a provider counted.");
        zkpipe_http_out_sample(out, "provided_total", "result=\"proved\"", 3);
        zkpipe_histogram_snapshot hs;
        assert_int_equal(zkpipe_histogram_read(p->h, &hs), ZKPIPE_OK);
        zkpipe_http_out_histogram(out, "provided_seconds", "Seconds, provided.", &hs);
    }
    return p->rc;
}

static void providers_add_their_parts(void **state)
{
    fixture *f = *state;
    prov a = {"\"a\"", ZKPIPE_OK, 0, NULL}, b = {"\"b\"", ZKPIPE_EIO, 0, NULL};
    assert_int_equal(zkpipe_histogram_create(&a.h, NULL, 0, 1e-9, NULL), ZKPIPE_OK);
    b.h = a.h;
    zkpipe_histogram_observe(a.h, 3000000); /* 3 ms */
    assert_int_equal(zkpipe_http_attach(f->srv, "alpha", provide, &a), ZKPIPE_OK);
    assert_int_equal(zkpipe_http_attach(f->srv, "beta", provide, &b), ZKPIPE_OK);
    assert_int_equal(zkpipe_http_attach(f->srv, "alpha", provide, &a), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_http_attach(f->srv, "accounting", provide, &a), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_http_attach(f->srv, "Bad", provide, &a), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_http_attach(f->srv, "x", NULL, &a), ZKPIPE_EINVAL);
    json_t *j = get_json(f->port);
    const json_t *alpha = json_object_get(j, "alpha");
    assert_string_equal(json_string_value(json_object_get(alpha, "text")), "a");
    assert_int_equal(num(alpha, "h.count"), 1);
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "beta"), "error")),
                        "ZKPIPE_EIO");
    json_decref(j);

    http_reply r = get(f->port, "GET", "/metrics");
    assert_non_null(strstr(r.body, "# TYPE zkpipe_provided_total counter\n"
                                   "zkpipe_provided_total{result=\"proved\"} 3\n"));
    assert_non_null(strstr(r.body, "zkpipe_provided_seconds_bucket{le=\"0.0025\"} 0\n"
                                   "zkpipe_provided_seconds_bucket{le=\"0.005\"} 1\n"));
    assert_non_null(strstr(r.body, "zkpipe_provided_seconds_sum 0.003\n"
                                   "zkpipe_provided_seconds_count 1\n"));
    /* beta failed: its families are gone, alpha's appear once. */
    const char *first = strstr(r.body, "# TYPE zkpipe_provided_total");
    assert_null(strstr(first + 1, "# TYPE zkpipe_provided_total"));
    http_reply_free(&r);

    assert_int_equal(zkpipe_http_detach(f->srv, "beta"), ZKPIPE_OK);
    assert_int_equal(zkpipe_http_detach(f->srv, "beta"), ZKPIPE_EINVAL);
    int calls = b.calls;
    j = get_json(f->port);
    assert_null(json_object_get(j, "beta"));
    assert_non_null(json_object_get(j, "alpha"));
    json_decref(j);
    assert_int_equal(b.calls, calls);

    char name[16];
    for (int i = 1; i < ZKPIPE_HTTP_PROVIDERS_MAX; i++) {
        snprintf(name, sizeof name, "p%d", i);
        assert_int_equal(zkpipe_http_attach(f->srv, name, provide, &a), ZKPIPE_OK);
    }
    assert_int_equal(zkpipe_http_attach(f->srv, "one_more", provide, &a), ZKPIPE_ELIMIT);
    j = get_json(f->port);
    assert_non_null(json_object_get(j, "p7"));
    json_decref(j);
    assert_int_equal(zkpipe_http_detach(f->srv, "alpha"), ZKPIPE_OK);
    for (int i = 1; i < ZKPIPE_HTTP_PROVIDERS_MAX; i++) {
        snprintf(name, sizeof name, "p%d", i);
        assert_int_equal(zkpipe_http_detach(f->srv, name), ZKPIPE_OK);
    }
    zkpipe_histogram_destroy(a.h);
}

/* The text zkpipe_http_render gives for `providers` (ZKPIPE_OK asserted); free() it. */
static char *render(const zkpipe_http_config *cfg, zkpipe_http_format format,
                    const zkpipe_http_provider *providers, size_t count)
{
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(zkpipe_http_render(cfg, format, providers, count, &text, &len), ZKPIPE_OK);
    assert_non_null(text);
    assert_int_equal(strlen(text), len);
    return text;
}

/* A registry with a ledger in stage synth holding 1000 abc bytes, under a prefix and a
 * constant label, zero series left out: render and a server's scrape must agree to the byte. */
static void render_is_what_a_scrape_gets(void **state)
{
    (void)state;
    zkpipe_ledger l;
    zkpipe_acct *acct = registry_with(&l, ZKPIPE_KIND_ABC, 1000);
    static const zkpipe_prom_label gpu = {"gpu", "0"};
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    cfg.acct = acct;
    cfg.prom.prefix = "node";
    cfg.prom.labels = &gpu;
    cfg.prom.label_count = 1;
    cfg.prom.flags = ZKPIPE_PROM_OMIT_ZERO;
    prov a = {"\"a\"", ZKPIPE_OK, 0, NULL}, b = {"\"b\"", ZKPIPE_EIO, 0, NULL};
    assert_int_equal(zkpipe_histogram_create(&a.h, NULL, 0, 1e-9, NULL), ZKPIPE_OK);
    b.h = a.h;
    zkpipe_histogram_observe(a.h, 3000000);
    const zkpipe_http_provider both[2] = {{"alpha", provide, &a}, {"beta", provide, &b}};

    char *text = render(&cfg, ZKPIPE_HTTP_PROMETHEUS, both, 2);
    assert_non_null(
        strstr(text, "node_buffer_bytes{gpu=\"0\",stage=\"synth\",kind=\"abc\"} 1000\n"));
    assert_null(strstr(text, "kind=\"aux\"")); /* all zero: left out */
    assert_non_null(strstr(text, "node_provided_total{gpu=\"0\",result=\"proved\"} 3\n"));
    assert_int_equal(a.calls, 1);
    assert_int_equal(b.calls, 1); /* called, and what it wrote dropped */
    size_t families = 0;
    for (const char *at = text; (at = strstr(at, "# TYPE node_provided_total")) != NULL; at++)
        families++;
    assert_int_equal(families, 1);
#ifndef ZKPIPE_TEST_NO_HTTP
    zkpipe_http *srv = start(&cfg);
    assert_int_equal(zkpipe_http_attach(srv, "alpha", provide, &a), ZKPIPE_OK);
    assert_int_equal(zkpipe_http_attach(srv, "beta", provide, &b), ZKPIPE_OK);
    http_reply r = get(zkpipe_http_port(srv), "GET", "/metrics");
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, text);
    http_reply_free(&r);
#endif
    free(text);

    /* /status less its "uptime_s" */
    text = render(&cfg, ZKPIPE_HTTP_JSON, both, 2);
    assert_int_equal(strncmp(text, "{\"accounting\":{", 15), 0);
    json_t *j = parse(text);
    assert_non_null(j);
    assert_null(json_object_get(j, "uptime_s"));
    assert_int_equal(num(j, "accounting.live_bytes"), 1000);
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "alpha"), "text")),
                        "a");
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "beta"), "error")),
                        "ZKPIPE_EIO");
    json_decref(j);
#ifndef ZKPIPE_TEST_NO_HTTP
    r = get(zkpipe_http_port(srv), "GET", "/status");
    const char *after_uptime = strstr(r.body, ",\"accounting\":");
    assert_non_null(after_uptime);
    assert_string_equal(after_uptime + 1, text + 1);
    http_reply_free(&r);
    zkpipe_http_stop(srv);
#endif
    free(text);

    /* Only the registry. */
    text = render(&cfg, ZKPIPE_HTTP_PROMETHEUS, NULL, 0);
    assert_null(strstr(text, "provided"));
    assert_non_null(
        strstr(text, "# TYPE node_inflight_bytes gauge\nnode_inflight_bytes{gpu=\"0\"} 1000\n"));
    free(text);
    zkpipe_histogram_destroy(a.h);
    zkpipe_ledger_close(&l);
    zkpipe_acct_destroy(acct);
}

static int render_with(void *arg, const zkpipe_allocator *a)
{
    zkpipe_http_config cfg = *(const zkpipe_http_config *)arg;
    cfg.allocator = a;
    char *text = NULL;
    size_t len;
    zkpipe_status st = zkpipe_http_render(&cfg, ZKPIPE_HTTP_JSON, NULL, 0, &text, &len);
    if (st == ZKPIPE_OK)
        a->free(a->ctx, text);
    else
        assert_null(text);
    return st;
}

static void render_refuses_bad_arguments(void **state)
{
    (void)state;
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    prov a = {"1", ZKPIPE_OK, 0, NULL};
    assert_int_equal(zkpipe_histogram_create(&a.h, NULL, 0, 1e-9, NULL), ZKPIPE_OK);
    zkpipe_http_provider ps[ZKPIPE_HTTP_PROVIDERS_MAX + 1];
    for (size_t i = 0; i < ZKPIPE_HTTP_PROVIDERS_MAX + 1; i++)
        ps[i] = (zkpipe_http_provider){"p", provide, &a};
    char *text = (char *)&a;
    size_t len;
    zkpipe_http_format json = ZKPIPE_HTTP_JSON;
    assert_int_equal(zkpipe_http_render(NULL, json, NULL, 0, &text, &len), ZKPIPE_EINVAL);
    assert_null(text); /* cleared on every error */
    assert_int_equal(zkpipe_http_render(&cfg, json, NULL, 0, NULL, &len), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_http_render(&cfg, json, NULL, 0, &text, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_http_render(&cfg, (zkpipe_http_format)2, NULL, 0, &text, &len),
                     ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_http_render(&cfg, json, NULL, 1, &text, &len), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_http_render(&cfg, json, ps, 2, &text, &len), ZKPIPE_EINVAL); /* twice */
    ps[0].name = "accounting";
    assert_int_equal(zkpipe_http_render(&cfg, json, ps, 1, &text, &len), ZKPIPE_EINVAL);
    ps[0].name = NULL;
    assert_int_equal(zkpipe_http_render(&cfg, json, ps, 1, &text, &len), ZKPIPE_EINVAL);
    ps[0] = (zkpipe_http_provider){"p", NULL, &a};
    assert_int_equal(zkpipe_http_render(&cfg, json, ps, 1, &text, &len), ZKPIPE_EINVAL);
    char names[ZKPIPE_HTTP_PROVIDERS_MAX + 1][8];
    for (size_t i = 0; i < ZKPIPE_HTTP_PROVIDERS_MAX + 1; i++) {
        snprintf(names[i], sizeof names[i], "p%zu", i);
        ps[i] = (zkpipe_http_provider){names[i], provide, &a};
    }
    assert_int_equal(zkpipe_http_render(&cfg, json, ps, ZKPIPE_HTTP_PROVIDERS_MAX + 1, &text, &len),
                     ZKPIPE_EINVAL);
    assert_int_equal(a.calls, 0);
    free(render(&cfg, json, ps, ZKPIPE_HTTP_PROVIDERS_MAX));
    assert_int_equal(a.calls, ZKPIPE_HTTP_PROVIDERS_MAX);
    cfg.prom.flags = 8;
    assert_int_equal(zkpipe_http_render(&cfg, json, NULL, 0, &text, &len), ZKPIPE_EINVAL);
    cfg.prom.flags = 0;
    cfg.struct_size = 1;
    assert_int_equal(zkpipe_http_render(&cfg, json, NULL, 0, &text, &len), ZKPIPE_EINVAL);
    zkpipe_http_config_init(&cfg);
    cfg.max_response = 63;
    assert_int_equal(zkpipe_http_render(&cfg, json, NULL, 0, &text, &len), ZKPIPE_EINVAL);
    cfg.max_response = 64; /* a whole registry's text is longer */
    assert_int_equal(zkpipe_http_render(&cfg, json, NULL, 0, &text, &len), ZKPIPE_ELIMIT);
    assert_null(text);
    zkpipe_http_config_init(&cfg);
    assert_true(fail_alloc_walk(render_with, NULL, &cfg) >= 2); /* the snapshot and the text */
    zkpipe_histogram_destroy(a.h);
}

/* A provider that writes `bytes` of a JSON string. */
static zkpipe_status big(zkpipe_http_out *out, zkpipe_http_format format, void *ctx)
{
    size_t bytes = *(const size_t *)ctx;
    if (format != ZKPIPE_HTTP_JSON)
        return ZKPIPE_OK;
    char chunk[1024];
    memset(chunk, 'x', sizeof chunk);
    zkpipe_http_out_write(out, "\"", 1);
    for (size_t done = 0; done < bytes; done += sizeof chunk)
        zkpipe_http_out_write(out, chunk, sizeof chunk);
    zkpipe_http_out_write(out, "\"", 1);
    return ZKPIPE_OK;
}

static void oversized_response_is_500(void **state)
{
    (void)state;
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    cfg.max_response = 64 * 1024;
    zkpipe_http *srv = start(&cfg);
    size_t bytes = 32 * 1024;
    assert_int_equal(zkpipe_http_attach(srv, "big", big, &bytes), ZKPIPE_OK);
    http_reply r = get(zkpipe_http_port(srv), "GET", "/status");
    assert_int_equal(r.status, 200);
    assert_true(r.body_len > bytes);
    http_reply_free(&r);
    bytes = 128 * 1024;
    r = get(zkpipe_http_port(srv), "GET", "/status");
    assert_int_equal(r.status, 500);
    http_reply_free(&r);
    bytes = 1024;
    r = get(zkpipe_http_port(srv), "GET", "/status");
    assert_int_equal(r.status, 200);
    http_reply_free(&r);
    zkpipe_http_counters c;
    zkpipe_http_stats(srv, &c);
    assert_int_equal(c.errors, 1);
    zkpipe_http_stop(srv);
}

/* Ledgers that keep moving on another thread while the hostile clients run. */
typedef struct mover {
    zkpipe_acct *acct;
    atomic_int stop;
    uint64_t moves;
} mover;

static void *move_ledgers(void *arg)
{
    mover *m = arg;
    zkpipe_ledger l;
    while (!atomic_load(&m->stop)) {
        if (zkpipe_ledger_open(&l, m->acct, ZKPIPE_STAGE_SYNTH) != ZKPIPE_OK)
            break;
        zkpipe_status st = zkpipe_ledger_charge(&l, ZKPIPE_KIND_ABC, 4096);
        if (st == ZKPIPE_OK)
            st = zkpipe_ledger_move(&l, ZKPIPE_STAGE_QUEUED);
        zkpipe_ledger_close(&l);
        if (st != ZKPIPE_OK)
            break;
        m->moves++;
    }
    return NULL;
}

static uint64_t open_connections(zkpipe_http *srv)
{
    zkpipe_http_counters c;
    zkpipe_http_stats(srv, &c);
    return c.open;
}

static int64_t monotonic_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Waits up to `ms` for the server's open connections to reach `want`. */
static void wait_open(zkpipe_http *srv, uint64_t want, int ms)
{
    for (int i = 0; i < ms / 10 && open_connections(srv) != want; i++)
        nap_ms(10);
    assert_int_equal(open_connections(srv), want);
}

static void hostile_clients(void **state)
{
    (void)state;
    /* Static: a failed assertion leaves this frame while the mover thread still runs. */
    static mover m;
    m = (mover){NULL, 0, 0};
    assert_int_equal(zkpipe_acct_create(NULL, &m.acct), ZKPIPE_OK);
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    cfg.acct = m.acct;
    cfg.timeout_s = 1;
    cfg.max_connections = 16;
    zkpipe_http *srv = start(&cfg);
    uint16_t port = zkpipe_http_port(srv);
    size_t bytes = 2u << 20; /* a /status larger than any socket buffer */
    assert_int_equal(zkpipe_http_attach(srv, "big", big, &bytes), ZKPIPE_OK);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, move_ledgers, &m), 0);

    /* A 1 MB header: refused with 431, or dropped; nothing of it kept. */
    size_t hlen = 1u << 20;
    char *req = malloc(hlen + 64);
    int n = snprintf(req, hlen + 64, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ");
    memset(req + n, 'a', hlen);
    memcpy(req + n + hlen, "\r\n\r\n", 5);
    http_reply r;
    if (http_exchange(HOST, port, req, (size_t)n + hlen + 4, 60000, &r) == 0) {
        assert_true(r.status == 431 || r.status == 413 || r.status == 400 || r.status == 0);
        http_reply_free(&r);
    }
    free(req);

    /* A client that asks for 2 MB and never reads: it holds one connection until the
     * timeout while others are served. */
    int stuck = http_connect(HOST, port);
    assert_true(stuck >= 0);
    int small = 4096;
    setsockopt(stuck, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    const char *stuck_req = "GET /status HTTP/1.1\r\nHost: x\r\n\r\n";
    assert_int_equal(send(stuck, stuck_req, strlen(stuck_req), 0), (ssize_t)strlen(stuck_req));

    /* 200 connections at once against a limit of 16: at most 16 are open at the server. */
    enum { CLIENTS = 200 };
    int fds[CLIENTS];
    int opened = 0;
    for (int i = 0; i < CLIENTS; i++) {
        fds[i] = http_connect(HOST, port);
        opened += fds[i] >= 0;
    }
    assert_true(opened > 0);
    nap_ms(200);
    assert_true(open_connections(srv) <= 16);
    /* Every idle one is dropped after the timeout: reads see EOF. Those beyond the limit wait
     * in the listen queue until earlier ones time out, so they close in rounds of about
     * timeout_s each: one deadline for all of them, with room for a slow (valgrind) machine. */
    static struct pollfd p[CLIENTS];
    int waiting = 0;
    for (int i = 0; i < CLIENTS; i++) {
        p[i] = (struct pollfd){fds[i], POLLIN, 0};
        waiting += fds[i] >= 0;
    }
    int rounds = CLIENTS / cfg.max_connections + 2;
    int64_t deadline = monotonic_ms() + 10LL * rounds * cfg.timeout_s * 1000;
    int closed = 0;
    while (waiting > 0 && monotonic_ms() < deadline) {
        int ready = poll(p, CLIENTS, 100);
        for (int i = 0; ready > 0 && i < CLIENTS; i++) {
            if (p[i].fd < 0 || p[i].revents == 0)
                continue;
            char c;
            if (recv(p[i].fd, &c, 1, 0) == 0)
                closed++;
            else
                print_message("connection %d: revents %#x, not an EOF\n", i, p[i].revents);
            close(p[i].fd);
            p[i].fd = -1;
            waiting--;
            ready--;
        }
    }
    for (int i = 0; i < CLIENTS; i++)
        if (p[i].fd >= 0) {
            print_message("connection %d never dropped\n", i);
            close(p[i].fd);
        }
    assert_int_equal(closed, opened);
    close(stuck);
    wait_open(srv, 0, 60000);

    /* And the server still answers, with the counters the ledgers left. */
    bytes = 16;
    r = get(port, "GET", "/healthz");
    assert_int_equal(r.status, 200);
    http_reply_free(&r);
    r = get(port, "GET", "/status");
    assert_int_equal(r.status, 200);
    json_t *j = parse(r.body);
    assert_non_null(j);
    json_decref(j);
    http_reply_free(&r);

    atomic_store(&m.stop, 1);
    pthread_join(t, NULL);
    assert_true(m.moves > 0);
    zkpipe_snapshot s;
    zkpipe_acct_snapshot(m.acct, &s);
    assert_int_equal(s.live_items, 0);
    assert_int_equal(s.live_bytes, 0);
    assert_int_equal(s.stage[ZKPIPE_STAGE_QUEUED].entered, m.moves);
    zkpipe_http_stop(srv);
    zkpipe_acct_destroy(m.acct);
}

/* Scrapes on several threads while ledgers move: each /status parses and is consistent. */
typedef struct scraper {
    uint16_t port;
    int rounds;
    int bad;
} scraper;

static void *scrape(void *arg)
{
    scraper *s = arg;
    for (int i = 0; i < s->rounds; i++) {
        http_reply r;
        if (http_simple(HOST, s->port, "GET", i % 2 ? "/status" : "/metrics", &r) != 0 ||
            r.status != 200) {
            s->bad++;
            continue;
        }
        if (i % 2) {
            json_t *j = parse(r.body);
            s->bad += j == NULL;
            json_decref(j);
        }
        http_reply_free(&r);
    }
    return NULL;
}

static void scrapes_while_ledgers_move(void **state)
{
    (void)state;
    static mover m; /* static: see hostile_clients */
    m = (mover){NULL, 0, 0};
    assert_int_equal(zkpipe_acct_create(NULL, &m.acct), ZKPIPE_OK);
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    cfg.acct = m.acct;
    zkpipe_http *srv = start(&cfg);
    pthread_t mt, st[3];
    scraper sc[3];
    assert_int_equal(pthread_create(&mt, NULL, move_ledgers, &m), 0);
    for (int i = 0; i < 3; i++) {
        sc[i] = (scraper){zkpipe_http_port(srv), ZKPIPE_TEST_SANITIZED ? 20 : 100, 0};
        assert_int_equal(pthread_create(&st[i], NULL, scrape, &sc[i]), 0);
    }
    for (int i = 0; i < 3; i++) {
        pthread_join(st[i], NULL);
        assert_int_equal(sc[i].bad, 0);
    }
    atomic_store(&m.stop, 1);
    pthread_join(mt, NULL);
    /* Stop with a connection still open. */
    int fd = http_connect(HOST, zkpipe_http_port(srv));
    assert_true(fd >= 0);
    zkpipe_http_stop(srv);
    close(fd);
    zkpipe_acct_destroy(m.acct);
}

static void ipv6_loopback(void **state)
{
    (void)state;
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    cfg.address = "::1";
    zkpipe_http *srv = NULL;
    zkpipe_status st = zkpipe_http_start(&srv, &cfg);
    if (st == ZKPIPE_EIO) {
        test_skip("no IPv6 on this machine");
        return;
    }
    assert_int_equal(st, ZKPIPE_OK);
    http_reply r;
    assert_int_equal(http_simple("::1", zkpipe_http_port(srv), "GET", "/healthz", &r), 0);
    assert_int_equal(r.status, 200);
    http_reply_free(&r);
    zkpipe_http_stop(srv);
}

/* GET `path` with the Authorization header `auth` (NULL: none). */
static http_reply get_with(uint16_t port, const char *path, const char *auth)
{
    char req[1024];
    int n =
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\n%s%s%sConnection: close\r\n\r\n",
                 path, auth != NULL ? "Authorization: " : "", auth != NULL ? auth : "",
                 auth != NULL ? "\r\n" : "");
    http_reply r;
    assert_int_equal(http_exchange(HOST, port, req, (size_t)n, 60000, &r), 0);
    return r;
}

static void bearer_token_guards_the_data(void **state)
{
    (void)state;
    char token[] = "s3cret-Token_1";
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    cfg.bearer_token = token;
    zkpipe_http *srv = start(&cfg);
    memset(token, 'x', sizeof token - 1); /* the server keeps its own copy */
    uint16_t port = zkpipe_http_port(srv);
    const char *refused[] = {NULL,
                             "Bearer",
                             "Bearer ",
                             "Basic czNjcmV0LVRva2VuXzE=",
                             "Bearer s3cret-Token_2",  /* wrong, same length */
                             "Bearer s3cret-Token_",   /* a prefix */
                             "Bearer s3cret-Token_12", /* longer */
                             "Bearer S3CRET-TOKEN_1",  /* the token is case-sensitive */
                             "Bearer xxxxxxxxxxxxxx"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        for (int p = 0; p < 2; p++) {
            http_reply r = get_with(port, p ? "/status" : "/metrics", refused[i]);
            assert_int_equal(r.status, 401);
            assert_header(&r, "WWW-Authenticate", "Bearer");
            assert_null(strstr(r.body, "zkpipe_"));
            http_reply_free(&r);
        }
    }
    const char *accepted[] = {"Bearer s3cret-Token_1", "bearer s3cret-Token_1",
                              "Bearer   s3cret-Token_1"};
    for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++) {
        http_reply r = get_with(port, "/metrics", accepted[i]);
        assert_int_equal(r.status, 200);
        assert_non_null(strstr(r.body, "# TYPE zkpipe_stage_items gauge\n"));
        http_reply_free(&r);
    }
    http_reply r = get_with(port, "/status", "Bearer s3cret-Token_1");
    assert_int_equal(r.status, 200);
    http_reply_free(&r);
    /* The liveness probe stays open; an unknown path is 404 either way. */
    r = get_with(port, "/healthz", NULL);
    assert_int_equal(r.status, 200);
    http_reply_free(&r);
    r = get_with(port, "/nope", NULL);
    assert_int_equal(r.status, 404);
    http_reply_free(&r);
    zkpipe_http_counters c;
    assert_int_equal(zkpipe_http_stats(srv, &c), ZKPIPE_OK);
    assert_int_equal(c.unauthorized, 2 * (sizeof refused / sizeof refused[0]));
    assert_int_equal(c.ok, 5);
    zkpipe_http_stop(srv);

    /* An empty token is none; a token too long or with a space or control character is
     * refused; the longest allowed is taken. */
    cfg.bearer_token = "";
    srv = start(&cfg);
    r = get_with(zkpipe_http_port(srv), "/metrics", NULL);
    assert_int_equal(r.status, 200);
    http_reply_free(&r);
    zkpipe_http_stop(srv);
    char longest[ZKPIPE_HTTP_TOKEN_MAX + 2];
    memset(longest, 'a', sizeof longest - 1);
    longest[sizeof longest - 1] = '\0';
    const char *bad[] = {"a b", "a\tb", "a\x7f", "\xc3\xa9t\xc3\xa9", longest};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        zkpipe_http *none = (zkpipe_http *)&none;
        cfg.bearer_token = bad[i];
        assert_int_equal(zkpipe_http_start(&none, &cfg), ZKPIPE_EINVAL);
        assert_ptr_equal(none, (zkpipe_http *)&none);
    }
    longest[ZKPIPE_HTTP_TOKEN_MAX] = '\0';
    cfg.bearer_token = longest;
    srv = start(&cfg);
    char auth[ZKPIPE_HTTP_TOKEN_MAX + 16];
    snprintf(auth, sizeof auth, "Bearer %s", longest);
    r = get_with(zkpipe_http_port(srv), "/metrics", auth);
    assert_int_equal(r.status, 200);
    http_reply_free(&r);
    auth[strlen(auth) - 1] = 'b';
    r = get_with(zkpipe_http_port(srv), "/metrics", auth);
    assert_int_equal(r.status, 401);
    http_reply_free(&r);
    zkpipe_http_stop(srv);
}

/* A host's handler: "/echo" answered at once with the body it got, "/later" kept and answered
 * by another thread (after the test lets it), with a Retry-After. */
typedef struct host {
    pthread_mutex_t lock;
    zkpipe_http_request *kept;
    int calls;
    char method[16], path[64], type[64];
} host;

static void handler(zkpipe_http_request *req, void *ctx)
{
    host *h = ctx;
    pthread_mutex_lock(&h->lock);
    h->calls++;
    snprintf(h->method, sizeof h->method, "%s", zkpipe_http_request_method(req));
    snprintf(h->path, sizeof h->path, "%s", zkpipe_http_request_path(req));
    const char *type = zkpipe_http_request_content_type(req);
    snprintf(h->type, sizeof h->type, "%s", type != NULL ? type : "(none)");
    if (strcmp(h->path, "/later") == 0) {
        h->kept = req;
        pthread_mutex_unlock(&h->lock);
        return;
    }
    pthread_mutex_unlock(&h->lock);
    size_t len;
    const void *body = zkpipe_http_request_body(req, &len);
    assert_int_equal(zkpipe_http_respond(req, 201, "application/octet-stream", body, len, 0),
                     ZKPIPE_OK);
}

static void *answer_later(void *arg)
{
    host *h = arg;
    zkpipe_http_request *req = NULL;
    while (req == NULL) {
        pthread_mutex_lock(&h->lock);
        req = h->kept;
        h->kept = NULL;
        pthread_mutex_unlock(&h->lock);
        if (req == NULL)
            nap_ms(5);
    }
    assert_int_equal(zkpipe_http_respond(req, 429, "text/plain", "busy\n", 5, 7), ZKPIPE_OK);
    return NULL;
}

static http_reply post(uint16_t port, const char *path, const char *headers, const char *body,
                       size_t len)
{
    size_t cap = len + 1024;
    char *req = malloc(cap);
    assert_non_null(req);
    int n = snprintf(req, cap, "POST %s HTTP/1.1\r\nHost: x\r\n%sConnection: close\r\n\r\n", path,
                     headers);
    memcpy(req + n, body, len);
    http_reply r;
    assert_int_equal(http_exchange(HOST, port, req, (size_t)n + len, 5000, &r), 0);
    free(req);
    return r;
}

static void handler_answers_requests(void **state)
{
    (void)state;
    host h = {.calls = 0};
    pthread_mutex_init(&h.lock, NULL);
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    cfg.handler = handler;
    cfg.handler_ctx = &h;
    cfg.max_body = 64;
    cfg.bearer_token = "tok";
    zkpipe_http *srv = start(&cfg);
    uint16_t port = zkpipe_http_port(srv);
    /* Binary bodies (a NUL inside) come whole, with their line and type. */
    const char body[] = "a\0b c";
    http_reply r = post(port, "/echo?x=1",
                        "Authorization: Bearer tok\r\nContent-Type: application/x-test\r\n"
                        "Content-Length: 5\r\n",
                        body, 5);
    assert_int_equal(r.status, 201);
    assert_int_equal(r.body_len, 5);
    assert_memory_equal(r.body, body, 5);
    assert_header(&r, "Content-Type", "application/octet-stream");
    assert_string_equal(h.method, "POST");
    assert_string_equal(h.path, "/echo");
    assert_string_equal(h.type, "application/x-test");
    http_reply_free(&r);
    /* Chunked, within the cap. */
    r = post(port, "/echo", "Authorization: Bearer tok\r\nTransfer-Encoding: chunked\r\n",
             "3\r\nabc\r\n"
             "2\r\nde\r\n0\r\n\r\n",
             20);
    assert_int_equal(r.status, 201);
    assert_int_equal(r.body_len, 5);
    assert_memory_equal(r.body, "abcde", 5);
    http_reply_free(&r);
    /* Answered from another thread, with its header. */
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, answer_later, &h), 0);
    r = post(port, "/later", "Authorization: Bearer tok\r\nContent-Length: 0\r\n", "", 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(r.status, 429);
    assert_header(&r, "Retry-After", "7");
    assert_string_equal(r.body, "busy\n");
    http_reply_free(&r);
    /* Refused before the handler: no token, a body announced past the cap, a chunked one
     * that outgrows it (closed). GET of the server's own routes stays the server's. */
    int calls = h.calls;
    r = post(port, "/echo", "Content-Length: 1\r\n", "x", 1);
    assert_int_equal(r.status, 401);
    http_reply_free(&r);
    r = post(port, "/echo", "Authorization: Bearer tok\r\nContent-Length: 65\r\n", "", 0);
    assert_int_equal(r.status, 413);
    http_reply_free(&r);
    char big[200];
    int n = snprintf(big, sizeof big, "%x\r\n%0*d\r\n0\r\n\r\n", 100, 100, 0);
    http_reply closed;
    char req[400];
    int m = snprintf(req, sizeof req,
                     "POST /echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok\r\n"
                     "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n%s",
                     big);
    (void)n;
    if (http_exchange(HOST, port, req, (size_t)m, 5000, &closed) == 0) {
        assert_int_equal(closed.status, 0);
        http_reply_free(&closed);
    }
    r = get_with(port, "/healthz", NULL);
    assert_int_equal(r.status, 200);
    http_reply_free(&r);
    r = get_with(port, "/metrics", "Bearer tok");
    assert_int_equal(r.status, 200);
    http_reply_free(&r);
    assert_int_equal(h.calls, calls);
    /* Every other path and method is the handler's. */
    r = get_with(port, "/other", "Bearer tok");
    assert_int_equal(r.status, 201);
    assert_string_equal(h.method, "GET");
    http_reply_free(&r);
    zkpipe_http_counters c;
    assert_int_equal(zkpipe_http_stats(srv, &c), ZKPIPE_OK);
    assert_int_equal(c.handled, 4);
    assert_int_equal(c.too_large, 2);
    assert_int_equal(c.unauthorized, 1);
    /* The last answer may still be on its way out when the client has read it. */
    for (int i = 0; i < 1000 && c.handling != 0; i++) {
        nap_ms(5);
        assert_int_equal(zkpipe_http_stats(srv, &c), ZKPIPE_OK);
    }
    assert_int_equal(c.handling, 0);
    zkpipe_http_stop(srv);
    pthread_mutex_destroy(&h.lock);

    /* Bad answers are 500; a body cap past 1 GiB is refused. */
    assert_int_equal(zkpipe_http_respond(NULL, 200, NULL, NULL, 0, 0), ZKPIPE_EINVAL);
    cfg.max_body = ((size_t)1 << 30) + 1;
    zkpipe_http *none = NULL;
    assert_int_equal(zkpipe_http_start(&none, &cfg), ZKPIPE_EINVAL);
    assert_null(none);
}

static void without_libmicrohttpd(void **state)
{
    (void)state;
    zkpipe_http *srv = NULL;
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    assert_int_equal(zkpipe_http_start(&srv, &cfg), ZKPIPE_EUNSUPPORTED);
    assert_null(srv);
}

int main(void)
{
#ifdef ZKPIPE_TEST_NO_HTTP
    const struct CMUnitTest tests[] = {cmocka_unit_test(without_libmicrohttpd),
                                       cmocka_unit_test(render_is_what_a_scrape_gets),
                                       cmocka_unit_test(render_refuses_bad_arguments)};
#else
    (void)without_libmicrohttpd;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(routes_and_codes, setup, teardown),
        cmocka_unit_test_setup_teardown(status_shows_the_snapshot, setup, teardown),
        cmocka_unit_test_setup_teardown(providers_add_their_parts, setup, teardown),
        cmocka_unit_test(render_is_what_a_scrape_gets),
        cmocka_unit_test(render_refuses_bad_arguments),
        cmocka_unit_test(options_shape_the_exposition),
        cmocka_unit_test(bad_settings_are_refused),
        cmocka_unit_test(oversized_response_is_500),
        cmocka_unit_test(hostile_clients),
        cmocka_unit_test(scrapes_while_ledgers_move),
        cmocka_unit_test(ipv6_loopback),
        cmocka_unit_test(bearer_token_guards_the_data),
        cmocka_unit_test(handler_answers_requests),
    };
#endif
    return run_tests_or_skip(tests);
}
