/* Keys under the budget (zkpipe/key_cache.h): resident keys hold units of the engine's byte
 * budget; an idle key is released only when a partition cannot otherwise be admitted, a key in
 * use never is; a released key is loaded again by the next partition that needs it, and proofs
 * made with a zkey loaded again verify; a partition waiting while key_idle_ms > 0 is admitted
 * once the key has been idle that long; under concurrent traffic every budget unit keys took
 * comes back.
 *
 * The host operations charge bytes without allocating them: only the ledgers and the budget
 * matter here. Worker threads never call cmocka asserts: they count failures, and the main
 * thread checks. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture_path.h"
#include "nap.h"
#include "read_file.h"
#include "sanitize.h"
#include "scratch_dir.h"
#include "zkpipe/zkpipe.h"

#define PATIENCE_MS 60000

/* ---- a host's keys and partitions ---- */

/* A host key: its load and unload counted (the last unload's time too, on the cache's clock),
 * half of it resident (what the ledger shows). */
typedef struct hkey {
    uint64_t bytes;
    atomic_long loads, unloads, failures;
    atomic_int resident;
    _Atomic uint64_t unloaded_ns;
    zkpipe_key *key;
} hkey;

static zkpipe_status k_load(void *ctx, void **handle, char *detail, size_t cap)
{
    hkey *k = ctx;
    (void)detail;
    (void)cap;
    if (atomic_exchange(&k->resident, 1) != 0)
        atomic_fetch_add(&k->failures, 1); /* loaded twice */
    atomic_fetch_add(&k->loads, 1);
    *handle = k;
    return ZKPIPE_OK;
}

static void k_unload(void *ctx, void *handle)
{
    hkey *k = ctx;
    if (handle != k || atomic_exchange(&k->resident, 0) != 1)
        atomic_fetch_add(&k->failures, 1);
    atomic_store(&k->unloaded_ns, zkpipe_trace_now());
    atomic_fetch_add(&k->unloads, 1);
}

static uint64_t k_resident(void *ctx, const void *handle)
{
    (void)handle;
    return ((const hkey *)ctx)->bytes / 2;
}

static const zkpipe_key_ops hkey_ops = {
    .struct_size = sizeof(zkpipe_key_ops),
    .kind = "host_key",
    .load = k_load,
    .unload = k_unload,
    .resident = k_resident,
};

/* A host partition: `units` bytes charged at synthesis, using `key` (or none); the prove of a
 * gated partition waits for the gate to open. Each prove checks that its key is resident and
 * that it was given the key's handle. When its synthesis started and its prove ended are
 * kept, on the cache's clock, so that a test can order events without sleeping. */
typedef struct hpart {
    uint64_t units;
    uint64_t announce; /* its estimate: `units` unless a test says otherwise */
    hkey *key;
    atomic_int *gate; /* NULL: none; proves wait while *gate is 0 */
    atomic_long *synths, *proofs, *failures;
    _Atomic uint64_t synth_ns, proved_ns;
} hpart;

static zkpipe_status p_estimate(const zkpipe_stage_call *call, uint64_t *bytes)
{
    *bytes = ((const hpart *)call->ctx)->announce;
    return ZKPIPE_OK;
}

static zkpipe_status p_synthesize(const zkpipe_stage_call *call, void **out)
{
    hpart *p = call->ctx;
    atomic_store(&p->synth_ns, zkpipe_trace_now());
    atomic_fetch_add(p->synths, 1);
    if (zkpipe_ledger_charge(call->ledger, ZKPIPE_KIND_ABC, p->units) != ZKPIPE_OK ||
        (p->key != NULL && (call->key != p->key || !atomic_load(&p->key->resident))))
        atomic_fetch_add(p->failures, 1);
    *out = p;
    return ZKPIPE_OK;
}

static zkpipe_status p_prove(const zkpipe_stage_call *call, void *item,
                             zkpipe_partition_result *out)
{
    (void)item;
    (void)out;
    hpart *p = call->ctx;
    for (long t = 0; p->gate != NULL && !atomic_load(p->gate) && t < PATIENCE_MS; t++)
        nap_ms(1);
    if (zkpipe_ledger_release(call->ledger, ZKPIPE_KIND_ABC, p->units) != ZKPIPE_OK ||
        (p->key != NULL && (call->key != p->key || !zkpipe_key_is_resident(p->key->key) ||
                            !atomic_load(&p->key->resident))))
        atomic_fetch_add(p->failures, 1);
    atomic_store(&p->proved_ns, zkpipe_trace_now());
    atomic_fetch_add(p->proofs, 1);
    return ZKPIPE_OK;
}

static void p_discard(const zkpipe_stage_call *call, void *item)
{
    (void)call;
    (void)item;
}

static zkpipe_key *p_key(void *ctx, size_t partition)
{
    (void)partition;
    const hpart *p = ctx;
    return p->key != NULL ? p->key->key : NULL;
}

static const zkpipe_stage_ops part_ops = {
    .struct_size = sizeof(zkpipe_stage_ops),
    .name = "keyed",
    .estimate = p_estimate,
    .synthesize = p_synthesize,
    .prove = p_prove,
    .discard = p_discard,
    .key = p_key,
};

/* What a test runs on: a registry, a cache, an engine with a budget, counters. */
typedef struct rig {
    zkpipe_acct *acct;
    zkpipe_key_cache *cache;
    zkpipe_engine *engine;
    uint64_t budget;
    atomic_long synths, proofs, failures;
} rig;

