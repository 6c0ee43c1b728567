/* zkpipe-pipeline: the main job. Proves --jobs J x --partitions P of the built-in test circuit
 * at 2^K rows through the two-phase engine (synthesis workers -> narrow waist -> prover
 * workers), verifies every proof, and prints reporter lines, then a summary.
 *
 * Keys come from a seeded, INSECURE setup (anyone who knows the seed can forge proofs), made
 * once per curve before the engine starts. Every partition proves the same circuit and
 * witness; each proof is blinded with fresh randomness.
 *
 * With --zkey FILE [--out DIR] WTNS...: a batch of circom witnesses instead, each one job of
 * one partition through the same engine (zkpipe/stages.h's zkey partitions), the zkey opened
 * once; for each NAME.wtns that proves, DIR/NAME.proof.json and DIR/NAME.public.json (snarkjs
 * format, each written to a temporary file and renamed), the proof checked against the zkey's
 * verifying key first. A witness that fails gets one stderr line naming it and writes nothing;
 * so does one that is not a regular file (a FIFO, a device: refused at once, never waited on).
 * An output (a witness's pair, --metrics, --trace, --plot) that is the same file as a zkey or
 * a witness, through a link too, is refused before any work with one line naming both: exit 1.
 * --zkey may be given more than once: each witness is proved with the last --zkey before it
 * (the first one for witnesses before any). The zkeys are keys of the engine's key cache
 * (zkpipe/key_cache.h): under --budget-mib they hold their bytes of the budget, and one unused
 * for --key-idle-ms is unmapped when a partition cannot otherwise be admitted, and opened
 * again (the file read anew) by the next witness that needs it.
 *
 * With --queue redis://HOST:PORT/STREAM: a node of a fleet sharing one job queue instead
 * (queue_node.h), with the same engine flags.
 *
 * With --json the last stdout line is one JSON object with the figures. Exits 0 only when
 * every partition was proved and verified. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cli_args.h"
#include "cli_engine.h"
#include "cli_files.h"
#include "cli_json.h"
#include "cli_mapped.h"
#include "cli_memory.h"
#include "cli_observe.h"
#include "cli_zkey.h"
#include "queue_node.h"
#include "zkpipe/testcircuit.h"
#include "zkpipe/zkpipe.h"

#define CIRCUIT_SEED 1
#define MAX_CURVES 2

typedef struct options {
    unsigned long jobs, partitions, log_constraints;
    zkpipe_curve curves[MAX_CURVES];
    size_t ncurves;
    zkpipe_engine_config cfg;
    unsigned long budget_mib;
    cli_engine_options engine; /* --synth-workers, --permits, --auto */
    const char *metrics_path;
    int json;
    cli_observe_options obs; /* --listen(-token-file), --linger-ms, --trace, --plot, --progress */
    /* --zkey mode: the zkey, the output folder and the witnesses */
    const char *zkey_path, *out_dir; /* zkey_path: the first --zkey */
    int full_check;
    const char **zkeys; /* every --zkey, in order */
    size_t nzkeys;
    char **wtns;
    size_t *wtns_key; /* each witness's zkey, an index into zkeys */
    size_t nwtns;
    unsigned long key_idle_ms;
    queue_options queue; /* --queue: a node of a fleet (queue_node.h) */
} options;

/* One curve's keys, the public input every partition's proof must verify against, and the
 * context of its partitions (all of them the same circuit). */
typedef struct keys {
    zkpipe_curve curve;
    zkpipe_groth16_pk *pk;
    zkpipe_groth16_vk *vk;
    zkpipe_groth16_pvk *pvk;
    zkpipe_scalar input;
    unsigned log_rows;
    zkpipe_circuit_partition partition;
} keys;

static void usage(FILE *f)
{
    fprintf(f, "usage: zkpipe-pipeline [options]\n"
               "  --jobs J             jobs to submit (default 4)\n"
               "  --partitions P       partitions per job (default 4)\n"
               "  --log-constraints K  circuit of 2^K rows, 4..24 (default 12)\n"
               "  --curve C            bls12-381, bn254 or all (default all: jobs alternate)\n");
    cli_engine_usage(f);
    fprintf(f, "  --budget-mib N       byte budget over in-flight partitions; 0: none (default)\n"
               "  --capacity N         channel slots, the lookahead (default 2)\n"
               "  --prover-workers N   prover threads (default 1)\n"
               "  --prover-threads N   threads of each prover's pool, itself included (default 2)\n"
               "  --backend B          auto, cpu or cuda (default auto)\n"
               "  --release R          delivery (default) or early (the pile-up experiment)\n"
               "  --report-ms N        a counter line on stderr every N ms; 0: none (default)\n"
               "  --metrics FILE       Prometheus text of the final counters (a node: also\n"
               "                       rewritten every second, with its queue series)\n"
               "  --json               last stdout line: one JSON object with the figures\n");
    cli_observe_usage(f);
    fprintf(f, "  --help               this text\n"
               "       zkpipe-pipeline --zkey FILE [--out DIR] [--full-check] [options] WTNS...\n"
               "  --zkey FILE          prove each circom witness WTNS with this zkey instead\n"
               "  --out DIR            where NAME.proof.json and NAME.public.json go (default\n"
               "                       .); made when missing (its parent must exist), refused\n"
               "                       when a symbolic link or not a folder\n"
               "  --full-check         check every zkey point for the subgroup at open\n"
               "  --zkey may be repeated: each witness goes with the last --zkey before it\n"
               "  --key-idle-ms N      a zkey unused for N ms may be unmapped when a partition\n"
               "                       needs its bytes of the budget (default 0); reopened when\n"
               "                       needed again\n");
    queue_usage(f);
}

