/* The observation flags and their ticker (cli_observe.h). */
#define _DEFAULT_SOURCE /* explicit_bzero */
#include "cli_observe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_args.h"

void cli_observe_usage(FILE *f)
{
    fprintf(f,
            "  --listen ADDR:PORT   serve /metrics, /status and /healthz over HTTP while running\n"
            "                       (e.g. 127.0.0.1:9100; [::1]:9100; port 0: any free one)\n"
            "  --listen-token-file FILE\n"
            "                       /metrics and /status require \"Authorization: Bearer TOKEN\",\n"
            "                       TOKEN the file's first line (/healthz stays open)\n"
            "  --linger-ms N        keep serving N ms after the run (default 0)\n"
            "  --trace FILE         Chrome trace-event JSON timeline, valid while it is written\n"
            "                       (open in Perfetto)\n"
            "  --plot FILE.svg      a picture of the run: live bytes per stage, items in flight\n"
            "  --progress           a progress line on stderr even when it is not a terminal\n");
}

/* "ADDR:PORT" or "[ADDR]:PORT" into host and port; 0 when malformed. */
static int split_listen(const char *arg, char *host, size_t cap, uint16_t *port)
{
    const char *colon = strrchr(arg, ':');
    if (colon == NULL)
        return 0;
    const char *h = arg;
    size_t hlen = (size_t)(colon - arg);
    if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']') {
        h++;
        hlen -= 2;
    } else if (memchr(h, ':', hlen) != NULL) {
        return 0; /* an IPv6 address needs its brackets */
    }
    unsigned long p;
    if (hlen == 0 || hlen >= cap || !cli_parse_ulong(colon + 1, 0, 65535, &p))
        return 0;
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    *port = (uint16_t)p;
    return 1;
}

int cli_observe_flag(cli_observe_options *o, const char *name, const char *value)
{
    if (strcmp(name, "progress") == 0) {
        o->progress = 1;
        return 1;
    }
    int ours = strcmp(name, "listen") == 0 || strcmp(name, "listen-token-file") == 0 ||
               strcmp(name, "linger-ms") == 0 || strcmp(name, "trace") == 0 ||
               strcmp(name, "plot") == 0;
    if (!ours)
        return 0;
    if (value == NULL || value[0] == '\0')
        return -1;
    if (strcmp(name, "listen") == 0) {
        char host[64];
        uint16_t port;
        if (!split_listen(value, host, sizeof host, &port))
            return -1;
        o->listen = value;
    } else if (strcmp(name, "listen-token-file") == 0) {
        o->listen_token_file = value;
    } else if (strcmp(name, "linger-ms") == 0) {
        if (!cli_parse_ulong(value, 0, 3600000, &o->linger_ms))
            return -1;
    } else if (strcmp(name, "trace") == 0) {
        o->trace_path = value;
    } else {
        o->plot_path = value;
    }
    return 1;
}

static void tick(void *ctx)
{
    cli_observe *obs = ctx;
    if (obs->trace != NULL)
        zkpipe_trace_flush(obs->trace);
}

static int line(char *buf, size_t cap, void *ctx)
{
    cli_observe *obs = ctx;
    return obs->progress(buf, cap, obs->progress_ctx);
}

/* The endpoint's settings, which --metrics renders with too: the registry, every series that
 * was ever non-zero. */
static void http_config(const cli_observe *obs, zkpipe_http_config *cfg)
{
    zkpipe_http_config_init(cfg);
    cfg->acct = obs->acct;
    cfg->prom.flags = ZKPIPE_PROM_OMIT_ZERO;
}

/* The first line of `path` (without its line ending) into tok[ZKPIPE_HTTP_TOKEN_MAX + 1]: at
 * most that many bytes are read. Returns NULL, or why it is not a token (never the token). */
static const char *read_token(const char *path, char *tok)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return strerror(errno);
    size_t n = 0;
    int c = 0;
    while (n <= ZKPIPE_HTTP_TOKEN_MAX && (c = getc(f)) != EOF && c != '\n')
        tok[n++] = (char)c;
    const char *why = ferror(f) ? strerror(errno) : NULL;
    fclose(f);
    if (n > 0 && tok[n - 1] == '\r')
        n--;
    if (why == NULL && n > ZKPIPE_HTTP_TOKEN_MAX)
        why = "the token is longer than 256 characters";
    for (size_t i = 0; why == NULL && i < n; i++)
        if (tok[i] < 0x21 || tok[i] > 0x7e)
            why = "the token holds a space or a character that is not printable ASCII";
    if (why == NULL && n == 0)
        why = "the first line is empty: no token";
    tok[n < ZKPIPE_HTTP_TOKEN_MAX ? n : ZKPIPE_HTTP_TOKEN_MAX] = '\0';
    return why;
}

