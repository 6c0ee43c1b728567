/* The header and integer fields of Groth16 key files (layout in zkpipe/groth16.h). */
#include <string.h>

#include "groth16/groth16_internal.h"

static void put_u32(uint8_t *out, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        out[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_u32(const uint8_t *in)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)in[i] << (8 * i);
    return v;
}

void zkpipe__g16_put_u64(uint8_t *out, uint64_t v)
{
    put_u32(out, (uint32_t)v);
    put_u32(out + 4, (uint32_t)(v >> 32));
}

uint64_t zkpipe__g16_get_u64(const uint8_t *in)
{
    return get_u32(in) | (uint64_t)get_u32(in + 4) << 32;
}

/* magic is 7 characters; its terminating NUL is the header's eighth byte. */
void zkpipe__g16_write_header(uint8_t *out, const char *magic, zkpipe_curve curve)
{
    memcpy(out, magic, 8);
    put_u32(out + 8, ZKPIPE__G16_VERSION);
    put_u32(out + 12, (uint32_t)curve);
}

zkpipe_status zkpipe__g16_check_header(const uint8_t *in, size_t len, const char *magic,
                                       zkpipe_curve curve)
{
    if (len < ZKPIPE__G16_HEADER_BYTES || memcmp(in, magic, 8) != 0 ||
        get_u32(in + 8) != ZKPIPE__G16_VERSION || get_u32(in + 12) != (uint32_t)curve)
        return ZKPIPE_EFORMAT;
    return ZKPIPE_OK;
}
