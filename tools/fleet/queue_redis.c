/* The queue's Redis links (queue_redis.h). */
#include "queue_redis.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define BACKOFF_FIRST_MS 100
#define BACKOFF_MAX_MS 2000

/* Whether a loss has been reported and not yet its end: one pair of lines per outage for the
 * whole process. */
static pthread_mutex_t lost_lock = PTHREAD_MUTEX_INITIALIZER;
static int lost;
static uint64_t lost_since_ns;
/* The server refused this process's credentials (or wants some): no link tries again. */
static int refused;

uint64_t queue_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void queue_link_init(queue_link *l, const queue_addr *addr, const char *prog, unsigned timeout_ms,
                     const char *note)
{
    memset(l, 0, sizeof *l);
    l->addr = addr;
    l->prog = prog;
    l->note = note;
    l->timeout_ms = timeout_ms;
    l->backoff_ms = BACKOFF_FIRST_MS;
}

void queue_link_close(queue_link *l)
{
    if (l->c != NULL)
        redisFree(l->c);
    l->c = NULL;
}

uint64_t queue_link_wait_ms(const queue_link *l)
{
    uint64_t now = queue_now_ns();
    return l->c != NULL || l->retry_at_ns <= now ? 0 : (l->retry_at_ns - now) / 1000000u + 1;
}

int queue_reply_error(const redisReply *r, const char *prefix)
{
    return r != NULL && r->type == REDIS_REPLY_ERROR && r->str != NULL &&
           strncmp(r->str, prefix, strlen(prefix)) == 0;
}

redisReply *queue_group_create(queue_link *l, const char *stream, const char *group)
{
    const char *argv[6] = {"XGROUP", "CREATE", stream, group, "0", "MKSTREAM"};
    size_t lens[6];
    for (int i = 0; i < 6; i++)
        lens[i] = strlen(argv[i]);
    return redisCommandArgv(l->c, 6, argv, lens);
}

static void failed(queue_link *l, const char *why)
{
    queue_link_close(l);
    l->retry_at_ns = queue_now_ns() + (uint64_t)l->backoff_ms * 1000000u;
    l->backoff_ms = l->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : l->backoff_ms * 2;
    pthread_mutex_lock(&lost_lock);
    if (!lost) {
        lost = 1;
        lost_since_ns = queue_now_ns();
        char where[300];
        fprintf(stderr, "%s: Redis at %s is unreachable (%s): retrying with backoff%s%s\n", l->prog,
                queue_addr_where(l->addr, where, sizeof where), why, l->note != NULL ? "; " : "",
                l->note != NULL ? l->note : "");
    }
    pthread_mutex_unlock(&lost_lock);
}

static void reached(queue_link *l)
{
    l->backoff_ms = BACKOFF_FIRST_MS;
    pthread_mutex_lock(&lost_lock);
    if (lost) {
        lost = 0;
        char where[300];
        fprintf(stderr, "%s: Redis at %s is reachable again after %.1f s\n", l->prog,
                queue_addr_where(l->addr, where, sizeof where),
                1e-9 * (double)(queue_now_ns() - lost_since_ns));
    }
    pthread_mutex_unlock(&lost_lock);
}

int queue_link_refused(void)
{
    pthread_mutex_lock(&lost_lock);
    int r = refused;
    pthread_mutex_unlock(&lost_lock);
    return r;
}

/* The server's answer to the credentials, as one line: the first one refused ends every link. */
static void refuse(queue_link *l, const char *what, const char *detail)
{
    char where[300];
    pthread_mutex_lock(&lost_lock);
    if (!refused)
        fprintf(stderr, "%s: Redis at %s %s%s%s\n", l->prog,
                queue_addr_where(l->addr, where, sizeof where), what, detail != NULL ? ": " : "",
                detail != NULL ? detail : "");
    refused = 1;
    pthread_mutex_unlock(&lost_lock);
}

/* AUTH with the address's credentials (or, without any, a PING that says whether the server
 * wants some): 0, -1 when the connection failed, -2 when the server refused them (said once on
 * stderr; the link is not tried again). The password is sent, never printed. */
