/* zkpipe-submit: adds one job per witness to a fleet's queue (zkpipe-pipeline --queue, see
 * queue_node.h) and waits for their results.
 *
 *   zkpipe-submit redis://[USER@]HOST:PORT/STREAM --circuit NAME [--out DIR] [--input-names]
 *                 [--max-wtns-mib N] [--group NAME] [--redis-password-file FILE]
 *                 [--insecure-no-auth] [--timeout-s N] [--json] WTNS...
 *
 * (or unix:///PATH?stream=STREAM). Credentials as a node's (queue_auth.h): the password from
 * --redis-password-file, the URL or $ZKPIPE_REDIS_PASSWORD, a remote Redis refused without one
 * unless --insecure-no-auth; refused credentials end it at once (exit 1, one line).
 *
 * Each job is a stream entry {id: the witness file's name without ".wtns", circuit: NAME (one
 * of the nodes' --circuit), wtns: the witness file's bytes, sub: a token of this submission}
 * (queue_job.h); with --input-names, each WTNS is a name beneath the nodes' --inputs instead,
 * sent as input. Nothing in a job names a path of the nodes' hosts. With --out DIR, the proof
 * and public signals each result carries are written into DIR (ID.proof.json,
 * ID.public.json), this host's folder. The results are read from
 * STREAM:results from where that stream stood before the first job was added; a job is settled
 * by the first result that carries this submission's token and its id (a job proved twice, by a
 * node taken over too early, has two: the second is counted as a duplicate, not as a job). One
 * line on stderr per job that failed or had no result in time. Redis lost meanwhile: retried
 * with backoff until the timeout. Exits 0 only when every job proved; 1 otherwise; 2 for bad
 * arguments. */
#define _DEFAULT_SOURCE /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "queue_auth.h"
#include "cli_files.h"
#include "queue_files.h"
#include "queue_job.h"
#include "queue_options.h"
#include "queue_redis.h"

static const char prog[] = "zkpipe-submit";

typedef struct job {
    const char *wtns; /* the file, or with --input-names its name beneath the nodes' inputs */
    char id[QUEUE_ID_MAX + 1];
    int settled, ok;
} job;

static void usage(FILE *f)
{
    fprintf(f, "usage: zkpipe-submit redis://[USER@]HOST:PORT/STREAM --circuit NAME [options] "
               "WTNS...\n"
               "       (or unix:///PATH?stream=STREAM: a Unix socket)\n"
               "  --circuit NAME   the circuit every job proves (one of the nodes' --circuit)\n"
               "  --out DIR        write ID.proof.json and ID.public.json from the results here\n"
               "  --input-names    each WTNS is a name beneath the nodes' --inputs, not a file\n"
               "                   whose bytes go in the job\n"
               "  --max-wtns-mib N the largest witness sent in a job (default 64, as the nodes)\n"
               "  --group NAME     the nodes' consumer group (default zkpipe)\n"
               "  --redis-password-file FILE  the Redis password: FILE's first line (chmod 600;\n"
               "                   else $ZKPIPE_REDIS_PASSWORD)\n"
               "  --insecure-no-auth  reach a Redis not on this machine without a password\n"
               "  --timeout-s N    give up on results after N s (default 3600)\n"
               "  --json           last stdout line: one JSON object with the counts\n"
               "  --help           this text\n");
}

