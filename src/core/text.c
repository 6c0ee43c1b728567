#include "core/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

zkpipe_status zkpipe__text_start(zkpipe__text *t, char *buf, size_t cap, const size_t *out_len)
{
    if (out_len == NULL || (buf == NULL && cap > 0))
        return ZKPIPE_EINVAL;
    t->buf = buf;
    t->cap = cap;
    t->len = 0;
    if (cap > 0)
        buf[0] = '\0';
    return ZKPIPE_OK;
}

void zkpipe__text_printf(zkpipe__text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n;
    if (t->len < t->cap)
        n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    else
        n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n;
}

void zkpipe__text_put(zkpipe__text *t, const char *s, size_t n)
{
    if (t->len < t->cap) {
        size_t room = t->cap - t->len - 1; /* the NUL's byte */
        size_t m = n < room ? n : room;
        memcpy(t->buf + t->len, s, m);
        t->buf[t->len + m] = '\0';
    }
    t->len += n;
}

void zkpipe__text_u64(zkpipe__text *t, uint64_t v)
{
    char digits[20];
    size_t i = sizeof digits;
    do {
        digits[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    zkpipe__text_put(t, digits + i, sizeof digits - i);
}

void zkpipe__text_double(zkpipe__text *t, double v)
{
    if (v != v)
        zkpipe__text_printf(t, "NaN");
    else if (v > 1.7976931348623157e308 || v < -1.7976931348623157e308)
        zkpipe__text_printf(t, v > 0 ? "+Inf" : "-Inf");
    else
        zkpipe__text_printf(t, "%.15g", v);
}
