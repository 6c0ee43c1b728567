/* A node of a proving fleet on a Redis stream (queue_node.h).
 *
 * Threads: the calling thread takes jobs (its own Redis link; XREADGROUP, XAUTOCLAIM), opens
 * their zkeys and submits them to the engine; a renewer thread (a link of its own) renews the
 * holds on the jobs held, whatever the taker is doing (a zkey can take seconds to open on a
 * loaded machine); a finisher thread (a third link) writes each ended job's outputs and its
 * result, and ACKs it; a signal thread turns SIGTERM and SIGINT into a stop; the engine's own
 * threads prove. The engine's done callback only hands the job to the finisher. */
#include "queue_node.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_engine.h"
#include "cli_files.h"
#include "cli_mapped.h"
#include "cli_zkey.h"
#include "queue_auth.h"
#include "queue_files.h"
#include "queue_job.h"
#include "queue_redis.h"
#include "zkpipe/zkpipe.h"

static const char prog[] = "zkpipe-pipeline";

/* Unused zkeys kept open for the next jobs that name them. */
#define KEYS_IDLE_MAX 4
/* The longest a read blocks on the server, so that a stop is never late. */
#define BLOCK_MAX_MS 500
/* Told to stop now, the node waits this long for its threads; one still blocked then (a read of
 * a slow file, a Redis command to a stopped server) is not waited for: the process exits. */
#define STOP_NOW_MS 300

/* Every state change of a job is this one script: XACK the job, then append an entry to each
 * further key (always, or only when the job was still pending: a job that another node has
 * finished meanwhile is not requeued or dead-lettered twice). A transition whose reply was lost
 * may run twice (sent again on a new connection, or run late by a server that was stopped):
 * its guard key, one per transition, set on the first run, makes the second do nothing, so a
 * delivery has one result. The entry's delivery count (STREAM:deliveries, queue_node.h) goes
 * with it: dropped, and carried to the fresh entry of a requeue. KEYS[1]: the jobs stream,
 * KEYS[2]: the guard, KEYS[3]: the delivery counts, KEYS[4..]: the streams to append to. ARGV:
 * group, entry, "always" or "pending", the guard's lifetime in ms, the deliveries a fresh entry
 * on the jobs stream has had, then per further key a count of strings and its field-value
 * strings. */
static const char transition_lua[] =
    "if not redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[4]) then return -1 end\n"
    "local acked = redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])\n"
    "if acked == 0 and ARGV[3] ~= 'always' then return 0 end\n"
    "redis.call('HDEL', KEYS[3], ARGV[2])\n"
    "local at = 6\n"
    "for i = 4, #KEYS do\n"
    "  local n = tonumber(ARGV[at]); at = at + 1\n"
    "  local f = {}\n"
    "  for j = 1, n do f[j] = ARGV[at]; at = at + 1 end\n"
    "  local id = redis.call('XADD', KEYS[i], '*', unpack(f))\n"
    "  if KEYS[i] == KEYS[1] and ARGV[5] ~= '0' then redis.call('HSET', KEYS[3], id, ARGV[5]) end\n"
    "end\n"
    "return acked\n";

/* How long a transition's guard key lives: far longer than a lost reply's command can wait to
 * run again (a retry comes within the backoff, a stopped server runs it when it resumes). */
#define GUARD_TTL_MS "600000"

/* Renews the hold on each listed entry that is still this consumer's (XCLAIM ... JUSTID, no
 * delivery counted): one that another node took over meanwhile stays that node's, so that two
 * nodes never pull a job back and forth. KEYS[1]: the jobs stream; ARGV: group, consumer, ids. */
static const char renew_lua[] =
    "local n = 0\n"
    "for i = 3, #ARGV do\n"
    "  local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)\n"
    "  if #p == 1 and p[1][2] == ARGV[2] then\n"
    "    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')\n"
    "    n = n + 1\n"
    "  end\n"
    "end\n"
    "return n\n";

/* What the finisher does with a job. */
typedef enum qjob_kind { JOB_ENGINE, JOB_FAILED, JOB_DEAD } qjob_kind;

typedef struct node node;

typedef struct qjob {
    node *node;
    struct qjob *next;          /* in the finisher's list */
    struct qjob *hprev, *hnext; /* in the held list */
    char entry[64];             /* the stream entry's id */
    queue_job f;                /* its fields, checked (f.wtns only during take) */
    const char *zkey;           /* the operator's zkey of f.circuit */
    int wtns_fd;                /* the witness the node holds (queue_input_open, _memfd), or -1 */
    size_t wtns_len;            /* its bytes */
    char wtns_path[32];         /* its name for the library: /proc/self/fd/N */
    uint64_t deliveries; /* of the job, this one included, the entries it was requeued from too */
    qjob_kind kind;
    const zkpipe_zkey_source *key; /* held from n->files until the job's end */
    size_t num_public;
    zkpipe_zkey_partition part;
    zkpipe_scalar *pub;
    uint64_t mark;   /* zkpipe_mapped_damage_mark() when taken */
    struct stat wst; /* the witness when taken (st_ino 0: could not be read) */
    zkpipe_job *job; /* set by the done callback */
    zkpipe_status status;
    char message[ZKPIPE_DETAIL_MAX + 256];
    double prove_s;
} qjob;

/* Counters of the node, under its lock. */
typedef struct qstats {
    uint64_t taken, proved, failed, requeued, dead, reclaimed, left_pending, handed_back;
    uint64_t held, peak_held;
} qstats;

struct node {
    const queue_options *q;
    queue_addr addr; /* q's, with its credentials (queue_auth_finish) */
    const char *stream, *group;
    char consumer[256];
    char results[300], dead[300], tries[300];
    int inputs_fd, out_fd; /* --inputs, --out, or -1 */
    zkpipe_engine *engine;
    zkpipe_engine_config cfg;
    const cli_observe *obs; /* its providers (the engine's, the queue's) render --metrics */
    uint64_t bound;         /* permits + capacity + prover_workers */
    cli_engine watch;

    pthread_mutex_t lock;
    pthread_cond_t wake_taker, wake_finisher, wake_renewer;
    qjob *held_head;             /* every job held */
    qjob *done_head, *done_tail; /* for the finisher */
    qstats s;
    int stop;          /* 1: take no more, finish; 2: stop now */
    int finisher_exit; /* the taker is done: the finisher leaves once its list is empty */
    int renewer_exit;  /* nothing is held any more (or stopping now): the renewer leaves */
    int signals_exit;
    pthread_cond_t wake_signals; /* signals_exit set */
    int json;                    /* --json: the summary's last line is a JSON object */
    double t0_s;                 /* when the node started taking (monotonic) */
    uint64_t connects;           /* the taker's Redis connections so far */
    int ended; /* the engine's last counters are in end, keys_end (it is being destroyed) */
    zkpipe_engine_counters end;
    zkpipe_key_cache_counters keys_end;
    int refused;              /* Redis refused the credentials: stopped, exit 1 */
    zkpipe_key_cache *cache;  /* the zkeys under the engine's budget */
    zkpipe_zkey_files *files; /* the zkeys open, by file */
    unsigned new_group;       /* the group was created anew while running */
    int metrics_failing;      /* the last --metrics write failed (its line printed) */
    uint64_t boot_ns;         /* the wall clock at start: with the consumer, names this process */
    uint64_t transitions;     /* sent so far, for their guards; under the lock */
};

