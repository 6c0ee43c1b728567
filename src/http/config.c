/* The server's settings: defaults, shared by both builds (with and without libmicrohttpd). */
#include <string.h>

#include "http/http_internal.h"

void zkpipe_http_config_init(zkpipe_http_config *config)
{
    if (config == NULL)
        return;
    memset(config, 0, sizeof *config);
    config->max_connections = 64;
    config->timeout_s = 10;
    config->max_response = (size_t)4 << 20;
}
