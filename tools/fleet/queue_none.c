/* queue_node_run in a build without hiredis (libhiredis-dev): the flags parse, the node does
 * not run. */
#include "queue_node.h"

int queue_node_run(const queue_options *q, const zkpipe_engine_config *cfg,
                   const cli_observe_options *obs, int full_check, uint32_t key_idle_ms, int json)
{
    (void)key_idle_ms;
    (void)q;
    (void)cfg;
    (void)obs;
    (void)full_check;
    (void)json;
    fprintf(stderr, "zkpipe-pipeline: --queue: this build has no Redis client (install "
                    "libhiredis-dev and build again)\n");
    return 2;
}