static void stop_all(cli_observe *obs)
{
    zkpipe_trace_close(obs->trace);
    obs->trace = NULL;
    zkpipe_http_stop(obs->http);
    obs->http = NULL;
    cli_plot_free(&obs->plot);
}

int cli_observe_start(cli_observe *obs, const cli_observe_options *opt, const char *prog,
                      zkpipe_acct *acct, cli_progress_fn progress, void *progress_ctx)
{
    memset(obs, 0, sizeof *obs);
    obs->opt = opt;
    obs->acct = acct;
    obs->report_to = stderr;
    obs->progress = progress;
    obs->progress_ctx = progress_ctx;
    zkpipe_status st = ZKPIPE_OK;
    if (opt->listen_token_file != NULL && opt->listen == NULL) {
        fprintf(stderr, "%s: --listen-token-file needs --listen\n", prog);
        return -1;
    }
    if (opt->listen != NULL) {
        char host[64], token[ZKPIPE_HTTP_TOKEN_MAX + 1];
        zkpipe_http_config cfg;
        http_config(obs, &cfg);
        split_listen(opt->listen, host, sizeof host, &cfg.port);
        cfg.address = host;
        if (opt->listen_token_file != NULL) {
            const char *why = read_token(opt->listen_token_file, token);
            if (why != NULL) {
                explicit_bzero(token, sizeof token);
                fprintf(stderr, "%s: --listen-token-file %s: %s\n", prog, opt->listen_token_file,
                        why);
                return -1;
            }
            cfg.bearer_token = token;
        }
        st = zkpipe_http_start(&obs->http, &cfg);
        explicit_bzero(token, sizeof token); /* the server keeps its own copy */
        if (st != ZKPIPE_OK) {
            fprintf(stderr, "%s: --listen %s: %s\n", prog, opt->listen,
                    st == ZKPIPE_EUNSUPPORTED ? "unsupported: zkpipe was built without "
                                                "libmicrohttpd (ZKPIPE_HTTP)"
                                              : zkpipe_status_str(st));
            return -1;
        }
        fprintf(stderr, "%s: serving http://%s%s%s:%u/metrics\n", prog,
                strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "",
                (unsigned)zkpipe_http_port(obs->http));
    }
    if (opt->trace_path != NULL || opt->plot_path != NULL) {
        st = opt->trace_path != NULL ? zkpipe_trace_open(&obs->trace, opt->trace_path, NULL)
                                     : zkpipe_trace_open_sampler(&obs->trace, NULL);
        if (st == ZKPIPE_OK)
            st = zkpipe_trace_watch(obs->trace, acct, 0);
        if (st == ZKPIPE_OK && opt->plot_path != NULL)
            st = zkpipe_trace_on_sample(obs->trace, cli_plot_sample, &obs->plot);
        if (st != ZKPIPE_OK) {
            fprintf(stderr, "%s: --trace %s: %s\n", prog,
                    opt->trace_path != NULL ? opt->trace_path : "(for --plot)",
                    zkpipe_status_str(st));
            stop_all(obs);
            return -1;
        }
    }
    if (cli_progress_start(&obs->ticker, progress != NULL ? line : NULL, tick, obs,
                           opt->progress) != 0) {
        fprintf(stderr, "%s: cannot start the ticker thread\n", prog);
        stop_all(obs);
        return -1;
    }
    return 0;
}

void cli_observe_report(const char *line, void *ctx)
{
    cli_observe *obs = ctx;
    cli_progress_print(&obs->ticker, obs->report_to, line);
}

