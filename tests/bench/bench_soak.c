/* bench_soak: a long run of the engine through its public API alone (zkpipe/zkpipe.h), for
 * what only a long run shows: memory that creeps and counters that drift.
 *
 * --partitions N (20000) partitions of the test circuit at 2^--log-rows (10) rows, in jobs of
 * --job-size (10), at most --window (8) jobs submitted at once, through --synth-workers (3)
 * and --prover-workers (2) of --prover-threads (1). --cancel-pct (20) percent of the jobs are
 * canceled at a random moment up to --cancel-ms (20) after their submission, and --fail-pct
 * (2) percent of the partitions fail in their build callback (a loader that cannot read its
 * input). Every --verify-every (10)th proof is verified.
 *
 * Figures: a progress line every 2000 partitions (RSS with work in flight, for the trend);
 * partitions proved, failed and canceled, proofs per second, the process's RSS once
 * --rss-at (1000) partitions have ended and again at the end, and their ratio, the peak RSS.
 * Both RSS readings are taken with the engine idle (no job submitted, every partition ended:
 * after the first --rss-at the window is let drain before the reading), so they compare like
 * with like: what a leak or a creeping allocator would add, not the buffers in flight.
 * Checks, each printed as ok or FAILED and making the exit status 1: every partition ended
 * exactly once as proved, failed or canceled, and the engine's counters say the same; only
 * partitions meant to fail failed; every proof checked verified; every live counter of the
 * registry (items, buffers and bytes per stage and kind) and the engine's in-flight count
 * are back to zero; RSS at the end within 5 % of RSS at --rss-at (0: not checked).
 *
 *   bench_soak [--partitions N] [--log-rows K] [--curve C] [--job-size J] [--window W]
 *              [--synth-workers S] [--prover-workers P] [--prover-threads T]
 *              [--cancel-pct C] [--cancel-ms M] [--fail-pct F] [--verify-every V]
 *              [--rss-at R] [--seed S]
 *
 * Nothing here asserts a time. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zkpipe/testcircuit.h"
#include "zkpipe/zkpipe.h"

#define CIRCUIT_SEED 7

typedef struct options {
    unsigned long partitions, log_rows, job_size, window, synth_workers, prover_workers,
        prover_threads, cancel_pct, cancel_ms, fail_pct, verify_every, rss_at, seed;
    zkpipe_curve curve;
} options;

/* One submitted job, and what the run planned for it. */
typedef struct slot {
    zkpipe_job *job;
    uint64_t first;     /* index of its first partition in the run */
    size_t count;       /* its partitions */
    double cancel_at_s; /* < 0: never */
} slot;

/* What every build callback reads: shared and immutable during the run. */
typedef struct plan {
    unsigned log_rows;
    uint64_t seed;
    unsigned fail_pct;
} plan;

/* Per job: the plan and the job's first partition index, so a partition's fate is a pure
 * function of (seed, index), and the built-in circuit stage's context its partitions share. */
typedef struct job_ctx {
    const plan *plan;
    uint64_t first;
    zkpipe_circuit_partition circuit;
} job_ctx;

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static int meant_to_fail(const plan *p, uint64_t index)
{
    return mix(p->seed ^ (index * 2 + 1)) % 100 < p->fail_pct;
}

static zkpipe_status build(zkpipe_cs *cs, void *ctx, size_t partition)
{
    const job_ctx *j = ctx;
    if (meant_to_fail(j->plan, j->first + partition))
        return ZKPIPE_EIO;
    return zkpipe_testcircuit_build(cs, j->plan->log_rows, CIRCUIT_SEED, 1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A "Vm...:" line of /proc/self/status in bytes; 0 when unreadable. */
static unsigned long long vm_bytes(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long long kib = 0;
    size_t len = strlen(key);
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, key, len) == 0)
            kib = strtoull(line + len, NULL, 10);
    if (f != NULL)
        fclose(f);
    return kib * 1024;
}

