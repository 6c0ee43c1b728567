/* Parsing the tools' command lines: the numbers they take, and the walk over their arguments
 * that zkpipe-prove, zkpipe-setup and zkpipe-export-circuit share (--help, --version, flags
 * with and without a value, positional arguments, "--"), each refusal one line on stderr. */
#ifndef ZKPIPE_EXAMPLES_CLI_ARGS_H
#define ZKPIPE_EXAMPLES_CLI_ARGS_H

#include <stdio.h>

/* `s` as a decimal number in min..max into *out: 1, or 0 (*out untouched) when `s` is NULL,
 * does not start with a digit, has anything after the digits or is out of range. */
int cli_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out);

/* A walk over argv (cli_args_init, then cli_args_next until it returns something other than
 * CLI_ARGS_FLAG). */
typedef struct cli_args {
    const char *prog;
    int argc, i;
    char **argv;
    const char *const *switches; /* the flags that take no value; NULL-terminated */
    void (*usage)(FILE *f);      /* prints the usage, for --help and -h */
    const char **pos;            /* the positional arguments, up to max_pos */
    int npos, max_pos;
} cli_args;

/* What cli_args_next found. */
enum {
    CLI_ARGS_FLAG = 0,  /* a flag: *flag, and *val its value (NULL for a switch) */
    CLI_ARGS_END = 1,   /* every argument read */
    CLI_ARGS_EXIT = 2,  /* --help or --version, printed on stdout: exit 0 */
    CLI_ARGS_USAGE = 3, /* a usage error, its line on stderr: exit 2 */
};

/* Starts a walk; `pos` has room for max_pos positional arguments. */
void cli_args_init(cli_args *a, const char *prog, int argc, char **argv,
                   const char *const *switches, void (*usage)(FILE *f), const char **pos,
                   int max_pos);

/* The next flag, with its value when it takes one; positional arguments are collected on the
 * way (every argument after "--" is one). */
int cli_args_next(cli_args *a, const char **flag, const char **val);

/* `val` of `flag` as a decimal integer in lo..hi into *out: 1, or 0 with one line on stderr
 * ("PROG: FLAG VAL: not an integer from LO to HI"). */
int cli_args_count(const cli_args *a, const char *flag, const char *val, unsigned long long lo,
                   unsigned long long hi, unsigned long long *out);

/* Refuses `flag`, which the tool does not know: one line on stderr. */
void cli_args_unknown(const cli_args *a, const char *flag);

/* 1 when exactly `n` positional arguments were given, else 0 with one line on stderr. */
int cli_args_positionals(const cli_args *a, int n);

#endif
