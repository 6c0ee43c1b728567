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

/* One line per thread: calls without a detail buffer leave theirs here. */
static _Thread_local char last_detail[ZKPIPE_DETAIL_MAX];

char *zkpipe__last_detail_buffer(void)
{
    return last_detail;
}

zkpipe_status zkpipe__refuse(zkpipe_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_detail, sizeof last_detail, fmt, ap);
    va_end(ap);
    return st;
}

const char *zkpipe_last_detail(void)
{
    return last_detail;
}