static void wait_ms(node *n, pthread_cond_t *cv, uint64_t ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + (ms % 1000) * 1000000u;
    ts.tv_sec += (time_t)(ms / 1000 + ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    pthread_cond_timedwait(cv, &n->lock, &ts);
}

/* The line of a job whose input could not be read while it was mapped (cli_mapped.h). */
static void damaged_line(char *buf, size_t cap, const char *path)
{
    snprintf(buf, cap,
             "%.120s: I/O error: the file shrank or its storage failed while this node read it (an "
             "input must stay unchanged while its jobs run)",
             path);
}

/* ---- Jobs ---- */

/* Holds the source of the job's zkey (n->files, which opens the file when it is new or
 * changed) and reads its count of public signals; a line in `why` on error. */
static zkpipe_status key_get(node *n, qjob *j, char *why, size_t cap)
{
    zkpipe_zkey_info info;
    zkpipe_status st = zkpipe_zkey_files_get(n->files, j->zkey, &j->key, why, cap);
    if (st == ZKPIPE_OK && (st = zkpipe_zkey_source_info(&info, j->key)) == ZKPIPE_OK)
        j->num_public = info.num_public;
    return st;
}

static void job_free(qjob *j)
{
    if (j->wtns_fd >= 0)
        close(j->wtns_fd);
    free(j->pub);
    free(j);
}

/* Hands a job to the finisher. Under the lock. */
static void push_done(node *n, qjob *j)
{
    j->next = NULL;
    if (n->done_tail != NULL)
        n->done_tail->next = j;
    else
        n->done_head = j;
    n->done_tail = j;
    pthread_cond_signal(&n->wake_finisher);
}

/* The engine's done callback (on an engine thread): to the finisher. */
static void job_done(zkpipe_job *job, void *ctx)
{
    qjob *j = ctx;
    node *n = j->node;
    pthread_mutex_lock(&n->lock);
    j->job = job;
    push_done(n, j);
    pthread_mutex_unlock(&n->lock);
}

static int held_find(const node *n, const char *entry)
{
    for (const qjob *j = n->held_head; j != NULL; j = j->hnext)
        if (strcmp(j->entry, entry) == 0)
            return 1;
    return 0;
}

/* Errors a later try or another node may not have. */
static int retryable(zkpipe_status st)
{
    switch (st) {
    case ZKPIPE_EIO:
    case ZKPIPE_ENOMEM:
    case ZKPIPE_EDEVICE:
    case ZKPIPE_ENODEVICE:
    case ZKPIPE_ETHREAD:
    case ZKPIPE_ETOOBIG:
    case ZKPIPE_EVERIFY:
    case ZKPIPE_ECANCELED:
    case ZKPIPE_ECLOSED:
        return 1;
    default:
        return 0;
    }
}

static void fail_job(qjob *j, qjob_kind kind, zkpipe_status st, const char *fmt, const char *a,
                     const char *b)
{
    j->kind = kind;
    j->status = st;
    snprintf(j->message, sizeof j->message, fmt, a, b);
}

/* What names the job's witness in its lines: its input name, never a path of this host. */
static const char *wtns_name(const qjob *j)
{
    return j->f.input[0] != '\0' ? j->f.input : "the job's witness";
}

/* The job's fields from a stream entry's field-value array (queue_job.h). On an error the job
 * keeps a bounded, printable copy of its id (or its entry's) for its result. */
static int job_fields(node *n, qjob *j, const redisReply *f, char *why, size_t cap)
{
    queue_str s[2 * QUEUE_FIELDS_MAX];
    size_t k = f->elements < 2 * QUEUE_FIELDS_MAX ? f->elements : 2 * QUEUE_FIELDS_MAX;
    for (size_t i = 0; i < k; i++) {
        const redisReply *e = f->element[i];
        s[i].p = e->type == REDIS_REPLY_STRING ? e->str : "";
        s[i].len = e->type == REDIS_REPLY_STRING ? e->len : 0;
    }
    int ok = 0;
    if (f->elements > 2 * QUEUE_FIELDS_MAX)
        snprintf(why, cap, "the job has %zu strings: at most %d field/value pairs", f->elements,
                 QUEUE_FIELDS_MAX);
    else
        ok = queue_job_parse(&j->f, s, k, (size_t)n->q->max_wtns_mib << 20, why, cap);
    if (!ok) {
        queue_str id = queue_job_field(s, k, "id");
        if (id.p == NULL)
            id = (queue_str){j->entry, strlen(j->entry)};
        memset(&j->f, 0, sizeof j->f);
        queue_job_quote(j->f.id, sizeof j->f.id, id);
    }
    return ok;
}

/* A count the nodes wrote (a decimal string), or 0; frees the reply. */
static uint64_t reply_count(redisReply *r)
{
    uint64_t v = 0;
    if (r != NULL && r->type == REDIS_REPLY_STRING && r->len > 0 && r->len < 20 &&
        strspn(r->str, "0123456789") == r->len)
        v = strtoull(r->str, NULL, 10);
    if (r != NULL)
        freeReplyObject(r);
    return v;
}

/* How many times this entry was delivered, from XPENDING (`delivered` when known: a new
 * entry's 1), plus, for an entry a node requeued, those of the entries before it: counted by
 * the nodes in STREAM:deliveries (queue_node.h), never by a field of the job. A new entry
 * read by XREADGROUP costs no command (the taker's reads go on while Redis is slow).
 *
 * An entry from this consumer's history or from XAUTOCLAIM (delivered 0) is asked for as this
 * consumer's: 0 when it is not pending to it now, or when that cannot be told (Redis lost).
 * The reply listing it may predate the finisher's ACK of a job this node held then and has
 * finished since, so that the held list no longer names it; taken again, it would be proved
 * twice. Asked after the held list said "not mine", XPENDING answers after any such ACK
 * (the finisher lets go of a job only once its transition was sent). An entry left out this
 * way, and still pending, comes back in the next history read or XAUTOCLAIM. */
static uint64_t entry_deliveries(queue_link *l, node *n, const char *entry, uint64_t delivered,
                                 int requeued)
{
    if (delivered == 0) {
        redisReply *r = queue_link_cmdv(l, "XPENDING", n->stream, n->group, entry, entry, "1",
                                        n->consumer, NULL);
        if (r != NULL && r->type == REDIS_REPLY_ARRAY && r->elements == 1 &&
            r->element[0]->type == REDIS_REPLY_ARRAY && r->element[0]->elements == 4 &&
            r->element[0]->element[3]->type == REDIS_REPLY_INTEGER &&
            r->element[0]->element[3]->integer > 0)
            delivered = (uint64_t)r->element[0]->element[3]->integer;
        if (r != NULL)
            freeReplyObject(r);
        if (delivered == 0)
            return 0;
    }
    if (!requeued)
        return delivered;
    return reply_count(queue_link_cmdv(l, "HGET", n->tries, entry, NULL)) + delivered;
}

static void hand_back(node *n, queue_link *l, qjob *j);

/* The job's witness, as a descriptor the node holds: the bytes it carries (j->f.wtns, which
 * points into the reply being taken) in a sealed anonymous file, or the file it names beneath
 * --inputs. The engine opens it by its
 * /proc/self/fd name, the very file checked here, never a path resolved again. 0, or -1 with
 * the status and a line. */
static int witness_open(node *n, qjob *j, zkpipe_status *st, char *why, size_t cap)
{
    if (j->f.wtns != NULL) {
        j->wtns_fd = queue_input_memfd(j->f.wtns, j->f.wtns_len, why, cap);
        *st = ZKPIPE_ENOMEM;
    } else if (n->inputs_fd < 0) {
        snprintf(why, cap,
                 "the job names an input (%s), and this node has no --inputs: send the "
                 "witness in the job (wtns)",
                 j->f.input);
        *st = ZKPIPE_EINVAL;
    } else {
        j->wtns_fd =
            queue_input_open(n->inputs_fd, j->f.input, (size_t)n->q->max_wtns_mib << 20, why, cap);
        /* A file not there (yet) on this node may be on another, or later. */
        *st = j->wtns_fd < 0 && errno != ENOENT && errno != EIO ? ZKPIPE_EINVAL : ZKPIPE_EIO;
    }
    if (j->wtns_fd < 0)
        return -1;
    if (fstat(j->wtns_fd, &j->wst) != 0)
        j->wst.st_ino = 0;
    j->wtns_len = (size_t)j->wst.st_size;
    snprintf(j->wtns_path, sizeof j->wtns_path, "/proc/self/fd/%d", j->wtns_fd);
    return 0;
}

/* Takes one stream entry [id, fields]: held from here until the finisher is done with it.
 * `delivered`: this entry's delivery count when known (a new entry: 1), else 0. */
static void take(node *n, queue_link *l, const redisReply *e, uint64_t delivered, int reclaimed)
{
    if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 ||
        e->element[0]->type != REDIS_REPLY_STRING || e->element[0]->len >= sizeof((qjob *)0)->entry)
        return;
    const char *entry = e->element[0]->str;
    pthread_mutex_lock(&n->lock);
    int mine = held_find(n, entry);
    pthread_mutex_unlock(&n->lock);
    if (mine)
        return;
    if (e->element[1]->type != REDIS_REPLY_ARRAY) { /* deleted from the stream: nothing to do */
        redisReply *r = queue_link_cmdv(l, "XACK", n->stream, n->group, entry, NULL);
        if (r != NULL)
            freeReplyObject(r);
        if ((r = queue_link_cmdv(l, "HDEL", n->tries, entry, NULL)) != NULL)
            freeReplyObject(r);
        return;
    }
    qjob *j = calloc(1, sizeof *j);
    if (j == NULL)
        return; /* left pending: taken over once idle */
    j->node = n;
    j->wtns_fd = -1;
    snprintf(j->entry, sizeof j->entry, "%s", entry);
    char why[ZKPIPE_DETAIL_MAX + 128];
    int parsed = job_fields(n, j, e->element[1], why, sizeof why);
    j->deliveries = entry_deliveries(l, n, entry, delivered, j->f.requeued);
    if (j->deliveries == 0) { /* no longer this node's (entry_deliveries) */
        job_free(j);
        return;
    }
    j->kind = JOB_ENGINE;
    pthread_mutex_lock(&n->lock);
    int stopping = n->stop != 0; /* delivered by a read sent before the stop */
    n->s.taken++;
    n->s.reclaimed += reclaimed != 0;
    pthread_mutex_unlock(&n->lock);
    /* The bytes a job carries outlive the reply in the node's sealed copy: what is proved, and
     * what a requeue, a dead letter or a hand-back sends again. */
    zkpipe_status st = ZKPIPE_OK, copy_st = ZKPIPE_OK;
    char copy_why[256];
    int copied =
        parsed && j->f.wtns != NULL ? witness_open(n, j, &copy_st, copy_why, sizeof copy_why) : 0;
    j->f.wtns = NULL;
    if (stopping && parsed && copied == 0) { /* one that is no job gets its error result */
        hand_back(n, l, j);
        return;
    }
    pthread_mutex_lock(&n->lock);
    j->hnext = n->held_head;
    if (n->held_head != NULL)
        n->held_head->hprev = j;
    n->held_head = j;
    if (++n->s.held > n->s.peak_held)
        n->s.peak_held = n->s.held;
    pthread_mutex_unlock(&n->lock);

    j->mark = zkpipe_mapped_damage_mark();
    if (j->deliveries > n->q->max_deliveries) {
        fail_job(j, JOB_DEAD, ZKPIPE_ETIMEDOUT, "%s%s",
                 "never finished: the nodes holding it stopped or lost Redis for longer than "
                 "--claim-idle-ms",
                 "");
    } else if (!parsed) {
        fail_job(j, JOB_FAILED, ZKPIPE_EINVAL, "%s%s", why, "");
    } else if (copied != 0) {
        fail_job(j, JOB_FAILED, copy_st, "%s%s", copy_why, "");
    } else if ((j->zkey = queue_circuit_zkey(n->q, j->f.circuit)) == NULL) {
        fail_job(j, JOB_FAILED, ZKPIPE_EINVAL, "the circuit '%s' is not one of this node's%s",
                 j->f.circuit, " (--circuit)");
    } else if (j->wtns_fd < 0 && witness_open(n, j, &st, why, sizeof why) != 0) {
        fail_job(j, JOB_FAILED, st, "%s%s", why, "");
    } else if ((st = key_get(n, j, why, sizeof why)) != ZKPIPE_OK) {
        fail_job(j, JOB_FAILED, st, "%s%s", why, "");
    } else if ((j->pub = calloc(j->num_public + 1, sizeof *j->pub)) == NULL) {
        fail_job(j, JOB_FAILED, ZKPIPE_ENOMEM, "out of memory%s%s", "", "");
    } else {
        j->part = (zkpipe_zkey_partition){j->key, j->wtns_path, j->pub, NULL};
        zkpipe_partition part = {zkpipe_zkey_stage_ops(), &j->part, {0, 0}};
        zkpipe_job *ignored;
        st = zkpipe_engine_submit(n->engine, &ignored, &part, 1, job_done, j);
        /* Submitted, j belongs to the engine and then the finisher: it may be freed by now. */
        if (st == ZKPIPE_OK)
            return;
        fail_job(j, JOB_FAILED, st, "cannot submit: %s%s", zkpipe_status_str(st), "");
    }
    pthread_mutex_lock(&n->lock);
    push_done(n, j);
    pthread_mutex_unlock(&n->lock);
}

