#include "core/struct_size_internal.h"

#include <string.h>

zkpipe_status zkpipe__struct_in(void *dst, size_t dst_size, const void *src, size_t min_size)
{
    size_t size;
    memcpy(&size, src, sizeof size);
    if (size < min_size || size > dst_size)
        return ZKPIPE_EINVAL;
    memcpy(dst, src, size);
    memcpy(dst, &dst_size, sizeof dst_size);
    return ZKPIPE_OK;
}
