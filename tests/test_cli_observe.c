/* The tools' --listen-token-file (tools/cli/cli_observe.c): a missing file, an empty first
 * line, a token with a space or too long are refused before anything starts, without the
 * token in the message; a good one is what /metrics and /status then require, with or without
 * a line ending, and /healthz stays open. Built without libmicrohttpd: the flag is parsed, and
 * start says the endpoint is missing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <fcntl.h>
#include <unistd.h>

#include "cli_observe.h"
#include "http_client.h"
#include "scratch_dir.h"

/* A file in the scratch folder holding `text` (NULL: none); its path in `path`. */
static void token_file(char *path, size_t cap, const char *name, const char *text)
{
    snprintf(path, cap, "%s/%s", scratch_dir, name);
    if (text == NULL)
        return;
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

/* cli_observe_start with `listen` and `token_path`, stderr caught into `err`; its result. */
static int start_caught(cli_observe *obs, cli_observe_options *o, zkpipe_acct *acct,
                        const char *listen, const char *token_path, char *err, size_t cap)
{
    memset(o, 0, sizeof *o);
    if (listen != NULL)
        assert_int_equal(cli_observe_flag(o, "listen", listen), 1);
    if (token_path != NULL)
        assert_int_equal(cli_observe_flag(o, "listen-token-file", token_path), 1);
    char log[512];
    snprintf(log, sizeof log, "%s/stderr", scratch_dir);
    fflush(stderr);
    int saved = dup(2);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    int rc = cli_observe_start(obs, o, "test", acct, NULL, NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = fopen(log, "rb");
    assert_non_null(f);
    size_t n = fread(err, 1, cap - 1, f);
    err[n] = '\0';
    fclose(f);
    return rc;
}

static void flag_is_parsed(void **state)
{
    (void)state;
    cli_observe_options o;
    memset(&o, 0, sizeof o);
    assert_int_equal(cli_observe_flag(&o, "listen-token-file", NULL), -1);
    assert_int_equal(cli_observe_flag(&o, "listen-token-file", ""), -1);
    assert_int_equal(cli_observe_flag(&o, "listen-token-file", "/x"), 1);
    assert_string_equal(o.listen_token_file, "/x");
}

static void bad_token_files_are_refused(void **state)
{
    (void)state;
    char too_long[300];
    memset(too_long, 'k', 257);
    too_long[257] = '\0';
    struct {
        const char *name, *text, *why;
    } bad[] = {
        {"missing", NULL, "No such file"},
        {"empty", "", "empty"},
        {"empty-line", "\nsecret-after-the-first-line\n", "empty"},
        {"crlf-only", "\r\n", "empty"},
        {"space", "secret with-space\n", "space"},
        {"long", too_long, "longer than 256"},
    };
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[512], err[1024];
        token_file(path, sizeof path, bad[i].name, bad[i].text);
        cli_observe obs;
        cli_observe_options o;
        assert_int_equal(start_caught(&obs, &o, acct, "127.0.0.1:0", path, err, sizeof err), -1);
        if (strstr(err, "--listen-token-file") == NULL || strstr(err, bad[i].why) == NULL)
            fail_msg("%s: %s", bad[i].name, err);
        assert_null(strstr(err, "secret"));
        assert_null(strstr(err, "kkkk"));
        assert_null(obs.http);
    }
    /* Without --listen it means nothing: refused. */
    char path[512], err[1024];
    token_file(path, sizeof path, "good", "secret\n");
    cli_observe obs;
    cli_observe_options o;
    assert_int_equal(start_caught(&obs, &o, acct, NULL, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "needs --listen"));
    zkpipe_acct_destroy(acct);
}

/* GET `path` with `auth` (NULL: no Authorization); the status. */
static int status_of(uint16_t port, const char *path, const char *auth)
{
    char req[512];
    int n =
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\n%s%s%sConnection: close\r\n\r\n",
                 path, auth ? "Authorization: " : "", auth ? auth : "", auth ? "\r\n" : "");
    http_reply r;
    assert_int_equal(http_exchange("127.0.0.1", port, req, (size_t)n, 5000, &r), 0);
    int status = r.status;
    http_reply_free(&r);
    return status;
}

static void good_token_file_guards_the_endpoint(void **state)
{
    (void)state;
    const char *texts[] = {"secret-T0ken\n", "secret-T0ken", "secret-T0ken\r\nnext line\n"};
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        char path[512], err[1024];
        token_file(path, sizeof path, "token", texts[i]);
        cli_observe obs;
        cli_observe_options o;
        int rc = start_caught(&obs, &o, acct, "127.0.0.1:0", path, err, sizeof err);
#ifdef ZKPIPE_TEST_NO_HTTP
        assert_int_equal(rc, -1);
        assert_non_null(strstr(err, "libmicrohttpd"));
        continue;
#endif
        assert_int_equal(rc, 0);
        assert_null(strstr(err, "secret"));
        uint16_t port = zkpipe_http_port(obs.http);
        assert_int_equal(status_of(port, "/metrics", NULL), 401);
        assert_int_equal(status_of(port, "/metrics", "Bearer secret-T0ke"), 401);
        assert_int_equal(status_of(port, "/metrics", "Bearer secret-T0ken"), 200);
        assert_int_equal(status_of(port, "/status", "Bearer secret-T0ken"), 200);
        assert_int_equal(status_of(port, "/healthz", NULL), 200);
        assert_int_equal(cli_observe_finish(&obs, "test", NULL, 0, NULL, 0), 0);
    }
    zkpipe_acct_destroy(acct);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flag_is_parsed),
        cmocka_unit_test(bad_token_files_are_refused),
        cmocka_unit_test(good_token_file_guards_the_endpoint),
    };
    return cmocka_run_group_tests(tests, scratch_dir_setup, scratch_dir_teardown);
}
