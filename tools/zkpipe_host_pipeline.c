/* zkpipe-host-pipeline: a host's own two-phase prover through the engine, under a synthetic
 * load sized by flags: the demonstration and benchmark of the engine with a host's stage
 * operations (the short template a host copies is examples/host_pipeline.c).
 *
 * The host brings its stage operations (zkpipe/engine.h); the engine does the rest: permits
 * held until delivery, the byte budget, the narrow waist, ledger moves, results, cancel and
 * shutdown, trace and counters. Here the host's "synthesis" allocates real buffers (--abc-mib
 * of a/b/c evaluations, --aux-mib of assignment, and a small host state under a kind of the
 * host's own registered by name), fills every page with data derived from the partition, and
 * does --synth-ms of work; its "proof" does --prove-ms of work, releases a/b/c first (as a
 * Groth16 prover does once h exists) and the rest at the end, and returns a host result (a
 * checksum of everything it read) that the host checks. Every buffer is charged to the
 * partition's ledger while it lives, so the counters show where the bytes are at any moment.
 *
 * --release delivery (the default) bounds the waist: items in synth + pending + queued never
 * exceed permits + capacity. --release early reproduces the pile-up: with proving slower than
 * synthesis, synthesized partitions wait in front of the full channel beyond that bound.
 *
 * --auto lets the engine choose how many partitions it admits (ZKPIPE_CONCURRENCY_AUTO), from
 * --permits (default: every synthesis worker) down to what keeps the provers fed; the budget
 * still bounds the bytes.
 *
 * With --json the last stdout line is one JSON object with the figures (the same fields as
 * zkpipe-pipeline's). Exits 0 only when every partition's result checked out. */
/* For MAP_ANONYMOUS: buffers are mapped directly so that freeing one returns its pages at once
 * and the peak RSS follows the buffers in flight. */
#define _DEFAULT_SOURCE
#include <sys/mman.h>

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cli_args.h"
#include "cli_engine.h"
#include "cli_memory.h"
#include "cli_observe.h"
#include "zkpipe/zkpipe.h"

#define MIB (1024ul * 1024ul)
#define STATE_BYTES 4096 /* the host state: a kind of the host's own */

typedef struct options {
    unsigned long partitions, abc_mib, aux_mib, synth_ms, prove_ms, budget_mib;
    long estimate_mib; /* -1: announce the truth */
    zkpipe_engine_config cfg;
    const char *metrics_path;
    int json;
    cli_engine_options engine; /* --synth-workers, --permits, --auto */
    cli_observe_options obs;
} options;

/* What the host's stage operations share: the sizes, the work, the host's kind. */
typedef struct host {
    size_t abc_bytes, aux_bytes;
    long estimate_mib; /* -1: announce the truth */
    unsigned long synth_ms, prove_ms;
    uint32_t state_kind; /* "host_state", registered in the engine's registry */
} host;

/* One partition's buffers between synthesis and proof. */
typedef struct host_item {
    uint64_t *abc, *aux, *state;
    uint64_t expected; /* the sum of every word synthesis wrote */
} host_item;

/* A proof's result: what the proof read, and what the host expects it to be. */
typedef struct host_result {
    uint64_t checksum, expected;
} host_result;

static void usage(FILE *f)
{
    fprintf(f, "usage: zkpipe-host-pipeline [options]\n"
               "  --partitions N       partitions, one job (default 16)\n"
               "  --abc-mib N          a/b/c bytes per partition, MiB (default 8)\n"
               "  --aux-mib N          assignment bytes per partition, MiB (default 4)\n"
               "  --synth-ms N         synthesis work per partition, ms (default 20)\n"
               "  --prove-ms N         proving work per partition, ms (default 40)\n");
    cli_engine_usage(f);
    fprintf(f, "  --capacity N         channel slots, the lookahead (default 2)\n"
               "  --prover-workers N   prover threads (default 1)\n"
               "  --budget-mib N       byte budget over in-flight partitions; 0: none (default)\n"
               "  --release R          delivery (default) or early (the pile-up experiment)\n"
               "  --reservation R      follow (default: freed bytes go back to the budget at\n"
               "                       once) or whole (held until the partition ends)\n"
               "  --estimate-mib N     announce N MiB per partition instead of the truth\n"
               "  --report-ms N        a reporter line every N ms on stderr; 0: none (default)\n"
               "  --metrics FILE       Prometheus text of the final counters\n"
               "  --json               last stdout line: one JSON object with the figures\n");
    cli_observe_usage(f);
    fprintf(f, "  --help               this text\n");
}