static void rig_cache(rig *r, uint32_t idle_ms)
{
    memset(r, 0, sizeof *r);
    assert_int_equal(zkpipe_acct_create(NULL, &r->acct), ZKPIPE_OK);
    zkpipe_key_cache_config kc;
    zkpipe_key_cache_config_init(&kc);
    kc.acct = r->acct;
    kc.idle_ms = idle_ms;
    assert_int_equal(zkpipe_key_cache_create(&r->cache, &kc), ZKPIPE_OK);
}

static void rig_engine(rig *r, uint64_t budget, unsigned synth_workers, unsigned provers)
{
    zkpipe_engine_config c;
    zkpipe_engine_config_init(&c);
    c.acct = r->acct;
    c.budget_bytes = budget;
    c.keys = r->cache;
    c.backend = ZKPIPE_BACKEND_CPU;
    c.synth_workers = synth_workers;
    c.permits = synth_workers;
    c.prover_workers = provers;
    r->budget = budget;
    assert_int_equal(zkpipe_engine_create(&r->engine, &c), ZKPIPE_OK);
}

static void hkey_add(rig *r, hkey *k, uint64_t bytes, int loaded)
{
    memset(k, 0, sizeof *k);
    k->bytes = bytes;
    atomic_store(&k->resident, loaded);
    assert_int_equal(zkpipe_key_add(r->cache, &k->key, &hkey_ops, k, bytes, k, loaded), ZKPIPE_OK);
}

static hpart part(rig *r, uint64_t units, hkey *key, atomic_int *gate)
{
    hpart p = {units, units, key, gate, &r->synths, &r->proofs, &r->failures, 0, 0};
    return p;
}

static zkpipe_job *submit(rig *r, hpart *p)
{
    zkpipe_job *job;
    zkpipe_partition pt = {&part_ops, p, {0, 0}};
    assert_int_equal(zkpipe_engine_submit(r->engine, &job, &pt, 1, NULL, NULL), ZKPIPE_OK);
    return job;
}

static void finish(zkpipe_job *job, zkpipe_status want)
{
    zkpipe_partition_result res;
    assert_int_equal(zkpipe_job_wait_timed(job, (uint64_t)PATIENCE_MS * 1000000u), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_result(job, 0, &res), ZKPIPE_OK);
    assert_int_equal(res.status, want);
    zkpipe_job_destroy(job);
}

static zkpipe_key_cache_counters kstats(rig *r)
{
    zkpipe_key_cache_counters k;
    assert_int_equal(zkpipe_key_cache_stats(r->cache, &k), ZKPIPE_OK);
    return k;
}

static zkpipe_engine_counters estats(rig *r)
{
    zkpipe_engine_counters c;
    assert_int_equal(zkpipe_engine_stats(r->engine, &c), ZKPIPE_OK);
    return c;
}

/* Engine gone, keys removed: every unit the keys took is back, nothing is accounted. */
static void rig_free(rig *r)
{
    zkpipe_engine_destroy(r->engine);
    zkpipe_key_cache_counters k = kstats(r);
    assert_int_equal(k.budget_taken, k.budget_returned);
    assert_int_equal(k.charged_bytes, 0);
    assert_int_equal(atomic_load(&r->failures), 0);
    zkpipe_key_cache_destroy(r->cache);
    zkpipe_snapshot s;
    assert_int_equal(zkpipe_acct_snapshot(r->acct, &s), ZKPIPE_OK);
    assert_int_equal(s.live_items, 0);
    assert_int_equal(s.live_bytes, 0);
    zkpipe_acct_destroy(r->acct);
}

/* The bytes the registry's stage "keys" holds now. */
static uint64_t keys_stage_bytes(rig *r)
{
    zkpipe_snapshot s;
    assert_int_equal(zkpipe_acct_snapshot(r->acct, &s), ZKPIPE_OK);
    for (uint32_t i = 0; i < s.stage_count; i++)
        if (strcmp(s.stage_names[i], "keys") == 0)
            return s.stage[i].live_bytes;
    return 0;
}

/* ---- the budget includes keys ---- */

