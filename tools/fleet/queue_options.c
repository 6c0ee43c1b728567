/* A queue node's flags and the queue's address (queue_options.h). */
#include "queue_options.h"

#include <string.h>

#include "cli_args.h"
#include "queue_auth.h"
#include "queue_job.h"

void queue_options_init(queue_options *q)
{
    memset(q, 0, sizeof *q);
    q->prog = "zkpipe-pipeline";
    q->group = "zkpipe";
    q->claim_idle_ms = 30000;
    q->max_deliveries = 3;
    q->max_wtns_mib = 64;
}

void queue_usage(FILE *f)
{
    fprintf(f, "       zkpipe-pipeline --queue redis://[USER@]HOST:PORT/STREAM [queue options] "
               "[options]\n"
               "  --queue URL          a node of a fleet: prove the jobs of this Redis stream\n"
               "                       (or unix:///PATH?stream=STREAM: a Unix socket)\n"
               "  --redis-password-file FILE  the Redis password: FILE's first line (chmod 600;\n"
               "                       else $ZKPIPE_REDIS_PASSWORD; sent with AUTH)\n"
               "  --insecure-no-auth   reach a Redis not on this machine without a password\n"
               "  --group NAME         the consumer group the nodes share (default zkpipe)\n"
               "  --consumer NAME      this node's name in the group (default HOSTNAME-PID)\n"
               "  --claim-idle-ms N    take over jobs another node has held this long without\n"
               "                       renewing them (it died or lost Redis; default 30000)\n"
               "  --max-deliveries N   a job delivered N times without an outcome goes to\n"
               "                       STREAM:dead (default 3)\n"
               "  --exit-when-idle-ms N  exit once nothing was held or pending in the group for\n"
               "                       N ms (default 0: run until SIGTERM)\n"
               "  --circuit NAME=FILE  a circuit jobs may name (circuit NAME), proved with the\n"
               "                       zkey FILE (repeatable; one at least)\n"
               "  --inputs DIR         jobs may name witness files beneath DIR (input NAME);\n"
               "                       without it, jobs carry their witness (wtns)\n"
               "  --max-wtns-mib N     the largest witness a job may carry or name (default 64)\n"
               "  --out DIR            also write ID.proof.json and ID.public.json into DIR\n"
               "                       (results always come back in STREAM:results)\n");
}

/* The percent-decoded `s` (len bytes) into out (cap bytes with its NUL): 1, or 0 for a bad
 * escape, a %00 or no room. */
static int percent_decode(char *out, size_t cap, const char *s, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned c = (unsigned char)s[i];
        if (c == '%') {
            unsigned v = 0;
            for (int k = 1; k <= 2; k++) {
                char h = i + (size_t)k < len ? s[i + (size_t)k] : '\0';
                const char *digits = "0123456789abcdef0123456789ABCDEF", *d;
                if (h == '\0' || (d = strchr(digits, h)) == NULL)
                    return 0;
                v = v * 16 + (unsigned)((d - digits) % 16);
            }
            if (v == 0)
                return 0;
            c = v;
            i += 2;
        }
        if (o + 1 >= cap)
            return 0;
        out[o++] = (char)c;
    }
    out[o] = '\0';
    return 1;
}

/* USER[:PASSWORD] (len bytes before the '@') into a: 1, or 0 with a line in why. */
static int parse_userinfo(queue_addr *a, const char *u, size_t len, char *why, size_t cap)
{
    const char *colon = memchr(u, ':', len);
    size_t ulen = colon != NULL ? (size_t)(colon - u) : len;
    if (!percent_decode(a->user, sizeof a->user, u, ulen)) {
        snprintf(why, cap, "a bad user name (too long, or a bad %%XX escape)");
        return 0;
    }
    if (colon != NULL) {
        if (len - ulen - 1 == 0 ||
            !percent_decode(a->password, sizeof a->password, colon + 1, len - ulen - 1)) {
            memset(a->password, 0, sizeof a->password);
            snprintf(why, cap, "a bad password (empty, longer than %d bytes, or a bad %%XX escape)",
                     QUEUE_PASSWORD_MAX);
            return 0;
        }
        a->has_password = 1;
    }
    for (const char *c = a->user; *c != '\0'; c++)
        if ((unsigned char)*c <= ' ' || *c == 0x7f) {
            snprintf(why, cap, "a space or a control character in the user name");
            return 0;
        }
    return 1;
}

