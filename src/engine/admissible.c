/* How many partitions the engine would admit now (zkpipe_engine_admissible): the admission
 * rule of the synthesis workers (a permit, then the budget's reservation) and the resident
 * bound, read from the counters in the order that errs towards too few. */
#include <pthread.h>

#include "engine/engine_internal.h"
#include "engine/key_cache_internal.h"

static uint64_t less(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

static uint64_t least(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* The largest peak the engine has learned of any source. */
static uint64_t learned_max(zkpipe_engine *e)
{
    zkpipe_engine_source src[ZKPIPE__SOURCES_MAX];
    size_t n = zkpipe__admission_sources(&e->adm, src, ZKPIPE__SOURCES_MAX);
    uint64_t most = 0;
    for (size_t i = 0; i < n && i < ZKPIPE__SOURCES_MAX; i++)
        most = src[i].learned_bytes > most ? src[i].learned_bytes : most;
    return most;
}

zkpipe_status zkpipe_engine_admissible(zkpipe_engine *engine, uint64_t partition_bytes,
                                       uint64_t *out)
{
    if (engine == NULL || out == NULL)
        return ZKPIPE_EINVAL;
    *out = 0;
    pthread_mutex_lock(&engine->lock);
    int closed = engine->closed;
    pthread_mutex_unlock(&engine->lock);
    if (closed)
        return ZKPIPE_OK;
    zkpipe_engine_counters c;
    zkpipe_status st = zkpipe_engine_stats(engine, &c);
    if (st != ZKPIPE_OK)
        return st;
    /* Counted as they end and start before `submitted` is read again: a partition moving
     * meanwhile is counted as not started, so the answer errs low. */
    uint64_t ended = c.proved + c.failed + c.canceled;
    uint64_t started = ended + c.in_flight + c.proving;
    uint64_t waiting = less(c.submitted, started);
    uint64_t n =
        least(less(c.permits_available, waiting), less(c.resident_bound, less(c.submitted, ended)));
    if (n > 0 && engine->budget != NULL) {
        uint64_t learned = learned_max(engine);
        uint64_t units =
            least(partition_bytes > learned ? partition_bytes : learned, c.budget_bytes);
        uint64_t room = c.budget_available;
        if (engine->keys_bound)
            room += zkpipe__key_cache_releasable(engine->config.keys);
        /* The reservations of the partitions waiting for a permit come first. */
        if (units > 0)
            n = least(n, less(room / units, waiting));
    }
    *out = n;
    return ZKPIPE_OK;
}