static void test_budget_includes_keys(void **state)
{
    (void)state;
    rig r;
    rig_cache(&r, 0);
    hkey a, b;
    hkey_add(&r, &a, 300, 1); /* resident before the engine: charged at its creation */
    hkey_add(&r, &b, 200, 0); /* released until first used */
    rig_engine(&r, 1000, 1, 1);
    assert_int_equal(estats(&r).budget_available, 700);
    zkpipe_key_cache_counters k = kstats(&r);
    assert_int_equal(k.keys, 2);
    assert_int_equal(k.resident_keys, 1);
    assert_int_equal(k.charged_bytes, 300);
    assert_int_equal(k.resident_bytes, 150); /* what is resident, not what is charged */
    assert_int_equal(keys_stage_bytes(&r), 150);
    assert_int_equal(k.bound, 1);

    /* A partition of key b loads it: 200 more units held while it is resident. */
    hpart p = part(&r, 100, &b, NULL);
    finish(submit(&r, &p), ZKPIPE_OK);
    k = kstats(&r);
    assert_int_equal(k.resident_keys, 2);
    assert_int_equal(k.charged_bytes, 500);
    assert_int_equal(k.loads, 2);
    assert_int_equal(k.releases, 0);
    assert_int_equal(atomic_load(&b.loads), 1);
    assert_int_equal(estats(&r).budget_available, 500);

    /* A key and its partition larger than the budget together can never be admitted. */
    hkey big;
    hkey_add(&r, &big, 950, 0);
    hpart q = part(&r, 100, &big, NULL);
    finish(submit(&r, &q), ZKPIPE_ETOOBIG);
    assert_int_equal(atomic_load(&big.loads), 0);
    zkpipe_key_remove(big.key);

    /* Removing a resident key gives its units back. */
    zkpipe_key_remove(a.key);
    assert_int_equal(estats(&r).budget_available, 800);
    assert_int_equal(atomic_load(&a.unloads), 1);
    /* One engine per cache; and resident keys larger than a new engine's budget are refused. */
    zkpipe_engine_config c;
    zkpipe_engine_config_init(&c);
    c.acct = r.acct;
    c.keys = r.cache;
    c.budget_bytes = 1000;
    zkpipe_engine *other = NULL;
    assert_int_equal(zkpipe_engine_create(&other, &c), ZKPIPE_ESTATE);
    zkpipe_engine_destroy(r.engine);
    c.budget_bytes = 199;
    assert_int_equal(zkpipe_engine_create(&r.engine, &c), ZKPIPE_ETOOBIG);
    assert_int_equal(kstats(&r).charged_bytes, 0);
    /* A key added loaded when its units are not free now: idle keys released for it, or it
     * is added released. */
    rig_engine(&r, 300, 1, 1);
    hkey c1;
    hkey_add(&r, &c1, 250, 1);
    assert_false(zkpipe_key_is_resident(b.key)); /* released for it */
    assert_true(zkpipe_key_is_resident(c1.key));
    assert_int_equal(zkpipe_key_pin(c1.key, &(void *){NULL}, NULL, 0), ZKPIPE_OK);
    hkey c2;
    hkey_add(&r, &c2, 250, 1);
    assert_false(zkpipe_key_is_resident(c2.key)); /* c1 pinned: c2 unloaded at once */
    assert_int_equal(atomic_load(&c2.unloads), 1);
    zkpipe_key_unpin(c1.key);
    rig_free(&r);
}

/* ---- an idle key is released only when admission needs its bytes ---- */

static void test_idle_key_released_only_when_needed(void **state)
{
    (void)state;
    rig r;
    rig_cache(&r, 0);
    hkey a, b;
    hkey_add(&r, &a, 400, 1);
    hkey_add(&r, &b, 300, 1);
    rig_engine(&r, 1000, 1, 1);
    /* 300 free: a partition of 250 fits beside both idle keys, which stay. */
    hpart p = part(&r, 250, NULL, NULL);
    finish(submit(&r, &p), ZKPIPE_OK);
    assert_int_equal(kstats(&r).releases, 0);
    assert_int_equal(kstats(&r).resident_keys, 2);
    /* b used last: a is the least recently used. */
    hpart pb = part(&r, 10, &b, NULL);
    finish(submit(&r, &pb), ZKPIPE_OK);
    /* 500 needs one key's bytes: the least recently used (a) goes, b stays. */
    hpart q = part(&r, 500, NULL, NULL);
    finish(submit(&r, &q), ZKPIPE_OK);
    zkpipe_key_cache_counters k = kstats(&r);
    assert_int_equal(k.releases, 1);
    assert_int_equal(k.resident_keys, 1);
    assert_false(zkpipe_key_is_resident(a.key));
    assert_true(zkpipe_key_is_resident(b.key));
    assert_int_equal(atomic_load(&a.unloads), 1);
    assert_int_equal(atomic_load(&b.unloads), 0);
    /* A partition of a is admitted with a's bytes again: a reload, and b released for it. */
    hpart pa = part(&r, 400, &a, NULL);
    finish(submit(&r, &pa), ZKPIPE_OK);
    k = kstats(&r);
    assert_int_equal(atomic_load(&a.loads), 1);
    assert_int_equal(k.releases, 2);
    assert_true(zkpipe_key_is_resident(a.key));
    assert_false(zkpipe_key_is_resident(b.key));
    rig_free(&r);
}

/* A partition that announced too little grows its reservation as it charges; the growth
 * releases an idle key for the bytes, as an admission would, rather than going over the
 * budget. */
static void test_growth_releases_an_idle_key(void **state)
{
    (void)state;
    rig r;
    rig_cache(&r, 0);
    hkey a;
    hkey_add(&r, &a, 600, 1);
    rig_engine(&r, 1000, 1, 1);
    hpart p = part(&r, 700, NULL, NULL);
    p.announce = 100; /* admitted beside the key; 300 free when it charges its 700 */
    finish(submit(&r, &p), ZKPIPE_OK);
    zkpipe_key_cache_counters k = kstats(&r);
    assert_int_equal(k.releases, 1);
    assert_false(zkpipe_key_is_resident(a.key));
    zkpipe_engine_counters c = estats(&r);
    assert_int_equal(c.budget_overdrafts, 0);
    assert_int_equal(c.budget_growth_waits, 1);
    assert_int_equal(c.over_reservation_events, 1);
    assert_int_equal(c.budget_available, 1000);
    zkpipe_snapshot s;
    assert_int_equal(zkpipe_acct_snapshot(r.acct, &s), ZKPIPE_OK);
    assert_true(s.peak_bytes <= 1000);
    rig_free(&r);
}

/* ---- a key in use is never released ---- */

