/* The flags of a queue node (zkpipe-pipeline --queue) and the queue's address (a redis:// or
 * unix:// URL) that it and zkpipe-submit share. Plain C, no Redis client: a build without
 * hiredis still parses them and says why it cannot run a node. */
#ifndef ZKPIPE_EXAMPLES_QUEUE_OPTIONS_H
#define ZKPIPE_EXAMPLES_QUEUE_OPTIONS_H

#include <stdio.h>

#include "queue_job.h"

/* The longest password taken (bytes), from a URL, a file or the environment. */
#define QUEUE_PASSWORD_MAX 512

/* Where the queue is: a Redis server, the stream of jobs on it and the credentials to reach it
 * with. The password is a secret: nothing prints it (queue_addr_name leaves it out). */
typedef struct queue_addr {
    char host[256]; /* a name, an IPv4 address, or an IPv6 one (written in brackets); "" for a
                       Unix socket */
    int port;       /* 6379 when the URL has none */
    char path[108]; /* unix://: the socket's path (a sockaddr_un's room); else "" */
    char stream[256];
    char user[256];                        /* an ACL user; "": the default user */
    char password[QUEUE_PASSWORD_MAX + 1]; /* "": none (yet: queue_auth_finish) */
    int has_password;                      /* a password was given (it may be empty) */
} queue_addr;

/*! queue_addr_parse() : "redis://[USER[:PASSWORD]@]HOST[:PORT]/STREAM" ("[ADDR]" for IPv6) or
 * "unix://[USER[:PASSWORD]@]/PATH?stream=STREAM" (a Unix socket). USER and PASSWORD are
 * percent-decoded (RFC 3986: write ':' as %3A, '@' as %40, '%' as %25; no %00); an empty USER
 * is the default user. STREAM: one or more bytes, none of them a space or a control character.
 * @return 1, or 0 with one line in why (never the password). */
int queue_addr_parse(queue_addr *a, const char *url, char *why, size_t cap);

/*! queue_addr_name() : the address as a URL without its password (for lines and logs):
 * "redis://USER@HOST:PORT/STREAM" or "unix://USER@/PATH?stream=STREAM". @return buf. */
const char *queue_addr_name(const queue_addr *a, char *buf, size_t cap);

/*! queue_addr_where() : the server alone, for lines: "HOST:PORT" or the socket's path.
 * @return buf. */
const char *queue_addr_where(const queue_addr *a, char *buf, size_t cap);

/* The most --circuit flags a node takes. */
#define QUEUE_CIRCUITS_MAX 64

/* A circuit a node proves: the name jobs give it and the operator's zkey. */
typedef struct queue_circuit {
    char name[QUEUE_CIRCUIT_MAX + 1]; /* as a job names it (queue_job.h) */
    const char *zkey;
} queue_circuit;

/* A queue node's settings (zkpipe-pipeline --queue ...). */
typedef struct queue_options {
    const char *prog; /* the program its lines name (default "zkpipe-pipeline") */
    const char *url;  /* --queue; NULL: not a node */
    queue_addr addr;
    const char *group;               /* --group (default "zkpipe") */
    const char *consumer;            /* --consumer (default HOSTNAME-PID) */
    unsigned long claim_idle_ms;     /* --claim-idle-ms (default 30000) */
    unsigned long exit_when_idle_ms; /* --exit-when-idle-ms (default 0: never) */
    unsigned long max_deliveries;    /* --max-deliveries (default 3) */
    const char *metrics_path;        /* the program's --metrics FILE, or NULL */
    const char *password_file;       /* --redis-password-file FILE, or NULL */
    int insecure_no_auth;            /* --insecure-no-auth: a remote Redis without credentials */
    const char *out_dir;             /* the program's --out DIR, or NULL: results inline only */
    const char *inputs_dir;          /* --inputs DIR, or NULL: witnesses come in the jobs */
    unsigned long max_wtns_mib;      /* --max-wtns-mib (default 64) */
    queue_circuit circuits[QUEUE_CIRCUITS_MAX]; /* --circuit NAME=FILE.zkey */
    unsigned ncircuits;
    int any; /* a queue flag was given */
} queue_options;

/* The defaults above. */
void queue_options_init(queue_options *q);

/* The usage lines of the flags. */
void queue_usage(FILE *f);

/*! queue_flag() : takes the long flag `name` (without its dashes) with `value` (NULL for a flag
 * without one): 1 when it is one of ours and the value is good, 0 when the name is not ours, -1
 * for a bad value (a line on stderr says why). A --queue URL with a password is kept parsed in
 * q->addr and its password overwritten in `value` (argv's own bytes: see queue_auth_hide). */
int queue_flag(queue_options *q, const char *name, char *value);

/*! queue_circuit_zkey() : the zkey of the circuit `name` (--circuit), or NULL. */
const char *queue_circuit_zkey(const queue_options *q, const char *name);

#endif
