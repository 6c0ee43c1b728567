/* zkpipe-serve's flags (serve_options.h). */
#define _DEFAULT_SOURCE /* strdup, strtok_r */
#include "serve_options.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_args.h"

static const char prog[] = "zkpipe-serve";

void serve_usage(FILE *f)
{
    fprintf(f,
            "usage: zkpipe-serve --circuit NAME=FILE.zkey [--circuit ...] --listen ADDR:PORT "
            "[options]\n"
            "  POST /prove/NAME with a .wtns body (or, with --witness-cmd, an input.json) answers\n"
            "  {\"proof\":...,\"public\":[...]} as snarkjs writes them; GET /metrics, /status,\n"
            "  /healthz. SIGTERM: refuse new requests, answer those in flight, exit.\n"
            "  --circuit NAME=FILE  a circuit requests name, proved with the zkey FILE\n"
            "                       (repeatable; NAME 1 to 64 bytes of [A-Za-z0-9._-])\n"
            "  --listen ADDR:PORT   where to serve (a numeric address; [::1]:PORT for IPv6)\n"
            "  --metrics-listen ADDR:PORT  also serve /metrics, /status, /healthz there\n"
            "  --token-file FILE    require \"Authorization: Bearer TOKEN\", TOKEN the first\n"
            "                       line of FILE (chmod 600); /healthz stays open\n"
            "  --budget-mib N       byte budget over the requests in flight and the resident\n"
            "                       zkeys (default 0: none)\n"
            "  --queue-ms N         longest wait for admission before 429 (default 2000)\n"
            "  --request-timeout-ms N  the request line, headers and body must arrive within\n"
            "                       N ms of the connection (default 30000)\n"
            "  --max-connections N  open connections at most (default 64)\n"
            "  --max-per-address N  of them from one address (default 16; 0: no cap, behind a\n"
            "                       proxy)\n"
            "  --max-body-kib N     largest .wtns body (default: the largest circuit's witness)\n"
            "  --max-input-kib N    largest input.json body (default 1024)\n"
            "  --witness-cmd NAME='CMD ARG...'  compute NAME's witness from an input.json: CMD\n"
            "                       run without a shell, {input} and {wtns} in ARGs replaced by\n"
            "                       files in a private temporary folder\n"
            "  --witness-timeout-ms N  a witness generator's time limit (default 60000)\n"
            "  --key-idle-ms N      a zkey unused this long may be released for another's bytes\n"
            "                       (default 0)\n"
            "  --prover-workers N   prover threads (default 1)\n"
            "  --prover-threads N   threads of each prover's pool, itself included (default 2)\n"
            "  --backend B          auto, cpu or cuda (default auto)\n");
    cli_engine_usage(f);
}

/* "ADDR:PORT" (ADDR in brackets for IPv6) into addr and port: 1, or 0. */
static int parse_listen(const char *v, char *addr, size_t cap, uint16_t *port)
{
    const char *colon = v != NULL ? strrchr(v, ':') : NULL;
    unsigned long p;
    if (colon == NULL || !cli_parse_ulong(colon + 1, 0, 65535, &p))
        return 0;
    const char *a = v;
    size_t len = (size_t)(colon - v);
    if (len >= 2 && a[0] == '[' && a[len - 1] == ']') {
        a++;
        len -= 2;
    }
    if (len == 0 || len >= cap)
        return 0;
    memcpy(addr, a, len);
    addr[len] = '\0';
    *port = (uint16_t)p;
    return 1;
}