static double now_s(void)
{
    return 1e-9 * (double)zkpipe_trace_now();
}

/* Spins for `ms` milliseconds: the host's stand-in for real work, which keeps a core busy. */
static void work_ms(unsigned long ms)
{
    double until = now_s() + 1e-3 * (double)ms;
    while (now_s() < until) {
    }
}

/* The data of word i of partition p: what synthesis writes and proving reads back. */
static uint64_t word(size_t p, size_t i)
{
    uint64_t x = (uint64_t)p * 0x9e3779b97f4a7c15u ^ (uint64_t)i;
    x ^= x >> 31;
    return x * 0xbf58476d1ce4e5b9u;
}

static uint64_t *map_words(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : (uint64_t *)p;
}

/* A buffer of `bytes` charged to the ledger as `kind`, every word written; NULL when it could
 * not be mapped or charged. */
static uint64_t *take(zkpipe_ledger *ledger, uint32_t kind, size_t bytes, size_t p, uint64_t *sum)
{
    /* Charged before it exists: the charge may wait for budget bytes (the engine grows the
     * partition's reservation first), and memory mapped meanwhile would be outside the budget.
     * So no lock another partition needs may be held here either. */
    if (zkpipe_ledger_charge(ledger, kind, bytes) != ZKPIPE_OK)
        return NULL;
    uint64_t *w = map_words(bytes);
    if (w == NULL) {
        zkpipe_ledger_release(ledger, kind, bytes);
        return NULL;
    }
    for (size_t i = 0; i < bytes / 8; i++) {
        w[i] = word(p, i);
        *sum += w[i];
    }
    return w;
}

/* Frees a buffer and releases it from the ledger (NULL ledger: already closed). */
static void give(zkpipe_ledger *ledger, uint32_t kind, uint64_t **w, size_t bytes)
{
    if (*w == NULL)
        return;
    munmap(*w, bytes);
    *w = NULL;
    if (ledger != NULL)
        zkpipe_ledger_release(ledger, kind, bytes);
}

static void item_free(const host *h, host_item *it, zkpipe_ledger *ledger)
{
    give(ledger, ZKPIPE_KIND_ABC, &it->abc, h->abc_bytes);
    give(ledger, ZKPIPE_KIND_AUX, &it->aux, h->aux_bytes);
    give(ledger, h->state_kind, &it->state, STATE_BYTES);
    free(it);
}

static zkpipe_status host_estimate(const zkpipe_stage_call *call, uint64_t *bytes)
{
    const host *h = call->ctx;
    *bytes = h->estimate_mib >= 0 ? (uint64_t)h->estimate_mib * MIB
                                  : h->abc_bytes + h->aux_bytes + STATE_BYTES;
    return ZKPIPE_OK;
}

static zkpipe_status host_synthesize(const zkpipe_stage_call *call, void **out)
{
    const host *h = call->ctx;
    host_item *it = calloc(1, sizeof *it);
    if (it == NULL)
        return ZKPIPE_ENOMEM;
    uint64_t *sum = &it->expected;
    it->abc = take(call->ledger, ZKPIPE_KIND_ABC, h->abc_bytes, call->partition, sum);
    it->aux = it->abc != NULL
                  ? take(call->ledger, ZKPIPE_KIND_AUX, h->aux_bytes, call->partition, sum)
                  : NULL;
    it->state = it->aux != NULL
                    ? take(call->ledger, h->state_kind, STATE_BYTES, call->partition, sum)
                    : NULL;
    if (it->state == NULL) {
        item_free(h, it, call->ledger);
        snprintf(call->detail, call->detail_cap, "cannot map or charge the buffers");
        return ZKPIPE_ENOMEM;
    }
    work_ms(h->synth_ms);
    *out = it;
    return ZKPIPE_OK;
}

