/* zkpipe-buffer-pipeline: a two-stage pipeline of large heap buffers through the narrow waist,
 * sized by flags, with the pile-up of --release=early to compare (the short program a host
 * copies is examples/buffer_pipeline.c).
 *
 * Producers each take a partition permit, fill a buffer of --buf-mib MiB with computed data
 * (every page written, so the memory is really resident), and send it into a bounded channel;
 * one slower consumer checksums each buffer and frees it. Every buffer is charged to its
 * item's ledger, so the registry shows how many items and bytes sit in each stage.
 *
 * --release=delivery (the default) keeps the permit until the channel has taken the item:
 * items in synth + pending + queued never exceed permits + capacity. --release=early gives
 * the permit back as soon as the buffer is filled, before the send: the bug once seen in the
 * field, kept as an experiment. With a slow consumer, producers then pile finished buffers up
 * in front of the full channel and in-flight items (and memory) exceed that bound.
 *
 * With --json the last line on stdout is one JSON object with the figures; reporter lines
 * (--report-ms) go to stderr. --listen serves the registry and this pipeline's own counters
 * and histograms (fill, wait, consume seconds per buffer) over HTTP while it runs; --trace and
 * --plot record and draw it (cli_observe.h). */
/* For MAP_ANONYMOUS: buffers are mapped directly so that freeing one returns its pages at once
 * and the peak RSS follows the buffers in flight, not the C library's caching of freed heap. */
#define _DEFAULT_SOURCE
#include <sys/mman.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_args.h"
#include "cli_memory.h"
#include "cli_observe.h"
#include "zkpipe/http.h"
#include "zkpipe/zkpipe.h"

typedef struct options {
    unsigned long producers, permits, capacity, items, buf_mib, consumer_ms, report_ms;
    bool early;
    bool json;
    cli_observe_options obs;
} options;

typedef struct item {
    zkpipe_ledger ledger;
    uint64_t *words;
    size_t nwords;
    uint64_t opened_ns, filled_ns, received_ns;
} item;

typedef struct pipeline {
    const options *opt;
    zkpipe_acct *acct;
    zkpipe_sem *permits;
    zkpipe_chan *ch;
    _Atomic unsigned long next_item;
    /* Items in synth + pending + queued, kept at the same events as the ledger moves (see
     * producer() and on_recv()), so its peak is exact where a sampler could miss one. */
    _Atomic uint64_t in_flight;
    _Atomic uint64_t peak_in_flight;
    _Atomic uint64_t checksum;
    _Atomic uint64_t consumed;
    _Atomic int failed;
    /* Seconds per buffer: filling it, waiting (pending + queued), the consumer's work. */
    zkpipe_histogram *fill_s, *wait_s, *consume_s;
    double t0_ms;
} pipeline;

static void usage(FILE *f)
{
    fprintf(f, "usage: zkpipe-buffer-pipeline [options]\n"
               "  --producers N       producer threads (default 4)\n"
               "  --permits N         partition permits (default 2)\n"
               "  --capacity N        channel slots (default 2)\n"
               "  --items N           buffers to produce (default 32)\n"
               "  --buf-mib N         MiB per buffer (default 16)\n"
               "  --consumer-ms N     extra time the consumer spends per buffer (default 50)\n"
               "  --release=MODE      delivery: hold the permit until the channel takes the item\n"
               "                      (default); early: release it before the send (the bug)\n"
               "  --report-ms N       summary line on stderr every N ms; 0: none (default 250)\n"
               "  --json              last stdout line: one JSON object with the figures\n");
    cli_observe_usage(f);
    fprintf(f, "  --help              this text\n");
}

