/* One connection to the queue's Redis server, for zkpipe-pipeline --queue and zkpipe-submit:
 * connects (TCP or a Unix socket) with a timeout, authenticates each new connection (AUTH with
 * the address's credentials), reconnects with backoff when Redis goes away, and says so in one
 * line on stderr when Redis is lost and one when it is back (once per process, however many
 * links notice). Credentials refused end every link of the process instead: one line, no
 * retries (queue_link_refused). Built on hiredis (libhiredis-dev); nothing of it reaches
 * libzkpipe. */
#ifndef ZKPIPE_EXAMPLES_QUEUE_REDIS_H
#define ZKPIPE_EXAMPLES_QUEUE_REDIS_H

#include <hiredis/hiredis.h>
#include <stdint.h>

#include "queue_options.h"

typedef struct queue_link queue_link;

/* Called on each new connection before any command (e.g. to create the consumer group):
 * 0, or -1 when the connection failed meanwhile. */
typedef int (*queue_link_setup_fn)(queue_link *l, void *ctx);

struct queue_link {
    const queue_addr *addr;
    const char *prog;          /* for the lines on stderr */
    const char *note;          /* what goes on meanwhile, for the "lost" line */
    unsigned timeout_ms;       /* connect and reply timeout (cover any BLOCK the link sends) */
    queue_link_setup_fn setup; /* NULL, or run on each new connection */
    void *setup_ctx;
    redisContext *c;      /* NULL while not connected */
    unsigned backoff_ms;  /* the wait after the next failure */
    uint64_t retry_at_ns; /* no attempt before this (monotonic) */
    uint64_t connects;    /* connections made, the first included */
};

/* A link that connects on its first command. Everything pointed to must outlive it. */
void queue_link_init(queue_link *l, const queue_addr *addr, const char *prog, unsigned timeout_ms,
                     const char *note);

/*! queue_link_cmd() : sends one command and returns its reply (the caller frees it with
 * freeReplyObject; an error reply is a reply), or NULL when Redis cannot be reached now: the link
 * is then down and tries again no sooner than queue_link_wait_ms() from now; or NULL for good
 * once the server has refused the credentials (queue_link_refused). A connection found
 * broken (a restarted server) is replaced at once and the command sent again, so a command whose
 * reply was lost may have run twice: send only commands for which that is harmless.
 * Thread safety: one thread per link. */
redisReply *queue_link_cmd(queue_link *l, int argc, const char *const *argv, const size_t *lens);

/* queue_link_cmd with NUL-terminated strings, the list ending with NULL (at most 64). */
redisReply *queue_link_cmdv(queue_link *l, ...);

/*! queue_link_refused() : whether a server refused this process's credentials, or wanted some
 * and none were given (wrong password, no password configured on the server, NOAUTH): one line
 * on stderr said which, and no link connects again. Thread-safe. */
int queue_link_refused(void);

/* Milliseconds until the link may try again (0: now). */
uint64_t queue_link_wait_ms(const queue_link *l);

/* Closes the connection. */
void queue_link_close(queue_link *l);

/* The monotonic clock in nanoseconds. */
uint64_t queue_now_ns(void);

/*! queue_group_create() : XGROUP CREATE STREAM GROUP 0 MKSTREAM on the link's connection, which
 * must be up (for a setup hook): the group reads the stream from its start, so that jobs added
 * before any node was there are read too. @return the reply (the caller frees it; BUSYGROUP when
 * the group exists), or NULL when the connection failed. */
redisReply *queue_group_create(queue_link *l, const char *stream, const char *group);

/* Whether `r` is an error reply starting with `prefix` (e.g. "NOGROUP"). */
int queue_reply_error(const redisReply *r, const char *prefix);

#endif
