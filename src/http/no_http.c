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

const char *zkpipe_http_request_method(const zkpipe_http_request *req)
{
    (void)req;
    return NULL;
}

const char *zkpipe_http_request_path(const zkpipe_http_request *req)
{
    (void)req;
    return NULL;
}

const char *zkpipe_http_request_content_type(const zkpipe_http_request *req)
{
    (void)req;
    return NULL;
}

const void *zkpipe_http_request_body(const zkpipe_http_request *req, size_t *len)
{
    (void)req;
    if (len != NULL)
        *len = 0;
    return NULL;
}

/* No server hands out a request: there is none to answer. */
zkpipe_status zkpipe_http_respond(zkpipe_http_request *req, unsigned code, const char *content_type,
                                  const void *body, size_t len, unsigned retry_after_s)
{
    (void)req, (void)code, (void)content_type, (void)body, (void)len, (void)retry_after_s;
    return ZKPIPE_EINVAL;
}