/* Accepts "--name value" and "--name=value"; returns 0 to run, 1 after --help, 2 on error. */
static int parse_args(int argc, char **argv, options *o)
{
    *o = (options){4, 2, 2, 32, 16, 50, 250, false, false, {NULL, NULL, 0, NULL, NULL, 0}};
    static const struct {
        const char *name;
        unsigned long min, max;
        size_t offset;
    } nums[] = {
        {"--producers", 1, 256, offsetof(options, producers)},
        {"--permits", 1, 1UL << 20, offsetof(options, permits)},
        {"--capacity", 1, 1UL << 20, offsetof(options, capacity)},
        {"--items", 1, 1UL << 30, offsetof(options, items)},
        {"--buf-mib", 1, 1UL << 16, offsetof(options, buf_mib)},
        {"--consumer-ms", 0, 3600000, offsetof(options, consumer_ms)},
        {"--report-ms", 0, 3600000, offsetof(options, report_ms)},
    };
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
            return 1;
        if (strcmp(arg, "--json") == 0) {
            o->json = true;
            continue;
        }
        if (strcmp(arg, "--progress") == 0) {
            o->obs.progress = 1;
            continue;
        }
        const char *eq = strchr(arg, '=');
        size_t name_len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
        const char *value = eq != NULL ? eq + 1 : (i + 1 < argc ? argv[i + 1] : NULL);
        bool known = false;
        char name[32];
        if (strncmp(arg, "--", 2) == 0 && name_len - 2 < sizeof name) {
            memcpy(name, arg + 2, name_len - 2);
            name[name_len - 2] = '\0';
            int taken = cli_observe_flag(&o->obs, name, value);
            if (taken < 0)
                return 2;
            known = taken > 0;
        }
        if (name_len == 9 && strncmp(arg, "--release", 9) == 0) {
            if (value == NULL || (strcmp(value, "delivery") != 0 && strcmp(value, "early") != 0))
                return 2;
            o->early = strcmp(value, "early") == 0;
            known = true;
        }
        for (size_t k = 0; !known && k < sizeof nums / sizeof nums[0]; k++) {
            if (strlen(nums[k].name) != name_len || strncmp(arg, nums[k].name, name_len) != 0)
                continue;
            unsigned long *field = (unsigned long *)((char *)o + nums[k].offset);
            if (!cli_parse_ulong(value, nums[k].min, nums[k].max, field))
                return 2;
            known = true;
        }
        if (!known)
            return 2;
        if (eq == NULL)
            i++;
    }
    return 0;
}

static void raise_max(_Atomic uint64_t *max, uint64_t v)
{
    uint64_t cur = atomic_load(max);
    while (v > cur && !atomic_compare_exchange_weak(max, &cur, v))
        ;
}