/* ---- The finisher ---- */

/* An argument vector of up to ARGS_MAX strings: the longest, a dead letter's, has 49. */
#define ARGS_MAX 64

typedef struct args {
    const char *v[ARGS_MAX];
    size_t len[ARGS_MAX];
    int n;
    char num[8][24];
    int nums;
    char guard[640]; /* stream, consumer and two numbers */
} args;

static void arg_bytes(args *a, const char *s, size_t len)
{
    if (a->n < ARGS_MAX) {
        a->v[a->n] = s != NULL ? s : "";
        a->len[a->n] = s != NULL ? len : 0;
        a->n++;
    }
}

static void arg(args *a, const char *s)
{
    arg_bytes(a, s, s != NULL ? strlen(s) : 0);
}

static void arg_u64(args *a, uint64_t v)
{
    if (a->nums < 8) {
        snprintf(a->num[a->nums], sizeof a->num[0], "%llu", (unsigned long long)v);
        arg(a, a->num[a->nums++]);
    }
}

/* Sends one transition, retrying while Redis is away. 1: done; 0: given up (stopping, or an
 * error reply again and again): the job stays pending for another node. */
static int send_transition(node *n, queue_link *l, const args *a, const qjob *j)
{
    uint64_t first_fail = 0;
    unsigned errors = 0;
    for (;;) {
        redisReply *r = queue_link_cmd(l, a->n, a->v, a->len);
        if (r != NULL && r->type != REDIS_REPLY_ERROR) {
            freeReplyObject(r);
            return 1;
        }
        if (r != NULL) {
            if (errors++ == 0)
                fprintf(stderr, "%s: job %s (entry %s): Redis refuses the update: %s\n", prog,
                        j->f.id, j->entry, r->str);
            freeReplyObject(r);
        }
        uint64_t now = queue_now_ns();
        if (first_fail == 0)
            first_fail = now;
        pthread_mutex_lock(&n->lock);
        int stop = n->stop;
        if (stop == 2 || errors >= 10 ||
            (stop == 1 && now - first_fail > (uint64_t)n->q->claim_idle_ms * 1000000u)) {
            pthread_mutex_unlock(&n->lock);
            return 0;
        }
        uint64_t ms = r != NULL ? 1000 : queue_link_wait_ms(l);
        wait_ms(n, &n->wake_finisher, ms < 10 ? 10 : ms);
        pthread_mutex_unlock(&n->lock);
    }
}

/* The script's head: EVAL, the keys (the jobs stream, this transition's guard, the delivery
 * counts, then the rest of `keys`), group, entry, mode, the guard's lifetime and the
 * deliveries a requeued entry has had. */
static void script(args *a, node *n, int nkeys, const char *const *keys, const qjob *j,
                   const char *mode, uint64_t deliveries)
{
    pthread_mutex_lock(&n->lock);
    uint64_t seq = ++n->transitions;
    pthread_mutex_unlock(&n->lock);
    snprintf(a->guard, sizeof a->guard, "%s:guard:%s:%llu:%llu", n->stream, n->consumer,
             (unsigned long long)n->boot_ns, (unsigned long long)seq);
    arg(a, "EVAL");
    arg(a, transition_lua);
    arg_u64(a, (uint64_t)nkeys + 2);
    arg(a, keys[0]);
    arg(a, a->guard);
    arg(a, n->tries);
    for (int i = 1; i < nkeys; i++)
        arg(a, keys[i]);
    arg(a, n->group);
    arg(a, j->entry);
    arg(a, mode);
    arg(a, GUARD_TTL_MS);
    arg_u64(a, deliveries);
}

/* A result entry's fields; with the proof and its public signals when it proved. */
static void result_fields(args *a, node *n, const qjob *j, const char *status, const char *msg,
                          const char *prove_s, const char *proof, const char *pub)
{
    arg(a, proof != NULL ? "20" : "16");
    const char *f[20] = {"id",         j->f.id,   "status", status,  "message", msg,   "node",
                         n->consumer,  "prove_s", prove_s,  "entry", j->entry,  "sub", j->f.sub,
                         "deliveries", NULL,      "proof",  proof,   "public",  pub};
    for (int i = 0; i < 15; i++)
        arg(a, f[i]);
    arg_u64(a, j->deliveries);
    for (int i = 16; proof != NULL && i < 20; i++)
        arg(a, f[i]);
}

/* The job's own fields, as it came (checked): its witness read back from the node's copy
 * (`*map`, unmapped by the caller with j->wtns_len) when the job carried it. */
static int job_args(args *a, const qjob *j, void **map)
{
    int k = j->f.sub[0] != '\0' ? 6 : 4;
    const char *f[6] = {"id", j->f.id, "circuit", j->f.circuit, "sub", j->f.sub};
    for (int i = 0; i < k; i++)
        arg(a, f[i]);
    *map = NULL;
    if (j->f.input[0] != '\0') {
        arg(a, "input");
        arg(a, j->f.input);
        return k + 2;
    }
    if (j->wtns_fd >= 0 && j->wtns_len > 0 &&
        (*map = mmap(NULL, j->wtns_len, PROT_READ, MAP_SHARED, j->wtns_fd, 0)) != MAP_FAILED) {
        arg(a, "wtns");
        arg_bytes(a, *map, j->wtns_len);
        return k + 2;
    }
    *map = NULL;
    return k;
}

/* A fresh entry for the job: its own fields only, marked requeued (its deliveries go to
 * STREAM:deliveries). */
