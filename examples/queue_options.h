/* The flags of a queue node (zkpipe-pipeline --queue) and the redis://HOST:PORT/STREAM address
 * that it and zkpipe-submit share. Plain C, no Redis client: a build without hiredis still
 * parses them and says why it cannot run a node. */
#ifndef ZKPIPE_EXAMPLES_QUEUE_OPTIONS_H
#define ZKPIPE_EXAMPLES_QUEUE_OPTIONS_H

#include <stdio.h>

#include "queue_job.h"

/* Where the queue is: a Redis server and the stream of jobs on it. */
typedef struct queue_addr {
    char host[256]; /* a name, an IPv4 address, or an IPv6 one (written in brackets) */
    int port;       /* 6379 when the URL has none */
    char stream[256];
} queue_addr;

/*! queue_addr_parse() : "redis://HOST[:PORT]/STREAM" ("[ADDR]" for IPv6; STREAM: one or more
 * bytes, none of them a space or a control character). @return 1, or 0 with one line in why. */
int queue_addr_parse(queue_addr *a, const char *url, char *why, size_t cap);

/* The most --circuit flags a node takes. */
#define QUEUE_CIRCUITS_MAX 64

/* A circuit a node proves: the name jobs give it and the operator's zkey. */
typedef struct queue_circuit {
    char name[QUEUE_CIRCUIT_MAX + 1]; /* as a job names it (queue_job.h) */
    const char *zkey;
} queue_circuit;

/* A queue node's settings (zkpipe-pipeline --queue ...). */
typedef struct queue_options {
    const char *url; /* --queue; NULL: not a node */
    queue_addr addr;
    const char *group;               /* --group (default "zkpipe") */
    const char *consumer;            /* --consumer (default HOSTNAME-PID) */
    unsigned long claim_idle_ms;     /* --claim-idle-ms (default 30000) */
    unsigned long exit_when_idle_ms; /* --exit-when-idle-ms (default 0: never) */
    unsigned long max_deliveries;    /* --max-deliveries (default 3) */
    const char *metrics_path;        /* the program's --metrics FILE, or NULL */
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

/*! queue_flag() : takes the long flag `name` (without its dashes) with `value`: 1 when it is one
 * of ours and the value is good, 0 when the name is not ours, -1 for a bad value (a line on
 * stderr says why). */
int queue_flag(queue_options *q, const char *name, const char *value);

/*! queue_circuit_zkey() : the zkey of the circuit `name` (--circuit), or NULL. */
const char *queue_circuit_zkey(const queue_options *q, const char *name);

#endif
