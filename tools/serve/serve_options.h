/* zkpipe-serve's flags: the circuits it proves (named as a fleet node names them: the two
 * share --circuit NAME=FILE.zkey), where it listens, its limits and its engine. */
#ifndef ZKPIPE_TOOLS_SERVE_OPTIONS_H
#define ZKPIPE_TOOLS_SERVE_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

#include "cli_engine.h"
#include "queue_options.h"
#include "zkpipe/zkpipe.h"

/* The most arguments of a --witness-cmd, the command's own included. */
#define SERVE_WITNESS_ARGS_MAX 32

/* A witness generator (--witness-cmd NAME='CMD ARG...'): the command line split at spaces,
 * "{input}" and "{wtns}" standing for the paths the server chooses. */
typedef struct serve_witness_cmd {
    char name[QUEUE_CIRCUIT_MAX + 1];
    char *argv[SERVE_WITNESS_ARGS_MAX + 1]; /* into `line`, NULL-terminated */
    char *line;                             /* malloc'd copy of the value, split in place */
} serve_witness_cmd;

typedef struct serve_options {
    queue_options circuits; /* --circuit, as the fleet parses it (its other flags unused) */
    char listen_addr[64];   /* --listen ADDR:PORT (a numeric address) */
    uint16_t listen_port;
    char metrics_addr[64]; /* --metrics-listen ADDR:PORT; "" for none */
    uint16_t metrics_port;
    const char *token_file;           /* --token-file FILE, or NULL: no authentication */
    unsigned long queue_ms;           /* --queue-ms: the longest a request waits for admission */
    unsigned long request_timeout_ms; /* --request-timeout-ms: line, headers and body */
    unsigned long max_connections, max_per_address;
    unsigned long max_body_kib;  /* --max-body-kib; 0: the largest circuit's witness */
    unsigned long max_input_kib; /* --max-input-kib: an input.json at most */
    unsigned long key_idle_ms;
    unsigned long witness_timeout_ms; /* --witness-timeout-ms */
    serve_witness_cmd witness[QUEUE_CIRCUITS_MAX];
    unsigned nwitness;
    zkpipe_engine_config cfg; /* --budget-mib, --synth-workers, --permits, --prover-... */
    cli_engine_options engine;
} serve_options;

/* The usage text. */
void serve_usage(FILE *f);

/*! serve_options_parse() : argv into `o`. @return 0, 1 (bad flags: a line on stderr says which),
 * or 2 (--help: the usage was printed). */
int serve_options_parse(serve_options *o, int argc, char **argv);

/* Frees what parsing allocated. */
void serve_options_free(serve_options *o);

/* The generator of circuit `name`, or NULL. */
const serve_witness_cmd *serve_witness_of(const serve_options *o, const char *name);

/*! serve_token_read() : the bearer token: the first line of `path`, a regular file that neither
 * group nor others may read, 1..ZKPIPE_HTTP_TOKEN_MAX characters of 0x21..0x7e. @return 1, or 0
 * with a line on stderr (never the token). */
int serve_token_read(const char *path, char *token, size_t cap);

#endif
