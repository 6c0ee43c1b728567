/* The credentials of a queue's Redis (zkpipe-pipeline --queue, zkpipe-submit): where the password
 * comes from, when a server may be reached without one, and keeping the password off `ps`.
 * Plain C, no Redis client; the AUTH itself is sent by queue_redis.c on each new connection. */
#ifndef ZKPIPE_EXAMPLES_QUEUE_AUTH_H
#define ZKPIPE_EXAMPLES_QUEUE_AUTH_H

#include "queue_options.h"

/* The environment variable a password may come from (no command line shows it). */
#define QUEUE_PASSWORD_ENV "ZKPIPE_REDIS_PASSWORD"

/*! queue_auth_finish() : completes `a`'s credentials before any connection: the password is the
 * first line of `password_file` when given (a regular file of at most QUEUE_PASSWORD_MAX bytes
 * on that line, refused when its group or others may read it), else the URL's, else
 * $ZKPIPE_REDIS_PASSWORD when set. Then a server that is not local (queue_addr_local) is refused
 * without a password unless `insecure_no_auth`. `prog` names the program in the lines.
 * @return 1, or 0 with one line on stderr (never the password). Not thread-safe (getenv). */
int queue_auth_finish(queue_addr *a, const char *password_file, int insecure_no_auth,
                      const char *prog);

/*! queue_addr_local() : whether the server is on this machine: a Unix socket, "localhost",
 * 127.0.0.0/8 or ::1 (also written ::ffff:127.x.y.z). Other names are not resolved (that would
 * be a lookup before the check): they count as remote. */
int queue_addr_local(const queue_addr *a);

/*! queue_auth_hide() : when the URL `url` (a command line's own bytes, which /proc/PID/cmdline
 * and so `ps` show) carries a password, says once on stderr that it was visible to other users
 * and overwrites it in place with "***". `what` names the argument in that line (e.g.
 * "--queue"). Call it as soon as the URL has been parsed. */
void queue_auth_hide(char *url, const char *prog, const char *what);

#endif
