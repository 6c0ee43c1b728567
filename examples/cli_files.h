/* File helpers zkpipe-prove and zkpipe-verify share: whole-file reads and all-or-nothing
 * writes (a temporary file in the target's folder, renamed into place). */
#ifndef ZKPIPE_EXAMPLES_CLI_FILES_H
#define ZKPIPE_EXAMPLES_CLI_FILES_H

#include <stddef.h>

/* The whole file at `path` (NUL-terminated, *len excludes the NUL) in a malloc'd buffer the
 * caller frees, if it holds at most `max` bytes: no more than max + 1 are ever read, so a
 * device or a FIFO without end is refused too. NULL with errno set on failure: EFBIG when
 * the file holds more than `max` bytes. */
char *cli_read_file(const char *path, size_t max, size_t *len);

/* A staged output: the text is in `tmp` until cli_commit renames it to `path`. */
typedef struct cli_output {
    const char *path;
    char tmp[4096];
    int staged;
} cli_output;

/* Writes `len` bytes to a new temporary file beside `path`. Returns 0, or -1 with errno set
 * (nothing left behind). */
int cli_stage(cli_output *o, const char *path, const char *text, size_t len);
/* Renames every staged output into place, in order; on a failure removes the ones already
 * renamed and the remaining temporaries. Returns 0, or -1 with errno set and *failed the
 * output that failed. */
int cli_commit(cli_output *outs, size_t n, const cli_output **failed);
/* Removes whatever temporaries remain. */
void cli_discard(cli_output *outs, size_t n);

#endif