static uint64_t mix(uint64_t x)
{
    /* splitmix64 finaliser: cheap data that differs per word and per item. */
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

static zkpipe_ledger *item_ledger(void *it, void *ctx)
{
    (void)ctx;
    return &((item *)it)->ledger;
}

/* Runs under the channel's lock right after the ledger moved to PROVING, before the slot can
 * be reused and before the sender's permit goes back: the count drops at the same instant the
 * registry's does. */
static void on_recv(void *it, void *ctx)
{
    pipeline *p = ctx;
    atomic_fetch_sub(&p->in_flight, 1);
    ((item *)it)->received_ns = zkpipe_trace_now();
}

static uint64_t *map_buffer(size_t bytes)
{
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

static void free_item(item *it)
{
    zkpipe_ledger_close(&it->ledger);
    if (it->words != NULL)
        munmap(it->words, it->nwords * sizeof(uint64_t));
    free(it);
}

/* Items left in the channel at destroy (only after a failure). */
static void drop_item(void *it, void *ctx)
{
    (void)ctx;
    free_item(it);
}

static void fail(pipeline *p, const char *what, zkpipe_status st)
{
    fprintf(stderr, "zkpipe-buffer-pipeline: %s: %s\n", what, zkpipe_status_str(st));
    atomic_store(&p->failed, 1);
}

/* A producer's item that will not reach the channel: out of the count, freed, permit back. */
static void discard(pipeline *p, item *it, zkpipe_permit *permit)
{
    atomic_fetch_sub(&p->in_flight, 1);
    free_item(it);
    zkpipe_permit_release(permit);
}

static void *producer(void *arg)
{
    pipeline *p = arg;
    const options *o = p->opt;
    const size_t bytes = (size_t)o->buf_mib << 20;
    for (;;) {
        unsigned long n = atomic_fetch_add(&p->next_item, 1);
        if (n >= o->items || atomic_load(&p->failed))
            return NULL;
        zkpipe_permit permit;
        zkpipe_status st = zkpipe_sem_acquire(p->permits, &permit, 1);
        if (st != ZKPIPE_OK) {
            fail(p, "acquire", st);
            return NULL;
        }
        /* Counted from before the ledger opens, so the count is never below the registry's. */
        raise_max(&p->peak_in_flight, atomic_fetch_add(&p->in_flight, 1) + 1);
        item *it = calloc(1, sizeof *it);
        if (it != NULL) {
            it->words = map_buffer(bytes);
            it->nwords = it->words != NULL ? bytes / sizeof(uint64_t) : 0;
        }
        if (it == NULL || it->words == NULL) {
            fail(p, "buffer allocation", ZKPIPE_ENOMEM);
            free(it);
            atomic_fetch_sub(&p->in_flight, 1);
            zkpipe_permit_release(&permit);
            return NULL;
        }
        it->opened_ns = zkpipe_trace_now();
        st = zkpipe_ledger_open(&it->ledger, p->acct, ZKPIPE_STAGE_SYNTH);
        if (st == ZKPIPE_OK)
            st = zkpipe_ledger_charge(&it->ledger, ZKPIPE_KIND_ABC, bytes);
        for (size_t w = 0; w < it->nwords; w++)
            it->words[w] = mix(((uint64_t)n << 32) ^ w);
        if (st == ZKPIPE_OK)
            st = zkpipe_ledger_move(&it->ledger, ZKPIPE_STAGE_PENDING);
        it->filled_ns = zkpipe_trace_now();
        zkpipe_histogram_observe(p->fill_s, it->filled_ns - it->opened_ns);
        if (st != ZKPIPE_OK) {
            fail(p, "ledger", st);
            discard(p, it, &permit);
            return NULL;
        }

        if (o->early)
            zkpipe_permit_release(&permit); /* the bug: nothing bounds pending items now */
        st = zkpipe_chan_send(p->ch, it, o->early ? NULL : &permit);
        if (st != ZKPIPE_OK) {
            fail(p, "send", st);
            discard(p, it, &permit);
            return NULL;
        }
    }
}

static void sleep_ms(unsigned long ms)
{
    struct timespec t = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

static void *consumer(void *arg)
{
    pipeline *p = arg;
    void *v;
    while (zkpipe_chan_recv(p->ch, &v) == ZKPIPE_OK) {
        item *it = v;
        uint64_t sum = 0;
        for (size_t w = 0; w < it->nwords; w++)
            sum += it->words[w];
        atomic_fetch_xor(&p->checksum, sum);
        sleep_ms(p->opt->consumer_ms);
        zkpipe_status st =
            zkpipe_ledger_release(&it->ledger, ZKPIPE_KIND_ABC, it->nwords * sizeof(uint64_t));
        if (st != ZKPIPE_OK)
            fail(p, "ledger release", st);
        uint64_t done = zkpipe_trace_now();
        zkpipe_histogram_observe(p->wait_s, it->received_ns - it->filled_ns);
        zkpipe_histogram_observe(p->consume_s, done - it->received_ns);
        free_item(it);
        atomic_fetch_add(&p->consumed, 1);
    }
    return NULL;
}

/* The process's peak resident set (VmHWM), in bytes; 0 when /proc is unavailable. */
static uint64_t peak_rss_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL)
        return 0;
    char line[256];
    unsigned long long kib = 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmHWM: %llu kB", &kib) == 1)
            break;
    fclose(f);
    return (uint64_t)kib * 1024;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* The /status object and /metrics families of this pipeline (an HTTP provider). */
static zkpipe_status provide(zkpipe_http_out *out, zkpipe_http_format format, void *ctx)
{
    pipeline *p = ctx;
    const options *o = p->opt;
    zkpipe_histogram_snapshot h[3];
    zkpipe_histogram *src[3] = {p->fill_s, p->wait_s, p->consume_s};
    static const char *const names[3] = {"buffer_fill_seconds", "buffer_wait_seconds",
                                         "buffer_consume_seconds"};
    static const char *const helps[3] = {
        "Seconds a producer took to fill one buffer (stage synth).",
        "Seconds from filled to taken by the consumer (stages pending and queued).",
        "Seconds the consumer spent on one buffer.",
    };
    for (int i = 0; i < 3; i++)
        zkpipe_histogram_read(src[i], &h[i]);
    uint64_t consumed = atomic_load(&p->consumed), in_flight = atomic_load(&p->in_flight);
    uint64_t peak = atomic_load(&p->peak_in_flight), bound = o->permits + o->capacity;
    if (format == ZKPIPE_HTTP_JSON) {
        zkpipe_http_out_printf(out,
                               "{\"release\":\"%s\",\"items\":%lu,\"consumed\":%llu,"
                               "\"in_flight\":%llu,\"peak_in_flight\":%llu,\"bound\":%llu",
                               o->early ? "early" : "delivery", o->items,
                               (unsigned long long)consumed, (unsigned long long)in_flight,
                               (unsigned long long)peak, (unsigned long long)bound);
        for (int i = 0; i < 3; i++) {
            zkpipe_http_out_printf(out, ",\"%s\":", names[i] + 7);
            zkpipe_http_out_histogram(out, names[i], helps[i], &h[i]);
        }
        zkpipe_http_out_write(out, "}", 1);
        return ZKPIPE_OK;
    }
    zkpipe_http_out_family(out, "buffer_consumed_total", "counter", "Buffers consumed.");
    zkpipe_http_out_sample(out, "buffer_consumed_total", NULL, (double)consumed);
    zkpipe_http_out_family(out, "buffer_in_flight", "gauge",
                           "Buffers in synth + pending + queued now.");
    zkpipe_http_out_sample(out, "buffer_in_flight", NULL, (double)in_flight);
    zkpipe_http_out_family(out, "buffer_peak_in_flight", "gauge",
                           "Most buffers in synth + pending + queued at once.");
    zkpipe_http_out_sample(out, "buffer_peak_in_flight", NULL, (double)peak);
    zkpipe_http_out_family(out, "buffer_bound", "gauge",
                           "Permits + capacity: what in flight stays within on delivery.");
    zkpipe_http_out_sample(out, "buffer_bound", NULL, (double)bound);
    for (int i = 0; i < 3; i++)
        zkpipe_http_out_histogram(out, names[i], helps[i], &h[i]);
    return ZKPIPE_OK;
}

/* The progress line: buffers consumed, in flight against the bound, time. */
static int progress(char *buf, size_t cap, void *ctx)
{
    pipeline *p = ctx;
    uint64_t done = atomic_load(&p->consumed);
    double elapsed = (now_ms() - p->t0_ms) / 1e3;
    int n = snprintf(buf, cap, "consumed %llu/%lu buffers, in flight %llu (bound %lu), %.1f s",
                     (unsigned long long)done, p->opt->items,
                     (unsigned long long)atomic_load(&p->in_flight),
                     p->opt->permits + p->opt->capacity, elapsed);
    if (done > 0 && done < p->opt->items && n > 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, ", about %.0f s left",
                 elapsed / (double)done * (double)(p->opt->items - done));
    return 1;
}

static zkpipe_status setup(pipeline *p, const options *o)
{
    zkpipe_status st = zkpipe_acct_create(NULL, &p->acct);
    for (int i = 0; i < 3 && st == ZKPIPE_OK; i++)
        st = zkpipe_histogram_create(i == 0   ? &p->fill_s
                                     : i == 1 ? &p->wait_s
                                              : &p->consume_s,
                                     NULL, 0, 1e-9, NULL);
    if (st == ZKPIPE_OK)
        st = zkpipe_sem_create(&p->permits, o->permits, NULL);
    if (st != ZKPIPE_OK)
        return st;
    zkpipe_chan_config cfg;
    zkpipe_chan_config_init(&cfg, o->capacity);
    cfg.ledger_of = item_ledger;
    cfg.on_recv = on_recv;
    cfg.destroy_item = drop_item;
    cfg.ctx = p;
    return zkpipe_chan_create(&p->ch, &cfg);
}

static void teardown(pipeline *p)
{
    zkpipe_chan_destroy(p->ch);
    zkpipe_sem_destroy(p->permits);
    zkpipe_acct_destroy(p->acct);
    zkpipe_histogram_destroy(p->fill_s);
    zkpipe_histogram_destroy(p->wait_s);
    zkpipe_histogram_destroy(p->consume_s);
}

/* Starts the producers and the consumer and waits for them; returns false if a thread could
 * not be started (those started are joined). */
static bool run(pipeline *p, const options *o)
{
    pthread_t *t = calloc(o->producers + 1, sizeof *t);
    if (t == NULL)
        return false;
    size_t started = 0;
    bool ok = pthread_create(&t[started], NULL, consumer, p) == 0;
    started += ok;
    for (unsigned long i = 0; ok && i < o->producers; i++) {
        ok = pthread_create(&t[started], NULL, producer, p) == 0;
        started += ok;
    }
    if (!ok)
        atomic_store(&p->failed, 1);
    for (size_t i = 1; i < started; i++)
        pthread_join(t[i], NULL);
    zkpipe_chan_close(p->ch);
    if (started > 0)
        pthread_join(t[0], NULL);
    free(t);
    return ok;
}

int main(int argc, char **argv)
{
    cli_memory_return_freed();
    options o;
    int parsed = parse_args(argc, argv, &o);
    if (parsed != 0) {
        usage(parsed == 1 ? stdout : stderr);
        return parsed == 1 ? 0 : 2;
    }
    static const char prog[] = "zkpipe-buffer-pipeline";
    if (cli_observe_check(&o.obs, prog, NULL, 0) != 0)
        return 1;
    signal(SIGXFSZ, SIG_IGN); /* ulimit -f: EFBIG, reported, instead of a kill mid-write */
    pipeline p = {.opt = &o};
    zkpipe_status st = setup(&p, &o);
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "zkpipe-buffer-pipeline: setup: %s\n", zkpipe_status_str(st));
        teardown(&p);
        return 1;
    }
    cli_observe obs;
    p.t0_ms = now_ms();
    if (cli_observe_start(&obs, &o.obs, prog, p.acct, progress, &p) != 0) {
        teardown(&p);
        return 1;
    }
    /* Reporter lines go through the progress line's printer, so the two never mix. */
    zkpipe_reporter *reporter = NULL;
    if (o.report_ms > 0)
        st = zkpipe_reporter_start(p.acct, (uint32_t)o.report_ms, NULL, cli_observe_report, &obs,
                                   NULL, &reporter);
    if (st != ZKPIPE_OK || cli_observe_attach(&obs, prog, "buffer_pipeline", provide, &p) != 0) {
        if (st != ZKPIPE_OK)
            fprintf(stderr, "zkpipe-buffer-pipeline: reporter: %s\n", zkpipe_status_str(st));
        zkpipe_reporter_stop(reporter);
        cli_observe_finish(&obs, prog, NULL, 0, NULL, 0);
        teardown(&p);
        return 1;
    }
    double t0 = now_ms();
    if (!run(&p, &o))
        fprintf(stderr, "zkpipe-buffer-pipeline: could not start threads\n");
    double elapsed = now_ms() - t0;
    zkpipe_reporter_stop(reporter);
    char title[160];
    snprintf(title, sizeof title,
             "zkpipe-buffer-pipeline --release %s: %lu producers, %lu permits, capacity %lu, "
             "%lu x %lu MiB",
             o.early ? "early" : "delivery", o.producers, o.permits, o.capacity, o.items,
             o.buf_mib);
    int observed = cli_observe_finish(&obs, prog, title, o.permits + o.capacity, NULL, 0);

    zkpipe_chan_counters c;
    zkpipe_chan_stats(p.ch, &c);
    zkpipe_snapshot snap;
    zkpipe_acct_snapshot(p.acct, &snap);
    char line[1024];
    size_t len;
    zkpipe_snapshot_summary(line, sizeof line, &len, &snap);
    const char *mode = o.early ? "early" : "delivery";
    unsigned long bound = o.permits + o.capacity;
    uint64_t peak = atomic_load(&p.peak_in_flight);
    printf("release=%s items=%llu bound=%lu peak_in_flight=%llu%s elapsed=%.0f ms\n", mode,
           (unsigned long long)c.received, bound, (unsigned long long)peak,
           peak > bound ? " (EXCEEDS the bound)" : "", elapsed);
    printf("at exit: %s\n", line);
    if (o.json)
        printf("{\"release\":\"%s\",\"items\":%llu,\"producers\":%lu,\"permits\":%lu,"
               "\"capacity\":%lu,\"buf_mib\":%lu,\"consumer_ms\":%lu,\"bound\":%lu,"
               "\"peak_in_flight\":%llu,\"peak_accounted_bytes\":%llu,\"peak_rss_bytes\":%llu,"
               "\"live_items_at_exit\":%llu,\"live_bytes_at_exit\":%llu,"
               "\"checksum\":\"%016llx\",\"elapsed_ms\":%.0f}\n",
               mode, (unsigned long long)c.received, o.producers, o.permits, o.capacity, o.buf_mib,
               o.consumer_ms, bound, (unsigned long long)peak, (unsigned long long)snap.peak_bytes,
               (unsigned long long)peak_rss_bytes(), (unsigned long long)snap.live_items,
               (unsigned long long)snap.live_bytes, (unsigned long long)atomic_load(&p.checksum),
               elapsed);
    int failed = atomic_load(&p.failed) || c.received != o.items || observed != 0;
    teardown(&p);
    return failed ? 1 : 0;
}