static int requeue_fields(args *a, const qjob *j, void **map)
{
    int at = a->n;
    arg(a, "0"); /* the count, set below */
    arg(a, "requeued");
    arg(a, "1");
    int k = job_args(a, j, map) + 2;
    if (j->f.input[0] == '\0' && *map == NULL)
        return -1;
    snprintf(a->num[a->nums], sizeof a->num[0], "%d", k);
    a->v[at] = a->num[a->nums];
    a->len[at] = strlen(a->v[at]);
    a->nums++;
    return 0;
}

/* A job delivered after the stop (by a read sent before it) is not started: it is requeued at
 * once as it came (a fresh entry, this delivery not counted), so that another node takes it
 * now rather than after --claim-idle-ms. One try: when Redis does not take it, it stays
 * pending under this node's name, taken over once idle. Taker only. */
static void hand_back(node *n, queue_link *l, qjob *j)
{
    args a = {.n = 0};
    const char *keys[2] = {n->stream, n->stream};
    void *map = NULL;
    script(&a, n, 2, keys, j, "pending", j->deliveries - 1);
    int ok = requeue_fields(&a, j, &map) == 0;
    redisReply *r = ok ? queue_link_cmd(l, a.n, a.v, a.len) : NULL;
    ok = r != NULL && r->type != REDIS_REPLY_ERROR;
    if (r != NULL)
        freeReplyObject(r);
    if (map != NULL)
        munmap(map, j->wtns_len);
    pthread_mutex_lock(&n->lock);
    if (ok)
        n->s.handed_back++;
    else
        n->s.left_pending++;
    pthread_mutex_unlock(&n->lock);
    zkpipe_zkey_files_put(n->files, j->key); /* no job of the engine's uses it any more */
    job_free(j);
}

/* A proved job's outputs, for its result entry and, with --out, the node's files. */
static void outputs(node *n, qjob *j, const zkpipe_groth16_proof *proof, char **proof_json,
                    char **public_json)
{
    size_t plen, qlen;
    j->status =
        cli_proof_render(proof_json, &plen, public_json, &qlen, proof, j->pub, j->num_public);
    if (j->status != ZKPIPE_OK) {
        snprintf(j->message, sizeof j->message, "cannot render the outputs: %s",
                 zkpipe_status_str(j->status));
        return;
    }
    if (n->out_fd < 0)
        return;
    char names[2][QUEUE_ID_MAX + 16], tag[64];
    snprintf(names[0], sizeof names[0], "%s.public.json", j->f.id);
    snprintf(names[1], sizeof names[1], "%s.proof.json", j->f.id);
    snprintf(tag, sizeof tag, "%ld-%llu", (long)getpid(), (unsigned long long)n->boot_ns);
    const char *nv[2] = {names[0], names[1]}, *dv[2] = {*public_json, *proof_json};
    size_t lv[2] = {qlen, plen};
    if (queue_output_write(n->out_fd, nv, dv, lv, 2, tag, j->message, sizeof j->message) != 0)
        j->status = ZKPIPE_EIO;
}

/* What becomes of an ended job: its outputs, then its result and ACK, its requeue, or its
 * dead letter, in one step on the server. */
static void finish(node *n, queue_link *l, qjob *j)
{
    char *proof_json = NULL, *public_json = NULL;
    if (j->kind == JOB_ENGINE) {
        zkpipe_partition_result r = {.status = ZKPIPE_ESTATE};
        zkpipe_status got = zkpipe_job_result(j->job, 0, &r);
        j->status = got == ZKPIPE_OK ? r.status : got;
        j->prove_s = r.prove_s;
        /* The library names the witness by the node's descriptor: the job's name for it. */
        size_t plen = strlen(j->wtns_path);
        const char *detail = r.detail;
        if (strncmp(detail, j->wtns_path, plen) == 0 && detail[plen] == ':')
            snprintf(j->message, sizeof j->message, "%s%s", wtns_name(j), detail + plen);
        else
            snprintf(j->message, sizeof j->message, "%s",
                     detail[0] != '\0' || r.status == ZKPIPE_OK ? detail
                                                                : zkpipe_status_str(r.status));
        /* A proved partition's proof has been checked against the zkey's verifying key by the
         * stage's prove (ZKPIPE_EUNSATISFIED when it fails). An input damaged under its mapping
         * meanwhile makes whatever came of it an I/O error (retried: the file may be whole
         * again), and the key is opened anew for the next jobs. */
        int key_damaged = zkpipe_zkey_files_damaged(n->files, j->key, j->mark);
        if (key_damaged ||
            (j->wst.st_ino != 0 && zkpipe_mapped_damaged(j->mark, j->wst.st_dev, j->wst.st_ino))) {
            j->status = ZKPIPE_EIO;
            damaged_line(j->message, sizeof j->message, key_damaged ? j->zkey : wtns_name(j));
        }
        zkpipe_groth16_proof proof;
        if (j->status == ZKPIPE_OK && (j->status = zkpipe_stage_proof(&proof, &r)) == ZKPIPE_OK)
            outputs(n, j, &proof, &proof_json, &public_json);
        zkpipe_job_destroy(j->job);
        j->job = NULL;
    }
    const char *status = j->status == ZKPIPE_OK ? "ok" : zkpipe_status_name(j->status);
    int dead = j->kind == JOB_DEAD || (j->status != ZKPIPE_OK && retryable(j->status) &&
                                       j->deliveries >= n->q->max_deliveries);
    int requeue = !dead && j->status != ZKPIPE_OK && retryable(j->status);
    char prove_s[32], dead_msg[sizeof j->message + 640];
    snprintf(prove_s, sizeof prove_s, "%.6f", j->prove_s);
    args a = {.n = 0};
    void *map = NULL;
    if (requeue) {
        const char *keys[2] = {n->stream, n->stream};
        script(&a, n, 2, keys, j, "pending", j->deliveries);
        if (requeue_fields(&a, j, &map) != 0) { /* the node's copy is gone: the job's error */
            requeue = 0;
            a.n = a.nums = 0;
        }
    }
    if (dead) {
        snprintf(dead_msg, sizeof dead_msg, "dead-lettered to %s after %llu deliveries: %s",
                 n->dead, (unsigned long long)j->deliveries, j->message);
        const char *keys[3] = {n->stream, n->dead, n->results};
        script(&a, n, 3, keys, j, "pending", 0);
        /* The job's own fields (when they were a job's) and what became of it. */
        int count_at = a.n;
        arg(&a, "0");
        int k = j->f.circuit[0] != '\0' ? job_args(&a, j, &map) : 0;
        if (k == 0) {
            arg(&a, "id");
            arg(&a, j->f.id);
            k = 2;
        }
        const char *f[10] = {"entry",    j->entry, "status",    status,       "message",
                             j->message, "node",   n->consumer, "deliveries", NULL};
        for (int i = 0; i < 9; i++)
            arg(&a, f[i]);
        arg_u64(&a, j->deliveries);
        snprintf(a.num[a.nums], sizeof a.num[0], "%d", k + 10);
        a.v[count_at] = a.num[a.nums];
        a.len[count_at] = strlen(a.v[count_at]);
        a.nums++;
        result_fields(&a, n, j, status, dead_msg, prove_s, NULL, NULL);
    } else if (!requeue) {
        const char *keys[2] = {n->stream, n->results};
        script(&a, n, 2, keys, j, "always", 0);
        result_fields(&a, n, j, status, j->message, prove_s, proof_json, public_json);
    }
    if (j->status != ZKPIPE_OK)
        fprintf(stderr, "%s: job %s (entry %s, delivery %llu): %s (%s): %s\n", prog, j->f.id,
                j->entry, (unsigned long long)j->deliveries, j->message, status,
                dead      ? "dead-lettered"
                : requeue ? "requeued"
                          : "failed");
    int sent = send_transition(n, l, &a, j);
    if (map != NULL)
        munmap(map, j->wtns_len);
    free(proof_json);
    free(public_json);
    pthread_mutex_lock(&n->lock);
    if (!sent)
        n->s.left_pending++;
    else if (dead)
        n->s.dead++;
    else if (requeue)
        n->s.requeued++;
    else if (j->status == ZKPIPE_OK)
        n->s.proved++;
    else
        n->s.failed++;
    if (j->hprev != NULL)
        j->hprev->hnext = j->hnext;
    else
        n->held_head = j->hnext;
    if (j->hnext != NULL)
        j->hnext->hprev = j->hprev;
    n->s.held--;
    pthread_cond_broadcast(&n->wake_taker);
    pthread_mutex_unlock(&n->lock);
    job_free(j);
}

static int write_metrics(node *n);

/* --metrics FILE is rewritten this often while the node runs. */
#define METRICS_EVERY_MS 1000

