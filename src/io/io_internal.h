/* What the readers (r1cs.c, wtns.c, zkey.c) share: the bytes of a file (mapped or borrowed),
 * its section table and its accounting. The formats only parse, validate and write: curves
 * come from arith/curve_ops.h (their primes, point checks and encodings), detail lines from
 * core/detail.h, keys are groth16's (groth16/keys.h) and circuits circuit's. */
#ifndef ZKPIPE_IO_IO_INTERNAL_H
#define ZKPIPE_IO_IO_INTERNAL_H

#include "arith/curve_ops.h"
#include "core/bytes.h"
#include "core/detail.h"
#include "zkpipe/io.h"

/* Section ids a table tracks; larger ids are skipped without a duplicate check. */
#define ZKPIPE__IO_MAX_SECTION 32
/* Aligned copies one reader may own (the zkey's point sections and its witness). */
#define ZKPIPE__IO_MAX_COPIES 8

/* A reader's bytes and everything it owns besides its struct. */
typedef struct zkpipe__io_src {
    zkpipe_allocator allocator;
    const uint8_t *data;
    size_t len;
    int mapped;           /* data is an mmap of len bytes */
    zkpipe_ledger ledger; /* the reader's own, in stage "loaded" (opts->acct) */
    zkpipe_ledger *outer; /* or the caller's (opts->ledger), charged `charged` bytes */
    uint64_t charged;
    uint32_t kind;
    void *copies[ZKPIPE__IO_MAX_COPIES];
    size_t copy_bytes[ZKPIPE__IO_MAX_COPIES];
    size_t ncopies;
    /* offset and size of each section id; size UINT64_MAX when absent */
    uint64_t off[ZKPIPE__IO_MAX_SECTION], size[ZKPIPE__IO_MAX_SECTION];
} zkpipe__io_src;

/* Sets up `src` over a file (mapped) or a buffer (path NULL), with the accounting of
 * opts->acct under the kind named `kind`. On error nothing is left to undo. */
zkpipe_status zkpipe__io_src_open(zkpipe__io_src *src, char *detail, size_t cap, const char *path,
                                  const void *data, size_t len, const char *kind,
                                  const zkpipe_io_options *opts);
/* Unmaps, frees the copies, closes the ledger. */
void zkpipe__io_src_close(zkpipe__io_src *src);

/* Opens a reader: a struct of `size` bytes whose first member is its zkpipe__io_src, set up
 * over the file or buffer, then `parse` fills in the rest. On error nothing is left. `opts`
 * may be NULL; src_open and parse get this library's copy of them, never NULL. */
typedef zkpipe_status (*zkpipe__io_parse_fn)(void *reader, char *detail, size_t cap,
                                             const zkpipe_io_options *opts);
zkpipe_status zkpipe__io_reader_open(void **out, size_t size, const char *kind,
                                     zkpipe__io_parse_fn parse, char *detail, size_t cap,
                                     const char *path, const void *data, size_t len,
                                     const zkpipe_io_options *opts);
/* Closes a reader's source and frees it; NULL is a no-op. */
void zkpipe__io_reader_destroy(void *reader);

/* Checks the container: magic, version, then indexes the sections (duplicates, sizes past
 * the end and trailing bytes refused). */
zkpipe_status zkpipe__io_sections(zkpipe__io_src *src, char *detail, size_t cap, const char *magic,
                                  uint32_t version);
/* The payload of section `id` when present and exactly `size` bytes (UINT64_MAX: any size),
 * else EFORMAT with a detail line. */
zkpipe_status zkpipe__io_section(const uint8_t **out, uint64_t *out_size, const zkpipe__io_src *src,
                                 char *detail, size_t cap, uint32_t id, uint64_t size);

/* The bytes of a mapped source in the page cache now (mincore), page-rounded, at most its
 * length. 0 on success, -1 (errno set) when mincore fails. */
int zkpipe__io_resident(uint64_t *out, const zkpipe__io_src *src);

/* Gives back the resident pages of [p, p + bytes) when the source is a mapping and the range
 * lies in it (core/pages.h); a no-op otherwise. */
void zkpipe__io_drop(const zkpipe__io_src *src, const void *p, size_t bytes);

/* The aligned copy of [p, p + bytes) a reader needs when p is not 8-byte aligned: *out an
 * accounted buffer of `bytes` bytes, 64-byte aligned, that the source owns from now on (freed by
 * zkpipe__io_src_close) and the caller fills; NULL when p is aligned (or bytes is 0) and the
 * caller reads p in place. ZKPIPE_OK, or ENOMEM, ELIMIT (more than ZKPIPE__IO_MAX_COPIES), or
 * the ledger's refusal, with *out NULL. */
zkpipe_status zkpipe__io_copy_slot(uint8_t **out, zkpipe__io_src *src, const uint8_t *p,
                                   size_t bytes);

/* `p` itself when 8-byte aligned, else an accounted aligned copy of `bytes` bytes. Either way
 * the mapped pages under p are given back (zkpipe__io_drop): callers call it once they have
 * checked the bytes, and the next reader faults them in from the page cache. */
zkpipe_status zkpipe__io_aligned(const void **out, zkpipe__io_src *src, const uint8_t *p,
                                 size_t bytes);

/* Decimal text of an integer of n little-endian limbs (at most 6) into out (at least 117
 * bytes). */
void zkpipe__io_dec_write(char *out, const uint64_t *limbs, size_t n);
/* Parses canonical decimal digits (no sign, no leading zeros except "0") into n limbs.
 * Returns 1, or 0 for anything else or a value that does not fit. */
int zkpipe__io_dec_read(uint64_t *limbs, size_t n, const char *s);

#endif
