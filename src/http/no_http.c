/* The server in a zkpipe built without libmicrohttpd: every call says so or does nothing. */
#include "http/http_internal.h"

zkpipe_status zkpipe_http_start(zkpipe_http **out, const zkpipe_http_config *caller)
{
    zkpipe_http_config config;
    if (out == NULL || zkpipe__http_config_in(&config, caller) != ZKPIPE_OK)
        return ZKPIPE_EINVAL;
    return ZKPIPE_EUNSUPPORTED;
}

uint16_t zkpipe_http_port(const zkpipe_http *server)
{
    (void)server;
    return 0;
}

zkpipe_status zkpipe_http_attach(zkpipe_http *server, const char *name, zkpipe_http_provider_fn fn,
                                 void *ctx)
{
    (void)server, (void)name, (void)fn, (void)ctx;
    return ZKPIPE_EINVAL;
}

zkpipe_status zkpipe_http_detach(zkpipe_http *server, const char *name)
{
    (void)server, (void)name;
    return ZKPIPE_EINVAL;
}

zkpipe_status zkpipe_http_stats(zkpipe_http *server, zkpipe_http_counters *out)
{
    (void)server, (void)out;
    return ZKPIPE_EINVAL;
}

void zkpipe_http_stop(zkpipe_http *server)
{
    (void)server;
}