static int parse_curve(options *o, const char *s)
{
    if (strcmp(s, "all") == 0) {
        o->curves[0] = ZKPIPE_CURVE_BLS12_381;
        o->curves[1] = ZKPIPE_CURVE_BN254;
        o->ncurves = 2;
        return 1;
    }
    o->ncurves = 1;
    return zkpipe_curve_parse(&o->curves[0], s) == ZKPIPE_OK;
}

/* One flag with its value; 0 when the value is bad. */
static int apply(options *o, int flag, const char *v)
{
    zkpipe_engine_config *c = &o->cfg;
    unsigned long n = 0;
    switch (flag) {
    case 'j':
        return cli_parse_ulong(v, 1, 1UL << 20, &o->jobs);
    case 'p':
        return cli_parse_ulong(v, 1, 1UL << 20, &o->partitions);
    case 'k':
        return cli_parse_ulong(v, 4, 24, &o->log_constraints);
    case 'c':
        return parse_curve(o, v);
    case 'B':
        return cli_parse_ulong(v, 0, 1UL << 24, &o->budget_mib);
    case 'b':
        return zkpipe_backend_parse(&c->backend, v) == ZKPIPE_OK;
    case 'r':
        c->release = strcmp(v, "early") == 0 ? ZKPIPE_RELEASE_EARLY : ZKPIPE_RELEASE_DELIVERY;
        return strcmp(v, "early") == 0 || strcmp(v, "delivery") == 0;
    case 'x':
        return cli_observe_flag(&o->obs, "trace", v) > 0;
    case 'L':
        return cli_observe_flag(&o->obs, "listen", v) > 0;
    case 'G':
        return cli_observe_flag(&o->obs, "linger-ms", v) > 0;
    case 'A':
        return cli_observe_flag(&o->obs, "listen-token-file", v) > 0;
    case 'Y':
        return cli_observe_flag(&o->obs, "plot", v) > 0;
    case 'm':
        o->metrics_path = v;
        return 1;
    case 'z':
        if (o->zkey_path == NULL)
            o->zkey_path = v;
        o->zkeys[o->nzkeys++] = v;
        return 1;
    case 'K':
        return cli_parse_ulong(v, 0, UINT32_MAX, &o->key_idle_ms);
    case 'o':
        o->out_dir = v;
        return 1;
    }
    /* The rest are engine counts, each stored in its own type. */
    if (!cli_parse_ulong(v, flag == 'R' ? 0 : 1, flag == 'R' ? 3600000 : 1UL << 20, &n))
        return 0;
    switch (flag) {
    case 'C':
        c->capacity = n;
        return 1;
    case 'W':
        c->prover_workers = (unsigned)n;
        return n <= 256;
    case 'T':
        c->prover_threads = (unsigned)n;
        return n <= 256;
    case 'R':
        c->report_ms = (uint32_t)n;
        return 1;
    default:
        return 0;
    }
}

/* The argument lists (zkeys, witnesses) live as long as the process. */
static struct {
    const char **zkeys;
    char **wtns;
    size_t *wtns_key;
} lists;

static void free_lists(void)
{
    free(lists.zkeys);
    free(lists.wtns);
    free(lists.wtns_key);
}

/* A witness, with the last --zkey before it. */
static void add_wtns(options *o, char *path)
{
    o->wtns[o->nwtns] = path;
    o->wtns_key[o->nwtns++] = o->nzkeys > 0 ? o->nzkeys - 1 : 0;
}

