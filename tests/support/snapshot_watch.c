/* The concurrent snapshot reader (snapshot_watch.h). */
#include "snapshot_watch.h"

#include <sched.h>

static void *watch(void *arg)
{
    snapshot_watch *w = arg;
    do {
        zkpipe_snapshot s;
        zkpipe_engine_counters c;
        if (zkpipe_acct_snapshot(w->acct, &s) != ZKPIPE_OK ||
            (w->e != NULL && zkpipe_engine_stats(w->e, &c) != ZKPIPE_OK)) {
            w->failed_reads++;
            atomic_store(&w->running, 1);
            continue;
        }
        w->snapshots++;
        if (s.live_bytes > w->max_live)
            w->max_live = s.live_bytes;
        uint64_t waist = zkpipe_snapshot_in_waist(&s), resident = zkpipe_snapshot_resident(&s);
        w->max_waist = waist > w->max_waist ? waist : w->max_waist;
        w->max_resident = resident > w->max_resident ? resident : w->max_resident;
        int bad = s.live_bytes > w->byte_limit;
        if (w->e != NULL) {
            uint64_t p = c.permits_admitted;
            w->min_permits = p < w->min_permits ? p : w->min_permits;
            w->max_permits_seen = p > w->max_permits_seen ? p : w->max_permits_seen;
            bad = bad || p < 1 || p > w->max_permits || c.in_flight > c.bound ||
                  c.peak_in_flight > c.bound || waist > c.bound || resident > c.resident_bound;
        }
        w->breaches += bad;
        atomic_store(&w->running, 1);
    } while (!atomic_load(&w->stop));
    return NULL;
}

int snapshot_watch_start(snapshot_watch *w)
{
    atomic_init(&w->stop, 0);
    atomic_init(&w->running, 0);
    w->snapshots = w->breaches = w->failed_reads = w->max_live = w->max_permits_seen = 0;
    w->max_waist = w->max_resident = 0;
    w->min_permits = UINT64_MAX;
    int rc = pthread_create(&w->thread, NULL, watch, w);
    if (rc != 0)
        return rc;
    /* On a loaded machine a new thread may wait longer to run than a test's traffic lasts
     * (a sanitized stress run can be over in tens of milliseconds): only a reader that has
     * already made a read is sure to be reading while the traffic runs. */
    while (!atomic_load(&w->running))
        sched_yield();
    return 0;
}

void snapshot_watch_stop(snapshot_watch *w)
{
    atomic_store(&w->stop, 1);
    pthread_join(w->thread, NULL);
}
