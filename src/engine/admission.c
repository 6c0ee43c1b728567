/* The engine's table of partition sources and what their closed ledgers taught it. */
#include "engine/admission.h"

#include <stdio.h>
#include <string.h>

zkpipe_status zkpipe__admission_init(zkpipe__admission *a)
{
    memset(a, 0, sizeof *a);
    atomic_init(&a->over_events, 0);
    atomic_init(&a->over_bytes, 0);
    atomic_init(&a->returned_early, 0);
    return pthread_mutex_init(&a->lock, NULL) == 0 ? ZKPIPE_OK : ZKPIPE_ENOMEM;
}

void zkpipe__admission_destroy(zkpipe__admission *a)
{
    pthread_mutex_destroy(&a->lock);
}

/* The entry of (ops, key), made (over the least recently used one when the table is full)
 * when there is none. The caller holds the lock. */
static zkpipe__source *find(zkpipe__admission *a, const zkpipe_stage_ops *ops, const void *key)
{
    zkpipe__source *victim = NULL;
    for (size_t i = 0; i < ZKPIPE__SOURCES_MAX; i++) {
        zkpipe__source *s = &a->src[i];
        if (s->ops == ops && s->key == key)
            return s;
        /* A free entry (used 0) beats every used one. */
        if (victim == NULL || s->used < victim->used)
            victim = s;
    }
    memset(victim, 0, sizeof *victim);
    victim->ops = ops;
    victim->key = key;
    victim->stats.key = key;
    if (ops->name != NULL)
        snprintf(victim->stats.name, sizeof victim->stats.name, "%s", ops->name);
    return victim;
}

zkpipe__plan zkpipe__admission_plan(zkpipe__admission *a, const zkpipe_stage_ops *ops,
                                    const void *key, uint64_t estimate, uint64_t cap)
{
    pthread_mutex_lock(&a->lock);
    zkpipe__source *s = find(a, ops, key);
    s->used = ++a->clock;
    zkpipe__plan p;
    p.units = estimate > s->stats.learned_bytes ? estimate : s->stats.learned_bytes;
    if (cap > 0 && p.units > cap)
        p.units = cap;
    p.slack = s->slack;
    p.profiled = s->proved > 0;
    s->stats.estimate_bytes = estimate;
    s->stats.reserved_bytes = p.units;
    pthread_mutex_unlock(&a->lock);
    return p;
}

void zkpipe__admission_raise(zkpipe__admission *a, const zkpipe_stage_ops *ops, const void *key,
                             uint64_t peak)
{
    pthread_mutex_lock(&a->lock);
    zkpipe__source *s = find(a, ops, key);
    s->used = ++a->clock;
    if (peak > s->stats.learned_bytes)
        s->stats.learned_bytes = peak;
    pthread_mutex_unlock(&a->lock);
}

void zkpipe__admission_learn(zkpipe__admission *a, const zkpipe_stage_ops *ops, const void *key,
                             uint64_t peak, uint64_t regrowth, uint64_t over, int proved)
{
    pthread_mutex_lock(&a->lock);
    zkpipe__source *s = find(a, ops, key);
    s->used = ++a->clock;
    s->stats.partitions++;
    s->proved += proved != 0;
    if (peak > s->stats.learned_bytes)
        s->stats.learned_bytes = peak;
    if (regrowth > s->slack)
        s->slack = regrowth;
    if (over > 0) {
        s->stats.over_reservation_events++;
        s->stats.over_reservation_bytes += over;
    }
    pthread_mutex_unlock(&a->lock);
}

size_t zkpipe__admission_sources(zkpipe__admission *a, zkpipe_engine_source *out, size_t cap)
{
    pthread_mutex_lock(&a->lock);
    /* Most recently used first: repeatedly the newest entry older than the last copied. */
    size_t n = 0;
    uint64_t below = UINT64_MAX;
    for (;;) {
        const zkpipe__source *best = NULL;
        for (size_t i = 0; i < ZKPIPE__SOURCES_MAX; i++) {
            const zkpipe__source *s = &a->src[i];
            if (s->ops != NULL && s->used < below && (best == NULL || s->used > best->used))
                best = s;
        }
        if (best == NULL)
            break;
        if (n < cap)
            out[n] = best->stats;
        n++;
        below = best->used;
    }
    pthread_mutex_unlock(&a->lock);
    return n;
}