/* Whether `s` may name a stream: 1, or 0 with a line in why. */
static int stream_ok(queue_addr *a, const char *s, char *why, size_t cap)
{
    size_t slen = strlen(s);
    if (slen == 0) {
        snprintf(why, cap, "no stream name");
        return 0;
    }
    for (size_t i = 0; i < slen; i++)
        if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f) {
            snprintf(why, cap, "a space or a control character in the stream name");
            return 0;
        }
    if (slen >= sizeof a->stream - 16) { /* room for ":results", ":dead" */
        snprintf(why, cap, "the stream name is too long");
        return 0;
    }
    memcpy(a->stream, s, slen + 1);
    return 1;
}

/* HOST[:PORT] (from h to end) into a: 1, or 0 with a line in why. */
static int parse_host(queue_addr *a, const char *h, const char *end, char *why, size_t cap)
{
    const char *hend = end, *colon = NULL;
    if (*h == '[') { /* [IPv6]:PORT */
        const char *close = memchr(h, ']', (size_t)(end - h));
        if (close == NULL) {
            snprintf(why, cap, "an IPv6 address without its closing ']'");
            return 0;
        }
        colon = close + 1 < end ? close + 1 : NULL;
        if (colon != NULL && *colon != ':') {
            snprintf(why, cap, "something other than :PORT after ']'");
            return 0;
        }
        h++;
        hend = close;
    } else {
        colon = memchr(h, ':', (size_t)(end - h));
        if (colon != NULL)
            hend = colon;
    }
    size_t hlen = (size_t)(hend - h);
    if (hlen == 0 || hlen >= sizeof a->host) {
        snprintf(why, cap, hlen == 0 ? "no host" : "the host is too long");
        return 0;
    }
    memcpy(a->host, h, hlen);
    if (colon != NULL) {
        char port[8];
        size_t plen = (size_t)(end - colon - 1);
        unsigned long p;
        if (plen == 0 || plen >= sizeof port) {
            snprintf(why, cap, "a bad port");
            return 0;
        }
        memcpy(port, colon + 1, plen);
        port[plen] = '\0';
        if (!cli_parse_ulong(port, 1, 65535, &p)) {
            snprintf(why, cap, "a bad port");
            return 0;
        }
        a->port = (int)p;
    }
    return 1;
}

int queue_addr_parse(queue_addr *a, const char *url, char *why, size_t cap)
{
    static const char redis[] = "redis://", unix_[] = "unix://", query[] = "?stream=";
    memset(a, 0, sizeof *a);
    a->port = 6379;
    int is_unix = url != NULL && strncmp(url, unix_, sizeof unix_ - 1) == 0;
    if (url == NULL || (!is_unix && strncmp(url, redis, sizeof redis - 1) != 0)) {
        snprintf(why, cap, "%s",
                 url != NULL && strncmp(url, "rediss://", 9) == 0
                     ? "no TLS in this Redis client: reach the server through stunnel (README)"
                     : "not a redis://HOST:PORT/STREAM or unix:///PATH?stream=STREAM address");
        return 0;
    }
    const char *h = url + (is_unix ? sizeof unix_ : sizeof redis) - 1, *slash = strchr(h, '/');
    if (slash == NULL) {
        snprintf(why, cap, is_unix ? "no /PATH of a socket" : "no /STREAM after the host");
        return 0;
    }
    /* The last '@' before the path ends the userinfo (RFC 3986 wants it escaped inside). */
    const char *at = NULL;
    for (const char *c = h; c < slash; c++)
        if (*c == '@')
            at = c;
    if (at != NULL && !parse_userinfo(a, h, (size_t)(at - h), why, cap)) {
        memset(a, 0, sizeof *a);
        return 0;
    }
    h = at != NULL ? at + 1 : h;
    if (is_unix) {
        const char *q = strstr(slash, query);
        size_t plen = q != NULL ? (size_t)(q - slash) : strlen(slash);
        if (h != slash || q == NULL || plen >= sizeof a->path || memchr(slash, '?', plen)) {
            snprintf(why, cap, "%s",
                     h != slash  ? "a host in a unix:// address (unix:///PATH: three slashes)"
                     : q == NULL ? "no ?stream=STREAM after the socket's path"
                                 : "the socket's path is too long");
            memset(a, 0, sizeof *a);
            return 0;
        }
        memcpy(a->path, slash, plen);
        h = q + sizeof query - 1;
    } else if (!parse_host(a, h, slash, why, cap)) {
        memset(a, 0, sizeof *a);
        return 0;
    } else {
        h = slash + 1;
    }
    if (!stream_ok(a, h, why, cap)) {
        memset(a, 0, sizeof *a);
        return 0;
    }
    return 1;
}

const char *queue_addr_where(const queue_addr *a, char *buf, size_t cap)
{
    if (a->path[0] != '\0')
        snprintf(buf, cap, "%s", a->path);
    else
        snprintf(buf, cap, strchr(a->host, ':') != NULL ? "[%s]:%d" : "%s:%d", a->host, a->port);
    return buf;
}

