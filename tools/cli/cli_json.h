/* JSON strings for the tools' --json lines, which carry names the user chose (file paths). */
#ifndef ZKPIPE_TOOLS_CLI_JSON_H
#define ZKPIPE_TOOLS_CLI_JSON_H

#include <stdio.h>

/*! cli_json_string() : writes `s` to `f` as one JSON string, quotes included: '"', '\\' and
 * control characters escaped, well-formed UTF-8 kept as it is, and each byte that is not part
 * of well-formed UTF-8 (a path may hold any byte) written as U+FFFD, so the line stays valid
 * JSON whatever the name. Thread safety: as the stream's. */
void cli_json_string(FILE *f, const char *s);

#endif
