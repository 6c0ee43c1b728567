/* The concurrency controller (autotune.h says the rule). */
#include "engine/autotune.h"

#include <string.h>

static void new_window(zkpipe__autotune *t)
{
    t->seen = 0;
    t->min_ready = UINT64_MAX;
}

zkpipe_status zkpipe__autotune_init(zkpipe__autotune *t, uint64_t start, uint64_t max,
                                    uint64_t capacity, uint64_t prover_workers)
{
    memset(t, 0, sizeof *t);
    t->max = max > 0 ? max : 1;
    t->rest = capacity + prover_workers;
    t->limit = start < 1 ? 1 : start > t->max ? t->max : start;
    new_window(t);
    return pthread_mutex_init(&t->lock, NULL) == 0 ? ZKPIPE_OK : ZKPIPE_ENOMEM;
}

void zkpipe__autotune_destroy(zkpipe__autotune *t)
{
    pthread_mutex_destroy(&t->lock);
}

uint64_t zkpipe__autotune_observe(zkpipe__autotune *t, uint64_t ready, int starved_by_limit)
{
    pthread_mutex_lock(&t->lock);
    uint64_t next = t->limit;
    if (ready == 0 && starved_by_limit && next < t->max) {
        /* A prover idles now for want of one more partition in flight: one more at once, and
         * the new limit is judged over a window of its own. */
        next++;
        new_window(t);
    } else {
        t->seen++;
        if (ready < t->min_ready)
            t->min_ready = ready;
        if (t->seen >= t->limit + t->rest) {
            if (t->min_ready >= 2)
                next = next > t->min_ready - 1 ? next - (t->min_ready - 1) : 1;
            new_window(t);
        }
    }
    uint64_t changed = 0;
    if (next != t->limit) {
        t->limit = next;
        t->changes++;
        changed = next;
    }
    pthread_mutex_unlock(&t->lock);
    return changed;
}

uint64_t zkpipe__autotune_limit(zkpipe__autotune *t, uint64_t *changes)
{
    pthread_mutex_lock(&t->lock);
    uint64_t limit = t->limit;
    if (changes != NULL)
        *changes = t->changes;
    pthread_mutex_unlock(&t->lock);
    return limit;
}
