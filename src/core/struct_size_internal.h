/* Structs that grow: a config or options struct a caller fills starts with `size_t
 * struct_size`, which its *_init sets to the sizeof the caller was compiled with. The library
 * reads a caller's struct only through zkpipe__struct_in, so a caller built against older
 * headers (a shorter struct) gets defaults for the fields it lacks, and one built against
 * newer headers (a longer struct, fields this library cannot honour) is refused.
 *
 * Growing such a struct: append fields only, each starting at or past the previous layout's
 * sizeof (never in its tail padding, which an older caller leaves uninitialised), give them
 * defaults in *_init, and keep the struct's first-layout size (its ZKPIPE__SIZE_THROUGH
 * constant) as the smallest size accepted. tests/test_abi.c keeps a frozen copy of each
 * published layout and calls the library with it. */
#ifndef ZKPIPE_CORE_STRUCT_SIZE_INTERNAL_H
#define ZKPIPE_CORE_STRUCT_SIZE_INTERNAL_H

#include <stddef.h>

#include "zkpipe/status.h"

/* Bytes of `type` up to the end of `field`: the first published layout's size when `field`
 * was its last member (tail padding aside, which differs by platform). */
#define ZKPIPE__SIZE_THROUGH(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

/* Reads the caller's struct `src` into `dst`, the library's own struct of `dst_size` bytes
 * that already holds the defaults: copies the first src->struct_size bytes, then sets dst's
 * struct_size to dst_size. Returns ZKPIPE_OK, or ZKPIPE_EINVAL (dst unchanged) when
 * src->struct_size is below `min_size` (the first layout: a zero-filled or uninitialised
 * struct, or not a sized struct at all) or above dst_size (newer headers than the library),
 * with a line naming `type`'s struct_size in the thread's last detail (zkpipe_last_detail). */
zkpipe_status zkpipe__struct_in(void *dst, size_t dst_size, const void *src, size_t min_size,
                                const char *type);

/* The line for a struct_size outside [min_size, max_size] in the thread's last detail;
 * returns ZKPIPE_EINVAL. */
zkpipe_status zkpipe__struct_size_refused(const char *type, size_t size, size_t min_size,
                                          size_t max_size);

#endif
