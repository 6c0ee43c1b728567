/* Numbers and flags on the tools' command lines (cli_args.h). */
#include "cli_args.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "zkpipe/zkpipe.h"

int cli_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
    char *end;
    /* strtoul would take a sign or leading blanks: refuse them. */
    if (s == NULL || *s < '0' || *s > '9')
        return 0;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (*end != '\0' || errno != 0 || v < min || v > max)
        return 0;
    *out = v;
    return 1;
}

void cli_args_init(cli_args *a, const char *prog, int argc, char **argv,
                   const char *const *switches, void (*usage)(FILE *f), const char **pos,
                   int max_pos)
{
    memset(a, 0, sizeof *a);
    a->prog = prog;
    a->argc = argc;
    a->argv = argv;
    a->i = 1;
    a->switches = switches;
    a->usage = usage;
    a->pos = pos;
    a->max_pos = max_pos;
}

static int is_switch(const cli_args *a, const char *arg)
{
    for (const char *const *s = a->switches; s != NULL && *s != NULL; s++)
        if (strcmp(*s, arg) == 0)
            return 1;
    return 0;
}

static int positional(cli_args *a, const char *arg)
{
    if (a->npos == a->max_pos) {
        fprintf(stderr, "%s: too many arguments (see --help)\n", a->prog);
        return CLI_ARGS_USAGE;
    }
    a->pos[a->npos++] = arg;
    return CLI_ARGS_FLAG;
}

int cli_args_next(cli_args *a, const char **flag, const char **val)
{
    while (a->i < a->argc) {
        const char *arg = a->argv[a->i++];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            a->usage(stdout);
            return CLI_ARGS_EXIT;
        }
        if (strcmp(arg, "--version") == 0) {
            printf("%s (zkpipe) %s\n", a->prog, zkpipe_version_string());
            return CLI_ARGS_EXIT;
        }
        if (strcmp(arg, "--") == 0) {
            while (a->i < a->argc)
                if (positional(a, a->argv[a->i++]) != CLI_ARGS_FLAG)
                    return CLI_ARGS_USAGE;
            break;
        }
        if (strncmp(arg, "--", 2) != 0) {
            if (positional(a, arg) != CLI_ARGS_FLAG)
                return CLI_ARGS_USAGE;
            continue;
        }
        *flag = arg;
        *val = NULL;
        if (is_switch(a, arg))
            return CLI_ARGS_FLAG;
        if (a->i >= a->argc) {
            fprintf(stderr, "%s: %s needs a value (see --help)\n", a->prog, arg);
            return CLI_ARGS_USAGE;
        }
        *val = a->argv[a->i++];
        return CLI_ARGS_FLAG;
    }
    return CLI_ARGS_END;
}

int cli_args_count(const cli_args *a, const char *flag, const char *val, unsigned long long lo,
                   unsigned long long hi, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long v = *val >= '0' && *val <= '9' ? strtoull(val, &end, 10) : 0;
    if (*val < '0' || *val > '9' || *end != '\0' || errno != 0 || v < lo || v > hi) {
        fprintf(stderr, "%s: %s %s: not an integer from %llu to %llu\n", a->prog, flag, val, lo,
                hi);
        return 0;
    }
    *out = v;
    return 1;
}

void cli_args_unknown(const cli_args *a, const char *flag)
{
    fprintf(stderr, "%s: unknown option %s (see --help)\n", a->prog, flag);
}

int cli_args_positionals(const cli_args *a, int n)
{
    if (a->npos == n)
        return 1;
    fprintf(stderr, "%s: expected %d files, got %d (see --help)\n", a->prog, n, a->npos);
    return 0;
}
