/* Decimal strings of field elements, as snarkjs's JSON files hold them. */
#include <string.h>

#include "io/io_internal.h"

/* Divides the n-limb integer x by 10^19 in place; returns the remainder. */
static uint64_t div_chunk(uint64_t *x, size_t n)
{
    const uint64_t d = UINT64_C(10000000000000000000);
    unsigned __int128 rem = 0;
    for (size_t i = n; i-- > 0;) {
        unsigned __int128 cur = rem << 64 | x[i];
        x[i] = (uint64_t)(cur / d);
        rem = cur % d;
    }
    return (uint64_t)rem;
}

void zkpipe__io_dec_write(char *out, const uint64_t *limbs, size_t n)
{
    uint64_t x[6] = {0};
    char tmp[120];
    size_t len = 0;
    memcpy(x, limbs, n * sizeof(uint64_t));
    do {
        uint64_t chunk = div_chunk(x, n);
        int more = 0;
        for (size_t i = 0; i < n; i++)
            more |= x[i] != 0;
        /* Every chunk but the most significant one has exactly 19 digits. */
        for (int k = 0; k < 19 && (more || chunk != 0 || k == 0); k++) {
            tmp[len++] = (char)('0' + chunk % 10);
            chunk /= 10;
        }
        if (!more)
            break;
    } while (1);
    for (size_t i = 0; i < len; i++)
        out[i] = tmp[len - 1 - i];
    out[len] = '\0';
}

int zkpipe__io_dec_read(uint64_t *limbs, size_t n, const char *s)
{
    size_t len = strlen(s);
    if (len == 0 || len > 116 || (len > 1 && s[0] == '0'))
        return 0;
    memset(limbs, 0, n * sizeof(uint64_t));
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        uint64_t carry = (uint64_t)(s[i] - '0');
        for (size_t k = 0; k < n; k++) {
            unsigned __int128 t = (unsigned __int128)limbs[k] * 10 + carry;
            limbs[k] = (uint64_t)t;
            carry = (uint64_t)(t >> 64);
        }
        if (carry != 0)
            return 0;
    }
    return 1;
}