/* A result's proof and public signals, into the --out folder. */
static void write_outputs(int out_fd, const job *j, const redisReply *proof, const redisReply *pub,
                          const char *tag)
{
    char names[2][QUEUE_ID_MAX + 16], why[512];
    snprintf(names[0], sizeof names[0], "%s.public.json", j->id);
    snprintf(names[1], sizeof names[1], "%s.proof.json", j->id);
    const char *nv[2] = {names[0], names[1]}, *dv[2] = {pub->str, proof->str};
    size_t lv[2] = {pub->len, proof->len};
    if (queue_output_write(out_fd, nv, dv, lv, 2, tag, why, sizeof why) != 0)
        fprintf(stderr, "%s: %s: %s\n", prog, j->wtns, why);
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
        {"circuit", required_argument, NULL, 'c'},
        {"out", required_argument, NULL, 'o'},
        {"input-names", no_argument, NULL, 'i'},
        {"max-wtns-mib", required_argument, NULL, 'm'},
        {"group", required_argument, NULL, 'g'},
        {"redis-password-file", required_argument, NULL, 'p'},
        {"insecure-no-auth", no_argument, NULL, 'I'},
        {"timeout-s", required_argument, NULL, 't'},
        {"json", no_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *circuit = NULL, *out = NULL, *group = "zkpipe", *password_file = NULL;
    unsigned long timeout_s = 3600, max_mib = 64;
    int json = 0, by_name = 0, insecure_no_auth = 0, flag;
    opterr = 0;
    while ((flag = getopt_long(argc, argv, "", flags, NULL)) != -1) {
        char *end;
        switch (flag) {
        case 'c':
            circuit = optarg;
            break;
        case 'i':
            by_name = 1;
            break;
        case 'm':
            errno = 0;
            max_mib = strtoul(optarg, &end, 10);
            if (*optarg < '0' || *optarg > '9' || *end != '\0' || errno != 0 || max_mib == 0 ||
                max_mib > 4096) {
                fprintf(stderr, "%s: --max-wtns-mib: a number from 1 to 4096\n", prog);
                return 2;
            }
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
    if (argc - optind < 2 || circuit == NULL || group[0] == '\0') {
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
    size_t njobs = (size_t)(argc - optind - 1), max_wtns = (size_t)max_mib << 20;
    int out_fd = out == NULL ? -1 : open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (out != NULL && out_fd < 0) {
        fprintf(stderr, "%s: --out %s: %s\n", prog, out, strerror(errno));
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
        /* The job as the nodes will check it (its witness's bytes: once read). */
        queue_str f[6] = {{"id", 2},
                          {base, len},
                          {"circuit", 7},
                          {circuit, strlen(circuit)},
                          {by_name ? "input" : "wtns", by_name ? 5 : 4},
                          {by_name ? j->wtns : "w", by_name ? strlen(j->wtns) : 1}};
        queue_job check;
        char bad[512];
        if (!queue_job_parse(&check, f, 6, max_wtns, bad, sizeof bad)) {
            fprintf(stderr, "%s: %s: not a job: %s\n", prog, j->wtns, bad);
            free(jobs);
            return 1;
        }
        memcpy(j->id, check.id, sizeof j->id);
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
    char *bytes = NULL;
    size_t nbytes = 0;
    for (size_t i = 0; ok && i < njobs;) {
        if (!by_name && bytes == NULL &&
            (bytes = cli_read_file(jobs[i].wtns, max_wtns, &nbytes)) == NULL) {
            fprintf(stderr, "%s: %s: %s\n", prog, jobs[i].wtns,
                    errno == EFBIG ? "larger than --max-wtns-mib" : strerror(errno));
            ok = 0;
            break;
        }
        const char *argv_[12] = {"XADD",
                                 addr.stream,
                                 "*",
                                 "id",
                                 jobs[i].id,
                                 "circuit",
                                 circuit,
                                 by_name ? "input" : "wtns",
                                 by_name ? jobs[i].wtns : bytes,
                                 "sub",
                                 sub};
        size_t lens[12];
        for (int k = 0; k < 11; k++)
            lens[k] = strlen(argv_[k]);
        if (!by_name)
            lens[8] = nbytes;
        redisReply *r = queue_link_cmd(&l, 11, argv_, lens);
        if (r != NULL && r->type == REDIS_REPLY_ERROR) {
            fprintf(stderr, "%s: %s: Redis refuses the job: %s\n", prog, jobs[i].wtns, r->str);
            ok = 0;
        } else if (r != NULL) {
            i++;
            free(bytes);
            bytes = NULL;
        } else {
            ok = backoff(&l, deadline);
        }
        if (r != NULL)
            freeReplyObject(r);
    }
    free(bytes);
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
                const redisReply *proof = field(f, "proof"), *pub = field(f, "public");
                if (j->ok && out_fd >= 0 && proof != NULL && pub != NULL)
                    write_outputs(out_fd, j, proof, pub, sub);
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
    if (out_fd >= 0)
        close(out_fd);
    return proved == njobs ? 0 : 1;
}