/* NAME='CMD ARG...' into the next generator: 1, or 0 with a line on stderr. */
static int witness_flag(serve_options *o, const char *v)
{
    const char *eq = v != NULL ? strchr(v, '=') : NULL;
    if (eq == NULL || eq == v || (size_t)(eq - v) > QUEUE_CIRCUIT_MAX ||
        o->nwitness == QUEUE_CIRCUITS_MAX) {
        fprintf(stderr, "%s: --witness-cmd: NAME='CMD ARG...'\n", prog);
        return 0;
    }
    serve_witness_cmd *w = &o->witness[o->nwitness];
    memcpy(w->name, v, (size_t)(eq - v));
    w->name[eq - v] = '\0';
    if (serve_witness_of(o, w->name) != NULL) {
        fprintf(stderr, "%s: --witness-cmd %s: given twice\n", prog, w->name);
        return 0;
    }
    if ((w->line = strdup(eq + 1)) == NULL)
        return 0;
    int n = 0, input = 0, wtns = 0;
    for (char *save = NULL, *t = strtok_r(w->line, " \t", &save); t != NULL;
         t = strtok_r(NULL, " \t", &save)) {
        if (n == SERVE_WITNESS_ARGS_MAX) {
            fprintf(stderr, "%s: --witness-cmd %s: more than %d arguments\n", prog, w->name,
                    SERVE_WITNESS_ARGS_MAX);
            return 0;
        }
        input |= strstr(t, "{input}") != NULL;
        wtns |= strstr(t, "{wtns}") != NULL;
        w->argv[n++] = t;
    }
    w->argv[n] = NULL;
    if (n == 0 || !input || !wtns) {
        fprintf(stderr, "%s: --witness-cmd %s: a command whose arguments hold {input} and {wtns}\n",
                prog, w->name);
        return 0;
    }
    o->nwitness++;
    return 1;
}

/* One flag `name` with `value` (NULL when it takes none): 1, 0 (not ours), -1 (bad value), -2
 * (bad value, said on stderr already). */
static int flag(serve_options *o, const char *name, char *value)
{
    unsigned long n, *u = NULL, min = 0, max = 86400000UL;
    int r = cli_engine_flag(&o->engine, &o->cfg, name, value);
    if (r != 0)
        return r;
    if (strcmp(name, "circuit") == 0)
        return queue_flag(&o->circuits, name, value) > 0 ? 1 : -2;
    if (strcmp(name, "listen") == 0)
        return parse_listen(value, o->listen_addr, sizeof o->listen_addr, &o->listen_port) ? 1 : -1;
    if (strcmp(name, "metrics-listen") == 0)
        return parse_listen(value, o->metrics_addr, sizeof o->metrics_addr, &o->metrics_port) ? 1
                                                                                              : -1;
    if (strcmp(name, "token-file") == 0) {
        o->token_file = value;
        return value != NULL && value[0] != '\0' ? 1 : -1;
    }
    if (strcmp(name, "witness-cmd") == 0)
        return witness_flag(o, value) ? 1 : -2;
    if (strcmp(name, "backend") == 0)
        return zkpipe_backend_parse(&o->cfg.backend, value) == ZKPIPE_OK ? 1 : -1;
    if (strcmp(name, "budget-mib") == 0) {
        if (!cli_parse_ulong(value, 0, 1UL << 24, &n))
            return -1;
        o->cfg.budget_bytes = (uint64_t)n << 20;
        return 1;
    }
    if (strcmp(name, "prover-workers") == 0 || strcmp(name, "prover-threads") == 0) {
        if (!cli_parse_ulong(value, 1, 256, &n))
            return -1;
        *(name[7] == 'w' ? &o->cfg.prover_workers : &o->cfg.prover_threads) = (unsigned)n;
        return 1;
    }
    if (strcmp(name, "queue-ms") == 0)
        u = &o->queue_ms;
    else if (strcmp(name, "request-timeout-ms") == 0)
        u = &o->request_timeout_ms, min = 1, max = 3600000;
    else if (strcmp(name, "max-connections") == 0)
        u = &o->max_connections, min = 1, max = 4096;
    else if (strcmp(name, "max-per-address") == 0)
        u = &o->max_per_address, max = 4096;
    else if (strcmp(name, "max-body-kib") == 0)
        u = &o->max_body_kib, min = 1, max = 1UL << 20;
    else if (strcmp(name, "max-input-kib") == 0)
        u = &o->max_input_kib, min = 1, max = 1UL << 20;
    else if (strcmp(name, "key-idle-ms") == 0)
        u = &o->key_idle_ms, max = UINT32_MAX;
    else if (strcmp(name, "witness-timeout-ms") == 0)
        u = &o->witness_timeout_ms, min = 1;
    else
        return 0;
    return cli_parse_ulong(value, min, max, u) ? 1 : -1;
}