static uint64_t sum_words(const uint64_t *w, size_t bytes)
{
    uint64_t s = 0;
    for (size_t i = 0; i < bytes / 8; i++)
        s += w[i];
    return s;
}

static zkpipe_status host_prove(const zkpipe_stage_call *call, void *item,
                                zkpipe_partition_result *out)
{
    const host *h = call->ctx;
    host_item *it = item;
    host_result *r = malloc(sizeof *r);
    if (r == NULL) {
        item_free(h, it, call->ledger);
        return ZKPIPE_ENOMEM;
    }
    /* a/b/c are read first and go first, as a Groth16 prover's do once h exists. */
    r->checksum = sum_words(it->abc, h->abc_bytes);
    give(call->ledger, ZKPIPE_KIND_ABC, &it->abc, h->abc_bytes);
    work_ms(h->prove_ms);
    r->checksum += sum_words(it->aux, h->aux_bytes) + sum_words(it->state, STATE_BYTES);
    r->expected = it->expected;
    item_free(h, it, call->ledger);
    out->host = r;
    return ZKPIPE_OK;
}

static void host_discard(const zkpipe_stage_call *call, void *item)
{
    item_free(call->ctx, item, call->ledger);
}

static void host_result_free(void *ctx, size_t partition, void *result)
{
    (void)ctx;
    (void)partition;
    free(result);
}

static const zkpipe_stage_ops host_ops = {
    .struct_size = sizeof(zkpipe_stage_ops),
    .name = "host",
    .estimate = host_estimate,
    .synthesize = host_synthesize,
    .prove = host_prove,
    .discard = host_discard,
    .result_free = host_result_free,
};

