/* bench_engine: what the two-phase engine buys and what the narrow waist bounds.
 *
 * 1. Overlap: --partitions of the test circuit (2^--overlap-log rows, BLS12-381) synthesized
 *    and proved back to back on one thread, against the engine with one synthesis worker and
 *    one single-threaded prover. Overlap efficiency = (back-to-back - pipelined) / the
 *    shorter phase: 1 when the shorter phase is hidden entirely. A second run builds the
 *    circuit --builds times per partition, a stand-in for witness generation heavier than
 *    this circuit's (synthesis is otherwise about 1% of proving).
 * 2. Peak RSS with slow proving (--rss-partitions of 2^--log rows, BN254; proving is about
 *    100x slower than synthesis): one synthesis worker per partition against one prover of
 *    one thread, permits 1 and capacity 1, with release early and release on delivery, each
 *    in its own child process so each peak is its own. "partition" is measured, not
 *    estimated: the peak accounted bytes (snapshot peak_bytes) of the same engine running one
 *    partition alone, which holds its circuit, synthesis's buffers, h and the prover's
 *    workspace (NTT domain, MSM scratch) as its ledger charges them. Each run's peak RSS above
 *    its idle baseline (the child's RSS before the engine starts) is reported against
 *    (i) bound x partition, bound = permits + capacity (invariant 2: synth + pending + queued);
 *    (ii) resident x partition, resident = permits + capacity + prover workers, the most
 *    partitions holding buffers at once on delivery (one more per partition being proved);
 *    (iii) the run's own peak accounted bytes. RSS also holds what no ledger charges: thread
 *    stacks, allocator overhead, pages glibc keeps.
 *
 *   bench_engine [--partitions N] [--overlap-log K] [--builds B] [--rss-partitions N] [--log K]
 *
 * Figures only: nothing here asserts a time. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_stats.h"
#include "engine/engine_internal.h"
#include "groth16/prove.h"
#include "zkpipe/testcircuit.h"
#include "zkpipe/zkpipe.h"

#define SEED 3

typedef struct keys {
    zkpipe_groth16_pk *pk;
    zkpipe_groth16_vk *vk;
    unsigned log_rows;
    unsigned builds; /* times build() makes the circuit: a stand-in for heavier witness work */
} keys;

static double now_s(void)
{
    return 1e-9 * bench_clock_ns(CLOCK_MONOTONIC);
}

static double cpu_s(void)
{
    return 1e-9 * bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

static void check(zkpipe_status st, const char *what)
{
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "bench_engine: %s: %s\n", what, zkpipe_status_str(st));
        exit(1);
    }
}

static zkpipe_status build(zkpipe_cs *cs, void *ctx, size_t partition)
{
    (void)partition;
    const keys *k = ctx;
    zkpipe_status st = ZKPIPE_OK;
    for (unsigned i = 1; i < k->builds && st == ZKPIPE_OK; i++) {
        zkpipe_cs *scratch = NULL;
        st = zkpipe_cs_create(&scratch, zkpipe_cs_curve(cs), ZKPIPE_CS_WITNESS, NULL);
        if (st == ZKPIPE_OK)
            st = zkpipe_testcircuit_build(scratch, k->log_rows, SEED, 1);
        zkpipe_cs_destroy(scratch);
    }
    return st == ZKPIPE_OK ? zkpipe_testcircuit_build(cs, k->log_rows, SEED, 1) : st;
}

static void make_keys(keys *k, zkpipe_curve curve, unsigned log_rows)
{
    static const uint8_t seed[ZKPIPE_GROTH16_SEED_BYTES] = {1};
    zkpipe_cs *cs = NULL;
    zkpipe_pool *pool = NULL;
    k->log_rows = log_rows;
    k->builds = 1;
    check(zkpipe_cs_create(&cs, curve, ZKPIPE_CS_WITNESS, NULL), "cs");
    check(build(cs, k, 0), "circuit");
    check(zkpipe_pool_create(&pool, 0, NULL), "pool");
    check(zkpipe_groth16_setup_insecure(&k->pk, &k->vk, cs, seed, pool, NULL), "setup");
    zkpipe_pool_destroy(pool);
    zkpipe_cs_destroy(cs);
}

static void free_keys(keys *k)
{
    zkpipe_groth16_pk_destroy(k->pk);
    zkpipe_groth16_vk_destroy(k->vk);
}