static void *finisher(void *arg_)
{
    node *n = arg_;
    queue_link l;
    queue_link_init(&l, &n->addr, prog, 5000, "the jobs held keep proving");
    uint64_t next_metrics = 0;
    pthread_mutex_lock(&n->lock);
    for (;;) {
        while (n->done_head == NULL && !n->finisher_exit && n->stop != 2) {
            if (n->q->metrics_path == NULL) {
                pthread_cond_wait(&n->wake_finisher, &n->lock);
                continue;
            }
            uint64_t now = queue_now_ns();
            if (now >= next_metrics)
                break;
            wait_ms(n, &n->wake_finisher, (next_metrics - now) / 1000000u + 1);
        }
        if (n->q->metrics_path != NULL && queue_now_ns() >= next_metrics && n->stop != 2) {
            pthread_mutex_unlock(&n->lock);
            write_metrics(n);
            next_metrics = queue_now_ns() + (uint64_t)METRICS_EVERY_MS * 1000000u;
            pthread_mutex_lock(&n->lock);
            continue;
        }
        qjob *j = n->done_head;
        if (n->stop == 2 || j == NULL)
            break;
        n->done_head = j->next;
        if (n->done_head == NULL)
            n->done_tail = NULL;
        pthread_mutex_unlock(&n->lock);
        finish(n, &l, j);
        pthread_mutex_lock(&n->lock);
    }
    pthread_mutex_unlock(&n->lock);
    queue_link_close(&l);
    return NULL;
}

/* ---- The taker ---- */

/* Jobs the node can take now: as many as the engine admits (zkpipe_engine_admissible, for the
 * largest zkey's partitions), within the jobs the node may hold (see queue_node.h). Under the
 * lock. */
static uint64_t admissible(node *n)
{
    uint64_t k = 0;
    if (zkpipe_engine_admissible(n->engine, zkpipe_zkey_files_estimate_max(n->files), &k) !=
        ZKPIPE_OK)
        return 0;
    uint64_t room = n->s.held < n->bound ? n->bound - n->s.held : 0;
    return room < k ? room : k;
}

/* The group, created when missing. 0, or -1 when the connection failed. */
static int create_group(queue_link *l, void *ctx)
{
    node *n = ctx;
    redisReply *r = queue_group_create(l, n->stream, n->group);
    if (r == NULL)
        return -1;
    if (r->type == REDIS_REPLY_ERROR && !queue_reply_error(r, "BUSYGROUP"))
        fprintf(stderr, "%s: cannot create the group %s of %s: %s\n", prog, n->group, n->stream,
                r->str);
    else if (r->type != REDIS_REPLY_ERROR && l->connects > 1)
        fprintf(stderr,
                "%s: the group %s of %s was gone (a Redis without persistence "
                "restarted?): created again\n",
                prog, n->group, n->stream);
    freeReplyObject(r);
    return 0;
}

/* Renews this node's hold on every job it has and still owns, so no other node takes them over. */
static void renew(node *n, queue_link *l)
{
    pthread_mutex_lock(&n->lock);
    size_t count = (size_t)n->s.held, k = 0;
    const char **argv = malloc((count + 6) * sizeof *argv);
    size_t *lens = malloc((count + 6) * sizeof *lens);
    char(*ids)[64] = malloc((count + 1) * sizeof *ids);
    if (argv != NULL && lens != NULL && ids != NULL)
        for (const qjob *j = n->held_head; j != NULL && k < count; j = j->hnext)
            memcpy(ids[k++], j->entry, sizeof ids[0]);
    pthread_mutex_unlock(&n->lock);
    if (k > 0) {
        const char *head[6] = {"EVAL", renew_lua, "1", n->stream, n->group, n->consumer};
        for (int i = 0; i < 6; i++)
            argv[i] = head[i];
        for (size_t i = 0; i < k; i++)
            argv[6 + i] = ids[i];
        for (size_t i = 0; i < k + 6; i++)
            lens[i] = strlen(argv[i]);
        redisReply *r = queue_link_cmd(l, (int)(k + 6), argv, lens);
        if (r != NULL)
            freeReplyObject(r);
    }
    free(ids);
    free(lens);
    free(argv);
}

/* Takes each entry of an XREADGROUP reply; returns how many it held, and in *last the id of the
 * last one (for reading the node's own pending entries page by page). */
static size_t take_read(node *n, queue_link *l, const redisReply *r, uint64_t delivered, char *last,
                        size_t cap)
{
    size_t got = 0;
    if (r->type != REDIS_REPLY_ARRAY)
        return 0;
    for (size_t s = 0; s < r->elements; s++) {
        const redisReply *st = r->element[s];
        if (st->type != REDIS_REPLY_ARRAY || st->elements != 2 ||
            st->element[1]->type != REDIS_REPLY_ARRAY)
            continue;
        for (size_t i = 0; i < st->element[1]->elements; i++) {
            const redisReply *e = st->element[1]->element[i];
            take(n, l, e, delivered, 0);
            if (e->type == REDIS_REPLY_ARRAY && e->elements == 2 &&
                e->element[0]->type == REDIS_REPLY_STRING)
                snprintf(last, cap, "%s", e->element[0]->str);
            got++;
        }
    }
    return got;
}

/* Entries pending in the whole group, or UINT64_MAX when unknown. */
static uint64_t group_pending(node *n, queue_link *l)
{
    redisReply *r = queue_link_cmdv(l, "XPENDING", n->stream, n->group, NULL);
    uint64_t p = UINT64_MAX;
    if (r != NULL && r->type == REDIS_REPLY_ARRAY && r->elements >= 1 &&
        r->element[0]->type == REDIS_REPLY_INTEGER)
        p = (uint64_t)r->element[0]->integer;
    if (r != NULL)
        freeReplyObject(r);
    return p;
}

static void take_loop(node *n, queue_link *l)
{
    const uint64_t ms = 1000000u, claim_ns = (uint64_t)n->q->claim_idle_ms * ms;
    uint64_t next_claim = 0, busy_ns = queue_now_ns(), connects = 0;
    char history[64] = "0", cursor[64] = "0-0", countbuf[24], idle[24], block[24];
    int reading_history = 1;
    snprintf(idle, sizeof idle, "%lu", n->q->claim_idle_ms);
    for (;;) {
        pthread_mutex_lock(&n->lock);
        if (queue_link_refused() && n->stop != 2) { /* its one line said why */
            n->refused = 1;
            n->stop = 2;
            pthread_cond_broadcast(&n->wake_finisher);
            pthread_cond_broadcast(&n->wake_renewer);
        }
        uint64_t k = n->stop ? 0 : admissible(n);
        int stop = n->stop;
        n->connects = l->connects;
        uint64_t held = n->s.held;
        pthread_mutex_unlock(&n->lock);
        if (stop == 2 || (stop == 1 && held == 0))
            return;
        uint64_t now = queue_now_ns();
        if (held > 0 || l->c == NULL)
            busy_ns = now;
        if (l->connects != connects && l->c != NULL) { /* a new connection: own entries first */
            connects = l->connects;
            reading_history = 1;
            snprintf(history, sizeof history, "0");
        }
        uint64_t wait = queue_link_wait_ms(l);
        if (k == 0 || wait > 0) {
            pthread_mutex_lock(&n->lock);
            wait_ms(n, &n->wake_taker, wait > 0 ? (wait < 100 ? wait : 100) : 10);
            pthread_mutex_unlock(&n->lock);
            continue;
        }
        snprintf(countbuf, sizeof countbuf, "%llu", (unsigned long long)k);
        redisReply *r;
        if (reading_history) { /* jobs this consumer held before (a restart under one name) */
            r = queue_link_cmdv(l, "XREADGROUP", "GROUP", n->group, n->consumer, "COUNT", countbuf,
                                "STREAMS", n->stream, history, NULL);
            if (r != NULL && !queue_reply_error(r, "NOGROUP")) {
                char last[64] = "";
                if (r->type != REDIS_REPLY_ARRAY || take_read(n, l, r, 0, last, sizeof last) == 0)
                    reading_history = 0;
                else
                    snprintf(history, sizeof history, "%s", last);
            }
        } else if (now >= next_claim) { /* jobs of nodes gone quiet for claim-idle-ms */
            r = queue_link_cmdv(l, "XAUTOCLAIM", n->stream, n->group, n->consumer, idle, cursor,
                                "COUNT", countbuf, NULL);
            if (r != NULL && r->type == REDIS_REPLY_ARRAY && r->elements >= 2 &&
                r->element[0]->type == REDIS_REPLY_STRING &&
                r->element[1]->type == REDIS_REPLY_ARRAY) {
                for (size_t i = 0; i < r->element[1]->elements; i++)
                    take(n, l, r->element[1]->element[i], 0, 1);
                if (r->element[1]->elements > 0)
                    busy_ns = now;
                snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
                if (strcmp(cursor, "0-0") == 0)
                    next_claim = now + claim_ns / 2;
            } else {
                next_claim = now + claim_ns / 2;
            }
        } else { /* new jobs */
            uint64_t b = (next_claim - now) / ms + 1;
            if (b > BLOCK_MAX_MS)
                b = BLOCK_MAX_MS;
            snprintf(block, sizeof block, "%llu", (unsigned long long)b);
            r = queue_link_cmdv(l, "XREADGROUP", "GROUP", n->group, n->consumer, "COUNT", countbuf,
                                "BLOCK", block, "STREAMS", n->stream, ">", NULL);
            char last[64];
            if (r != NULL && take_read(n, l, r, 1, last, sizeof last) > 0)
                busy_ns = queue_now_ns();
        }
        if (queue_reply_error(r, "NOGROUP")) {
            create_group(l, n);
        } else if (r != NULL && r->type == REDIS_REPLY_ERROR) {
            fprintf(stderr, "%s: %s: %s\n", prog, n->stream, r->str);
            pthread_mutex_lock(&n->lock);
            wait_ms(n, &n->wake_taker, 1000);
            pthread_mutex_unlock(&n->lock);
        }
        if (r != NULL)
            freeReplyObject(r);
        now = queue_now_ns();
        if (n->q->exit_when_idle_ms != 0 && l->c != NULL &&
            now - busy_ns >= (uint64_t)n->q->exit_when_idle_ms * ms) {
            if (group_pending(n, l) == 0) {
                pthread_mutex_lock(&n->lock);
                if (n->stop == 0 && n->s.held == 0)
                    n->stop = 1;
                pthread_mutex_unlock(&n->lock);
            } else {
                busy_ns = now - (uint64_t)n->q->exit_when_idle_ms * ms + 100 * ms;
            }
        }
    }
}