static void test_key_in_use_never_released(void **state)
{
    (void)state;
    rig r;
    rig_cache(&r, 0);
    hkey a;
    hkey_add(&r, &a, 400, 1);
    rig_engine(&r, 1000, 2, 1);
    atomic_int gate = 0;
    /* A partition of a, held in its prove: a is pinned. */
    hpart pa = part(&r, 100, &a, &gate);
    zkpipe_job *ja = submit(&r, &pa);
    for (long t = 0; t < PATIENCE_MS && atomic_load(&r.synths) < 1; t++)
        nap_ms(1);
    /* One that fits only without a: it waits, and a stays, while a is in use. */
    hpart q = part(&r, 700, NULL, NULL);
    zkpipe_job *jq = submit(&r, &q);
    nap_ms(300);
    assert_int_equal(atomic_load(&r.synths), 1);
    zkpipe_key_cache_counters k = kstats(&r);
    assert_int_equal(k.releases, 0);
    assert_int_equal(k.pinned_keys, 1);
    assert_true(zkpipe_key_is_resident(a.key));
    /* The host may pin it too; the engine's pin and the host's nest. */
    void *h;
    assert_int_equal(zkpipe_key_pin(a.key, &h, NULL, 0), ZKPIPE_OK);
    assert_ptr_equal(h, &a);
    atomic_store(&gate, 1);
    finish(ja, ZKPIPE_OK);
    nap_ms(200);
    assert_true(zkpipe_key_is_resident(a.key)); /* pinned by the host */
    assert_int_equal(kstats(&r).releases, 0);
    zkpipe_key_unpin(a.key);
    /* Unpinned: released for the waiting partition, which is admitted. */
    finish(jq, ZKPIPE_OK);
    assert_int_equal(kstats(&r).releases, 1);
    assert_false(zkpipe_key_is_resident(a.key));
    rig_free(&r);
}

/* ---- how many partitions the engine admits now ---- */

static uint64_t admissible(rig *r, uint64_t bytes)
{
    uint64_t n = UINT64_MAX;
    assert_int_equal(zkpipe_engine_admissible(r->engine, bytes, &n), ZKPIPE_OK);
    return n;
}

/* The engine's own rule: permits, the budget with what idle keys would give back, the resident
 * bound; none once closed. */
static void test_admissible(void **state)
{
    (void)state;
    rig r;
    rig_cache(&r, 0);
    hkey a;
    hkey_add(&r, &a, 400, 1);
    rig_engine(&r, 1000, 2, 1); /* 2 permits, capacity 2, 1 prover: resident bound 5 */
    assert_int_equal(estats(&r).resident_bound, 5);
    assert_int_equal(admissible(&r, 100), 2);  /* the permits */
    assert_int_equal(admissible(&r, 0), 2);    /* no estimate, nothing learned */
    assert_int_equal(admissible(&r, 600), 1);  /* 600 free, and 400 of the idle key */
    assert_int_equal(admissible(&r, 5000), 1); /* capped at the budget: refused at once */
    void *h;
    assert_int_equal(zkpipe_key_pin(a.key, &h, NULL, 0), ZKPIPE_OK);
    assert_int_equal(admissible(&r, 600), 1);
    assert_int_equal(admissible(&r, 601), 0); /* the pinned key gives nothing back */
    assert_int_equal(admissible(&r, 300), 2);
    zkpipe_key_unpin(a.key);

    /* Five held: one proving, two in the channel, two holding the permits in front of it. */
    atomic_int gate = 0;
    hpart p[6];
    zkpipe_job *jobs[6];
    for (int i = 0; i < 5; i++) {
        p[i] = part(&r, 10, NULL, &gate);
        jobs[i] = submit(&r, &p[i]);
    }
    zkpipe_engine_counters c = estats(&r);
    for (long t = 0; t < PATIENCE_MS && (c.proving != 1 || c.in_flight != 4); t++) {
        nap_ms(1);
        c = estats(&r);
    }
    assert_int_equal(c.proving, 1);
    assert_int_equal(c.in_flight, 4);
    assert_int_equal(admissible(&r, 10), 0);
    /* One more waits for a permit: still none. */
    p[5] = part(&r, 10, NULL, &gate);
    jobs[5] = submit(&r, &p[5]);
    assert_int_equal(admissible(&r, 10), 0);
    atomic_store(&gate, 1);
    for (int i = 0; i < 6; i++)
        finish(jobs[i], ZKPIPE_OK);
    assert_int_equal(admissible(&r, 10), 2);
    /* A source that charged 700 after announcing 100: its learned peak counts. */
    hpart big = part(&r, 700, NULL, NULL);
    big.announce = 100;
    finish(submit(&r, &big), ZKPIPE_OK);
    assert_int_equal(admissible(&r, 100), 1);

    zkpipe_engine_close(r.engine);
    assert_int_equal(admissible(&r, 10), 0);
    uint64_t n;
    assert_int_equal(zkpipe_engine_admissible(NULL, 0, &n), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_engine_admissible(r.engine, 0, NULL), ZKPIPE_EINVAL);
    rig_free(&r);
}

/* ---- partitions waiting while key_idle_ms > 0 ---- */

static void test_waiting_admitted_once_idle(void **state)
{
    (void)state;
    const uint32_t idle_ms = 300;
    rig r;
    rig_cache(&r, idle_ms);
    hkey a;
    hkey_add(&r, &a, 400, 0);
    rig_engine(&r, 1000, 1, 1);
    hpart pa = part(&r, 100, &a, NULL);
    finish(submit(&r, &pa), ZKPIPE_OK); /* a loaded and just used */
    hpart q = part(&r, 700, NULL, NULL);
    finish(submit(&r, &q), ZKPIPE_OK);
    /* In order, from the times the events themselves kept (however slow this machine): a was
     * unloaded idle_ms or more after its last use ended (its unpin comes after its prove), and
     * only then was q synthesized. */
    uint64_t last_use = atomic_load(&pa.proved_ns), unloaded = atomic_load(&a.unloaded_ns);
    assert_true(last_use > 0 && unloaded > 0);
    assert_true(unloaded - last_use >= (uint64_t)idle_ms * 1000000u);
    assert_true(atomic_load(&q.synth_ns) >= unloaded);
    assert_int_equal(kstats(&r).releases, 1);
    assert_false(zkpipe_key_is_resident(a.key));
    rig_free(&r);
}