const char *queue_addr_name(const queue_addr *a, char *buf, size_t cap)
{
    char where[300];
    queue_addr_where(a, where, sizeof where);
    snprintf(buf, cap, a->path[0] != '\0' ? "unix://%s%s%s?stream=%s" : "redis://%s%s%s/%s",
             a->user, a->user[0] != '\0' ? "@" : "", where, a->stream);
    return buf;
}

const char *queue_circuit_zkey(const queue_options *q, const char *name)
{
    for (unsigned i = 0; i < q->ncircuits; i++)
        if (strcmp(q->circuits[i].name, name) == 0)
            return q->circuits[i].zkey;
    return NULL;
}

/* --circuit NAME=FILE: 1, or -1 with a line on stderr. */
static int circuit_flag(queue_options *q, const char *value)
{
    const char *eq = value != NULL ? strchr(value, '=') : NULL;
    char buf[80];
    queue_job probe;
    /* The name is checked as a job's would be: a circuit a job cannot name is an error. */
    queue_str f[6] = {{"id", 2}, {"x", 1}, {"circuit", 7}, {value, 0}, {"wtns", 4}, {"x", 1}};
    if (eq != NULL)
        f[3].len = (size_t)(eq - value);
    if (eq == NULL || eq[1] == '\0' || !queue_job_parse(&probe, f, 6, 1, buf, sizeof buf)) {
        fprintf(stderr,
                "%s: --circuit %s: NAME=FILE.zkey, NAME 1 to %d bytes of "
                "[A-Za-z0-9._-]\n",
                q->prog, value != NULL ? value : "", QUEUE_CIRCUIT_MAX);
        return -1;
    }
    if (queue_circuit_zkey(q, probe.circuit) != NULL || q->ncircuits == QUEUE_CIRCUITS_MAX) {
        fprintf(stderr, "%s: --circuit %s: %s\n", q->prog, value,
                q->ncircuits == QUEUE_CIRCUITS_MAX ? "too many circuits" : "that name is taken");
        return -1;
    }
    memcpy(q->circuits[q->ncircuits].name, probe.circuit, sizeof probe.circuit);
    q->circuits[q->ncircuits++].zkey = eq + 1;
    return 1;
}

int queue_flag(queue_options *q, const char *name, char *value)
{
    char why[128];
    unsigned long *n = NULL, min = 1, max = 86400000UL;
    if (strcmp(name, "queue") == 0) {
        int ok = queue_addr_parse(&q->addr, value, why, sizeof why);
        queue_auth_hide(value, "zkpipe-pipeline", "--queue"); /* the line below shows it */
        if (!ok) {
            fprintf(stderr, "zkpipe-pipeline: --queue %s: %s\n", value, why);
            return -1;
        }
        q->url = value;
    } else if (strcmp(name, "redis-password-file") == 0) {
        q->password_file = value;
    } else if (strcmp(name, "insecure-no-auth") == 0) {
        q->insecure_no_auth = 1;
    } else if (strcmp(name, "group") == 0 || strcmp(name, "consumer") == 0) {
        if (value == NULL || value[0] == '\0' || strlen(value) > 200) {
            fprintf(stderr, "zkpipe-pipeline: --%s: 1 to 200 bytes\n", name);
            return -1;
        }
        if (name[0] == 'g')
            q->group = value;
        else
            q->consumer = value;
    } else if (strcmp(name, "circuit") == 0) {
        if (circuit_flag(q, value) < 0)
            return -1;
    } else if (strcmp(name, "inputs") == 0) {
        if (value == NULL || value[0] == '\0') {
            fprintf(stderr, "zkpipe-pipeline: --inputs: a folder\n");
            return -1;
        }
        q->inputs_dir = value;
    } else if (strcmp(name, "max-wtns-mib") == 0) {
        n = &q->max_wtns_mib;
        max = 4096;
    } else if (strcmp(name, "claim-idle-ms") == 0) {
        n = &q->claim_idle_ms;
        min = 100;
    } else if (strcmp(name, "exit-when-idle-ms") == 0) {
        n = &q->exit_when_idle_ms;
        min = 0;
    } else if (strcmp(name, "max-deliveries") == 0) {
        n = &q->max_deliveries;
        max = 1000;
    } else {
        return 0;
    }
    if (n != NULL && !cli_parse_ulong(value, min, max, n)) {
        fprintf(stderr, "zkpipe-pipeline: --%s: a number from %lu to %lu\n", name, min, max);
        return -1;
    }
    q->any = 1;
    return 1;
}