/* After a stop: the jobs held are finished (the renewer keeps their holds meanwhile), unless a
 * second signal says to stop now. */
static void drain_held(node *n)
{
    pthread_mutex_lock(&n->lock);
    while (n->s.held != 0 && n->stop != 2)
        pthread_cond_wait(&n->wake_taker, &n->lock);
    pthread_mutex_unlock(&n->lock);
}

/* ---- The renewer ---- */

/* Renews the holds on the jobs held every quarter of --claim-idle-ms, on a link of its own, so
 * that neither a taker opening a zkey nor a finisher waiting on Redis delays it: a job is taken
 * over only when this whole node has been away that long. Leaves when told, or stopping now
 * (what is held is then left to be taken over). */
static void *renewer(void *arg_)
{
    node *n = arg_;
    queue_link l;
    queue_link_init(&l, &n->addr, prog, 5000, "the jobs held keep proving");
    uint64_t every_ms = n->q->claim_idle_ms / 4 != 0 ? n->q->claim_idle_ms / 4 : 1;
    pthread_mutex_lock(&n->lock);
    while (!n->renewer_exit && n->stop != 2) {
        uint64_t wait = queue_link_wait_ms(&l);
        if (n->s.held > 0 && wait == 0) {
            pthread_mutex_unlock(&n->lock);
            renew(n, &l);
            pthread_mutex_lock(&n->lock);
            wait = queue_link_wait_ms(&l); /* Redis lost: tried again as soon as it may be */
        }
        wait_ms(n, &n->wake_renewer, wait != 0 && wait < every_ms ? wait : every_ms);
    }
    pthread_mutex_unlock(&n->lock);
    queue_link_close(&l);
    return NULL;
}

/* ---- Signals, observation ---- */

/* The node's last lines on stdout: its counts, what it held, and with --json one JSON object
 * (a forced exit prints them too: stop_now_deadline). */
static void print_summary(const node *n, const qstats *s, const zkpipe_engine_counters *end,
                          const zkpipe_key_cache_counters *keys_end)
{
    zkpipe_snapshot snap;
    zkpipe_acct_snapshot(zkpipe_acct_default(), &snap);
    double elapsed = 1e-9 * (double)queue_now_ns() - n->t0_s;
    printf("queue node %s: taken %llu (%llu taken over), proved %llu, failed %llu, requeued "
           "%llu, dead-lettered %llu, handed back %llu, left pending %llu, in %.3f s\n",
           n->consumer, (unsigned long long)s->taken, (unsigned long long)s->reclaimed,
           (unsigned long long)s->proved, (unsigned long long)s->failed,
           (unsigned long long)s->requeued, (unsigned long long)s->dead,
           (unsigned long long)s->handed_back, (unsigned long long)s->left_pending, elapsed);
    printf("held: at most %llu at once, bound %llu; at exit %llu held, %llu in flight, %llu "
           "proving, %llu bytes live\n",
           (unsigned long long)s->peak_held, (unsigned long long)n->bound,
           (unsigned long long)s->held, (unsigned long long)end->in_flight,
           (unsigned long long)end->proving, (unsigned long long)snap.live_bytes);
    if (n->json)
        printf("{\"node\":\"%s\",\"taken\":%llu,\"reclaimed\":%llu,\"proved\":%llu,"
               "\"failed\":%llu,\"requeued\":%llu,\"dead\":%llu,\"handed_back\":%llu,"
               "\"left_pending\":%llu,"
               "\"peak_held\":%llu,\"held_bound\":%llu,\"held_at_exit\":%llu,"
               "\"in_flight_at_exit\":%llu,"
               "\"proving_at_exit\":%llu,\"live_bytes_at_exit\":%llu,\"redis_connects\":%llu,"
               "\"keys_resident\":%llu,\"key_resident_bytes\":%llu,\"key_budget_bytes\":%llu,"
               "\"key_loads\":%llu,\"key_releases\":%llu,\"elapsed_s\":%.6f}\n",
               n->consumer, (unsigned long long)s->taken, (unsigned long long)s->reclaimed,
               (unsigned long long)s->proved, (unsigned long long)s->failed,
               (unsigned long long)s->requeued, (unsigned long long)s->dead,
               (unsigned long long)s->handed_back, (unsigned long long)s->left_pending,
               (unsigned long long)s->peak_held, (unsigned long long)n->bound,
               (unsigned long long)s->held, (unsigned long long)end->in_flight,
               (unsigned long long)end->proving, (unsigned long long)snap.live_bytes,
               (unsigned long long)n->connects, (unsigned long long)keys_end->resident_keys,
               (unsigned long long)keys_end->resident_bytes,
               (unsigned long long)keys_end->charged_bytes, (unsigned long long)keys_end->loads,
               (unsigned long long)keys_end->releases, elapsed);
    fflush(stdout);
}

/* Stopping now, the process exits once STOP_NOW_MS have passed unless queue_node_run has ended
 * its threads by then (signals_exit): a thread blocked in I/O cannot be interrupted, and nothing
 * it holds needs it (jobs not acknowledged stay pending on the server). stdout is flushed only
 * when no thread is writing to it. Under the lock. */
static void stop_now_deadline(node *n)
{
    uint64_t until = queue_now_ns() + (uint64_t)STOP_NOW_MS * 1000000u;
    for (uint64_t now; !n->signals_exit && (now = queue_now_ns()) < until;)
        wait_ms(n, &n->wake_signals, (until - now) / 1000000u + 1);
    if (n->signals_exit)
        return;
    fprintf(stderr, "%s: stopping now: a thread is still blocked after %d ms: exiting without it\n",
            prog, STOP_NOW_MS);
    /* The summary as queue_node_run would print it, every job held left pending. The engine's
     * counters: taken here while the lock keeps queue_node_run from destroying it, or those it
     * took before it began to. */
    zkpipe_engine_counters end;
    zkpipe_key_cache_counters keys_end;
    memset(&end, 0, sizeof end);
    memset(&keys_end, 0, sizeof keys_end);
    if (n->ended) {
        end = n->end;
        keys_end = n->keys_end;
    } else if (n->engine != NULL) {
        zkpipe_engine_stats(n->engine, &end);
        zkpipe_key_cache_stats(n->cache, &keys_end);
    }
    qstats s = n->s;
    s.left_pending += s.held;
    if (ftrylockfile(stdout) == 0) {           /* else a thread blocked while writing it holds it */
        print_summary(n, &s, &end, &keys_end); /* the lock is recursive */
        funlockfile(stdout);
    }
    _exit(0);
}

