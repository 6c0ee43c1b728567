/* The whole of a file as a NUL-terminated heap string, for tests that check what a run wrote
 * (traces, plots, vectors). */
#ifndef ZKPIPE_TESTS_READ_FILE_H
#define ZKPIPE_TESTS_READ_FILE_H

#include <stddef.h>

/* Reads `path` to its end (a file still growing is read as far as it is now). Returns the text,
 * which the caller frees, with its length in *len when len is not NULL; NULL when the file
 * cannot be opened or read, or memory runs out. */
char *read_file(const char *path, size_t *len);

#endif