/* ---- two admissions waiting to load the same key ---- */

/* Both ask for the key's bytes with their own; the first served loads it. The second's request
 * for the key is then stale: it needs only its own units beside the resident key, and must get
 * them (it never releases its own key, so waiting for the key's bytes again would never end). */
static void test_second_admission_shares_the_load(void **state)
{
    (void)state;
    rig r;
    rig_cache(&r, 0);
    hkey a, b;
    hkey_add(&r, &a, 400, 0);
    hkey_add(&r, &b, 500, 1);
    rig_engine(&r, 600, 2, 1); /* b resident: 100 left, and a + two partitions fit once b goes */
    void *h;
    assert_int_equal(zkpipe_key_pin(b.key, &h, NULL, 0), ZKPIPE_OK);
    hpart p1 = part(&r, 100, &a, NULL), p2 = part(&r, 100, &a, NULL);
    zkpipe_job *j1 = submit(&r, &p1);
    nap_ms(50);
    zkpipe_job *j2 = submit(&r, &p2);
    nap_ms(50);
    assert_int_equal(atomic_load(&r.synths), 0); /* both wait for b */
    zkpipe_key_unpin(b.key);
    finish(j1, ZKPIPE_OK);
    finish(j2, ZKPIPE_OK);
    assert_int_equal(atomic_load(&a.loads), 1);
    zkpipe_key_cache_counters k = kstats(&r);
    assert_int_equal(k.releases, 1); /* b only */
    assert_int_equal(k.charged_bytes, 400);
    assert_int_equal(estats(&r).budget_available, 200);
    rig_free(&r);
}

/* A partition that cannot fit beside its key is refused at once, never left waiting. */
static void test_partition_and_key_too_big_together(void **state)
{
    (void)state;
    rig r;
    rig_cache(&r, 0);
    hkey a;
    hkey_add(&r, &a, 400, 1);
    rig_engine(&r, 600, 1, 1);
    hpart p = part(&r, 300, &a, NULL);
    finish(submit(&r, &p), ZKPIPE_ETOOBIG);
    assert_int_equal(atomic_load(&r.synths), 0);
    assert_int_equal(kstats(&r).releases, 0);
    rig_free(&r);
}

/* ---- the zkey fixtures: released, loaded again, proofs that verify ---- */

typedef struct zfix {
    char zkey[1024], wtns[1024];
    zkpipe_zkey_source *src;
    zkpipe_groth16_pvk *pvk; /* from a separate open of the file: checks the proofs anew */
    zkpipe_zkey_info info;
    uint64_t bytes, estimate;
} zfix;

/* The fixture's paths, its size, its partitions' estimate and a verifying key of its own;
 * 0 when the fixtures are not there. */
