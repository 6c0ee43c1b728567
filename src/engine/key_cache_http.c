/* What the engine's key cache shows through its HTTP provider (http_provider.c): the keys
 * known, resident and pinned, their resident bytes and budget units, loads and releases. Zero
 * series for an engine without a cache, so a fleet's series do not come and go. */
#include <stdio.h>
#include <string.h>

#include "engine/engine_internal.h"

static unsigned long long ull(uint64_t v)
{
    return (unsigned long long)v;
}

static void counters(zkpipe_engine *e, zkpipe_key_cache_counters *k)
{
    if (e->config.keys == NULL || zkpipe_key_cache_stats(e->config.keys, k) != ZKPIPE_OK)
        memset(k, 0, sizeof *k);
}

void zkpipe__keys_json(zkpipe_http_out *out, zkpipe_engine *e)
{
    zkpipe_key_cache_counters k;
    counters(e, &k);
    zkpipe_http_out_printf(out,
                           ",\"keys\":{\"known\":%llu,\"resident\":%llu,\"pinned\":%llu,"
                           "\"resident_bytes\":%llu,\"budget_bytes\":%llu,\"loads\":%llu,"
                           "\"releases\":%llu,\"load_failures\":%llu,\"idle_ms\":%u}",
                           ull(k.keys), ull(k.resident_keys), ull(k.pinned_keys),
                           ull(k.resident_bytes), ull(k.charged_bytes), ull(k.loads),
                           ull(k.releases), ull(k.load_failures), (unsigned)k.idle_ms);
}

void zkpipe__keys_prometheus(zkpipe_http_out *out, zkpipe_engine *e)
{
    zkpipe_key_cache_counters k;
    counters(e, &k);
    const struct {
        const char *name, *type, *help;
        uint64_t v;
    } s[] = {
        {"keys", "gauge", "Proving keys the engine's key cache knows.", k.keys},
        {"keys_resident", "gauge", "Of them, loaded now.", k.resident_keys},
        {"keys_pinned", "gauge", "Of them, pinned now (in use: never released).", k.pinned_keys},
        {"key_resident_bytes", "gauge",
         "Bytes of the resident keys actually in memory (a mapped zkey: its pages in the page "
         "cache, by mincore).",
         k.resident_bytes},
        {"key_budget_bytes", "gauge", "Budget bytes the resident keys hold (their full sizes).",
         k.charged_bytes},
        {"key_loads_total", "counter", "Key loads, the first ones included.", k.loads},
        {"key_releases_total", "counter",
         "Idle keys released because a partition could not otherwise be admitted.", k.releases},
        {"key_load_failures_total", "counter", "Key loads that failed.", k.load_failures},
    };
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        zkpipe_http_out_family(out, s[i].name, s[i].type, s[i].help);
        zkpipe_http_out_sample(out, s[i].name, NULL, (double)s[i].v);
    }
}