static int parse(options *o, int argc, char **argv)
{
    static const struct {
        const char *flag;
        size_t offset;
        unsigned long min, max;
    } flags[] = {
        {"--partitions", offsetof(options, partitions), 1, 1ul << 30},
        {"--log-rows", offsetof(options, log_rows), 4, 20},
        {"--job-size", offsetof(options, job_size), 1, 1ul << 20},
        {"--window", offsetof(options, window), 1, 1024},
        {"--synth-workers", offsetof(options, synth_workers), 1, 256},
        {"--prover-workers", offsetof(options, prover_workers), 1, 256},
        {"--prover-threads", offsetof(options, prover_threads), 1, 256},
        {"--cancel-pct", offsetof(options, cancel_pct), 0, 100},
        {"--cancel-ms", offsetof(options, cancel_ms), 0, 60000},
        {"--fail-pct", offsetof(options, fail_pct), 0, 100},
        {"--verify-every", offsetof(options, verify_every), 0, 1ul << 30},
        {"--rss-at", offsetof(options, rss_at), 0, 1ul << 30},
        {"--seed", offsetof(options, seed), 0, ~0ul},
    };
    *o = (options){20000, 10, 10, 8, 3, 2, 1, 20, 20, 2, 10, 1000, 1, ZKPIPE_CURVE_BN254};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--curve") == 0 && i + 1 < argc) {
            if (zkpipe_curve_parse(&o->curve, argv[++i]) != ZKPIPE_OK)
                return -1;
            continue;
        }
        size_t k = 0;
        while (k < sizeof flags / sizeof flags[0] && strcmp(argv[i], flags[k].flag) != 0)
            k++;
        if (k == sizeof flags / sizeof flags[0] || i + 1 >= argc)
            return -1;
        char *end;
        unsigned long v = strtoul(argv[++i], &end, 10);
        if (*argv[i] == '\0' || *end != '\0' || v < flags[k].min || v > flags[k].max)
            return -1;
        *(unsigned long *)((char *)o + flags[k].offset) = v;
    }
    return 0;
}

/* The run's tallies. */
typedef struct tally {
    uint64_t ended, proved, failed, canceled, verified, checked, bad_verify, wrong_failures,
        jobs_canceled;
    unsigned long long rss_early, rss_early_at; /* the first idle reading, and when */
    double t0;
} tally;

static int verdict(const char *what, int ok)
{
    printf("check: %-58s %s\n", what, ok ? "ok" : "FAILED");
    return ok;
}

/* Waits for the job in `s`, tallies its partitions and frees it. */
static void finish(slot *s, const plan *p, const options *o, const zkpipe_groth16_pvk *pvk,
                   const zkpipe_scalar *input, tally *t)
{
    zkpipe_job_wait(s->job);
    for (size_t i = 0; i < s->count; i++) {
        zkpipe_partition_result r;
        if (zkpipe_job_result(s->job, i, &r) != ZKPIPE_OK) {
            t->wrong_failures++;
            continue;
        }
        int failing = meant_to_fail(p, s->first + i);
        t->ended++;
        if (r.status == ZKPIPE_OK) {
            t->proved++;
            t->wrong_failures += failing; /* a partition meant to fail was proved */
            if (o->verify_every > 0 && t->proved % o->verify_every == 0) {
                t->checked++;
                zkpipe_groth16_proof proof;
                if (zkpipe_stage_proof(&proof, &r) == ZKPIPE_OK &&
                    zkpipe_groth16_verify(pvk, input, 1, &proof) == ZKPIPE_OK)
                    t->verified++;
                else
                    t->bad_verify++;
            }
        } else if (r.status == ZKPIPE_ECANCELED) {
            t->canceled++;
        } else {
            t->failed++;
            t->wrong_failures += !(failing && r.status == ZKPIPE_EIO);
        }
        if (t->ended % 2000 == 0) { /* a reading with work in flight, to see a trend */
            printf("progress: %llu ended (%llu proved, %llu failed, %llu canceled) in %.1f s, "
                   "RSS %.2f MiB\n",
                   (unsigned long long)t->ended, (unsigned long long)t->proved,
                   (unsigned long long)t->failed, (unsigned long long)t->canceled, now_s() - t->t0,
                   (double)vm_bytes("VmRSS:") / 1048576.0);
            fflush(stdout);
        }
    }
    zkpipe_job_destroy(s->job);
    s->job = NULL;
}

