/* A host's own two-phase prover on the engine: the template a C, C++ or Rust host copies.
 *
 * The host brings its stage operations (zkpipe/engine.h); the engine runs everything around
 * them: permits held until the channel takes an item, the byte budget, the narrow waist, the
 * ledgers, results, cancel and shutdown. Here "synthesis" allocates a buffer (the host's a, b,
 * c), charges it to the partition's ledger and fills it from the partition's index; "proving"
 * sums it, releases and frees it, and returns the sum as the partition's result, which main
 * checks. A real host puts its witness generation and its prover in those two places.
 *
 *   zkpipe-example-host [PARTITIONS]
 *
 * Exits 0 when every partition's result is right and no byte is left accounted. The full
 * program with every engine flag, metrics and traces is tools/zkpipe_host_pipeline.c. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "zkpipe/zkpipe.h"

#define WORDS (256u * 1024u) /* 2 MiB of 64-bit words per partition */

/* The host's item: what synthesis hands to proving through the channel. */
typedef struct item {
    uint64_t *words;
} item;

/* The host's result of a partition: the sum of its words. */
typedef struct result {
    uint64_t sum;
} result;

/* Announces the most bytes a partition's ledger holds, so the byte budget admits it. */
static zkpipe_status estimate(const zkpipe_stage_call *call, uint64_t *bytes)
{
    (void)call;
    *bytes = WORDS * sizeof(uint64_t);
    return ZKPIPE_OK;
}

/* Charges a buffer before allocating it (with a budget, the charge may wait for room). */
static zkpipe_status synthesize(const zkpipe_stage_call *call, void **out)
{
    const uint64_t bytes = WORDS * sizeof(uint64_t);
    zkpipe_status st = zkpipe_ledger_charge(call->ledger, ZKPIPE_KIND_ABC, bytes);
    if (st != ZKPIPE_OK)
        return st;
    item *it = malloc(sizeof *it);
    uint64_t *w = malloc(bytes);
    if (it == NULL || w == NULL) {
        free(it);
        free(w);
        zkpipe_ledger_release(call->ledger, ZKPIPE_KIND_ABC, bytes);
        return ZKPIPE_ENOMEM;
    }
    for (uint64_t i = 0; i < WORDS; i++)
        w[i] = (uint64_t)call->partition + i;
    it->words = w;
    *out = it;
    return ZKPIPE_OK;
}

/* Consumes the item whatever happens, releasing what it frees from the ledger. */
static zkpipe_status prove(const zkpipe_stage_call *call, void *p, zkpipe_partition_result *out)
{
    item *it = p;
    result *r = malloc(sizeof *r);
    uint64_t sum = 0;
    for (uint64_t i = 0; i < WORDS; i++)
        sum += it->words[i];
    free(it->words);
    free(it);
    zkpipe_ledger_release(call->ledger, ZKPIPE_KIND_ABC, WORDS * sizeof(uint64_t));
    if (r == NULL)
        return ZKPIPE_ENOMEM;
    r->sum = sum;
    out->host = r; /* the job owns it now: result_free frees it */
    return ZKPIPE_OK;
}

/* An item that will never be proved (cancel, shutdown): freed, and released while the ledger
 * is still open. */
static void discard(const zkpipe_stage_call *call, void *p)
{
    item *it = p;
    free(it->words);
    free(it);
    if (call->ledger != NULL)
        zkpipe_ledger_release(call->ledger, ZKPIPE_KIND_ABC, WORDS * sizeof(uint64_t));
}

static void result_free(void *ctx, size_t partition, void *host)
{
    (void)ctx;
    (void)partition;
    free(host);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 8;
    if (n == 0 || n > 4096) {
        fprintf(stderr, "usage: %s [PARTITIONS (1..4096)]\n", argv[0]);
        return 2;
    }
    zkpipe_stage_ops ops;
    zkpipe_stage_ops_init(&ops);
    ops.name = "host";
    ops.estimate = estimate;
    ops.synthesize = synthesize;
    ops.prove = prove;
    ops.discard = discard;
    ops.result_free = result_free;

    /* A registry of our own, so that what is left at exit is ours to check. */
    zkpipe_acct *acct;
    if (zkpipe_acct_create(NULL, &acct) != ZKPIPE_OK)
        return 1;
    zkpipe_engine_config cfg;
    zkpipe_engine_config_init(&cfg);
    cfg.acct = acct;
    cfg.synth_workers = 2;
    cfg.permits = 2;
    cfg.capacity = 2;
    cfg.budget_bytes = 3 * WORDS * sizeof(uint64_t); /* three partitions in memory at most */
    zkpipe_engine *engine;
    zkpipe_status st = zkpipe_engine_create(&engine, &cfg);
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "engine: %s\n", zkpipe_status_str(st));
        zkpipe_acct_destroy(acct);
        return 1;
    }

    zkpipe_partition *parts = calloc(n, sizeof *parts);
    zkpipe_job *job = NULL;
    if (parts != NULL) {
        for (size_t i = 0; i < n; i++)
            parts[i].ops = &ops; /* ctx NULL: the index is all a partition needs here */
        st = zkpipe_engine_submit(engine, &job, parts, n, NULL, NULL);
    } else {
        st = ZKPIPE_ENOMEM;
    }
    int bad = st != ZKPIPE_OK;
    if (st == ZKPIPE_OK && (st = zkpipe_job_wait(job)) == ZKPIPE_OK) {
        for (size_t i = 0; i < n; i++) {
            zkpipe_partition_result r;
            /* sum over w of (i + w) = i * WORDS + WORDS * (WORDS - 1) / 2 */
            uint64_t want = (uint64_t)i * WORDS + (uint64_t)WORDS * (WORDS - 1) / 2;
            if (zkpipe_job_result(job, i, &r) != ZKPIPE_OK || r.status != ZKPIPE_OK ||
                ((const result *)r.host)->sum != want) {
                fprintf(stderr, "partition %zu: wrong result\n", i);
                bad = 1;
            }
        }
    }
    zkpipe_job_destroy(job);
    zkpipe_engine_counters c;
    if (zkpipe_engine_stats(engine, &c) == ZKPIPE_OK)
        printf("%llu partitions proved; at most %llu in the waist (bound %llu)\n",
               (unsigned long long)c.proved, (unsigned long long)c.peak_in_flight,
               (unsigned long long)c.bound);
    zkpipe_engine_destroy(engine);
    zkpipe_snapshot s;
    if (zkpipe_acct_snapshot(acct, &s) != ZKPIPE_OK || s.live_bytes != 0) {
        fprintf(stderr, "bytes left accounted at exit\n");
        bad = 1;
    }
    printf("peak accounted: %llu bytes (budget %llu)\n", (unsigned long long)s.peak_bytes,
           (unsigned long long)cfg.budget_bytes);
    zkpipe_acct_destroy(acct);
    free(parts);
    if (st != ZKPIPE_OK)
        fprintf(stderr, "%s\n", zkpipe_status_str(st));
    return bad ? 1 : 0;
}