int serve_options_parse(serve_options *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    queue_options_init(&o->circuits);
    o->circuits.prog = prog;
    zkpipe_engine_config_init(&o->cfg);
    o->cfg.prover_threads = 2;
    o->queue_ms = 2000;
    o->request_timeout_ms = 30000;
    o->max_connections = 64;
    o->max_per_address = 16;
    o->max_input_kib = 1024;
    o->witness_timeout_ms = 60000;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            serve_usage(stdout);
            return 2;
        }
        if (strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "%s: %s: not a flag (see --help)\n", prog, a);
            return 1;
        }
        char name[64];
        char *eq = strchr(a, '=');
        size_t len = eq != NULL ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (len >= sizeof name) {
            fprintf(stderr, "%s: %s: unknown flag\n", prog, a);
            return 1;
        }
        memcpy(name, a + 2, len);
        name[len] = '\0';
        char *value = eq != NULL ? eq + 1 : NULL;
        if (value == NULL && strcmp(name, "auto") != 0) {
            if (i + 1 == argc) {
                fprintf(stderr, "%s: --%s: a value is missing\n", prog, name);
                return 1;
            }
            value = argv[++i];
        }
        int r = flag(o, name, value);
        if (r == -2)
            return 1;
        if (r <= 0) {
            fprintf(stderr, "%s: --%s%s%s: %s\n", prog, name, value != NULL ? " " : "",
                    value != NULL ? value : "", r == 0 ? "unknown flag" : "bad value");
            return 1;
        }
    }
    if (o->circuits.ncircuits == 0 || o->listen_addr[0] == '\0') {
        fprintf(stderr, "%s: --circuit and --listen are required (see --help)\n", prog);
        return 1;
    }
    for (unsigned i = 0; i < o->nwitness; i++)
        if (queue_circuit_zkey(&o->circuits, o->witness[i].name) == NULL) {
            fprintf(stderr, "%s: --witness-cmd %s: no --circuit of that name\n", prog,
                    o->witness[i].name);
            return 1;
        }
    cli_engine_options_apply(&o->engine, &o->cfg);
    return 0;
}

void serve_options_free(serve_options *o)
{
    for (unsigned i = 0; i < o->nwitness; i++)
        free(o->witness[i].line);
    o->nwitness = 0;
}

const serve_witness_cmd *serve_witness_of(const serve_options *o, const char *name)
{
    for (unsigned i = 0; i < o->nwitness; i++)
        if (strcmp(o->witness[i].name, name) == 0)
            return &o->witness[i];
    return NULL;
}

int serve_token_read(const char *path, char *token, size_t cap)
{
    const char *bad = NULL;
    int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    ssize_t n = -1;
    if (fd < 0 || fstat(fd, &st) != 0)
        bad = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        bad = "not a regular file";
    else if ((st.st_mode & 077) != 0)
        bad = "group or others may read it (chmod 600)";
    else if ((n = read(fd, token, cap - 1)) < 0)
        bad = strerror(errno);
    if (fd >= 0)
        close(fd);
    if (bad == NULL) {
        token[n] = '\0';
        token[strcspn(token, "\r\n")] = '\0';
        size_t len = strlen(token);
        for (size_t i = 0; i < len && bad == NULL; i++)
            if (token[i] < 0x21 || token[i] > 0x7e)
                bad = "the token holds a space or a character outside printable ASCII";
        if (bad == NULL && (len == 0 || len > ZKPIPE_HTTP_TOKEN_MAX))
            bad = "the first line is empty or longer than 256 characters";
    }
    if (bad != NULL) {
        fprintf(stderr, "%s: --token-file %s: %s\n", prog, path, bad);
        memset(token, 0, cap);
        return 0;
    }
    return 1;
}
