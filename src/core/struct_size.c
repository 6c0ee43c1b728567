#include "core/struct_size_internal.h"

#include <string.h>

#include "core/detail.h"

zkpipe_status zkpipe__struct_size_refused(const char *type, size_t size, size_t min_size,
                                          size_t max_size)
{
    return zkpipe__refuse(ZKPIPE_EINVAL,
                          "%s.struct_size is %zu, not a size this zkpipe reads (%zu to %zu): "
                          "set it with %s_init",
                          type, size, min_size, max_size, type);
}

zkpipe_status zkpipe__struct_in(void *dst, size_t dst_size, const void *src, size_t min_size,
                                const char *type)
{
    size_t size;
    memcpy(&size, src, sizeof size);
    if (size < min_size || size > dst_size)
        return zkpipe__struct_size_refused(type, size, min_size, dst_size);
    memcpy(dst, src, size);
    memcpy(dst, &dst_size, sizeof dst_size);
    return ZKPIPE_OK;
}