/* 0: run; 1: --help; 2: bad arguments. */
static int parse_args(int argc, char **argv, options *o)
{
    static const struct option flags[] = {
        {"partitions", required_argument, NULL, 'p'},
        {"abc-mib", required_argument, NULL, 'a'},
        {"aux-mib", required_argument, NULL, 'x'},
        {"synth-ms", required_argument, NULL, 's'},
        {"prove-ms", required_argument, NULL, 'v'},
        {"synth-workers", required_argument, NULL, 'e'},
        {"permits", required_argument, NULL, 'e'},
        {"capacity", required_argument, NULL, 'C'},
        {"prover-workers", required_argument, NULL, 'W'},
        {"budget-mib", required_argument, NULL, 'B'},
        {"release", required_argument, NULL, 'r'},
        {"reservation", required_argument, NULL, 'V'},
        {"estimate-mib", required_argument, NULL, 'E'},
        {"report-ms", required_argument, NULL, 'R'},
        {"metrics", required_argument, NULL, 'm'},
        {"json", no_argument, NULL, 'J'},
        {"auto", no_argument, NULL, 'e'},
        {"listen", required_argument, NULL, 'L'},
        {"listen-token-file", required_argument, NULL, 'A'},
        {"linger-ms", required_argument, NULL, 'G'},
        {"trace", required_argument, NULL, 'T'},
        {"plot", required_argument, NULL, 'Y'},
        {"progress", no_argument, NULL, 'Q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->partitions = 16;
    o->abc_mib = 8;
    o->aux_mib = 4;
    o->synth_ms = 20;
    o->prove_ms = 40;
    o->estimate_mib = -1;
    zkpipe_engine_config_init(&o->cfg);
    opterr = 0;
    int flag, index = 0;
    while ((flag = getopt_long(argc, argv, "", flags, &index)) != -1) {
        unsigned long n = 0;
        zkpipe_engine_config *c = &o->cfg;
        const char *name = NULL;
        int ok = 1;
        switch (flag) {
        case 'h':
            return 1;
        case 'J':
            o->json = 1;
            break;
        case 'e':
            ok = cli_engine_flag(&o->engine, c, flags[index].name, optarg) > 0;
            break;
        case 'Q':
            o->obs.progress = 1;
            break;
        case 'p':
            ok = cli_parse_ulong(optarg, 1, 1ul << 20, &o->partitions);
            break;
        case 'a':
            ok = cli_parse_ulong(optarg, 0, 1ul << 16, &o->abc_mib);
            break;
        case 'x':
            ok = cli_parse_ulong(optarg, 0, 1ul << 16, &o->aux_mib);
            break;
        case 's':
            ok = cli_parse_ulong(optarg, 0, 3600000, &o->synth_ms);
            break;
        case 'v':
            ok = cli_parse_ulong(optarg, 0, 3600000, &o->prove_ms);
            break;
        case 'B':
            ok = cli_parse_ulong(optarg, 0, 1ul << 24, &o->budget_mib);
            break;
        case 'r':
            c->release =
                strcmp(optarg, "early") == 0 ? ZKPIPE_RELEASE_EARLY : ZKPIPE_RELEASE_DELIVERY;
            ok = strcmp(optarg, "early") == 0 || strcmp(optarg, "delivery") == 0;
            break;
        case 'V':
            c->reservation =
                strcmp(optarg, "whole") == 0 ? ZKPIPE_RESERVATION_WHOLE : ZKPIPE_RESERVATION_FOLLOW;
            ok = strcmp(optarg, "whole") == 0 || strcmp(optarg, "follow") == 0;
            break;
        case 'E':
            ok = cli_parse_ulong(optarg, 0, 1ul << 24, &n);
            o->estimate_mib = (long)n;
            break;
        case 'm':
            o->metrics_path = optarg;
            break;
        case 'L':
            name = "listen";
            break;
        case 'G':
            name = "linger-ms";
            break;
        case 'A':
            name = "listen-token-file";
            break;
        case 'T':
            name = "trace";
            break;
        case 'Y':
            name = "plot";
            break;
        case 'C':
        case 'W':
        case 'R':
            ok = cli_parse_ulong(optarg, flag == 'R' ? 0 : 1, flag == 'R' ? 3600000 : 256, &n);
            if (flag == 'C')
                c->capacity = n;
            else if (flag == 'W')
                c->prover_workers = (unsigned)n;
            else
                c->report_ms = (uint32_t)n;
            break;
        default:
            ok = 0;
        }
        if (name != NULL)
            ok = cli_observe_flag(&o->obs, name, optarg) > 0;
        if (!ok)
            return 2;
    }
    o->cfg.budget_bytes = (uint64_t)o->budget_mib * MIB;
    cli_engine_options_apply(&o->engine, &o->cfg);
    return optind == argc ? 0 : 2;
}

static uint64_t peak_rss_bytes(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss * 1024 : 0;
}

int main(int argc, char **argv)
{
    cli_memory_return_freed();
    static const char prog[] = "zkpipe-host-pipeline";
    options o;
    switch (parse_args(argc, argv, &o)) {
    case 1:
        usage(stdout);
        return 0;
    case 2:
        usage(stderr);
        return 2;
    }
    cli_output metrics = {o.metrics_path, NULL, 0};
    if (cli_observe_check(&o.obs, prog, &metrics, o.metrics_path != NULL) != 0)
        return 1;
    signal(SIGXFSZ, SIG_IGN); /* ulimit -f: EFBIG, reported, instead of a kill mid-write */
    host h = {o.abc_mib * MIB, o.aux_mib * MIB, o.estimate_mib, o.synth_ms, o.prove_ms, 0};
    zkpipe_acct *acct = zkpipe_acct_default();
    zkpipe_engine *e = NULL;
    zkpipe_job *job = NULL;
    cli_engine w;
    cli_observe obs;
    int observing = 0, observe_failed = 0;
    /* The host's own kind: the counters show its bytes under its name. */
    zkpipe_status st = zkpipe_acct_register_kind(acct, "host_state", &h.state_kind);
    if (st == ZKPIPE_OK && cli_engine_init(&w, o.partitions) != 0)
        st = ZKPIPE_ENOMEM;
    if (st == ZKPIPE_OK) {
        observing = cli_observe_start(&obs, &o.obs, prog, acct, cli_engine_progress, &w) == 0;
        st = observing ? ZKPIPE_OK : ZKPIPE_EINVAL;
        observe_failed = !observing;
    }
    o.cfg.acct = acct;
    o.cfg.report_file = stderr;
    o.cfg.trace = observing ? obs.trace : NULL;
    if (st == ZKPIPE_OK)
        st = zkpipe_engine_create(&e, &o.cfg);
    if (st == ZKPIPE_OK) {
        cli_engine_set(&w, e);
        if (cli_observe_attach(&obs, prog, "engine", zkpipe_engine_http_provider, e) != 0)
            st = ZKPIPE_ENOMEM;
    }
    zkpipe_partition *parts = st == ZKPIPE_OK ? calloc(o.partitions, sizeof *parts) : NULL;
    if (st == ZKPIPE_OK && parts == NULL)
        st = ZKPIPE_ENOMEM;
    for (size_t i = 0; parts != NULL && i < o.partitions; i++)
        parts[i] = (zkpipe_partition){&host_ops, &h, {0, 0}};
    double t0 = now_s();
    if (st == ZKPIPE_OK)
        st = zkpipe_engine_submit(e, &job, parts, o.partitions, NULL, NULL);
    int ran = st == ZKPIPE_OK; /* the outputs are written for a run that started */
    unsigned long verified = 0, errors = 0;
    if (st == ZKPIPE_OK) {
        zkpipe_job_wait(job);
        for (size_t i = 0; i < o.partitions; i++) {
            zkpipe_partition_result r = {.status = ZKPIPE_ESTATE};
            if (zkpipe_job_result(job, i, &r) != ZKPIPE_OK)
                r.status = ZKPIPE_ESTATE;
            const host_result *hr = r.host;
            if (r.status == ZKPIPE_OK && hr != NULL && hr->checksum == hr->expected) {
                verified++;
                continue;
            }
            errors++;
            fprintf(stderr, "%s: partition %zu: %s (%s)\n", prog, i,
                    r.status != ZKPIPE_OK ? r.detail : "the result does not check out",
                    zkpipe_status_name(r.status));
        }
    } else if (!observe_failed) { /* (cli_observe_start has said why) */
        fprintf(stderr, "%s: setup: %s\n", prog, zkpipe_status_str(st));
    }
    double elapsed = now_s() - t0;
    zkpipe_job_destroy(job); /* frees the host results (result_free) */
    zkpipe_engine_counters n;
    memset(&n, 0, sizeof n);
    uint64_t learned = 0;
    if (e != NULL) {
        zkpipe_engine_stats(e, &n);
        learned = cli_engine_learned_bytes(e);
    }
    zkpipe_snapshot peaks, end;
    zkpipe_acct_snapshot(acct, &peaks);
    /* --metrics: what /metrics serves at the end, the engine's series included */
    char *metrics_text = NULL;
    zkpipe_status closed = ZKPIPE_OK;
    if (observing && ran && o.metrics_path != NULL &&
        (closed = cli_observe_metrics(&obs, &metrics_text, &metrics.len)) != ZKPIPE_OK)
        fprintf(stderr, "%s: --metrics %s: %s\n", prog, o.metrics_path, zkpipe_status_str(closed));
    metrics.text = metrics_text;
    if (observing)
        cli_observe_stop_serving(&obs);
    cli_engine_set(&w, NULL);
    zkpipe_engine_destroy(e);
    zkpipe_acct_snapshot(acct, &end);
    free(parts);
    if (observing) { /* --metrics with --plot as one set: both written, or neither */
        char title[128];
        snprintf(title, sizeof title, "%s --release %s: %lu partitions", prog,
                 o.cfg.release == ZKPIPE_RELEASE_EARLY ? "early" : "delivery", o.partitions);
        if (cli_observe_finish(&obs, prog, ran && closed == ZKPIPE_OK ? title : NULL, n.bound,
                               &metrics, o.metrics_path != NULL) != 0 &&
            closed == ZKPIPE_OK)
            closed = ZKPIPE_EIO;
    }
    free(metrics_text);
    cli_engine_free(&w);
    const char *release = o.cfg.release == ZKPIPE_RELEASE_EARLY ? "early" : "delivery";
    double per_s = elapsed > 0 ? (double)verified / elapsed : 0.0;
    uint64_t rss = peak_rss_bytes();
    printf("%lu partitions of %lu + %lu MiB in %.3f s: %.2f partitions/s, %lu checked, %lu "
           "errors\n",
           o.partitions, o.abc_mib, o.aux_mib, elapsed, per_s, verified, errors);
    printf("release=%s bound=permits+capacity=%llu peak_in_flight=%llu%s\n", release,
           (unsigned long long)n.bound, (unsigned long long)n.peak_in_flight,
           n.peak_in_flight > n.bound ? " (EXCEEDS the bound)" : "");
    printf("peak accounted bytes: %llu (budget %llu); peak RSS %llu; live at exit %llu\n",
           (unsigned long long)peaks.peak_bytes, (unsigned long long)n.budget_bytes,
           (unsigned long long)rss, (unsigned long long)end.live_bytes);
    printf("budget waits: %llu admissions %.3f s, %llu growths %.3f s; %llu overdrafts, the "
           "largest %llu bytes\n",
           (unsigned long long)n.budget_admission_waits, 1e-9 * (double)n.budget_admission_wait_ns,
           (unsigned long long)n.budget_growth_waits, 1e-9 * (double)n.budget_growth_wait_ns,
           (unsigned long long)n.budget_overdrafts,
           (unsigned long long)n.budget_overdraft_peak_bytes);
    printf("permits: %s, %llu at the end; unaccounted peak (estimate): %llu bytes\n",
           o.engine.auto_permits ? "auto" : "fixed", (unsigned long long)n.permits_admitted,
           (unsigned long long)n.unaccounted_peak_bytes);
    if (o.json)
        printf("{\"cpu\":%s,", zkpipe_cpu_json()); /* the paths the arithmetic took */
    if (o.json)
        printf("\"partitions\":%lu,\"proofs_verified\":%lu,\"errors\":%lu,\"release\":\"%s\","
               "\"bound\":%llu,\"resident_bound\":%llu,\"peak_in_flight\":%llu,"
               "\"peak_accounted_bytes\":%llu,\"budget_bytes\":%llu,\"peak_rss_bytes\":%llu,"
               "\"live_bytes_at_exit\":%llu,\"learned_partition_bytes\":%llu,"
               "\"over_reservation_bytes\":%llu,\"over_reservation_events\":%llu,"
               "\"budget_returned_early_bytes\":%llu,\"budget_admission_waits\":%llu,"
               "\"budget_admission_wait_s\":%.6f,\"budget_growth_waits\":%llu,"
               "\"budget_growth_wait_s\":%.6f,\"budget_overdrafts\":%llu,"
               "\"budget_overdraft_peak_bytes\":%llu,\"concurrency\":\"%s\","
               "\"permits_final\":%llu,\"unaccounted_peak_bytes\":%llu,\"elapsed_s\":%.6f,"
               "\"throughput_per_s\":%.3f}\n",
               o.partitions, verified, errors, release, (unsigned long long)n.bound,
               (unsigned long long)n.resident_bound, (unsigned long long)n.peak_in_flight,
               (unsigned long long)peaks.peak_bytes, (unsigned long long)n.budget_bytes,
               (unsigned long long)rss, (unsigned long long)end.live_bytes,
               (unsigned long long)learned, (unsigned long long)n.over_reservation_bytes,
               (unsigned long long)n.over_reservation_events,
               (unsigned long long)n.budget_returned_early,
               (unsigned long long)n.budget_admission_waits,
               1e-9 * (double)n.budget_admission_wait_ns, (unsigned long long)n.budget_growth_waits,
               1e-9 * (double)n.budget_growth_wait_ns, (unsigned long long)n.budget_overdrafts,
               (unsigned long long)n.budget_overdraft_peak_bytes,
               o.engine.auto_permits ? "auto" : "fixed", (unsigned long long)n.permits_admitted,
               (unsigned long long)n.unaccounted_peak_bytes, elapsed, per_s);
    int ok = st == ZKPIPE_OK && closed == ZKPIPE_OK && errors == 0 && verified == o.partitions &&
             end.live_bytes == 0;
    return ok ? 0 : 1;
}