static int zfix_init(zfix *f, const char *curve, const char *circuit)
{
    char d[ZKPIPE_DETAIL_MAX];
    memset(f, 0, sizeof *f);
    fixture_path(f->zkey, sizeof f->zkey, curve, circuit, "circuit.zkey");
    fixture_path(f->wtns, sizeof f->wtns, curve, circuit, "witness.wtns");
    if (access(f->zkey, R_OK) != 0)
        return 0;
    zkpipe_zkey *z;
    assert_int_equal(zkpipe_zkey_open(&z, d, sizeof d, f->zkey, NULL), ZKPIPE_OK);
    zkpipe_groth16_vk *vk;
    assert_int_equal(zkpipe_zkey_vk(&vk, z, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_groth16_pvk_create(&f->pvk, vk, NULL), ZKPIPE_OK);
    zkpipe_groth16_vk_destroy(vk);
    assert_int_equal(zkpipe_zkey_info_get(&f->info, z), ZKPIPE_OK);
    zkpipe_zkey_memory_info m;
    assert_int_equal(zkpipe_zkey_memory(&m, z), ZKPIPE_OK);
    assert_true(m.resident_bytes <= m.mapped_bytes);
    assert_true(m.resident_bytes > 0); /* just read whole by the checks */
    f->bytes = m.mapped_bytes + m.copied_bytes;
    zkpipe_zkey_source *src;
    assert_int_equal(zkpipe_zkey_source_create(&src, z, NULL), ZKPIPE_OK);
    /* What the stage announces for a partition is what the source says before submitting. */
    zkpipe_zkey_partition probe = {src, NULL, NULL, NULL};
    zkpipe_stage_call call;
    memset(&call, 0, sizeof call);
    call.ctx = &probe;
    call.prover_threads = 1;
    assert_int_equal(zkpipe_zkey_stage_ops()->estimate(&call, &f->estimate), ZKPIPE_OK);
    uint64_t said = 0;
    assert_int_equal(zkpipe_zkey_source_estimate(src, 1, &said), ZKPIPE_OK);
    assert_int_equal(said, f->estimate);
    assert_int_equal(zkpipe_zkey_source_estimate(NULL, 1, &said), ZKPIPE_EINVAL);
    zkpipe_zkey_source_destroy(src);
    zkpipe_zkey_destroy(z);
    return 1;
}

static void zfix_open(zfix *f, rig *r)
{
    char d[ZKPIPE_DETAIL_MAX];
    zkpipe_io_options io;
    zkpipe_io_options_init(&io);
    io.flags = ZKPIPE_IO_DEFER_SUBGROUP;
    zkpipe_status st = zkpipe_zkey_source_open(&f->src, d, sizeof d, f->zkey, &io, r->cache);
    if (st != ZKPIPE_OK)
        fprintf(stderr, "%s\n", d);
    assert_int_equal(st, ZKPIPE_OK);
    assert_non_null(zkpipe_zkey_source_key(f->src));
}

static void zfix_close(zfix *f)
{
    zkpipe_zkey_source_destroy(f->src);
    zkpipe_groth16_pvk_destroy(f->pvk);
}

/* Proves f's witness through the engine and checks the proof with f's own verifying key. */
static void zfix_prove(zfix *f, rig *r)
{
    zkpipe_scalar *pub = calloc(f->info.num_public + 1, sizeof *pub);
    assert_non_null(pub);
    zkpipe_zkey_partition zp = {f->src, f->wtns, pub, NULL};
    zkpipe_partition pt = {zkpipe_zkey_stage_ops(), &zp, {0, 0}};
    zkpipe_job *job;
    assert_int_equal(zkpipe_engine_submit(r->engine, &job, &pt, 1, NULL, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait_timed(job, (uint64_t)PATIENCE_MS * 1000000u), ZKPIPE_OK);
    zkpipe_partition_result res;
    assert_int_equal(zkpipe_job_result(job, 0, &res), ZKPIPE_OK);
    if (res.status != ZKPIPE_OK)
        fprintf(stderr, "%s: %s\n", f->zkey, res.detail);
    assert_int_equal(res.status, ZKPIPE_OK);
    zkpipe_groth16_proof proof;
    assert_int_equal(zkpipe_stage_proof(&proof, &res), ZKPIPE_OK);
    assert_int_equal(zkpipe_groth16_verify(f->pvk, pub, f->info.num_public, &proof), ZKPIPE_OK);
    zkpipe_job_destroy(job);
    free(pub);
}

static void test_zkey_reload_proofs_verify(void **state)
{
    (void)state;
    zfix a, b;
    if (!zfix_init(&a, "bn128", "rangesum") || !zfix_init(&b, "bls12381", "rangesum"))
        fail_msg("no rangesum fixtures under tests/interop/fixtures");
    uint64_t big = a.bytes > b.bytes ? a.bytes : b.bytes;
    uint64_t est = a.estimate > b.estimate ? a.estimate : b.estimate;
    uint64_t least = a.estimate < b.estimate ? a.estimate : b.estimate;
    /* Room for the larger key and a partition, never for both keys and a partition. */
    uint64_t budget = big + est;
    assert_true(a.bytes + b.bytes + least > budget);
    rig r;
    rig_cache(&r, 0);
    rig_engine(&r, budget, 1, 1);
    zfix_open(&a, &r);
    zfix_open(&b, &r); /* added released when it does not fit beside a now */
    for (int round = 0; round < 3; round++) {
        zfix_prove(&a, &r);
        zfix_prove(&b, &r);
    }
    zkpipe_key_cache_counters k = kstats(&r);
    assert_int_equal(k.load_failures, 0);
    assert_true(k.resident_bytes <= k.charged_bytes);
    assert_true(k.charged_bytes <= budget);
    /* Each proof after the first needed the key the one before did not. */
    assert_true(k.releases >= 5);
    assert_true(k.loads >= 6);
    print_message("zkeys of %llu and %llu bytes, estimates %llu and %llu, budget %llu: %llu "
                  "loads, %llu releases; resident now %llu bytes of %llu charged\n",
                  (unsigned long long)a.bytes, (unsigned long long)b.bytes,
                  (unsigned long long)a.estimate, (unsigned long long)b.estimate,
                  (unsigned long long)budget, (unsigned long long)k.loads,
                  (unsigned long long)k.releases, (unsigned long long)k.resident_bytes,
                  (unsigned long long)k.charged_bytes);
    zfix_close(&a);
    zfix_close(&b);
    rig_free(&r);
}

/* ---- zkeys by file ---- */

/* `from` copied to `to` through a temporary name renamed onto it: a new file (inode) at `to`. */
static void copy_over(const char *from, const char *to)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", to);
    size_t len;
    char *bytes = read_file(from, &len);
    assert_non_null(bytes);
    FILE *f = fopen(tmp, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    free(bytes);
    assert_int_equal(rename(tmp, to), 0);
}

/* One source per file while it is the same file; a replaced file opened anew, the old source
 * closed once no one holds it; sources no one holds kept up to idle_max; errors name the path. */
static void test_zkey_files(void **state)
{
    (void)state;
    zfix a;
    if (!zfix_init(&a, "bn128", "rangesum"))
        fail_msg("no rangesum fixtures under tests/interop/fixtures");
    char path[1100], missing[1100], d[ZKPIPE_DETAIL_MAX];
    snprintf(path, sizeof path, "%s/files.zkey", scratch_dir);
    snprintf(missing, sizeof missing, "%s/none.zkey", scratch_dir);
    copy_over(a.zkey, path);
    rig r;
    rig_cache(&r, 0);
    rig_engine(&r, 0, 1, 1);
    zkpipe_zkey_files_config fc;
    zkpipe_zkey_files_config_init(&fc);
    fc.keys = r.cache;
    fc.idle_max = 1;
    zkpipe_zkey_files *files;
    assert_int_equal(zkpipe_zkey_files_create(&files, &fc), ZKPIPE_OK);
    assert_int_equal(zkpipe_zkey_files_estimate_max(files), 0);

    const zkpipe_zkey_source *s1, *s2, *s3;
    assert_int_equal(zkpipe_zkey_files_get(files, path, &s1, d, sizeof d), ZKPIPE_OK);
    assert_int_equal(zkpipe_zkey_files_get(files, path, &s2, d, sizeof d), ZKPIPE_OK);
    assert_ptr_equal(s1, s2); /* the same file: one source */
    assert_int_equal(kstats(&r).keys, 1);
    assert_int_equal(zkpipe_zkey_files_estimate_max(files), a.estimate);
    assert_int_equal(zkpipe_zkey_files_damaged(files, s1, zkpipe_mapped_damage_mark()), 0);

    /* Replaced by a rename: a get opens the new file; the old source stays with its holds. */
    copy_over(a.zkey, path);
    assert_int_equal(zkpipe_zkey_files_get(files, path, &s3, d, sizeof d), ZKPIPE_OK);
    assert_ptr_not_equal(s3, s1);
    assert_int_equal(kstats(&r).keys, 2);
    zkpipe_zkey_info info;
    assert_int_equal(zkpipe_zkey_source_info(&info, s1), ZKPIPE_OK); /* still usable */
    zkpipe_zkey_files_put(files, s1);
    assert_int_equal(kstats(&r).keys, 2);
    zkpipe_zkey_files_put(files, s2); /* its last hold: the stale source is closed */
    assert_int_equal(kstats(&r).keys, 1);
    zkpipe_zkey_files_put(files, s3); /* kept: one idle source is allowed */
    assert_int_equal(kstats(&r).keys, 1);
    assert_int_equal(zkpipe_zkey_files_get(files, path, &s2, d, sizeof d), ZKPIPE_OK);
    assert_ptr_equal(s2, s3);
    zkpipe_zkey_files_put(files, s2);

    /* Errors: one line naming the file; nothing remembered. */
    assert_int_equal(zkpipe_zkey_files_get(files, missing, &s1, d, sizeof d), ZKPIPE_EIO);
    assert_true(strncmp(d, missing, strlen(missing)) == 0);
    FILE *f = fopen(missing, "wb");
    assert_non_null(f);
    assert_int_equal(fputs("not a zkey", f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(zkpipe_zkey_files_get(files, missing, &s1, d, sizeof d), ZKPIPE_EFORMAT);
    assert_true(strncmp(d, missing, strlen(missing)) == 0);
    assert_int_equal(kstats(&r).keys, 1);
    assert_int_equal(zkpipe_zkey_files_get(NULL, path, &s1, d, sizeof d), ZKPIPE_EINVAL);
    zkpipe_zkey_files *bad = NULL;
    fc.struct_size = 0; /* not a sized struct */
    assert_int_equal(zkpipe_zkey_files_create(&bad, &fc), ZKPIPE_EINVAL);
    fc.struct_size = sizeof fc + 8; /* newer headers than the library */
    assert_int_equal(zkpipe_zkey_files_create(&bad, &fc), ZKPIPE_EINVAL);
    fc.struct_size = sizeof fc;
    fc.reserved[1] = 1;
    assert_int_equal(zkpipe_zkey_files_create(&bad, &fc), ZKPIPE_EINVAL);
    fc.reserved[1] = 0;
    fc.prover_threads = 0;
    assert_int_equal(zkpipe_zkey_files_create(&bad, &fc), ZKPIPE_EINVAL);
    fc.prover_threads = 1;
    fc.open_threads = ZKPIPE_POOL_MAX_THREADS + 1;
    assert_int_equal(zkpipe_zkey_files_create(&bad, &fc), ZKPIPE_EINVAL);
    assert_null(bad);

    /* idle_max 0: a source no one holds is closed at its last put. */
    zkpipe_zkey_files_destroy(files);
    assert_int_equal(kstats(&r).keys, 0);
    fc.open_threads = 2;
    fc.idle_max = 0;
    assert_int_equal(zkpipe_zkey_files_create(&files, &fc), ZKPIPE_OK);
    assert_int_equal(zkpipe_zkey_files_get(files, path, &s1, d, sizeof d), ZKPIPE_OK);
    assert_int_equal(kstats(&r).keys, 1);
    zkpipe_zkey_files_put(files, s1);
    assert_int_equal(kstats(&r).keys, 0);
    zkpipe_zkey_files_destroy(files);
    zkpipe_zkey_files_destroy(NULL);
    zfix_close(&a);
    rig_free(&r);
}

/* ---- concurrency: conservation of the keys' budget units ---- */

#define STRESS_KEYS 5

typedef struct stress {
    rig *r;
    hkey *keys;
    unsigned seed;
    int jobs;
} stress;

static void *stress_submitter(void *arg)
{
    stress *s = arg;
    hpart parts[8];
    for (int j = 0; j < s->jobs; j++) {
        zkpipe_partition pt[8];
        for (int i = 0; i < 8; i++) {
            s->seed = s->seed * 1103515245u + 12345u;
            unsigned v = s->seed >> 8;
            hkey *key = v % 4 == 0 ? NULL : &s->keys[v % STRESS_KEYS];
            parts[i] = part(s->r, 50 + v % 200, key, NULL);
            pt[i] = (zkpipe_partition){&part_ops, &parts[i], {0, 0}};
        }
        zkpipe_job *job;
        if (zkpipe_engine_submit(s->r->engine, &job, pt, 8, NULL, NULL) != ZKPIPE_OK) {
            atomic_fetch_add(&s->r->failures, 1);
            continue;
        }
        /* Pin and unpin a key by hand meanwhile, as a host doing work of its own. */
        void *h;
        hkey *k = &s->keys[j % STRESS_KEYS];
        if (zkpipe_key_pin(k->key, &h, NULL, 0) != ZKPIPE_OK || h != k)
            atomic_fetch_add(&s->r->failures, 1);
        else
            zkpipe_key_unpin(k->key);
        zkpipe_job_wait(job);
        for (size_t i = 0; i < 8; i++) {
            zkpipe_partition_result res;
            if (zkpipe_job_result(job, i, &res) != ZKPIPE_OK || res.status != ZKPIPE_OK)
                atomic_fetch_add(&s->r->failures, 1);
        }
        zkpipe_job_destroy(job);
    }
    return NULL;
}

static void test_stress_conservation(void **state)
{
    (void)state;
    rig r;
    rig_cache(&r, 1);
    hkey keys[STRESS_KEYS];
    for (int i = 0; i < STRESS_KEYS; i++)
        hkey_add(&r, &keys[i], 300 + 100 * (uint64_t)i, i % 2);
    /* The two largest keys and a partition fit; three keys often do not. */
    rig_engine(&r, 1000 + 250, 3, 2);
    enum { THREADS = 3 };
    pthread_t t[THREADS];
    stress s[THREADS];
    int jobs = ZKPIPE_TEST_SANITIZED ? 15 : 60;
    for (int i = 0; i < THREADS; i++) {
        s[i] = (stress){&r, keys, 7u + 31u * (unsigned)i, jobs};
        assert_int_equal(pthread_create(&t[i], NULL, stress_submitter, &s[i]), 0);
    }
    /* A concurrent reader: the keys never hold more units than the budget, and what the
     * stage "keys" shows is at most what they hold. */
    long bad = 0;
    for (int n = 0; n < 200; n++) {
        zkpipe_key_cache_counters k = kstats(&r);
        zkpipe_engine_counters c = estats(&r);
        bad += k.charged_bytes > r.budget || k.resident_bytes > k.charged_bytes ||
               c.budget_available > r.budget;
        nap_ms(2);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(bad, 0);
    zkpipe_engine_drain(r.engine);
    zkpipe_key_cache_counters k = kstats(&r);
    zkpipe_engine_counters c = estats(&r);
    /* Drained: the budget holds exactly the resident keys. */
    assert_int_equal(c.budget_available + k.charged_bytes, r.budget);
    assert_int_equal(k.pinned_keys, 0);
    assert_int_equal(k.budget_taken - k.budget_returned, k.charged_bytes);
    print_message("stress: %llu loads, %llu releases, %llu proofs\n", (unsigned long long)k.loads,
                  (unsigned long long)k.releases, (unsigned long long)atomic_load(&r.proofs));
    for (int i = 0; i < STRESS_KEYS; i++)
        assert_int_equal(atomic_load(&keys[i].failures), 0);
    rig_free(&r); /* the engine gone: taken == returned, nothing accounted */
    for (int i = 0; i < STRESS_KEYS; i++)
        assert_int_equal(atomic_load(&keys[i].loads) + (i % 2), atomic_load(&keys[i].unloads));
}

/* ---- without an engine, or without a budget ---- */

static void test_no_budget(void **state)
{
    (void)state;
    rig r;
    rig_cache(&r, 0);
    hkey a;
    hkey_add(&r, &a, 100, 0);
    void *h;
    assert_int_equal(zkpipe_key_pin(a.key, &h, NULL, 0), ZKPIPE_OK);
    assert_ptr_equal(h, &a);
    assert_int_equal(kstats(&r).resident_bytes, 50);
    zkpipe_key_unpin(a.key);
    zkpipe_key_unpin(a.key); /* not pinned: a no-op */
    rig_engine(&r, 0, 1, 1); /* no budget: keys pinned and never released */
    hpart p = part(&r, 10, &a, NULL);
    finish(submit(&r, &p), ZKPIPE_OK);
    assert_int_equal(kstats(&r).bound, 0);
    assert_int_equal(kstats(&r).releases, 0);
    assert_int_equal(atomic_load(&a.loads), 1);
    /* Bad arguments. */
    zkpipe_key *k;
    zkpipe_key_ops bad = hkey_ops;
    bad.load = NULL;
    assert_int_equal(zkpipe_key_add(r.cache, &k, &bad, &a, 10, NULL, 0), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_key_add(r.cache, &k, &hkey_ops, &a, 0, NULL, 0), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_key_pin(NULL, &h, NULL, 0), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_key_cache_stats(NULL, NULL), ZKPIPE_EINVAL);
    zkpipe_key_remove(NULL);
    zkpipe_key_cache_destroy(NULL);
    rig_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_budget_includes_keys),
        cmocka_unit_test(test_idle_key_released_only_when_needed),
        cmocka_unit_test(test_growth_releases_an_idle_key),
        cmocka_unit_test(test_key_in_use_never_released),
        cmocka_unit_test(test_admissible),
        cmocka_unit_test(test_waiting_admitted_once_idle),
        cmocka_unit_test(test_zkey_reload_proofs_verify),
        cmocka_unit_test(test_second_admission_shares_the_load),
        cmocka_unit_test(test_partition_and_key_too_big_together),
        cmocka_unit_test(test_stress_conservation),
        cmocka_unit_test(test_no_budget),
        cmocka_unit_test(test_zkey_files),
    };
    if (getenv("ZKPIPE_TEST_FILTER") != NULL) /* one test by name, when debugging */
        cmocka_set_test_filter(getenv("ZKPIPE_TEST_FILTER"));
    return cmocka_run_group_tests(tests, scratch_dir_setup, scratch_dir_teardown);
}
