/* The one rendering of /metrics and /status: the registry's snapshot, then each provider's
 * part. The server (server.c) renders each response with it; zkpipe_http_render renders the
 * same text without a server, so a file written at exit and a scrape never differ in what
 * they hold. */
#include <string.h>

#include "acct/acct_internal.h"
#include "core/alloc_internal.h"
#include "http/http_internal.h"

int zkpipe__http_provider_name_valid(const char *name)
{
    return name != NULL && zkpipe__acct_name_valid(name) && strcmp(name, "uptime_s") != 0 &&
           strcmp(name, "accounting") != 0;
}

zkpipe_status zkpipe__http_render(zkpipe_http_out *out, zkpipe_http_format format,
                                  zkpipe_acct *acct, zkpipe_snapshot *snap,
                                  const zkpipe_http_provider *providers, size_t count,
                                  double uptime_s)
{
    int json = format == ZKPIPE_HTTP_JSON;
    zkpipe__http_out_reset(out, format);
    zkpipe_acct_snapshot(acct, snap);
    if (json && uptime_s >= 0)
        zkpipe_http_out_printf(out, "{\"uptime_s\":%.3f,\"accounting\":", uptime_s);
    else if (json)
        zkpipe_http_out_write(out, "{\"accounting\":", 14);
    zkpipe__http_out_snapshot(out, snap);
    for (size_t i = 0; i < count; i++) {
        const zkpipe_http_provider *p = &providers[i];
        if (json)
            zkpipe_http_out_printf(out, ",\"%s\":", p->name);
        size_t mark = out->len;
        zkpipe_status st = p->fn(out, format, p->ctx);
        if (st != ZKPIPE_OK && out->overflow == ZKPIPE_OK) {
            /* Drop what the provider wrote; the response stays well-formed. */
            out->len = mark;
            out->buf[mark] = '\0';
            if (json)
                zkpipe_http_out_printf(out, "{\"error\":\"%s\"}", zkpipe_status_name(st));
        }
    }
    if (json)
        zkpipe_http_out_write(out, "}\n", 2);
    return out->overflow;
}

/* The providers as a server would take them: each with a callback and a good name, no name
 * twice, at most as many as a server holds. */
static int providers_valid(const zkpipe_http_provider *providers, size_t count)
{
    if (count > ZKPIPE_HTTP_PROVIDERS_MAX || (count > 0 && providers == NULL))
        return 0;
    for (size_t i = 0; i < count; i++) {
        if (providers[i].fn == NULL || !zkpipe__http_provider_name_valid(providers[i].name))
            return 0;
        for (size_t j = 0; j < i; j++)
            if (strcmp(providers[i].name, providers[j].name) == 0)
                return 0;
    }
    return 1;
}

zkpipe_status zkpipe_http_render(const zkpipe_http_config *caller, zkpipe_http_format format,
                                 const zkpipe_http_provider *providers, size_t count, char **text,
                                 size_t *len)
{
    if (text != NULL)
        *text = NULL;
    zkpipe_http_config cfg;
    if (text == NULL || len == NULL || zkpipe__http_config_in(&cfg, caller) != ZKPIPE_OK)
        return ZKPIPE_EINVAL;
    const zkpipe_allocator *a = zkpipe__allocator_or_default(cfg.allocator);
    if (a == NULL || (format != ZKPIPE_HTTP_PROMETHEUS && format != ZKPIPE_HTTP_JSON) ||
        cfg.max_response < 64 || zkpipe_prom_options_check(&cfg.prom) != ZKPIPE_OK ||
        !providers_valid(providers, count))
        return ZKPIPE_EINVAL;
    /* A snapshot is about 9 KiB: not for the caller's stack. */
    zkpipe_snapshot *snap = zkpipe__alloc(a, sizeof *snap, _Alignof(zkpipe_snapshot));
    if (snap == NULL)
        return ZKPIPE_ENOMEM;
    zkpipe_http_out out = {NULL, 0, 0, cfg.max_response, ZKPIPE_OK, format, &cfg.prom, a};
    zkpipe_acct *acct = cfg.acct != NULL ? cfg.acct : zkpipe_acct_default();
    zkpipe_status st = zkpipe__http_render(&out, format, acct, snap, providers, count, -1.0);
    zkpipe__free(a, snap);
    if (st != ZKPIPE_OK) {
        zkpipe__http_out_free(&out);
        return st;
    }
    *text = out.buf;
    *len = out.len;
    return ZKPIPE_OK;
}