int main(int argc, char **argv)
{
    options o;
    if (parse(&o, argc, argv) != 0) {
        fprintf(stderr, "usage: bench_soak [--partitions N] [--log-rows K] [--curve C] "
                        "[--job-size J] [--window W] [--synth-workers S] [--prover-workers P] "
                        "[--prover-threads T] [--cancel-pct C] [--cancel-ms M] [--fail-pct F] "
                        "[--verify-every V] [--rss-at R] [--seed S]\n");
        return 2;
    }
    static const uint8_t key_seed[ZKPIPE_GROTH16_SEED_BYTES] = {'s', 'o', 'a', 'k'};
    zkpipe_cs *cs = NULL;
    zkpipe_groth16_pk *pk = NULL;
    zkpipe_groth16_vk *vk = NULL;
    zkpipe_groth16_pvk *pvk = NULL;
    zkpipe_acct *acct = NULL;
    zkpipe_engine *e = NULL;
    zkpipe_scalar input;
    zkpipe_status st = zkpipe_cs_create(&cs, o.curve, ZKPIPE_CS_WITNESS, NULL);
    if (st == ZKPIPE_OK)
        st = zkpipe_testcircuit_build(cs, (unsigned)o.log_rows, CIRCUIT_SEED, 1);
    if (st == ZKPIPE_OK)
        st = zkpipe_cs_value(cs, &input, 1);
    if (st == ZKPIPE_OK)
        st = zkpipe_groth16_setup_insecure(&pk, &vk, cs, key_seed, NULL, NULL);
    if (st == ZKPIPE_OK)
        st = zkpipe_groth16_pvk_create(&pvk, vk, NULL);
    zkpipe_cs_destroy(cs);
    if (st == ZKPIPE_OK)
        st = zkpipe_acct_create(NULL, &acct);
    zkpipe_engine_config cfg;
    zkpipe_engine_config_init(&cfg);
    cfg.synth_workers = (unsigned)o.synth_workers;
    cfg.prover_workers = (unsigned)o.prover_workers;
    cfg.prover_threads = (unsigned)o.prover_threads;
    cfg.backend = ZKPIPE_BACKEND_CPU;
    cfg.acct = acct;
    if (st == ZKPIPE_OK)
        st = zkpipe_engine_create(&e, &cfg);
    slot *slots = calloc(o.window, sizeof *slots);
    job_ctx *ctxs = calloc(o.window, sizeof *ctxs);
    zkpipe_partition *parts = calloc(o.job_size, sizeof *parts);
    if (st == ZKPIPE_OK && (slots == NULL || ctxs == NULL || parts == NULL))
        st = ZKPIPE_ENOMEM;
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "bench_soak: setup: %s\n", zkpipe_status_str(st));
        return 1;
    }
    printf("bench_soak: %lu partitions of 2^%lu rows (%s), jobs of %lu, %lu at once; %lu "
           "synthesis and %lu prover workers of %lu threads; %lu %% of jobs canceled within "
           "%lu ms, %lu %% of partitions failing; seed %lu\n",
           o.partitions, o.log_rows, zkpipe_curve_name(o.curve), o.job_size, o.window,
           o.synth_workers, o.prover_workers, o.prover_threads, o.cancel_pct, o.cancel_ms,
           o.fail_pct, o.seed);
    fflush(stdout);

    plan p = {(unsigned)o.log_rows, o.seed, (unsigned)o.fail_pct};
    tally t;
    memset(&t, 0, sizeof t);
    uint64_t next = 0, rng = o.seed;
    size_t head = 0, live = 0;
    double t0 = t.t0 = now_s();
    while (st == ZKPIPE_OK && (next < o.partitions || live > 0)) {
        /* The first RSS reading: once --rss-at partitions ended, let the window drain. */
        int draining = o.rss_at > 0 && t.rss_early_at == 0 && t.ended >= o.rss_at;
        if (draining && live == 0) {
            t.rss_early = vm_bytes("VmRSS:");
            t.rss_early_at = t.ended;
            draining = 0;
        }
        /* Fill the window. */
        while (st == ZKPIPE_OK && !draining && live < o.window && next < o.partitions) {
            size_t k = (head + live) % o.window;
            size_t n = o.partitions - next < o.job_size ? (size_t)(o.partitions - next)
                                                        : (size_t)o.job_size;
            ctxs[k] = (job_ctx){&p, next, {build, &ctxs[k], 0, pk}};
            for (size_t i = 0; i < n; i++)
                parts[i] = (zkpipe_partition){zkpipe_circuit_stage_ops(), &ctxs[k].circuit, {0}};
            st = zkpipe_engine_submit(e, &slots[k].job, parts, n, NULL, NULL);
            if (st != ZKPIPE_OK)
                break;
            rng = mix(rng);
            slots[k].first = next;
            slots[k].count = n;
            slots[k].cancel_at_s = rng % 100 < o.cancel_pct
                                       ? now_s() + 1e-3 * (double)(mix(rng) % (o.cancel_ms + 1))
                                       : -1;
            t.jobs_canceled += slots[k].cancel_at_s >= 0;
            next += n;
            live++;
        }
        /* Cancel what is due, then wait a little for the oldest job. */
        double now = now_s();
        for (size_t i = 0; i < live; i++) {
            slot *s = &slots[(head + i) % o.window];
            if (s->cancel_at_s >= 0 && s->cancel_at_s <= now) {
                zkpipe_job_cancel(s->job);
                s->cancel_at_s = -1;
            }
        }
        if (live > 0 && zkpipe_job_wait_timed(slots[head].job, 1000000) == ZKPIPE_OK) {
            finish(&slots[head], &p, &o, pvk, &input, &t);
            head = (head + 1) % o.window;
            live--;
        }
    }
    double elapsed = now_s() - t0;
    if (st != ZKPIPE_OK)
        fprintf(stderr, "bench_soak: submit: %s\n", zkpipe_status_str(st));
    for (; live > 0; live--, head = (head + 1) % o.window) /* after a failed submit */
        finish(&slots[head], &p, &o, pvk, &input, &t);
    unsigned long long rss_end = vm_bytes("VmRSS:"), rss_peak = vm_bytes("VmHWM:");

    zkpipe_engine_counters n;
    zkpipe_snapshot snap;
    zkpipe_engine_stats(e, &n);
    zkpipe_acct_snapshot(acct, &snap);
    int counters_zero = snap.live_items == 0 && snap.live_bytes == 0 && n.in_flight == 0;
    for (uint32_t s = 0; s < snap.stage_count; s++) {
        const zkpipe_snapshot_stage *sg = &snap.stage[s];
        counters_zero &= sg->live_items == 0 && sg->live_buffers == 0 && sg->live_bytes == 0 &&
                         sg->entered == sg->left;
        for (uint32_t k = 0; k < snap.kind_count; k++)
            counters_zero &= sg->kind[k].live_buffers == 0 && sg->kind[k].live_bytes == 0;
    }
    double ratio = t.rss_early > 0 ? (double)rss_end / (double)t.rss_early : 0;

    printf("partitions: %llu ended of %lu: proved %llu, failed %llu, canceled %llu (%llu of "
           "%llu jobs canceled)\n",
           (unsigned long long)t.ended, o.partitions, (unsigned long long)t.proved,
           (unsigned long long)t.failed, (unsigned long long)t.canceled,
           (unsigned long long)t.jobs_canceled,
           (unsigned long long)((o.partitions + o.job_size - 1) / o.job_size));
    printf("engine counters: submitted %llu, proved %llu, failed %llu, canceled %llu, in flight "
           "%llu, peak in flight %llu (bound %llu)\n",
           (unsigned long long)n.submitted, (unsigned long long)n.proved,
           (unsigned long long)n.failed, (unsigned long long)n.canceled,
           (unsigned long long)n.in_flight, (unsigned long long)n.peak_in_flight,
           (unsigned long long)n.bound);
    printf("time: %.1f s, %.2f proofs/s; proofs verified: %llu of %llu checked\n", elapsed,
           elapsed > 0 ? (double)t.proved / elapsed : 0.0, (unsigned long long)t.verified,
           (unsigned long long)t.checked);
    printf("RSS: %.2f MiB after %llu partitions, %.2f MiB at the end (ratio %.4f), peak %.2f "
           "MiB; accounted peak %.2f MiB\n",
           (double)t.rss_early / 1048576.0, t.rss_early_at, (double)rss_end / 1048576.0, ratio,
           (double)rss_peak / 1048576.0, (double)snap.peak_bytes / 1048576.0);
    int ok = 1;
    ok &= verdict("every partition ended once: proved + failed + canceled",
                  st == ZKPIPE_OK && t.ended == o.partitions &&
                      t.proved + t.failed + t.canceled == t.ended);
    ok &= verdict("the engine's counters agree", n.submitted == o.partitions &&
                                                     n.proved == t.proved && n.failed == t.failed &&
                                                     n.canceled == t.canceled);
    ok &= verdict("only partitions meant to fail failed, with their error", t.wrong_failures == 0);
    ok &= verdict("every proof checked verified", t.bad_verify == 0);
    ok &= verdict("every live counter and the in-flight count back to zero", counters_zero);
    ok &= verdict("peak in flight within permits + capacity", n.peak_in_flight <= n.bound);
    if (o.rss_at > 0)
        ok &= verdict("RSS at the end within 5 % of RSS after --rss-at partitions",
                      t.rss_early > 0 && ratio >= 0.95 && ratio <= 1.05);
    printf("{\"partitions\":%lu,\"proved\":%llu,\"failed\":%llu,\"canceled\":%llu,"
           "\"elapsed_s\":%.3f,\"rss_early_bytes\":%llu,\"rss_early_at\":%llu,"
           "\"rss_end_bytes\":%llu,\"rss_ratio\":%.4f,\"rss_peak_bytes\":%llu,"
           "\"counters_zero\":%s,\"ok\":%s}\n",
           o.partitions, (unsigned long long)t.proved, (unsigned long long)t.failed,
           (unsigned long long)t.canceled, elapsed, t.rss_early, t.rss_early_at, rss_end, ratio,
           rss_peak, counters_zero ? "true" : "false", ok ? "true" : "false");
    zkpipe_engine_destroy(e);
    zkpipe_acct_destroy(acct);
    zkpipe_groth16_pvk_destroy(pvk);
    zkpipe_groth16_vk_destroy(vk);
    zkpipe_groth16_pk_destroy(pk);
    free(parts);
    free(ctxs);
    free(slots);
    return ok ? 0 : 1;
}
