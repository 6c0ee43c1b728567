/* BLAKE2b (RFC 7693), unkeyed, for the digests the formats carry: snarkjs's zkey circuit hash
 * is BLAKE2b-512 of the key's points. */
#ifndef ZKPIPE_CORE_BLAKE2B_H
#define ZKPIPE_CORE_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

typedef struct zkpipe__blake2b {
    uint64_t h[8], t; /* chain value, bytes compressed so far */
    uint8_t buf[128]; /* the pending block */
    size_t fill, outlen;
} zkpipe__blake2b;

/* A hash of outlen bytes (1 to 64). */
void zkpipe__blake2b_init(zkpipe__blake2b *s, size_t outlen);
void zkpipe__blake2b_update(zkpipe__blake2b *s, const void *data, size_t len);
/* Writes outlen bytes to out; s must be initialised again before another use. */
void zkpipe__blake2b_final(zkpipe__blake2b *s, uint8_t *out);

#endif