/* Submits n partitions to a new engine with `cfg` on a private registry and waits. */
static void run_engine(zkpipe_engine_config *cfg, keys *k, size_t n, zkpipe_snapshot *snap,
                       zkpipe_engine_counters *counters)
{
    zkpipe_acct *acct = NULL;
    zkpipe_engine *e = NULL;
    zkpipe_job *job = NULL;
    zkpipe_partition *parts = calloc(n, sizeof *parts);
    zkpipe_circuit_partition cp = {build, k, 0, k->pk};
    if (parts == NULL)
        check(ZKPIPE_ENOMEM, "partitions");
    for (size_t i = 0; i < n; i++)
        parts[i] = (zkpipe_partition){zkpipe_circuit_stage_ops(), &cp, {0, 0}};
    check(zkpipe_acct_create(NULL, &acct), "registry");
    cfg->acct = acct;
    check(zkpipe_engine_create(&e, cfg), "engine");
    check(zkpipe_engine_submit(e, &job, parts, n, NULL, NULL), "submit");
    check(zkpipe_job_wait(job), "wait");
    for (size_t i = 0; i < n; i++) {
        zkpipe_partition_result r;
        check(zkpipe_job_result(job, i, &r), "result");
        check(r.status, "partition");
    }
    check(zkpipe_engine_stats(e, counters), "stats");
    check(zkpipe_acct_snapshot(acct, snap), "snapshot");
    zkpipe_job_destroy(job);
    zkpipe_engine_destroy(e);
    zkpipe_acct_destroy(acct);
    free(parts);
}

/* Runs of each kind, interleaved, whose medians are reported: the machine may be shared. */
#define OVERLAP_RUNS 3

/* n partitions synthesized and proved back to back on this thread; the phases' times are
 * added to *synth and *prove. Returns the wall time. */
static double back_to_back(keys *k, size_t n, double *synth, double *prove)
{
    double t0 = now_s();
    for (size_t i = 0; i < n; i++) {
        zkpipe_cs *cs = NULL;
        zkpipe__synth_result res;
        uint64_t r[4], s[4];
        zkpipe_groth16_proof proof;
        double a = now_s();
        check(zkpipe_cs_create(&cs, ZKPIPE_CURVE_BLS12_381, ZKPIPE_CS_WITNESS, NULL), "cs");
        check(build(cs, k, i), "circuit");
        check(zkpipe__synth(&res, cs, NULL, NULL), "synth");
        zkpipe_cs_destroy(cs);
        double b = now_s();
        const zkpipe__curve_ops *c = zkpipe__curve_ops_for(ZKPIPE_CURVE_BLS12_381);
        check(zkpipe__fr_random(r, c), "random");
        check(zkpipe__fr_random(s, c), "random");
        zkpipe__g16_prove_args args = {r,    s,    NULL, &zkpipe__g16_backend_cpu, NULL, NULL,
                                       NULL, NULL, 0};
        check(zkpipe__g16_prove(&proof, k->pk, &res, &args), "prove");
        *synth += b - a;
        *prove += now_s() - b;
    }
    return now_s() - t0;
}

/* The engine every measurement here uses: permits 1, capacity 1, one prover of one thread on
 * the CPU, `workers` synthesis workers. */
static zkpipe_engine_config narrow_config(unsigned workers)
{
    zkpipe_engine_config cfg;
    zkpipe_engine_config_init(&cfg);
    cfg.synth_workers = workers;
    cfg.permits = 1;
    cfg.capacity = 1;
    cfg.backend = ZKPIPE_BACKEND_CPU;
    return cfg;
}

static double pipelined(keys *k, size_t n)
{
    zkpipe_engine_config cfg = narrow_config(1);
    zkpipe_snapshot snap;
    zkpipe_engine_counters counters;
    double t0 = now_s();
    run_engine(&cfg, k, n, &snap, &counters);
    return now_s() - t0;
}

