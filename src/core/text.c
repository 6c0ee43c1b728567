#include "core/text.h"

#include <stdarg.h>
#include <stdio.h>

void zkpipe__text_start(zkpipe__text *t, char *buf, size_t cap)
{
    t->buf = buf;
    t->cap = cap;
    t->len = 0;
    if (cap > 0)
        buf[0] = '\0';
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
