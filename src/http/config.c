/* The server's settings: defaults, shared by both builds (with and without libmicrohttpd). */
#include <string.h>

#include "core/struct_size_internal.h"
#include "http/http_internal.h"

void zkpipe_http_config_init(zkpipe_http_config *config)
{
    if (config == NULL)
        return;
    memset(config, 0, sizeof *config);
    config->struct_size = sizeof *config;
    config->max_connections = 64;
    config->timeout_s = 10;
    config->max_response = (size_t)4 << 20;
    config->request_timeout_ms = 2000;
    config->max_per_address = 16;
    config->max_body = (size_t)1 << 20;
}

zkpipe_status zkpipe__http_config_in(zkpipe_http_config *dst, const zkpipe_http_config *caller)
{
    if (caller == NULL)
        return ZKPIPE_EINVAL;
    zkpipe_http_config_init(dst);
    /* The first published layout ended with `allocator`. */
    return zkpipe__struct_in(dst, sizeof *dst, caller,
                             ZKPIPE__SIZE_THROUGH(zkpipe_http_config, allocator),
                             "zkpipe_http_config");
}