/* 0: run; 1: --help; 2: bad arguments. */
static int parse_args(int argc, char **argv, options *o)
{
    static const struct option flags[] = {
        {"jobs", required_argument, NULL, 'j'},
        {"partitions", required_argument, NULL, 'p'},
        {"log-constraints", required_argument, NULL, 'k'},
        {"curve", required_argument, NULL, 'c'},
        {"synth-workers", required_argument, NULL, 'e'},
        {"permits", required_argument, NULL, 'e'},
        {"budget-mib", required_argument, NULL, 'B'},
        {"capacity", required_argument, NULL, 'C'},
        {"prover-workers", required_argument, NULL, 'W'},
        {"prover-threads", required_argument, NULL, 'T'},
        {"backend", required_argument, NULL, 'b'},
        {"release", required_argument, NULL, 'r'},
        {"report-ms", required_argument, NULL, 'R'},
        {"trace", required_argument, NULL, 'x'},
        {"listen", required_argument, NULL, 'L'},
        {"listen-token-file", required_argument, NULL, 'A'},
        {"linger-ms", required_argument, NULL, 'G'},
        {"plot", required_argument, NULL, 'Y'},
        {"progress", no_argument, NULL, 'Q'},
        {"metrics", required_argument, NULL, 'm'},
        {"json", no_argument, NULL, 'J'},
        {"auto", no_argument, NULL, 'e'},
        {"zkey", required_argument, NULL, 'z'},
        {"out", required_argument, NULL, 'o'},
        {"full-check", no_argument, NULL, 'F'},
        {"key-idle-ms", required_argument, NULL, 'K'},
        {"help", no_argument, NULL, 'h'},
        {"queue", required_argument, NULL, 'q'},
        {"group", required_argument, NULL, 'q'},
        {"consumer", required_argument, NULL, 'q'},
        {"claim-idle-ms", required_argument, NULL, 'q'},
        {"max-deliveries", required_argument, NULL, 'q'},
        {"exit-when-idle-ms", required_argument, NULL, 'q'},
        {"redis-password-file", required_argument, NULL, 'q'},
        {"insecure-no-auth", no_argument, NULL, 'q'},
        {"circuit", required_argument, NULL, 'q'},
        {"inputs", required_argument, NULL, 'q'},
        {"max-wtns-mib", required_argument, NULL, 'q'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->jobs = 4;
    o->partitions = 4;
    o->log_constraints = 12;
    parse_curve(o, "all");
    zkpipe_engine_config_init(&o->cfg);
    o->cfg.prover_threads = 2;
    o->cfg.report_ms = 0; /* counter lines only when asked */
    queue_options_init(&o->queue);
    atexit(free_lists);
    lists.zkeys = calloc((size_t)argc + 1, sizeof *lists.zkeys);
    lists.wtns = calloc((size_t)argc + 1, sizeof *lists.wtns);
    lists.wtns_key = calloc((size_t)argc + 1, sizeof *lists.wtns_key);
    if (lists.zkeys == NULL || lists.wtns == NULL || lists.wtns_key == NULL)
        return 2;
    o->zkeys = lists.zkeys;
    o->wtns = lists.wtns;
    o->wtns_key = lists.wtns_key;
    opterr = 0;
    int flag, index = 0;
    /* "-": witnesses come in order among the flags, each with the --zkey before it. */
    while ((flag = getopt_long(argc, argv, "-", flags, &index)) != -1) {
        if (flag == 'h')
            return 1;
        if (flag == 1) {
            add_wtns(o, optarg);
            continue;
        }
        if (flag == 'q') {
            if (queue_flag(&o->queue, flags[index].name, optarg) <= 0)
                return 2;
        } else if (flag == 'e') {
            if (cli_engine_flag(&o->engine, &o->cfg, flags[index].name, optarg) <= 0)
                return 2;
        } else if (flag == 'J')
            o->json = 1;
        else if (flag == 'Q')
            o->obs.progress = 1;
        else if (flag == 'F')
            o->full_check = 1;
        else if (!apply(o, flag, optarg))
            return 2;
    }
    o->cfg.budget_bytes = (uint64_t)o->budget_mib << 20;
    cli_engine_options_apply(&o->engine, &o->cfg);
    for (int i = optind; i < argc; i++) /* after "--" */
        add_wtns(o, argv[i]);
    /* Witnesses before the first --zkey go with it. */
    if (o->key_idle_ms > 0 && o->zkey_path == NULL && o->queue.url == NULL)
        return 2;
    /* A node takes its witnesses from the queue (its circuits from --circuit, and --out is where
     * it also writes their outputs); queue flags need --queue. */
    o->queue.out_dir = o->out_dir;
    if (o->queue.url != NULL && o->queue.ncircuits == 0)
        fprintf(stderr, "zkpipe-pipeline: --queue: name the circuits its jobs may prove "
                        "(--circuit NAME=FILE.zkey)\n");
    if (o->queue.url != NULL || o->queue.any)
        return o->queue.url != NULL && o->zkey_path == NULL && o->nwtns == 0 &&
                       o->queue.ncircuits > 0
                   ? 0
                   : 2;
    /* Witnesses go with --zkey, and --zkey needs at least one; --out and --full-check too. */
    if (o->zkey_path == NULL)
        return o->nwtns == 0 && o->out_dir == NULL && !o->full_check ? 0 : 2;
    return o->nwtns > 0 ? 0 : 2;
}

static double now_s(void)
{
    return 1e-9 * (double)zkpipe_trace_now();
}

static zkpipe_status build_circuit(zkpipe_cs *cs, void *ctx, size_t partition)
{
    (void)partition;
    return zkpipe_testcircuit_build(cs, ((const keys *)ctx)->log_rows, CIRCUIT_SEED, 1);
}

static zkpipe_status make_keys(keys *k, zkpipe_curve curve, unsigned log_rows)
{
    static const uint8_t seed[ZKPIPE_GROTH16_SEED_BYTES] = {'z', 'k', 'p', 'i', 'p', 'e'};
    zkpipe_cs *cs = NULL;
    zkpipe_pool *pool = NULL;
    k->curve = curve;
    zkpipe_status st = zkpipe_cs_create(&cs, curve, ZKPIPE_CS_WITNESS, NULL);
    if (st == ZKPIPE_OK)
        st = zkpipe_testcircuit_build(cs, log_rows, CIRCUIT_SEED, 1);
    if (st == ZKPIPE_OK)
        st = zkpipe_cs_value(cs, &k->input, 1);
    if (st == ZKPIPE_OK)
        st = zkpipe_pool_create(&pool, 0, NULL);
    if (st == ZKPIPE_OK)
        st = zkpipe_groth16_setup_insecure(&k->pk, &k->vk, cs, seed, pool, NULL);
    if (st == ZKPIPE_OK)
        st = zkpipe_groth16_pvk_create(&k->pvk, k->vk, NULL);
    zkpipe_pool_destroy(pool);
    zkpipe_cs_destroy(cs);
    k->log_rows = log_rows;
    k->partition = (zkpipe_circuit_partition){build_circuit, k, 0, k->pk};
    return st;
}

static void free_keys(keys *k)
{
    zkpipe_groth16_pvk_destroy(k->pvk);
    zkpipe_groth16_vk_destroy(k->vk);
    zkpipe_groth16_pk_destroy(k->pk);
}

static uint64_t peak_rss_bytes(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss * 1024 : 0;
}

/* What the run did, for the summary. */
typedef struct tally {
    unsigned long partitions, verified, errors;
    double elapsed_s;
} tally;

/* Counts one partition's end, with a line on stderr when it failed. */
static void count(tally *t, zkpipe_status st, const char *what, const char *detail)
{
    if (st != ZKPIPE_OK)
        fprintf(stderr, "zkpipe-pipeline: %s%s%s (%s)\n", what != NULL ? what : "",
                what != NULL ? ": " : "",
                detail != NULL && detail[0] != '\0' ? detail : zkpipe_status_str(st),
                zkpipe_status_name(st));
    t->partitions++;
    t->verified += st == ZKPIPE_OK;
    t->errors += st != ZKPIPE_OK;
}

/* Submits every job of the built-in circuit, then waits for each in turn and verifies its
 * proofs. */
static zkpipe_status run_circuits(const options *o, zkpipe_engine *e, keys *k, tally *t)
{
    zkpipe_partition *parts = calloc(o->partitions, sizeof *parts);
    zkpipe_job **jobs = calloc(o->jobs, sizeof *jobs);
    zkpipe_status st = parts != NULL && jobs != NULL ? ZKPIPE_OK : ZKPIPE_ENOMEM;
    double t0 = now_s();
    unsigned long submitted = 0;
    for (; st == ZKPIPE_OK && submitted < o->jobs; submitted++) {
        keys *kk = &k[submitted % o->ncurves];
        for (unsigned long i = 0; i < o->partitions; i++)
            parts[i] = (zkpipe_partition){zkpipe_circuit_stage_ops(), &kk->partition, {0, 0}};
        st = zkpipe_engine_submit(e, &jobs[submitted], parts, o->partitions, NULL, NULL);
    }
    for (unsigned long j = 0; j < submitted; j++) {
        const keys *kk = &k[j % o->ncurves];
        zkpipe_job_wait(jobs[j]);
        for (size_t i = 0; i < zkpipe_job_partitions(jobs[j]); i++) {
            zkpipe_partition_result r = {.status = ZKPIPE_ESTATE};
            char what[64];
            if (zkpipe_job_result(jobs[j], i, &r) != ZKPIPE_OK)
                r.status = ZKPIPE_ESTATE;
            zkpipe_groth16_proof proof;
            zkpipe_status v = zkpipe_stage_proof(&proof, &r);
            if (v == ZKPIPE_OK)
                v = zkpipe_groth16_verify(kk->pvk, &kk->input, 1, &proof);
            snprintf(what, sizeof what, "job %lu partition %zu", j + 1, i);
            count(t, v, what, r.status != ZKPIPE_OK ? r.detail : NULL);
        }
        zkpipe_job_destroy(jobs[j]);
    }
    t->elapsed_s = now_s() - t0;
    free(jobs);
    free(parts);
    return st;
}

/* One witness's end, for --json. */
typedef struct witness_result {
    zkpipe_status status;
    int written; /* its proof.json and public.json are in place */
    double ms;   /* synthesis, wait and proving */
    char why[ZKPIPE_DETAIL_MAX + 64];
} witness_result;

/* --zkey mode: the zkeys, as sources (each holds its verifying key) and keys of one cache, one
 * job per witness. */
typedef struct batch {
    zkpipe_key_cache *cache;
    cli_zkey *keys; /* one per --zkey */
    size_t nkeys, max_public;
    zkpipe_zkey_partition *parts;
    zkpipe_scalar *publics; /* max_public per witness */
    zkpipe_job **jobs;
    struct witness_result *results; /* one per witness, for --json */
} batch;

/* Closes the zkeys and their cache, once the engine is gone. */
static void batch_close_keys(batch *b)
{
    for (size_t i = 0; b->keys != NULL && i < b->nkeys; i++)
        cli_zkey_close(&b->keys[i]);
    free(b->keys);
    b->keys = NULL;
    zkpipe_key_cache_destroy(b->cache);
    b->cache = NULL;
}

static void batch_free(batch *b, size_t n)
{
    for (size_t i = 0; b->jobs != NULL && i < n; i++)
        zkpipe_job_destroy(b->jobs[i]);
    free(b->jobs);
    free(b->publics);
    free(b->parts);
    free(b->results);
    batch_close_keys(b);
}

/* The key cache the engine will charge the zkeys to, before the engine. */
static zkpipe_status batch_cache(batch *b, const options *o)
{
    zkpipe_key_cache_config kc;
    zkpipe_key_cache_config_init(&kc);
    kc.idle_ms = (uint32_t)o->key_idle_ms;
    b->keys = calloc(o->nzkeys, sizeof *b->keys);
    if (b->keys == NULL)
        return ZKPIPE_ENOMEM;
    return zkpipe_key_cache_create(&b->cache, &kc);
}

/* Opens each zkey once, for every witness, once the engine charges them to its budget. */
static zkpipe_status batch_open(batch *b, const options *o)
{
    char detail[ZKPIPE_DETAIL_MAX];
    for (; b->nkeys < o->nzkeys; b->nkeys++) {
        zkpipe_status st = cli_zkey_open(&b->keys[b->nkeys], o->zkeys[b->nkeys], o->full_check,
                                         o->cfg.prover_threads, b->cache, detail, sizeof detail);
        if (st != ZKPIPE_OK) {
            fprintf(stderr, "zkpipe-pipeline: %s (%s)\n", detail, zkpipe_status_name(st));
            return st;
        }
        if (b->keys[b->nkeys].num_public > b->max_public)
            b->max_public = b->keys[b->nkeys].num_public;
    }
    b->parts = calloc(o->nwtns, sizeof *b->parts);
    b->publics = calloc(o->nwtns * b->max_public + 1, sizeof *b->publics);
    b->jobs = calloc(o->nwtns, sizeof *b->jobs);
    b->results = calloc(o->nwtns, sizeof *b->results);
    return b->parts == NULL || b->publics == NULL || b->jobs == NULL || b->results == NULL
               ? ZKPIPE_ENOMEM
               : ZKPIPE_OK;
}

/* Refuses, before any work, output paths that cli_outputs_write would refuse: --metrics,
 * --trace, --plot and, with --zkey, each witness's pair, where also two witnesses whose
 * outputs would land on the same files (a.wtns in two folders) or an output onto another's
 * file are refused; and any of them that is a zkey or a witness (cli_outputs_check_inputs). */
static int check_outputs(const options *o, const char *const *inputs, size_t ninputs)
{
    const char *dir = o->out_dir != NULL ? o->out_dir : ".";
    size_t npair = o->zkey_path != NULL ? 2 * o->nwtns : 0, n = npair;
    cli_output *outs = calloc(npair + 3, sizeof *outs);
    char *paths = calloc(npair + 1, 4096);
    int rc = outs != NULL && paths != NULL ? 0 : -1;
    if (rc != 0)
        fprintf(stderr, "zkpipe-pipeline: out of memory\n");
    for (size_t i = 0; rc == 0 && i < npair; i++) {
        outs[i].path = paths + i * 4096;
        if (!cli_output_path(paths + i * 4096, 4096, dir, o->wtns[i / 2],
                             i % 2 != 0 ? "proof.json" : "public.json")) {
            fprintf(stderr, "zkpipe-pipeline: %s: the output path is too long\n", o->wtns[i / 2]);
            rc = -1;
        }
    }
    if (rc == 0 && o->metrics_path != NULL)
        outs[n++].path = o->metrics_path;
    if (rc == 0)
        rc = cli_observe_check(&o->obs, "zkpipe-pipeline", outs, n);
    if (rc == 0 && o->obs.trace_path != NULL)
        outs[n++].path = o->obs.trace_path;
    if (rc == 0 && o->obs.plot_path != NULL)
        outs[n++].path = o->obs.plot_path;
    char clash[2 * 4096 + 64];
    if (rc == 0 && cli_outputs_check_inputs(outs, n, inputs, ninputs, clash, sizeof clash) != 0) {
        fprintf(stderr, "zkpipe-pipeline: %s\n", clash);
        rc = -1;
    }
    free(paths);
    free(outs);
    return rc;
}

/* Writes witness i's proof.json and public.json (each staged, then both renamed). */
static zkpipe_status write_outputs(const options *o, const batch *b, size_t i,
                                   const zkpipe_groth16_proof *proof, char *why, size_t cap)
{
    char proof_path[4096], public_path[4096];
    const char *dir = o->out_dir != NULL ? o->out_dir : ".";
    if (!cli_output_path(proof_path, sizeof proof_path, dir, o->wtns[i], "proof.json") ||
        !cli_output_path(public_path, sizeof public_path, dir, o->wtns[i], "public.json")) {
        snprintf(why, cap, "the output path is too long");
        return ZKPIPE_EINVAL;
    }
    return cli_proof_write(proof_path, public_path, proof, b->publics + i * b->max_public,
                           b->keys[o->wtns_key[i]].num_public, why, cap);
}

/* Submits one job per witness, then waits for each in order, checks its proof and writes its
 * outputs. */
static zkpipe_status run_zkey(const options *o, zkpipe_engine *e, batch *b, tally *t)
{
    double t0 = now_s();
    zkpipe_status st = ZKPIPE_OK;
    size_t submitted = 0;
    for (; st == ZKPIPE_OK && submitted < o->nwtns; submitted++) {
        zkpipe_zkey_partition *p = &b->parts[submitted];
        p->source = b->keys[o->wtns_key[submitted]].source;
        p->wtns_path = o->wtns[submitted];
        p->public_out = b->publics + submitted * b->max_public;
        zkpipe_partition part = {zkpipe_zkey_stage_ops(), p, {0, 0}};
        st = zkpipe_engine_submit(e, &b->jobs[submitted], &part, 1, NULL, NULL);
    }
    for (size_t i = 0; i < submitted; i++) {
        zkpipe_partition_result r;
        witness_result *w = &b->results[i];
        char *why = w->why;
        zkpipe_job_wait(b->jobs[i]);
        if (zkpipe_job_result(b->jobs[i], 0, &r) != ZKPIPE_OK) { /* its submit failed */
            memset(&r, 0, sizeof r);
            r.status = st != ZKPIPE_OK ? st : ZKPIPE_ESTATE;
            snprintf(r.detail, sizeof r.detail, "%s: not submitted", o->wtns[i]);
        }
        zkpipe_status v = r.status;
        /* The partition's detail line names its witness already; the lines here add it. The
         * stage's prove checked the proof against the zkey's verifying key (a proof that fails
         * it is the partition's ZKPIPE_EUNSATISFIED); it is verified here again, as its
         * receiver would, before it is written: "proofs_verified" counts proofs that verified
         * with the public signals written beside them, not partitions that ended well. */
        const char *what = NULL;
        const cli_zkey *key = &b->keys[o->wtns_key[i]];
        snprintf(why, sizeof w->why, "%s", r.detail);
        zkpipe_groth16_proof proof;
        if (v == ZKPIPE_OK)
            v = zkpipe_stage_proof(&proof, &r);
        if (v == ZKPIPE_OK && (v = zkpipe_groth16_verify(zkpipe_zkey_source_pvk(key->source),
                                                         b->publics + i * b->max_public,
                                                         key->num_public, &proof)) != ZKPIPE_OK)
            snprintf(why, sizeof w->why, "the proof does not verify with the zkey's verifying key");
        if (v == ZKPIPE_OK)
            v = write_outputs(o, b, i, &proof, why, sizeof w->why);
        if (r.status == ZKPIPE_OK)
            what = o->wtns[i];
        count(t, v, what, why);
        w->status = v;
        w->written = v == ZKPIPE_OK;
        w->ms = 1e3 * (r.synth_s + r.wait_s + r.prove_s);
        zkpipe_job_destroy(b->jobs[i]);
        b->jobs[i] = NULL;
    }
    for (size_t i = submitted; i < o->nwtns; i++) { /* after a failed submit */
        b->results[i].status = ZKPIPE_ECANCELED;
        snprintf(b->results[i].why, sizeof b->results[i].why, "%s: not submitted", o->wtns[i]);
    }
    t->elapsed_s = now_s() - t0;
    return st;
}

/* --json of a --zkey batch: each witness's end, in the order given. A field that does not
 * apply is left out: "error" when it proved, "proof" and "public" when they were not
 * written. */
static void print_witnesses(const options *o, const batch *b)
{
    printf(",\"witnesses\":[");
    for (size_t i = 0; i < o->nwtns; i++) {
        const witness_result *w = &b->results[i];
        char path[4096];
        printf("%s{\"name\":", i > 0 ? "," : "");
        cli_json_string(stdout, o->wtns[i]);
        printf(",\"status\":\"%s\"",
               w->status == ZKPIPE_OK ? "proved" : zkpipe_status_name(w->status));
        if (w->status != ZKPIPE_OK) {
            printf(",\"error\":");
            cli_json_string(stdout, w->why[0] != '\0' ? w->why : zkpipe_status_str(w->status));
        }
        const char *dir = o->out_dir != NULL ? o->out_dir : ".";
        for (int k = 0; w->written && k < 2; k++) {
            const char *suffix = k == 0 ? "proof.json" : "public.json";
            if (cli_output_path(path, sizeof path, dir, o->wtns[i], suffix)) {
                printf(",\"%s\":", k == 0 ? "proof" : "public");
                cli_json_string(stdout, path);
            }
        }
        printf(",\"ms\":%.3f}", w->ms);
    }
    printf("]");
}

static void print_summary(const options *o, const zkpipe_engine_counters *n, uint64_t learned,
                          const zkpipe_key_cache_counters *kc, const zkpipe_snapshot *peaks,
                          const zkpipe_snapshot *end, const tally *t, const char *backend,
                          const batch *b)
{
    const char *release = o->cfg.release == ZKPIPE_RELEASE_EARLY ? "early" : "delivery";
    /* Throughput counts proofs (proved and verified), not partitions that merely ended: a
     * run whose partitions all fail at once proves nothing, however fast. */
    double per_s = t->elapsed_s > 0 ? (double)t->verified / t->elapsed_s : 0.0;
    uint64_t rss = peak_rss_bytes();
    if (o->zkey_path != NULL)
        printf("%lu witnesses of %s in %.3f s: %.2f proofs/s\n", t->partitions, o->zkey_path,
               t->elapsed_s, per_s);
    else
        printf("%lu partitions (%lu jobs x %lu) of 2^%lu rows in %.3f s: %.2f proofs/s\n",
               t->partitions, o->jobs, o->partitions, o->log_constraints, t->elapsed_s, per_s);
    printf("proofs verified: %lu of %lu, errors: %lu\n", t->verified, t->partitions, t->errors);
    printf("release=%s bound=permits+capacity=%llu peak_in_flight=%llu%s\n", release,
           (unsigned long long)n->bound, (unsigned long long)n->peak_in_flight,
           n->peak_in_flight > n->bound ? " (EXCEEDS the bound)" : "");
    printf("resident bound=permits+capacity+prover_workers=%llu (partitions holding buffers at "
           "once, those being proved included)\n",
           (unsigned long long)n->resident_bound);
    printf("peak items per stage:");
    for (uint32_t s = 0; s < peaks->stage_count; s++)
        printf(" %s=%llu", peaks->stage_names[s], (unsigned long long)peaks->stage[s].peak_items);
    printf("\npeak accounted bytes: %llu (budget: %llu, 0 = none)\n",
           (unsigned long long)peaks->peak_bytes, (unsigned long long)n->budget_bytes);
    printf("permits: %s, %llu at the end; unaccounted peak (estimate): %llu bytes\n",
           o->engine.auto_permits ? "auto" : "fixed", (unsigned long long)n->permits_admitted,
           (unsigned long long)n->unaccounted_peak_bytes);
    printf("peak RSS: %llu bytes; live at exit: %llu items, %llu bytes\n", (unsigned long long)rss,
           (unsigned long long)end->live_items, (unsigned long long)end->live_bytes);
    if (o->zkey_path != NULL)
        printf("keys: %llu zkeys, %llu resident at the end (%llu bytes in the page cache, %llu "
               "of the budget), %llu loads, %llu released for admission (idle after %lu ms)\n",
               (unsigned long long)kc->keys, (unsigned long long)kc->resident_keys,
               (unsigned long long)kc->resident_bytes, (unsigned long long)kc->charged_bytes,
               (unsigned long long)kc->loads, (unsigned long long)kc->releases, o->key_idle_ms);
    if (!o->json)
        return;
    int zkey = o->zkey_path != NULL;
    /* cpu: the paths the arithmetic took */
    printf("{\"cpu\":%s,\"partitions\":%lu,\"proofs_verified\":%lu,\"errors\":%lu,",
           zkpipe_cpu_json(), t->partitions, t->verified, t->errors);
    if (!zkey) /* what only the built-in circuit's runs have */
        printf("\"jobs\":%lu,\"log_constraints\":%lu,\"curves\":%zu,", o->jobs, o->log_constraints,
               o->ncurves);
    printf("\"release\":\"%s\",\"backend\":\"%s\",\"bound\":%llu,\"resident_bound\":%llu,"
           "\"peak_in_flight\":%llu,\"peak_accounted_bytes\":%llu,\"budget_bytes\":%llu,"
           "\"peak_rss_bytes\":%llu,\"live_items_at_exit\":%llu,\"live_bytes_at_exit\":%llu,"
           "\"learned_partition_bytes\":%llu,\"over_reservation_bytes\":%llu,"
           "\"over_reservation_events\":%llu,\"budget_returned_early_bytes\":%llu,"
           "\"concurrency\":\"%s\",\"permits_final\":%llu,\"unaccounted_peak_bytes\":%llu,",
           release, backend, (unsigned long long)n->bound, (unsigned long long)n->resident_bound,
           (unsigned long long)n->peak_in_flight, (unsigned long long)peaks->peak_bytes,
           (unsigned long long)n->budget_bytes, (unsigned long long)rss,
           (unsigned long long)end->live_items, (unsigned long long)end->live_bytes,
           (unsigned long long)learned, (unsigned long long)n->over_reservation_bytes,
           (unsigned long long)n->over_reservation_events,
           (unsigned long long)n->budget_returned_early, o->engine.auto_permits ? "auto" : "fixed",
           (unsigned long long)n->permits_admitted, (unsigned long long)n->unaccounted_peak_bytes);
    if (zkey) /* the zkeys, under the engine's key cache */
        printf("\"zkeys\":%llu,\"key_idle_ms\":%lu,\"keys_resident\":%llu,"
               "\"key_resident_bytes\":%llu,\"key_budget_bytes\":%llu,\"key_loads\":%llu,"
               "\"key_releases\":%llu,",
               (unsigned long long)kc->keys, o->key_idle_ms, (unsigned long long)kc->resident_keys,
               (unsigned long long)kc->resident_bytes, (unsigned long long)kc->charged_bytes,
               (unsigned long long)kc->loads, (unsigned long long)kc->releases);
    printf("\"elapsed_s\":%.6f,\"throughput_per_s\":%.3f", t->elapsed_s, per_s);
    if (zkey && b->results != NULL)
        print_witnesses(o, b);
    printf("}\n");
}

int main(int argc, char **argv)
{
    cli_memory_return_freed();
    options o;
    switch (parse_args(argc, argv, &o)) {
    case 1:
        usage(stdout);
        return 0;
    case 2:
        usage(stderr);
        return 2;
    }
    /* The input files, the witnesses then the zkeys (none without --zkey). The list lives as
     * long as the process. */
    size_t ninputs = o.nwtns + o.nzkeys;
    const char **inputs = malloc((ninputs + 1) * sizeof *inputs);
    if (inputs == NULL) {
        fprintf(stderr, "zkpipe-pipeline: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < o.nwtns; i++)
        inputs[i] = o.wtns[i];
    for (size_t i = 0; i < o.nzkeys; i++)
        inputs[o.nwtns + i] = o.zkeys[i];
    /* --zkey's --out: made when missing, but only once every output has been checked (in it
     * as in a new, empty folder): a refused run leaves no folder behind. */
    char dir_why[4352];
    int out_missing = 0;
    if (o.zkey_path != NULL && o.out_dir != NULL &&
        cli_out_dir_check(o.out_dir, &out_missing, dir_why, sizeof dir_why) != 0) {
        fprintf(stderr, "zkpipe-pipeline: --out %s\n", dir_why);
        free(inputs);
        return 1;
    }
    cli_outputs_expect_dir(out_missing ? o.out_dir : NULL);
    int refused = check_outputs(&o, inputs, ninputs) != 0;
    cli_outputs_expect_dir(NULL);
    if (!refused && out_missing && cli_out_dir_make(o.out_dir, dir_why, sizeof dir_why) != 0) {
        fprintf(stderr, "zkpipe-pipeline: --out %s\n", dir_why);
        refused = 1;
    }
    if (refused) {
        free(inputs);
        return 1;
    }
    if (o.zkey_path == NULL) { /* no files: nothing mapped to watch */
        free(inputs);
        inputs = NULL;
    }
    o.queue.metrics_path = o.metrics_path;
    if (o.queue.url != NULL)
        return queue_node_run(&o.queue, &o.cfg, &o.obs, o.full_check, (uint32_t)o.key_idle_ms,
                              o.json);
    /* --zkey maps the zkey and each witness: one truncated meanwhile is an I/O error naming
     * it, not a death by SIGBUS (cli_mapped.h). */
    if (o.zkey_path != NULL && cli_mapped_guard("zkpipe-pipeline", inputs, ninputs) != 0) {
        fprintf(stderr, "zkpipe-pipeline: cannot watch the mapped inputs: %s\n", strerror(errno));
        return 1;
    }
    /* A file size limit (ulimit -f) makes writes fail with EFBIG, reported, instead of
     * killing the process with SIGXFSZ before its outputs are complete. */
    signal(SIGXFSZ, SIG_IGN);
    keys k[MAX_CURVES];
    batch b;
    memset(k, 0, sizeof k);
    memset(&b, 0, sizeof b);
    unsigned log_rows = (unsigned)o.log_constraints;
    static const char prog[] = "zkpipe-pipeline";
    zkpipe_engine *e = NULL;
    cli_engine w;
    cli_observe obs;
    int observing = 0, observe_failed = 0;
    uint64_t total = o.zkey_path != NULL ? (uint64_t)o.nwtns : (uint64_t)o.jobs * o.partitions;
    zkpipe_status st = cli_engine_init(&w, total) == 0 ? ZKPIPE_OK : ZKPIPE_ENOMEM;
    double t0 = now_s();
    if (st == ZKPIPE_OK && o.zkey_path != NULL)
        st = batch_cache(&b, &o);
    o.cfg.keys = b.cache;
    for (size_t c = 0; o.zkey_path == NULL && c < o.ncurves && st == ZKPIPE_OK; c++)
        st = make_keys(&k[c], o.curves[c], log_rows);
    double setup_s = now_s() - t0;
    if (st == ZKPIPE_OK) {
        observing = cli_observe_start(&obs, &o.obs, prog, zkpipe_acct_default(),
                                      cli_engine_progress, &w) == 0;
        st = observing ? ZKPIPE_OK : ZKPIPE_EINVAL;
        observe_failed = !observing;
    }
    o.cfg.report_file = stderr; /* stdout is the summary's, and --json's last line */
    if (observing) {            /* counter lines through the progress line's printer */
        obs.report_to = stderr;
        o.cfg.report_fn = cli_observe_report;
        o.cfg.report_ctx = &obs;
    }
    o.cfg.trace = observing ? obs.trace : NULL;
    /* Every partition here is a built-in one: resolve the backend once, up front, so that a
     * request that cannot be met fails the setup rather than each proof. */
    const char *why = NULL;
    if (st == ZKPIPE_OK)
        st = zkpipe_backend_resolve(&o.cfg.backend, o.cfg.backend, &why);
    if (st == ZKPIPE_OK)
        st = zkpipe_engine_create(&e, &o.cfg);
    /* The zkeys after the engine, which charges each to its budget as it is opened. */
    if (st == ZKPIPE_OK && o.zkey_path != NULL && (st = batch_open(&b, &o)) != ZKPIPE_OK)
        observe_failed = 1; /* (batch_open has said why) */
    setup_s = now_s() - t0;
    cli_engine_set(&w, e);
    if (st == ZKPIPE_OK &&
        cli_observe_attach(&obs, prog, "engine", zkpipe_engine_http_provider, e) != 0)
        st = ZKPIPE_ENOMEM;
    if (st != ZKPIPE_OK) {
        if (!observe_failed) /* (cli_observe_start has said why) */
            fprintf(stderr, "zkpipe-pipeline: setup: %s\n", zkpipe_status_str(st));
        if (observing)
            cli_observe_stop_serving(&obs);
        cli_engine_set(&w, NULL);
        zkpipe_engine_destroy(e);
        if (observing)
            cli_observe_finish(&obs, prog, NULL, 0, NULL, 0);
        cli_engine_free(&w);
        batch_free(&b, 0);
        for (size_t c = 0; c < o.ncurves; c++)
            free_keys(&k[c]);
        return 1;
    }
    const char *backend = zkpipe_backend_name(o.cfg.backend);
    if (o.zkey_path != NULL && o.nzkeys == 1)
        printf("zkey: %s, opened once for %zu witnesses, %.3f s\n", o.zkey_path, o.nwtns, setup_s);
    else if (o.zkey_path != NULL)
        printf("zkeys: %zu, each opened once (again when released), for %zu witnesses, %.3f s\n",
               o.nzkeys, o.nwtns, setup_s);
    else
        printf("keys: seeded INSECURE setup, once per curve, 2^%u rows, %.3f s\n", log_rows,
               setup_s);
    printf("backend: %s (%s)\n", backend, why);
    fflush(stdout);

    tally t = {0, 0, 0, 0.0};
    st = o.zkey_path != NULL ? run_zkey(&o, e, &b, &t) : run_circuits(&o, e, k, &t);
    zkpipe_engine_counters n;
    zkpipe_engine_stats(e, &n);
    uint64_t learned = cli_engine_learned_bytes(e);
    zkpipe_key_cache_counters kc;
    if (b.cache == NULL || zkpipe_key_cache_stats(b.cache, &kc) != ZKPIPE_OK)
        memset(&kc, 0, sizeof kc);
    zkpipe_snapshot peaks, end;
    zkpipe_acct_snapshot(zkpipe_acct_default(), &peaks);
    /* --metrics: what /metrics serves at the end, the engine's series included */
    cli_output metrics = {o.metrics_path, NULL, 0};
    char *metrics_text = NULL;
    zkpipe_status closed =
        o.metrics_path != NULL ? cli_observe_metrics(&obs, &metrics_text, &metrics.len) : ZKPIPE_OK;
    if (closed != ZKPIPE_OK)
        fprintf(stderr, "zkpipe-pipeline: --metrics %s: %s\n", o.metrics_path,
                zkpipe_status_str(closed));
    metrics.text = metrics_text;
    cli_observe_stop_serving(&obs); /* the engine provider goes with the engine */
    cli_engine_set(&w, NULL);
    zkpipe_engine_destroy(e);
    batch_close_keys(&b); /* their ledgers closed too: nothing live at exit */
    zkpipe_acct_snapshot(zkpipe_acct_default(), &end);
    if (st != ZKPIPE_OK)
        fprintf(stderr, "zkpipe-pipeline: submit: %s\n", zkpipe_status_str(st));
    char title[160];
    if (o.zkey_path != NULL)
        snprintf(title, sizeof title, "zkpipe-pipeline --release %s: %zu witnesses of %s",
                 o.cfg.release == ZKPIPE_RELEASE_EARLY ? "early" : "delivery", o.nwtns,
                 o.zkey_path);
    else
        snprintf(title, sizeof title, "zkpipe-pipeline --release %s: %lu x %lu partitions of 2^%lu",
                 o.cfg.release == ZKPIPE_RELEASE_EARLY ? "early" : "delivery", o.jobs, o.partitions,
                 o.log_constraints);
    /* --metrics with --plot as one set: both written, or neither and both as they were */
    if (cli_observe_finish(&obs, prog, closed == ZKPIPE_OK ? title : NULL, n.bound, &metrics,
                           o.metrics_path != NULL) != 0 &&
        closed == ZKPIPE_OK)
        closed = ZKPIPE_EIO;
    free(metrics_text);
    cli_engine_free(&w);
    print_summary(&o, &n, learned, &kc, &peaks, &end, &t, backend, &b);
    batch_free(&b, o.nwtns);
    for (size_t c = 0; c < o.ncurves; c++)
        free_keys(&k[c]);
    int ok = st == ZKPIPE_OK && closed == ZKPIPE_OK && t.errors == 0 && t.verified == total &&
             end.live_bytes == 0;
    return ok ? 0 : 1;
}
