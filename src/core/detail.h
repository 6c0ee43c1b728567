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

#endif