static void overlap(size_t n, unsigned log_rows, unsigned builds)
{
    keys k;
    make_keys(&k, ZKPIPE_CURVE_BLS12_381, log_rows);
    k.builds = builds;
    double synth[OVERLAP_RUNS] = {0}, prove[OVERLAP_RUNS] = {0};
    double serial[OVERLAP_RUNS], piped[OVERLAP_RUNS], cpu_serial[OVERLAP_RUNS],
        cpu_piped[OVERLAP_RUNS];
    for (int i = 0; i < OVERLAP_RUNS; i++) {
        double c0 = cpu_s();
        serial[i] = back_to_back(&k, n, &synth[i], &prove[i]);
        double c1 = cpu_s();
        piped[i] = pipelined(&k, n);
        cpu_serial[i] = c1 - c0;
        cpu_piped[i] = cpu_s() - c1;
    }
    double ms = bench_median(synth, OVERLAP_RUNS), mp = bench_median(prove, OVERLAP_RUNS);
    double t_serial = bench_median(serial, OVERLAP_RUNS),
           t_piped = bench_median(piped, OVERLAP_RUNS);
    double shorter = ms < mp ? ms : mp;
    printf("overlap: %zu partitions of 2^%u rows, bls12-381, one thread per phase, circuit "
           "built %u time(s) per partition, medians of %d runs\n",
           n, log_rows, builds, OVERLAP_RUNS);
    printf("  synthesis (circuit + witness + a/b/c) %.3f s, proving %.3f s\n", ms, mp);
    printf("  back to back %.3f s, pipelined %.3f s: %.3fx", t_serial, t_piped, t_serial / t_piped);
    /* Below a few percent the shorter phase drowns in the noise of the longer one. */
    if (shorter > 0.05 * (ms + mp))
        printf(", overlap efficiency %.2f (1: the shorter phase fully hidden)",
               (t_serial - t_piped) / shorter);
    printf("\n  process CPU time: back to back %.3f s, pipelined %.3f s\n",
           bench_median(cpu_serial, OVERLAP_RUNS), bench_median(cpu_piped, OVERLAP_RUNS));
    free_keys(&k);
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

/* A forked child starts with its parent's peak RSS; "5" in clear_refs (Linux 4.0 and later)
 * sets the peak to the current RSS. */
static void reset_peak_rss(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f == NULL || fputs("5", f) < 0 || fclose(f) != 0)
        check(ZKPIPE_EIO, "resetting the peak RSS");
}

/* In a child process: the engine with slow proving under `release`; one result line. */
static void rss_child(keys *k, size_t n, zkpipe_release release, int out)
{
    zkpipe_engine_config cfg = narrow_config((unsigned)n);
    cfg.release = release;
    /* What the parent left free in glibc's heaps would be resident in the baseline and
     * reused: released, RSS grows by what the engine holds. */
    malloc_trim(0);
    reset_peak_rss();
    unsigned long long base = vm_bytes("VmRSS:");
    zkpipe_snapshot snap;
    zkpipe_engine_counters counters;
    run_engine(&cfg, k, n, &snap, &counters);
    char line[256];
    int len =
        snprintf(line, sizeof line, "%llu %llu %llu %llu\n", base, vm_bytes("VmHWM:"),
                 (unsigned long long)snap.peak_bytes, (unsigned long long)counters.peak_in_flight);
    if (write(out, line, (size_t)len) != len)
        _exit(1);
    _exit(0);
}

typedef struct rss {
    unsigned long long base, peak, accounted, in_flight;
} rss;

static rss rss_run(keys *k, size_t n, zkpipe_release release)
{
    int fds[2];
    rss r = {0, 0, 0, 0};
    if (pipe(fds) != 0)
        check(ZKPIPE_EIO, "pipe");
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        rss_child(k, n, release, fds[1]);
    }
    close(fds[1]);
    char line[256] = {0};
    ssize_t got = pid > 0 ? read(fds[0], line, sizeof line - 1) : -1;
    close(fds[0]);
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    if (got <= 0 || status != 0 ||
        sscanf(line, "%llu %llu %llu %llu", &r.base, &r.peak, &r.accounted, &r.in_flight) != 4)
        check(ZKPIPE_EIO, "child");
    return r;
}

/* The peak accounted bytes of one partition run alone, in this process; the largest peak
 * of kind CIRCUIT and of kind WORKSPACE over the stages in *circuit and *workspace. */
static uint64_t partition_peak(keys *k, uint64_t *circuit, uint64_t *workspace)
{
    zkpipe_engine_config cfg = narrow_config(1);
    zkpipe_snapshot snap;
    zkpipe_engine_counters counters;
    run_engine(&cfg, k, 1, &snap, &counters);
    *circuit = *workspace = 0;
    for (uint32_t st = 0; st < snap.stage_count; st++) {
        const zkpipe_snapshot_kind *kind = snap.stage[st].kind;
        if (kind[ZKPIPE_KIND_CIRCUIT].peak_bytes > *circuit)
            *circuit = kind[ZKPIPE_KIND_CIRCUIT].peak_bytes;
        if (kind[ZKPIPE_KIND_WORKSPACE].peak_bytes > *workspace)
            *workspace = kind[ZKPIPE_KIND_WORKSPACE].peak_bytes;
    }
    return snap.peak_bytes;
}

