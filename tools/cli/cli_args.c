/* Numbers on the tools' command lines (cli_args.h). */
#include "cli_args.h"

#include <errno.h>
#include <stdlib.h>

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