static int authenticate(queue_link *l)
{
    const queue_addr *a = l->addr;
    const char *argv[3] = {"AUTH", a->user, a->password};
    int argc = 3;
    if (!a->has_password) {
        argv[0] = "PING";
        argc = 1;
    } else if (a->user[0] == '\0') { /* the default user: AUTH PASSWORD (Redis < 6 too) */
        argv[1] = a->password;
        argc = 2;
    }
    size_t lens[3];
    for (int i = 0; i < argc; i++)
        lens[i] = strlen(argv[i]);
    redisReply *r = redisCommandArgv(l->c, argc, argv, lens);
    if (r == NULL)
        return -1;
    int rc = 0;
    if (queue_reply_error(r, "NOAUTH")) {
        refuse(l,
               "requires a password and none was given (set $ZKPIPE_REDIS_PASSWORD or give "
               "--redis-password-file)",
               NULL);
        rc = -2;
    } else if (queue_reply_error(r, "WRONGPASS") || queue_reply_error(r, "ERR invalid password")) {
        char who[400];
        snprintf(who, sizeof who, "refuses the password of %s%s: wrong user name or password",
                 a->user[0] != '\0' ? "the user " : "the default user", a->user);
        refuse(l, who, NULL);
        rc = -2;
    } else if (queue_reply_error(r, "ERR AUTH") || queue_reply_error(r, "ERR Client sent AUTH")) {
        refuse(l,
               "has no password configured (no requirepass, no ACL user), but one was given: "
               "configure one on the server",
               NULL);
        rc = -2;
    } else if (r->type == REDIS_REPLY_ERROR) {
        refuse(l, a->has_password ? "refuses AUTH" : "refuses PING", r->str);
        rc = -2;
    }
    freeReplyObject(r);
    return rc;
}

/* A new connection (authenticated, with the setup hook run); 0, -1 with the reason in why, or
 * -2 when the server refused the credentials. */
static int connect_link(queue_link *l, char *why, size_t cap)
{
    struct timeval tv = {(time_t)(l->timeout_ms / 1000),
                         (suseconds_t)(l->timeout_ms % 1000) * 1000};
    int local = l->addr->path[0] != '\0';
    l->c = local ? redisConnectUnixWithTimeout(l->addr->path, tv)
                 : redisConnectWithTimeout(l->addr->host, l->addr->port, tv);
    if (l->c == NULL || l->c->err != 0) {
        snprintf(why, cap, "%s", l->c != NULL ? l->c->errstr : "out of memory");
        queue_link_close(l);
        return -1;
    }
    /* TCP keepalive has no meaning on a Unix socket (hiredis sets TCP options too). */
    if (redisSetTimeout(l->c, tv) != REDIS_OK ||
        (!local && redisEnableKeepAlive(l->c) != REDIS_OK)) {
        snprintf(why, cap, "cannot set the socket's options: %s", l->c->errstr);
        queue_link_close(l);
        return -1;
    }
    int auth = authenticate(l);
    if (auth != 0) {
        snprintf(why, cap, "%s", auth == -2 ? "credentials refused" : l->c->errstr);
        queue_link_close(l);
        return auth;
    }
    l->connects++;
    if (l->setup != NULL && l->setup(l, l->setup_ctx) != 0) {
        snprintf(why, cap, "%s", l->c != NULL ? l->c->errstr : "the connection broke");
        queue_link_close(l);
        return -1;
    }
    return 0;
}

redisReply *queue_link_cmd(queue_link *l, int argc, const char *const *argv, const size_t *lens)
{
    char why[256];
    for (int attempt = 0; attempt < 2; attempt++) {
        if (l->c == NULL) {
            if (queue_now_ns() < l->retry_at_ns || queue_link_refused())
                return NULL;
            int rc = connect_link(l, why, sizeof why);
            if (rc == -2)
                return NULL;
            if (rc != 0) {
                failed(l, why);
                return NULL;
            }
        }
        /* The setup hook sends commands too: it must not count as the command's own try. */
        redisReply *r = redisCommandArgv(l->c, argc, (const char **)argv, lens);
        if (r != NULL) {
            reached(l);
            return r;
        }
        snprintf(why, sizeof why, "%s", l->c->errstr[0] != '\0' ? l->c->errstr : "no reply");
        queue_link_close(l); /* broken: replaced at once, once */
    }
    failed(l, why);
    return NULL;
}

redisReply *queue_link_cmdv(queue_link *l, ...)
{
    const char *argv[64];
    size_t lens[64];
    int n = 0;
    va_list ap;
    va_start(ap, l);
    for (const char *s; n < 64 && (s = va_arg(ap, const char *)) != NULL; n++) {
        argv[n] = s;
        lens[n] = strlen(s);
    }
    va_end(ap);
    return queue_link_cmd(l, n, argv, lens);
}
