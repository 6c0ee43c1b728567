/* BLAKE2b as RFC 7693 specifies it (core/blake2b.h). */
#include "core/blake2b.h"

#include <string.h>

#include "core/bytes.h"

static const uint64_t iv[8] = {0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull,
                               0xa54ff53a5f1d36f1ull, 0x510e527fade682d1ull, 0x9b05688c2b3e6c1full,
                               0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull};

static const uint8_t sigma[12][16] = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
                                      {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
                                      {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
                                      {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
                                      {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
                                      {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
                                      {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
                                      {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
                                      {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
                                      {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
                                      {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
                                      {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

static uint64_t rotr(uint64_t x, unsigned n)
{
    return x >> n | x << (64 - n);
}

static void mix(uint64_t *v, int a, int b, int c, int d, uint64_t x, uint64_t y)
{
    v[a] += v[b] + x;
    v[d] = rotr(v[d] ^ v[a], 32);
    v[c] += v[d];
    v[b] = rotr(v[b] ^ v[c], 24);
    v[a] += v[b] + y;
    v[d] = rotr(v[d] ^ v[a], 16);
    v[c] += v[d];
    v[b] = rotr(v[b] ^ v[c], 63);
}

static void compress(zkpipe__blake2b *s, int last)
{
    uint64_t v[16], m[16];
    for (int i = 0; i < 16; i++)
        m[i] = zkpipe__get_le64(s->buf + 8 * i);
    for (int i = 0; i < 8; i++) {
        v[i] = s->h[i];
        v[i + 8] = iv[i];
    }
    v[12] ^= s->t; /* the counter's high word stays 0: below 2^64 bytes */
    if (last)
        v[14] = ~v[14];
    for (int r = 0; r < 12; r++) {
        const uint8_t *p = sigma[r];
        mix(v, 0, 4, 8, 12, m[p[0]], m[p[1]]);
        mix(v, 1, 5, 9, 13, m[p[2]], m[p[3]]);
        mix(v, 2, 6, 10, 14, m[p[4]], m[p[5]]);
        mix(v, 3, 7, 11, 15, m[p[6]], m[p[7]]);
        mix(v, 0, 5, 10, 15, m[p[8]], m[p[9]]);
        mix(v, 1, 6, 11, 12, m[p[10]], m[p[11]]);
        mix(v, 2, 7, 8, 13, m[p[12]], m[p[13]]);
        mix(v, 3, 4, 9, 14, m[p[14]], m[p[15]]);
    }
    for (int i = 0; i < 8; i++)
        s->h[i] ^= v[i] ^ v[i + 8];
}

void zkpipe__blake2b_init(zkpipe__blake2b *s, size_t outlen)
{
    memset(s, 0, sizeof *s);
    memcpy(s->h, iv, sizeof iv);
    s->h[0] ^= 0x01010000ull ^ (uint64_t)outlen; /* depth 1, fanout 1, no key */
    s->outlen = outlen;
}

void zkpipe__blake2b_update(zkpipe__blake2b *s, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len > 0) {
        /* A full block is compressed only once more data follows: the last one is flagged. */
        if (s->fill == sizeof s->buf) {
            s->t += sizeof s->buf;
            compress(s, 0);
            s->fill = 0;
        }
        size_t k = sizeof s->buf - s->fill;
        k = k < len ? k : len;
        memcpy(s->buf + s->fill, p, k);
        s->fill += k;
        p += k;
        len -= k;
    }
}

void zkpipe__blake2b_final(zkpipe__blake2b *s, uint8_t *out)
{
    s->t += s->fill;
    memset(s->buf + s->fill, 0, sizeof s->buf - s->fill);
    compress(s, 1);
    uint8_t full[64];
    for (int i = 0; i < 8; i++)
        zkpipe__put_le64(full + 8 * i, s->h[i]);
    memcpy(out, full, s->outlen);
}
