/* A file the formats' writers produce: written under a temporary name beside it and renamed
 * into place only when every byte is out and synced, so a failed or interrupted write leaves
 * the path as it was (no partial file under its name). Errors are sticky: the writers write
 * on and check once, at commit. */
#ifndef ZKPIPE_IO_FILE_OUT_H
#define ZKPIPE_IO_FILE_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "zkpipe/status.h"

typedef struct zkpipe__io_out {
    FILE *f;
    const char *path;
    char *tmp;          /* the temporary name, removed on abort */
    int err;            /* errno of the first failure, 0 while none */
    long long sec_size; /* offset of the open section's size field, -1 when none */
} zkpipe__io_out;

/* Creates `path`'s temporary file (O_EXCL, O_NOFOLLOW, mode 0644 before the umask) and writes
 * the container's magic, version and section count. ZKPIPE_OK, ZKPIPE_EIO (with a detail line
 * naming the path), ZKPIPE_ENOMEM. */
zkpipe_status zkpipe__io_out_open(zkpipe__io_out *o, char *detail, size_t cap, const char *path,
                                  const char *magic, uint32_t version, uint32_t sections);

void zkpipe__io_out_bytes(zkpipe__io_out *o, const void *p, size_t n);
void zkpipe__io_out_u32(zkpipe__io_out *o, uint32_t v);
void zkpipe__io_out_u64(zkpipe__io_out *o, uint64_t v);
/* n field elements or coordinates of `limbs` 64-bit limbs each, little-endian. */
void zkpipe__io_out_limbs(zkpipe__io_out *o, const uint64_t *v, size_t n, size_t limbs);

/* A section's id and size field; its size is filled in by section_end. */
void zkpipe__io_out_section(zkpipe__io_out *o, uint32_t id);
void zkpipe__io_out_section_end(zkpipe__io_out *o);

/* Flushes, syncs, closes and renames onto the path: ZKPIPE_OK, or ZKPIPE_EIO with a detail
 * line (the temporary file removed, the path untouched). Frees what open allocated. */
zkpipe_status zkpipe__io_out_commit(zkpipe__io_out *o, char *detail, size_t cap);
/* Closes and removes the temporary file; the path is untouched. NULL-safe after a failed open. */
void zkpipe__io_out_abort(zkpipe__io_out *o);

#endif