static void peak_rss(size_t n, unsigned log_rows)
{
    /* glibc otherwise raises its mmap threshold as large blocks are freed, then serves them
     * from per-thread arenas that keep the pages, and keeps up to 128 KiB free at the top of
     * each arena: RSS would count every partition ever synthesized (here and in the children,
     * which inherit the heaps) rather than those in flight. One arena: each of the many
     * synthesis workers would otherwise keep its own arena's free pages (about 0.1 MiB). */
    mallopt(M_MMAP_THRESHOLD, 64 * 1024);
    mallopt(M_TRIM_THRESHOLD, 64 * 1024);
    mallopt(M_ARENA_MAX, 1);
    keys k;
    make_keys(&k, ZKPIPE_CURVE_BN254, log_rows);
    uint64_t circuit, workspace;
    const double mib = 1048576.0, bound = 2, resident = 3;
    const double part = (double)partition_peak(&k, &circuit, &workspace);
    printf("peak RSS: %zu partitions of 2^%u rows, bn254, %zu synthesis workers, permits 1 + "
           "capacity 1, one prover of one thread\n",
           n, log_rows, n);
    printf("  partition (accounted peak of one run alone) %.2f MiB: its circuit's peak %.2f MiB, "
           "the prover's workspace peak %.2f MiB\n",
           part / mib, (double)circuit / mib, (double)workspace / mib);
    rss d = rss_run(&k, n, ZKPIPE_RELEASE_DELIVERY);
    rss e = rss_run(&k, n, ZKPIPE_RELEASE_EARLY);
    const rss *runs[2] = {&d, &e};
    const char *names[2] = {"delivery", "early"};
    for (int i = 0; i < 2; i++) {
        double above = (double)(runs[i]->peak - runs[i]->base);
        printf("  %-8s peak in flight %llu, peak accounted %.2f MiB, peak RSS %.2f MiB (idle "
               "baseline %.2f MiB, above it %.2f MiB)\n",
               names[i], runs[i]->in_flight, (double)runs[i]->accounted / mib,
               (double)runs[i]->peak / mib, (double)runs[i]->base / mib, above / mib);
        printf("  %-8s RSS above baseline = %.2f x bound (2) x partition = %.2f x resident (3) x "
               "partition = %.2f x peak accounted\n",
               names[i], above / (bound * part), above / (resident * part),
               above / (double)runs[i]->accounted);
    }
    printf("  early / delivery: peak RSS above baseline %.2fx, peak accounted %.2fx\n",
           (double)(e.peak - e.base) / (double)(d.peak - d.base),
           (double)e.accounted / (double)d.accounted);
    free_keys(&k);
}

int main(int argc, char **argv)
{
    unsigned long n = 8, rss_n = 16, log_rows = 13, overlap_log = 12, builds = 400;
    for (int i = 1; i + 1 < argc; i += 2) {
        unsigned long v = strtoul(argv[i + 1], NULL, 10);
        if (strcmp(argv[i], "--partitions") == 0 && v >= 2 && v <= 256)
            n = v;
        else if (strcmp(argv[i], "--rss-partitions") == 0 && v >= 2 && v <= 256)
            rss_n = v;
        else if (strcmp(argv[i], "--log") == 0 && v >= 4 && v <= 24)
            log_rows = v;
        else if (strcmp(argv[i], "--overlap-log") == 0 && v >= 4 && v <= 24)
            overlap_log = v;
        else if (strcmp(argv[i], "--builds") == 0 && v >= 1 && v <= 100000)
            builds = v;
        else {
            fprintf(stderr, "usage: bench_engine [--partitions N] [--log K] [--overlap-log K] "
                            "[--builds B] [--rss-partitions N]\n");
            return 2;
        }
    }
    overlap(n, (unsigned)overlap_log, 1);
    overlap(n, (unsigned)overlap_log, (unsigned)builds);
    peak_rss(rss_n, (unsigned)log_rows);
    return 0;
}
