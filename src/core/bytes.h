/* Little-endian integers in byte buffers, as every file format zkpipe reads or writes stores
 * them (iden3's .r1cs/.wtns/.zkey, zkpipe's key files). Any alignment. */
#ifndef ZKPIPE_CORE_BYTES_H
#define ZKPIPE_CORE_BYTES_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t zkpipe__get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t zkpipe__get_le64(const uint8_t *p)
{
    return (uint64_t)zkpipe__get_le32(p) | (uint64_t)zkpipe__get_le32(p + 4) << 32;
}

static inline void zkpipe__put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void zkpipe__put_le64(uint8_t *p, uint64_t v)
{
    zkpipe__put_le32(p, (uint32_t)v);
    zkpipe__put_le32(p + 4, (uint32_t)(v >> 32));
}

/* n 64-bit limbs (least significant first) from 8 n little-endian bytes. */
static inline void zkpipe__get_limbs(uint64_t *out, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = zkpipe__get_le64(p + 8 * i);
}

#endif
