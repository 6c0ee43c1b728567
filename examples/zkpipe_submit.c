/* zkpipe-submit: adds one job per witness to a fleet's queue (zkpipe-pipeline --queue, see
 * queue_node.h) and waits for their results.
 *
 *   zkpipe-submit redis://[USER@]HOST:PORT/STREAM --zkey FILE --out DIR [--group NAME]
 *                 [--redis-password-file FILE] [--insecure-no-auth] [--timeout-s N] [--json]
 *                 WTNS...
 *
 * (or unix:///PATH?stream=STREAM). Credentials as a node's (queue_auth.h): the password from
 * --redis-password-file, the URL or $ZKPIPE_REDIS_PASSWORD, a remote Redis refused without one
 * unless --insecure-no-auth; refused credentials end it at once (exit 1, one line).
 *
 * Each job is a stream entry {id: the witness file's name without ".wtns", zkey, wtns, out: the
 * paths made absolute, sub: a token of this submission}. The results are read from
 * STREAM:results from where that stream stood before the first job was added; a job is settled
 * by the first result that carries this submission's token and its id (a job proved twice, by a
 * node taken over too early, has two: the second is counted as a duplicate, not as a job). One
 * line on stderr per job that failed or had no result in time. Redis lost meanwhile: retried
 * with backoff until the timeout. Exits 0 only when every job proved; 1 otherwise; 2 for bad
 * arguments. */
#define _DEFAULT_SOURCE /* realpath */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "queue_auth.h"
#include "queue_options.h"
#include "queue_redis.h"

static const char prog[] = "zkpipe-submit";

typedef struct job {
    const char *wtns;
    char id[256];
    char path[PATH_MAX];
    int settled, ok;
} job;

static void usage(FILE *f)
{
    fprintf(f, "usage: zkpipe-submit redis://[USER@]HOST:PORT/STREAM --zkey FILE --out DIR "
               "[options] WTNS...\n"
               "       (or unix:///PATH?stream=STREAM: a Unix socket)\n"
               "  --zkey FILE      the zkey every job proves with (a path every node can read)\n"
               "  --out DIR        where the nodes write ID.proof.json and ID.public.json\n"
               "  --group NAME     the nodes' consumer group (default zkpipe)\n"
               "  --redis-password-file FILE  the Redis password: FILE's first line (chmod 600;\n"
               "                   else $ZKPIPE_REDIS_PASSWORD)\n"
               "  --insecure-no-auth  reach a Redis not on this machine without a password\n"
               "  --timeout-s N    give up on results after N s (default 3600)\n"
               "  --json           last stdout line: one JSON object with the counts\n"
               "  --help           this text\n");
}

/* `p` made absolute (links resolved when it exists), for nodes whose working folder differs. */
static int absolute(char *out, size_t cap, const char *p)
{
    if (realpath(p, out) != NULL)
        return 1;
    char cwd[PATH_MAX];
    if (p[0] == '/')
        return snprintf(out, cap, "%s", p) < (int)cap;
    if (getcwd(cwd, sizeof cwd) == NULL)
        return 0;
    int n = snprintf(out, cap, "%s/%s", cwd, p);
    return n > 0 && (size_t)n < cap;
}

static int cmp_id(const void *a, const void *b)
{
    return strcmp(((const job *)a)->id, ((const job *)b)->id);
}

/* The group, created when missing, as the nodes do. */
static int create_group(queue_link *l, void *ctx)
{
    const char **g = ctx; /* {stream, group} */
    redisReply *r = queue_group_create(l, g[0], g[1]);
    if (r == NULL)
        return -1;
    freeReplyObject(r);
    return 0;
}

/* A field of a stream entry's field-value array, or NULL. */
static const redisReply *field(const redisReply *f, const char *name)
{
    for (size_t i = 0; f->type == REDIS_REPLY_ARRAY && i + 1 < f->elements; i += 2)
        if (f->element[i]->type == REDIS_REPLY_STRING && strcmp(f->element[i]->str, name) == 0 &&
            f->element[i + 1]->type == REDIS_REPLY_STRING)
            return f->element[i + 1];
    return NULL;
}

/* Waits until the link may try again or the deadline; 0 once past the deadline or when the
 * server refused the credentials. */
static int backoff(const queue_link *l, uint64_t deadline)
{
    uint64_t ms = queue_link_wait_ms(l);
    if (queue_now_ns() >= deadline || queue_link_refused())
        return 0;
    ms = ms < 10 ? 10 : ms > 500 ? 500 : ms;
    struct timespec ts = {0, (long)ms * 1000000L};
    nanosleep(&ts, NULL);
    return 1;
}

