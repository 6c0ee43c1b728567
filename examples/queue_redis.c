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
        fprintf(stderr, "%s: Redis at %s:%d is unreachable (%s): retrying with backoff%s%s\n",
                l->prog, l->addr->host, l->addr->port, why, l->note != NULL ? "; " : "",
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
        fprintf(stderr, "%s: Redis at %s:%d is reachable again after %.1f s\n", l->prog,
                l->addr->host, l->addr->port, 1e-9 * (double)(queue_now_ns() - lost_since_ns));
    }
    pthread_mutex_unlock(&lost_lock);
}

/* A new connection (with the setup hook run); 0, or -1 with the reason in why. */
static int connect_link(queue_link *l, char *why, size_t cap)
{
    struct timeval tv = {(time_t)(l->timeout_ms / 1000),
                         (suseconds_t)(l->timeout_ms % 1000) * 1000};
    l->c = redisConnectWithTimeout(l->addr->host, l->addr->port, tv);
    if (l->c == NULL || l->c->err != 0) {
        snprintf(why, cap, "%s", l->c != NULL ? l->c->errstr : "out of memory");
        queue_link_close(l);
        return -1;
    }
    if (redisSetTimeout(l->c, tv) != REDIS_OK || redisEnableKeepAlive(l->c) != REDIS_OK) {
        snprintf(why, cap, "cannot set the socket's options: %s", l->c->errstr);
        queue_link_close(l);
        return -1;
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
            if (queue_now_ns() < l->retry_at_ns)
                return NULL;
            if (connect_link(l, why, sizeof why) != 0) {
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
