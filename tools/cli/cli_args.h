/* Parsing the numbers the tools take on their command lines. */
#ifndef ZKPIPE_EXAMPLES_CLI_ARGS_H
#define ZKPIPE_EXAMPLES_CLI_ARGS_H

/* `s` as a decimal number in min..max into *out: 1, or 0 (*out untouched) when `s` is NULL,
 * does not start with a digit, has anything after the digits or is out of range. */
int cli_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out);

#endif