int main(int argc, char **argv)
{
    static const struct option flags[] = {
        {"zkey", required_argument, NULL, 'z'},
        {"out", required_argument, NULL, 'o'},
        {"group", required_argument, NULL, 'g'},
        {"redis-password-file", required_argument, NULL, 'p'},
        {"insecure-no-auth", no_argument, NULL, 'I'},
        {"timeout-s", required_argument, NULL, 't'},
        {"json", no_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *zkey = NULL, *out = NULL, *group = "zkpipe", *password_file = NULL;
    unsigned long timeout_s = 3600;
    int json = 0, insecure_no_auth = 0, flag;
    opterr = 0;
    while ((flag = getopt_long(argc, argv, "", flags, NULL)) != -1) {
        char *end;
        switch (flag) {
        case 'z':
            zkey = optarg;
            break;
        case 'o':
            out = optarg;
            break;
        case 'g':
            group = optarg;
            break;
        case 'p':
            password_file = optarg;
            break;
        case 'I':
            insecure_no_auth = 1;
            break;
        case 't':
            errno = 0;
            timeout_s = strtoul(optarg, &end, 10);
            if (*optarg < '0' || *optarg > '9' || *end != '\0' || errno != 0 || timeout_s == 0 ||
                timeout_s > 86400 * 30) {
                fprintf(stderr, "%s: --timeout-s: a number of seconds, 1 to 2592000\n", prog);
                return 2;
            }
            break;
        case 'J':
            json = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    queue_addr addr;
    char why[160];
    if (argc - optind < 2 || zkey == NULL || out == NULL || group[0] == '\0') {
        usage(stderr);
        return 2;
    }
    int parsed = queue_addr_parse(&addr, argv[optind], why, sizeof why);
    queue_auth_hide(argv[optind], prog, "the URL"); /* the line below shows it */
    if (!parsed) {
        fprintf(stderr, "%s: %s: %s\n", prog, argv[optind], why);
        return 2;
    }
    if (!queue_auth_finish(&addr, password_file, insecure_no_auth, prog))
        return 2;
    size_t njobs = (size_t)(argc - optind - 1);
    char zkey_abs[PATH_MAX], out_abs[PATH_MAX];
    struct stat st;
    if (stat(out, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: --out %s: not a folder\n", prog, out);
        return 1;
    }
    if (!absolute(zkey_abs, sizeof zkey_abs, zkey) || !absolute(out_abs, sizeof out_abs, out)) {
        fprintf(stderr, "%s: a path too long\n", prog);
        return 1;
    }
    job *jobs = calloc(njobs, sizeof *jobs);
    if (jobs == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }
    for (size_t i = 0; i < njobs; i++) {
        job *j = &jobs[i];
        j->wtns = argv[optind + 1 + i];
        const char *base = strrchr(j->wtns, '/');
        base = base != NULL ? base + 1 : j->wtns;
        size_t len = strlen(base);
        if (len > 5 && strcmp(base + len - 5, ".wtns") == 0)
            len -= 5;
        snprintf(j->id, sizeof j->id, "%.*s", (int)len, base);
        if (len >= sizeof j->id || !queue_name_ok(j->id) ||
            !absolute(j->path, sizeof j->path, j->wtns)) {
            fprintf(stderr, "%s: %s: its name cannot name a job and its outputs\n", prog, j->wtns);
            free(jobs);
            return 1;
        }
    }
    qsort(jobs, njobs, sizeof *jobs, cmp_id);
    for (size_t i = 1; i < njobs; i++)
        if (strcmp(jobs[i - 1].id, jobs[i].id) == 0) {
            fprintf(stderr,
                    "%s: %s and %s: one id, %s, for two jobs (their outputs would be one)\n", prog,
                    jobs[i - 1].wtns, jobs[i].wtns, jobs[i].id);
            free(jobs);
            return 1;
        }

    char results[300], sub[300], host[128] = "host", last[64] = "0-0";
    snprintf(results, sizeof results, "%s:results", addr.stream);
    gethostname(host, sizeof host - 1);
    uint64_t t0 = queue_now_ns(), deadline = t0 + (uint64_t)timeout_s * 1000000000u;
    snprintf(sub, sizeof sub, "%s-%ld-%llu", host, (long)getpid(), (unsigned long long)t0);
    const char *names[2] = {addr.stream, group};
    queue_link l;
    queue_link_init(&l, &addr, prog, 5000, "waiting for the results");
    l.setup = create_group;
    l.setup_ctx = names;

    /* Where the results stream stands before the first job: every result after it is new. */
    int ok = 1;
    for (redisReply *r = NULL; ok;) {
        r = queue_link_cmdv(&l, "XREVRANGE", results, "+", "-", "COUNT", "1", NULL);
        if (r != NULL) {
            if (r->type == REDIS_REPLY_ARRAY && r->elements == 1 &&
                r->element[0]->type == REDIS_REPLY_ARRAY && r->element[0]->elements == 2)
                snprintf(last, sizeof last, "%s", r->element[0]->element[0]->str);
            freeReplyObject(r);
            break;
        }
        ok = backoff(&l, deadline);
    }
    for (size_t i = 0; ok && i < njobs;) {
        redisReply *r =
            queue_link_cmdv(&l, "XADD", addr.stream, "*", "id", jobs[i].id, "zkey", zkey_abs,
                            "wtns", jobs[i].path, "out", out_abs, "sub", sub, NULL);
        if (r != NULL && r->type == REDIS_REPLY_ERROR) {
            fprintf(stderr, "%s: %s: Redis refuses the job: %s\n", prog, jobs[i].wtns, r->str);
            ok = 0;
        } else if (r != NULL) {
            i++;
        } else {
            ok = backoff(&l, deadline);
        }
        if (r != NULL)
            freeReplyObject(r);
    }
    size_t settled = 0, proved = 0, duplicates = 0;
    while (ok && settled < njobs) {
        redisReply *r = queue_link_cmdv(&l, "XREAD", "COUNT", "512", "BLOCK", "1000", "STREAMS",
                                        results, last, NULL);
        if (r == NULL) {
            ok = backoff(&l, deadline);
            continue;
        }
        /* [[results, [[id, fields], ...]]], or nil after the block */
        for (size_t s = 0; r->type == REDIS_REPLY_ARRAY && s < r->elements; s++) {
            const redisReply *e = r->element[s];
            if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 ||
                e->element[1]->type != REDIS_REPLY_ARRAY)
                continue;
            for (size_t i = 0; i < e->element[1]->elements; i++) {
                const redisReply *en = e->element[1]->element[i];
                if (en->type != REDIS_REPLY_ARRAY || en->elements != 2 ||
                    en->element[0]->type != REDIS_REPLY_STRING)
                    continue;
                snprintf(last, sizeof last, "%s", en->element[0]->str);
                const redisReply *f = en->element[1], *s_ = field(f, "sub"), *id = field(f, "id");
                if (s_ == NULL || id == NULL || strcmp(s_->str, sub) != 0)
                    continue;
                job key;
                snprintf(key.id, sizeof key.id, "%s", id->str);
                job *j = bsearch(&key, jobs, njobs, sizeof *jobs, cmp_id);
                if (j == NULL)
                    continue;
                if (j->settled) {
                    duplicates++;
                    continue;
                }
                const redisReply *status = field(f, "status"), *msg = field(f, "message"),
                                 *node = field(f, "node");
                j->settled = 1;
                settled++;
                j->ok = status != NULL && strcmp(status->str, "ok") == 0;
                proved += j->ok;
                if (!j->ok)
                    fprintf(stderr, "%s: %s: %s (%s, node %s)\n", prog, j->wtns,
                            msg != NULL ? msg->str : "no message",
                            status != NULL ? status->str : "no status",
                            node != NULL ? node->str : "?");
            }
        }
        if (r->type == REDIS_REPLY_ERROR) {
            fprintf(stderr, "%s: %s: %s\n", prog, results, r->str);
            ok = 0;
        }
        freeReplyObject(r);
        if (queue_now_ns() >= deadline)
            ok = 0;
    }
    queue_link_close(&l);
    for (size_t i = 0; i < njobs && !queue_link_refused(); i++)
        if (!jobs[i].settled)
            fprintf(stderr, "%s: %s: no result after %lu s\n", prog, jobs[i].wtns, timeout_s);
    double elapsed = 1e-9 * (double)(queue_now_ns() - t0);
    printf("%zu jobs: %zu proved, %zu failed, %zu without a result, %zu duplicate results, "
           "%.3f s\n",
           njobs, proved, settled - proved, njobs - settled, duplicates, elapsed);
    if (json)
        printf("{\"jobs\":%zu,\"proved\":%zu,\"failed\":%zu,\"missing\":%zu,\"duplicates\":%zu,"
               "\"elapsed_s\":%.6f}\n",
               njobs, proved, settled - proved, njobs - settled, duplicates, elapsed);
    free(jobs);
    return proved == njobs ? 0 : 1;
}
