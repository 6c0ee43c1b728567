/* Detail lines: the one human-readable line a failing call writes into its caller's
 * `detail` buffer (see zkpipe/io.h), naming the problem without the file name. */
#ifndef ZKPIPE_CORE_DETAIL_H
#define ZKPIPE_CORE_DETAIL_H

#include <stddef.h>

#include "zkpipe/status.h"

/* Writes the formatted line to detail (when it is not NULL and cap > 0; truncated to fit,
 * NUL-terminated) and returns st. */
zkpipe_status zkpipe__fail(char *detail, size_t cap, zkpipe_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Writes the formatted line to this thread's last detail (zkpipe_last_detail) and returns st:
 * for calls that have no detail buffer of their own. */
zkpipe_status zkpipe__refuse(zkpipe_status st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The calling thread's last detail buffer (ZKPIPE_DETAIL_MAX bytes), for zkpipe__fail. */
char *zkpipe__last_detail_buffer(void);

#endif
