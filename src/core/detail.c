#include "core/detail.h"

#include <stdarg.h>
#include <stdio.h>

zkpipe_status zkpipe__fail(char *detail, size_t cap, zkpipe_status st, const char *fmt, ...)
{
    if (detail != NULL && cap > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(detail, cap, fmt, ap);
        va_end(ap);
    }
    return st;
}