int cli_observe_attach(cli_observe *obs, const char *prog, const char *name,
                       zkpipe_http_provider_fn fn, void *ctx)
{
    zkpipe_status st = obs->provider_count < ZKPIPE_HTTP_PROVIDERS_MAX ? ZKPIPE_OK : ZKPIPE_ELIMIT;
    if (st == ZKPIPE_OK && obs->http != NULL)
        st = zkpipe_http_attach(obs->http, name, fn, ctx);
    if (st == ZKPIPE_OK)
        obs->providers[obs->provider_count++] = (zkpipe_http_provider){name, fn, ctx};
    else
        fprintf(stderr, "%s: http provider %s: %s\n", prog, name, zkpipe_status_str(st));
    return st == ZKPIPE_OK ? 0 : -1;
}

/* A set in a malloc'd array (*n its length; NULL when out of memory): the files the options
 * name (--trace when `with_trace`, then --plot), then `more`. */
static cli_output *with_ours(const cli_observe_options *opt, int with_trace, const cli_output *more,
                             size_t nmore, size_t *n)
{
    cli_output *set = malloc((nmore + 2) * sizeof *set);
    if (set == NULL)
        return NULL;
    *n = 0;
    if (with_trace && opt->trace_path != NULL)
        set[(*n)++] = (cli_output){opt->trace_path, NULL, 0};
    if (opt->plot_path != NULL)
        set[(*n)++] = (cli_output){opt->plot_path, NULL, 0};
    for (size_t i = 0; i < nmore; i++)
        set[(*n)++] = more[i];
    return set;
}

int cli_observe_check(const cli_observe_options *opt, const char *prog, const cli_output *more,
                      size_t nmore)
{
    size_t n;
    cli_output *set = with_ours(opt, 1, more, nmore, &n);
    cli_error e;
    int rc = set != NULL ? cli_outputs_check(set, n, &e) : -1;
    if (set == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
    } else if (rc != 0) {
        char why[CLI_ERROR_TEXT_MAX];
        cli_error_text(why, sizeof why, set, &e);
        fprintf(stderr, "%s: %s\n", prog, why);
    }
    free(set);
    return rc;
}

zkpipe_status cli_observe_metrics(const cli_observe *obs, char **text, size_t *len)
{
    zkpipe_http_config cfg;
    http_config(obs, &cfg);
    return zkpipe_http_render(&cfg, ZKPIPE_HTTP_PROMETHEUS, obs->providers, obs->provider_count,
                              text, len);
}

int cli_observe_finish(cli_observe *obs, const char *prog, const char *title, uint64_t bound,
                       const cli_output *more, size_t nmore)
{
    int rc = 0;
    cli_progress_stop(&obs->ticker);
    zkpipe_status st = zkpipe_trace_close(obs->trace);
    obs->trace = NULL;
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "%s: --trace %s: %s\n", prog, obs->opt->trace_path, zkpipe_status_str(st));
        rc = -1;
    }
    cli_observe_stop_serving(obs);
    size_t n = 0, plot_len = 0;
    char *plot = NULL;
    int rendered = 1;
    cli_output *set = title != NULL ? with_ours(obs->opt, 0, more, nmore, &n) : NULL;
    if (title != NULL && obs->opt->plot_path != NULL && set != NULL) {
        if ((plot = cli_plot_render(&obs->plot, title, bound, &plot_len)) == NULL) {
            fprintf(stderr, "%s: --plot %s: %s\n", prog, obs->opt->plot_path, strerror(errno));
            rendered = 0;
            rc = -1;
        }
        set[0].text = plot;
        set[0].len = plot_len;
    }
    cli_error e;
    if (title != NULL && set == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
        rc = -1;
    } else if (set != NULL && rendered && n > 0 &&
               cli_outputs_write(set, n, CLI_OUTPUTS_DURABLE, &e) != 0) {
        char why[CLI_ERROR_TEXT_MAX];
        cli_error_text(why, sizeof why, set, &e);
        fprintf(stderr, "%s: %s\n", prog, why);
        rc = -1;
    }
    free(plot);
    free(set);
    stop_all(obs);
    return rc;
}

void cli_observe_stop_serving(cli_observe *obs)
{
    if (obs->http != NULL && obs->opt->linger_ms > 0) {
        struct timespec t = {(time_t)(obs->opt->linger_ms / 1000),
                             (long)(obs->opt->linger_ms % 1000) * 1000000L};
        while (nanosleep(&t, &t) != 0 && errno == EINTR)
            ;
    }
    zkpipe_http_stop(obs->http);
    obs->http = NULL;
    obs->provider_count = 0;
}
