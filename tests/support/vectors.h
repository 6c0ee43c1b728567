/* Reader for the known-answer vector files in tests/vectors/ (format: tests/vectors/README.md):
 * one record per line, a name then whitespace-separated tokens, `#` starts a comment. */
#ifndef ZKPIPE_TESTS_VECTORS_H
#define ZKPIPE_TESTS_VECTORS_H

#include <stddef.h>

typedef struct vectors_record {
    const char *name;    /* the first token of the line */
    const char **tokens; /* the tokens after the name */
    size_t count;        /* number of tokens after the name */
    unsigned line;       /* 1-based line number, for failure messages */
} vectors_record;

typedef struct vectors_file {
    vectors_record *records; /* in file order */
    size_t count;
    char *text;          /* private: the file's text, split in place */
    const char **tokbuf; /* private: storage for every record's tokens */
} vectors_file;

/* Loads `relpath` (e.g. "tests/vectors/bn254_g1.txt"), relative to the environment variable
 * ZKPIPE_SOURCE_DIR when set, else to the source directory compiled in. Returns 0, or -1 with
 * a message on stderr (missing file, out of memory). Free with vectors_free. */
int vectors_load(vectors_file *f, const char *relpath);

/* Frees what vectors_load allocated; a zero-filled file is fine. */
void vectors_free(vectors_file *f);

/* Number of records called `name`. */
size_t vectors_count(const vectors_file *f, const char *name);

/* Decodes token `i` of `r` as big-endian hex of exactly `len` bytes into `out`. Returns 0, or
 * -1 when the token is missing, not hex, or of another length. */
int vectors_hex(const vectors_record *r, size_t i, unsigned char *out, size_t len);

/* Length in bytes of hex token `i` (half its digit count); 0 when missing. */
size_t vectors_hex_len(const vectors_record *r, size_t i);

#endif