static void *signal_thread(void *arg_)
{
    node *n = arg_;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    for (;;) {
        int sig;
        if (sigwait(&set, &sig) != 0)
            continue;
        pthread_mutex_lock(&n->lock);
        if (n->signals_exit) {
            pthread_mutex_unlock(&n->lock);
            return NULL;
        }
        n->stop = n->stop == 0 ? 1 : 2;
        if (n->stop == 1)
            fprintf(stderr,
                    "%s: %s: taking no more jobs, finishing the %llu held of %llu taken (again: "
                    "stop now)\n",
                    prog, sig == SIGTERM ? "SIGTERM" : "SIGINT", (unsigned long long)n->s.held,
                    (unsigned long long)n->s.taken);
        else
            fprintf(stderr,
                    "%s: stopping now: the jobs not acknowledged stay pending for other "
                    "nodes\n",
                    prog);
        pthread_cond_broadcast(&n->wake_taker);
        pthread_cond_broadcast(&n->wake_finisher);
        pthread_cond_broadcast(&n->wake_renewer);
        if (n->stop == 2) {
            stop_now_deadline(n);
            pthread_mutex_unlock(&n->lock);
            return NULL;
        }
        pthread_mutex_unlock(&n->lock);
    }
}

static qstats stats_now(node *n)
{
    pthread_mutex_lock(&n->lock);
    qstats s = n->s;
    pthread_mutex_unlock(&n->lock);
    return s;
}

/* The node's series, for /status's "queue", /metrics and --metrics. */
typedef struct qseries {
    const char *name, *type, *help;
    uint64_t v;
} qseries;

#define QSERIES 10

static void queue_series(node *n, qseries m[QSERIES])
{
    qstats s = stats_now(n);
    const qseries all[QSERIES] = {
        {"queue_jobs_held", "gauge", "Jobs taken from the queue and not yet acknowledged.", s.held},
        {"queue_jobs_peak_held", "gauge", "Most jobs held at once.", s.peak_held},
        {"queue_jobs_held_bound", "gauge",
         "Permits + capacity + prover workers: the most jobs held.", n->bound},
        {"queue_jobs_taken_total", "counter", "Jobs taken (new, reclaimed or own).", s.taken},
        {"queue_jobs_reclaimed_total", "counter", "Jobs taken over from idle nodes.", s.reclaimed},
        {"queue_jobs_proved_total", "counter", "Jobs proved, written and acknowledged.", s.proved},
        {"queue_jobs_failed_total", "counter", "Jobs ended with their error.", s.failed},
        {"queue_jobs_requeued_total", "counter", "Jobs requeued after an error.", s.requeued},
        {"queue_jobs_dead_total", "counter", "Jobs moved to the dead-letter stream.", s.dead},
        {"queue_jobs_handed_back_total", "counter",
         "Jobs delivered after a stop and requeued untouched.", s.handed_back},
    };
    memcpy(m, all, sizeof all);
}

static zkpipe_status queue_provide(zkpipe_http_out *out, zkpipe_http_format format, void *ctx)
{
    node *n = ctx;
    qseries m[QSERIES];
    queue_series(n, m);
    if (format == ZKPIPE_HTTP_JSON) {
        zkpipe_http_out_printf(out, "{\"node\":\"%s\"", n->consumer);
        for (size_t i = 0; i < QSERIES; i++)
            zkpipe_http_out_printf(out, ",\"%s\":%llu", m[i].name + 6, (unsigned long long)m[i].v);
        zkpipe_http_out_write(out, "}", 1);
        return ZKPIPE_OK;
    }
    for (size_t i = 0; i < QSERIES; i++) {
        zkpipe_http_out_family(out, m[i].name, m[i].type, m[i].help);
        zkpipe_http_out_sample(out, m[i].name, NULL, (double)m[i].v);
    }
    return ZKPIPE_OK;
}

/* --metrics FILE: the registry's counters, the engine's series and the node's, as /metrics
 * serves them (cli_observe_metrics), written whole (staged, then renamed). Only while the
 * engine lives. Only one thread at a time writes a set of files (cli_outputs_write): the
 * finisher while it runs, the node's own thread after it. Returns 0, or -1 (one line on
 * stderr, once until a write succeeds again). */
static int write_metrics(node *n)
{
    char *text = NULL;
    size_t len = 0;
    zkpipe_status st = cli_observe_metrics(n->obs, &text, &len);
    cli_output out = {n->q->metrics_path, text, len};
    cli_error e = {0, ENOMEM, "cannot render"};
    int rc = st == ZKPIPE_OK && cli_outputs_write(&out, 1, CLI_OUTPUTS_DURABLE, &e) == 0 ? 0 : -1;
    free(text);
    if (rc != 0 && !n->metrics_failing) {
        char why[CLI_ERROR_TEXT_MAX];
        fprintf(stderr, "%s: --metrics %s\n", prog, cli_error_text(why, sizeof why, &out, &e));
    }
    n->metrics_failing = rc != 0;
    return rc;
}

static int queue_progress(char *buf, size_t cap, void *ctx)
{
    node *n = ctx;
    qstats s = stats_now(n);
    snprintf(buf, cap, "queue %s: holding %llu of %llu, proved %llu, failed %llu, requeued %llu",
             n->consumer, (unsigned long long)s.held, (unsigned long long)n->bound,
             (unsigned long long)s.proved, (unsigned long long)s.failed,
             (unsigned long long)s.requeued);
    return 1;
}

/* ---- The node ---- */

/* Lets go of what never reached the finisher (stopping now): those jobs stay pending. */
static uint64_t drop_unfinished(node *n)
{
    uint64_t left = 0;
    while (n->done_head != NULL) {
        qjob *j = n->done_head;
        n->done_head = j->next;
        zkpipe_job_destroy(j->job);
        job_free(j);
        n->s.held--;
        left++;
    }
    n->done_tail = NULL;
    n->held_head = NULL;
    return left;
}

/* XGROUP DELCONSUMER at a clean exit, when this consumer has nothing pending. */
static void leave_group(node *n, queue_link *l)
{
    redisReply *r =
        queue_link_cmdv(l, "XPENDING", n->stream, n->group, "-", "+", "1", n->consumer, NULL);
    int none = r != NULL && r->type == REDIS_REPLY_ARRAY && r->elements == 0;
    if (r != NULL)
        freeReplyObject(r);
    if (none && (r = queue_link_cmdv(l, "XGROUP", "DELCONSUMER", n->stream, n->group, n->consumer,
                                     NULL)) != NULL)
        freeReplyObject(r);
}

int queue_node_run(const queue_options *q, const zkpipe_engine_config *cfg,
                   const cli_observe_options *obs_opt, int full_check, uint32_t key_idle_ms,
                   int json)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    /* A job's input truncated under the node makes that job an I/O error, not the node's end. */
    if (cli_mapped_recover() != 0) {
        fprintf(stderr, "%s: cannot take SIGBUS: %s\n", prog, strerror(errno));
        return 1;
    }

    node n;
    memset(&n, 0, sizeof n);
    /* The folders jobs may read beneath and write into, held open: a job names files in them,
     * never a path (queue_node.h). */
    n.inputs_fd = n.out_fd = -1;
    const char *dirs[2] = {q->inputs_dir, q->out_dir}, *flags_[2] = {"--inputs", "--out"};
    for (int i = 0; i < 2; i++) {
        int fd = dirs[i] == NULL ? -1 : open(dirs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirs[i] != NULL && fd < 0) {
            fprintf(stderr, "%s: %s %s: %s\n", prog, flags_[i], dirs[i], strerror(errno));
            if (n.inputs_fd >= 0)
                close(n.inputs_fd);
            return 1;
        }
        *(i == 0 ? &n.inputs_fd : &n.out_fd) = fd;
    }
    n.q = q;
    /* Before any connection: a remote Redis without credentials is refused here. */
    n.addr = q->addr;
    if (!queue_auth_finish(&n.addr, q->password_file, q->insecure_no_auth, prog))
        return 2;
    n.stream = q->addr.stream;
    n.group = q->group;
    n.cfg = *cfg;
    /* The zkeys it opens, charged to its engine's budget (queue_node.h, keys). */
    zkpipe_key_cache_config kc;
    zkpipe_key_cache_config_init(&kc);
    kc.idle_ms = key_idle_ms;
    if (zkpipe_key_cache_create(&n.cache, &kc) != ZKPIPE_OK) {
        fprintf(stderr, "%s: cannot create the key cache\n", prog);
        if (n.inputs_fd >= 0)
            close(n.inputs_fd);
        if (n.out_fd >= 0)
            close(n.out_fd);
        return 1;
    }
    n.cfg.keys = n.cache;
    zkpipe_zkey_files_config fc;
    zkpipe_zkey_files_config_init(&fc);
    fc.keys = n.cache;
    fc.io_flags = full_check ? 0 : ZKPIPE_IO_DEFER_SUBGROUP;
    fc.open_threads = fc.prover_threads = n.cfg.prover_threads;
    fc.idle_max = KEYS_IDLE_MAX;
    if (zkpipe_zkey_files_create(&n.files, &fc) != ZKPIPE_OK) {
        fprintf(stderr, "%s: cannot create the zkey set\n", prog);
        zkpipe_key_cache_destroy(n.cache);
        if (n.inputs_fd >= 0)
            close(n.inputs_fd);
        if (n.out_fd >= 0)
            close(n.out_fd);
        return 1;
    }
    struct timespec boot;
    clock_gettime(CLOCK_REALTIME, &boot);
    n.boot_ns = (uint64_t)boot.tv_sec * 1000000000u + (uint64_t)boot.tv_nsec;
    if (q->consumer != NULL) {
        snprintf(n.consumer, sizeof n.consumer, "%s", q->consumer);
    } else {
        char host[200] = "node";
        gethostname(host, sizeof host - 1);
        host[sizeof host - 1] = '\0';
        snprintf(n.consumer, sizeof n.consumer, "%s-%ld", host, (long)getpid());
    }
    snprintf(n.results, sizeof n.results, "%s:results", n.stream);
    snprintf(n.dead, sizeof n.dead, "%s:dead", n.stream);
    snprintf(n.tries, sizeof n.tries, "%s:deliveries", n.stream);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&n.lock, NULL);
    pthread_cond_init(&n.wake_taker, &ca);
    pthread_cond_init(&n.wake_finisher, &ca);
    pthread_cond_init(&n.wake_renewer, &ca);
    pthread_cond_init(&n.wake_signals, &ca);
    pthread_condattr_destroy(&ca);

    pthread_t sig_thread, fin_thread, ren_thread;
    int have_sig = pthread_create(&sig_thread, NULL, signal_thread, &n) == 0;
    int have_fin = 0, have_ren = 0, observing = 0;
    cli_observe obs;
    memset(&obs, 0, sizeof obs);
    zkpipe_status st = have_sig && cli_engine_init(&n.watch, 0) == 0 ? ZKPIPE_OK : ZKPIPE_ENOMEM;
    if (st == ZKPIPE_OK) {
        observing =
            cli_observe_start(&obs, obs_opt, prog, zkpipe_acct_default(), queue_progress, &n) == 0;
        st = observing ? ZKPIPE_OK : ZKPIPE_EINVAL;
    }
    /* The counter lines (--report-ms: none unless asked) go to stderr: stdout is the summary's,
     * and --json's last line. */
    n.cfg.report_file = stderr;
    n.obs = &obs;
    if (observing) {
        obs.report_to = stderr;
        n.cfg.report_fn = cli_observe_report;
        n.cfg.report_ctx = &obs;
        n.cfg.trace = obs.trace;
    }
    zkpipe_engine *engine = NULL;
    /* Every job here is a built-in partition: the backend resolved once, up front, so that a
     * request that cannot be met fails the setup rather than each job. */
    if (st == ZKPIPE_OK)
        st = zkpipe_backend_resolve(&n.cfg.backend, n.cfg.backend, NULL);
    if (st == ZKPIPE_OK)
        st = zkpipe_engine_create(&engine, &n.cfg);
    pthread_mutex_lock(&n.lock); /* the signal thread may read it (stop_now_deadline) */
    n.engine = engine;
    pthread_mutex_unlock(&n.lock);
    cli_engine_set(&n.watch, n.engine);
    zkpipe_engine_counters c;
    if (st == ZKPIPE_OK && (st = zkpipe_engine_stats(n.engine, &c)) == ZKPIPE_OK)
        n.bound = c.resident_bound;
    if (st == ZKPIPE_OK &&
        (cli_observe_attach(&obs, prog, "engine", zkpipe_engine_http_provider, n.engine) != 0 ||
         cli_observe_attach(&obs, prog, "queue", queue_provide, &n) != 0))
        st = ZKPIPE_ENOMEM;
    if (st == ZKPIPE_OK)
        have_fin = pthread_create(&fin_thread, NULL, finisher, &n) == 0;
    if (st == ZKPIPE_OK && have_fin)
        have_ren = pthread_create(&ren_thread, NULL, renewer, &n) == 0;
    if (st == ZKPIPE_OK && !have_ren)
        st = ZKPIPE_ETHREAD;
    n.t0_s = 1e-9 * (double)queue_now_ns();
    n.json = json;
    queue_link l;
    queue_link_init(&l, &n.addr, prog, BLOCK_MAX_MS + 5000, "the jobs held keep proving");
    l.setup = create_group;
    l.setup_ctx = &n;
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "%s: setup: %s\n", prog, zkpipe_status_str(st));
    } else {
        char name[800];
        printf("queue node %s: %s group %s; holds at most %llu jobs un-ACKed "
               "(permits %llu + capacity %zu + prover workers %u); takes over jobs idle %lu ms; "
               "backend %s\n",
               n.consumer, queue_addr_name(&n.addr, name, sizeof name), n.group,
               (unsigned long long)n.bound, (unsigned long long)n.cfg.permits, n.cfg.capacity,
               n.cfg.prover_workers, q->claim_idle_ms, zkpipe_backend_name(n.cfg.backend));
        printf("jobs may name the circuits");
        for (unsigned i = 0; i < q->ncircuits; i++)
            printf(" %s", q->circuits[i].name);
        printf("; witnesses in the job, up to %lu MiB%s%s; results in %s:results%s%s\n",
               q->max_wtns_mib, q->inputs_dir != NULL ? ", or beneath " : "",
               q->inputs_dir != NULL ? q->inputs_dir : "", n.stream,
               q->out_dir != NULL ? " and files in " : "", q->out_dir != NULL ? q->out_dir : "");
        fflush(stdout);
        take_loop(&n, &l);
        drain_held(&n);
    }
    pthread_mutex_lock(&n.lock);
    n.finisher_exit = 1;
    n.renewer_exit = 1;
    pthread_cond_broadcast(&n.wake_finisher);
    pthread_cond_broadcast(&n.wake_renewer);
    pthread_mutex_unlock(&n.lock);
    if (have_ren)
        pthread_join(ren_thread, NULL);
    if (have_fin)
        pthread_join(fin_thread, NULL);
    cli_engine_set(&n.watch, NULL);
    zkpipe_engine_counters end;
    memset(&end, 0, sizeof end);
    pthread_mutex_lock(&n.lock);
    int stop = n.stop;
    pthread_mutex_unlock(&n.lock);
    if (n.engine != NULL) {
        if (stop != 2)
            zkpipe_engine_drain(n.engine);
        zkpipe_engine_stats(n.engine, &end);
    }
    zkpipe_key_cache_counters keys_end;
    if (zkpipe_key_cache_stats(n.cache, &keys_end) != ZKPIPE_OK)
        memset(&keys_end, 0, sizeof keys_end);
    pthread_mutex_lock(&n.lock); /* from here a forced exit takes these (stop_now_deadline) */
    n.end = end;
    n.keys_end = keys_end;
    n.ended = 1;
    n.connects = l.connects;
    pthread_mutex_unlock(&n.lock);
    /* The last --metrics while the engine is there (stopping now: with the jobs it holds). */
    int metrics_ok = st != ZKPIPE_OK || q->metrics_path == NULL || write_metrics(&n) == 0;
    if (observing)
        cli_observe_stop_serving(&obs);
    zkpipe_engine_destroy(n.engine); /* jobs still in it end now, into the done list */
    n.s.left_pending += drop_unfinished(&n);
    int clean = st == ZKPIPE_OK && n.s.left_pending == 0 && metrics_ok;
    if (clean)
        leave_group(&n, &l);
    /* Told to stop now, it leaves what it held pending on purpose: nothing is lost by that. */
    int ok_exit = !n.refused && (clean || (st == ZKPIPE_OK && stop == 2 && metrics_ok));
    queue_link_close(&l);
    if (observing)
        cli_observe_finish(&obs, prog, "zkpipe-pipeline --queue", n.bound, NULL, 0);
    cli_engine_free(&n.watch);
    zkpipe_zkey_files_destroy(n.files);
    zkpipe_key_cache_destroy(n.cache); /* the engine and every key gone */
    if (n.inputs_fd >= 0)
        close(n.inputs_fd);
    if (n.out_fd >= 0)
        close(n.out_fd);
    pthread_mutex_lock(&n.lock);
    qstats s = n.s;
    n.connects = l.connects; /* leave_group may have connected again */
    pthread_mutex_unlock(&n.lock);
    if (st == ZKPIPE_OK)
        print_summary(&n, &s, &end, &keys_end);
    if (have_sig) {
        pthread_mutex_lock(&n.lock);
        n.signals_exit = 1;
        pthread_cond_broadcast(&n.wake_signals); /* in stop_now_deadline; else in sigwait: */
        pthread_mutex_unlock(&n.lock);
        pthread_kill(sig_thread, SIGTERM);
        pthread_join(sig_thread, NULL);
    }
    pthread_cond_destroy(&n.wake_finisher);
    pthread_cond_destroy(&n.wake_renewer);
    pthread_cond_destroy(&n.wake_taker);
    pthread_cond_destroy(&n.wake_signals);
    pthread_mutex_destroy(&n.lock);
    return ok_exit ? 0 : 1;
}
