/* zkpipe-prove: a Groth16 proof from a snarkjs .zkey and a .wtns, written as snarkjs's
 * proof.json and public.json, with the argument order of rapidsnark's `prover`:
 *
 *   zkpipe-prove [--threads N] [--backend auto|cpu|cuda] [--metrics FILE] [--r1cs FILE]
 *                [--full-check] [--durable] [--progress] <circuit.zkey> <witness.wtns>
 *                <proof.json> <public.json>
 *
 * Exits 0 when every output is written; otherwise prints one line on stderr naming the file and
 * the problem, exits 1 (2 for a usage error) and leaves every output path as it was. The output
 * paths are checked before any work: an output that is the same file as an input (the zkey,
 * the witness, --r1cs; through a symbolic or a hard link too) or as another output is refused.
 * An input that is not a regular file (a FIFO, a device) is refused at once, never waited on.
 * The outputs are written as one set (cli_files.h: metrics, then public.json, then proof.json,
 * each renamed into place, or written through to a device, a FIFO or standard output, `-`):
 * atomic for readers and for a run that dies, always. Syncing them to the disk (fsync of each
 * file and of its folder, CLI_OUTPUTS_DURABLE) so that they also survive a crash of the
 * system is asked for with --durable: it costs milliseconds per file on a busy disk, more than
 * a small circuit's proof, and a caller that keeps proofs (a queue, a database) syncs where
 * it stores them. A mapped input truncated while in use is reported as an I/O error naming it
 * (cli_mapped.h). A proof that does not verify against the zkey's verification key is never
 * written (the witness does not satisfy the circuit); --r1cs also checks every constraint first
 * and names the first that fails.
 * Every zkey point is checked to be on the curve; subgroup checks of the query points are left
 * to --full-check, since the proof's own points are checked for subgroup membership before the
 * proof is verified. They are batched (zkpipe_zkey_open), yet still cost more than a tenth of a
 * proof: at 2^16 constraints on 2 threads they add about a fifth (BN254) and three fifths
 * (BLS12-381) to the whole run (tests/bench/bench_zkey_open, README), so they stay opt-in.
 *
 * On a terminal (or with --progress) a line on stderr shows the phase and the time spent; the
 * proving phase's steps (a, b, c and h; the MSMs; the check of the proof) are read from the
 * ledger the prover charges. Scripts, whose stderr is no terminal, see no change. */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_args.h"
#include "cli_files.h"
#include "cli_mapped.h"
#include "cli_memory.h"
#include "cli_progress.h"
#include "cli_zkey.h"
#include "zkpipe/io.h"
#include "zkpipe/zkpipe.h"

static const char *prog = "zkpipe-prove";

typedef struct options {
    unsigned threads;
    int full_check;
    int durable;
    int progress;
    zkpipe_backend backend;
    const char *metrics, *r1cs, *zkey, *wtns, *proof, *pub;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s [--threads N] [--backend B] [--metrics FILE] [--r1cs FILE] [--full-check] "
            "[--durable] [--progress] <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
            "  --threads N     threads for the NTTs and MSMs (0, the default: every CPU)\n"
            "  --backend B     auto (the default: cuda when a GPU is usable), cpu or cuda\n"
            "  --metrics FILE  write the accounting snapshot and phase timings as JSON\n"
            "  --r1cs FILE     check every constraint against the witness first\n"
            "  --full-check    also check every zkey point's subgroup at open (batched: a\n"
            "                  fifth to three fifths of a proof's time more)\n"
            "  --durable       sync the outputs to the disk before exiting (they survive a\n"
            "                  power loss; without it they are still replaced atomically)\n"
            "  --progress      a progress line on stderr even when it is not a terminal\n",
            prog);
}

/* 0: parsed; 1: exit 0 (help, version); 2: usage error (already reported). */
static int parse(options *o, int argc, char **argv)
{
    static const char *const switches[] = {"--full-check", "--durable", "--progress", NULL};
    const char *pos[4], *flag, *val;
    cli_args a;
    cli_args_init(&a, prog, argc, argv, switches, usage, pos, 4);
    memset(o, 0, sizeof *o);
    int r;
    unsigned long long v;
    while ((r = cli_args_next(&a, &flag, &val)) == CLI_ARGS_FLAG) {
        if (strcmp(flag, "--full-check") == 0) {
            o->full_check = 1;
        } else if (strcmp(flag, "--durable") == 0) {
            o->durable = 1;
        } else if (strcmp(flag, "--progress") == 0) {
            o->progress = 1;
        } else if (strcmp(flag, "--threads") == 0) {
            if (!cli_args_count(&a, flag, val, 0, ZKPIPE_POOL_MAX_THREADS, &v))
                return 2;
            o->threads = (unsigned)v;
        } else if (strcmp(flag, "--backend") == 0) {
            if (zkpipe_backend_parse(&o->backend, val) != ZKPIPE_OK) {
                fprintf(stderr, "%s: --backend %s: not auto, cpu or cuda\n", prog, val);
                return 2;
            }
        } else if (strcmp(flag, "--metrics") == 0) {
            o->metrics = val;
        } else if (strcmp(flag, "--r1cs") == 0) {
            o->r1cs = val;
        } else {
            cli_args_unknown(&a, flag);
            return 2;
        }
    }
    if (r != CLI_ARGS_END)
        return r == CLI_ARGS_EXIT ? 1 : 2;
    if (!cli_args_positionals(&a, 4))
        return 2;
    o->zkey = pos[0];
    o->wtns = pos[1];
    o->proof = pos[2];
    o->pub = pos[3];
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* What the progress line shows: the phase main is in, and within proving the step the
 * prover's ledger is at. */
enum { PHASE_ZKEY, PHASE_WTNS, PHASE_R1CS, PHASE_PROVE, PHASE_WRITE, PHASES };

typedef struct progress {
    _Atomic int phase;
    int full_check;
    double t0, phase_t0[PHASES];
    zkpipe_acct *acct;
    zkpipe_snapshot snap;
} progress;

static double now(void);

static void enter(progress *p, int phase)
{
    p->phase_t0[phase] = now();
    atomic_store(&p->phase, phase);
}

/* The prover's step, from what its ledger holds (zkpipe_groth16_prove_witness documents the order):
 * 0..3, its name in *name. */
static int prove_step(progress *p, const char **name)
{
    static const char *const steps[] = {"starting", "a, b, c and the quotient h",
                                        "multi-scalar multiplications",
                                        "assembling and checking the proof"};
    zkpipe_acct_snapshot(p->acct, &p->snap);
    const zkpipe_snapshot_stage *proving = &p->snap.stage[ZKPIPE_STAGE_PROVING];
    int step = p->snap.stage[ZKPIPE_STAGE_FINALIZE].live_items > 0 ? 3
               : proving->kind[ZKPIPE_KIND_H].live_buffers > 0     ? 2
               : proving->kind[ZKPIPE_KIND_ABC].live_buffers > 0   ? 1
                                                                   : 0;
    *name = steps[step];
    return step;
}

/* A cli_progress_fn: "zkpipe-prove: 4/5 proving (multi-scalar multiplications), 1.2 s (3.4 s
 * in all)"; the phase it returns tells the steps of proving apart too. */
static int progress_line(char *buf, size_t cap, void *ctx)
{
    progress *p = ctx;
    static const char *const names[PHASES] = {"opening the zkey", "opening the witness",
                                              "checking the constraints", "proving",
                                              "writing the proof"};
    int phase = atomic_load(&p->phase);
    double t = now();
    const char *detail = NULL;
    int step = 0;
    if (phase == PHASE_PROVE)
        step = prove_step(p, &detail);
    else if (phase == PHASE_ZKEY)
        detail = p->full_check ? "every point, subgroups too" : "every point on its curve";
    snprintf(buf, cap, "%s: %d/%d %s%s%s%s, %.1f s (%.1f s in all)", prog, phase + 1, PHASES,
             names[phase], detail != NULL ? " (" : "", detail != NULL ? detail : "",
             detail != NULL ? ")" : "", t - p->phase_t0[phase], t - p->t0);
    return phase * 4 + step;
}

static int fail(const char *file, zkpipe_status st, const char *detail)
{
    fprintf(stderr, "%s: %s: %s (%s)\n", prog, file, detail, zkpipe_status_name(st));
    return 1;
}

static int output_failed(const cli_output *set, const cli_error *e)
{
    char why[CLI_ERROR_TEXT_MAX];
    fprintf(stderr, "%s: %s\n", prog, cli_error_text(why, sizeof why, set, e));
    return 1;
}

/* Everything the run holds, released in one place. */
typedef struct run {
    zkpipe_acct *acct;
    zkpipe_pool *pool;
    zkpipe_zkey *zkey;
    zkpipe_wtns *wtns;
    zkpipe_r1cs *r1cs;
    zkpipe_cs *cs;
    zkpipe_groth16_pvk *pvk;
    zkpipe_ledger ledger;
    zkpipe_backend backend; /* resolved: cpu or cuda */
    char *proof_json, *public_json, *metrics_json;
} run;

static void run_free(run *r)
{
    zkpipe_ledger_close(&r->ledger);
    zkpipe_groth16_pvk_destroy(r->pvk);
    zkpipe_cs_destroy(r->cs);
    zkpipe_r1cs_destroy(r->r1cs);
    zkpipe_wtns_destroy(r->wtns);
    zkpipe_zkey_destroy(r->zkey);
    zkpipe_pool_destroy(r->pool);
    zkpipe_acct_destroy(r->acct);
    free(r->proof_json);
    free(r->public_json);
    free(r->metrics_json);
}

/* The r1cs's sizes against the zkey's, then every constraint against the witness. */
static int check_r1cs(run *r, const options *o, char *detail)
{
    zkpipe_r1cs_info ri;
    zkpipe_zkey_info zi;
    zkpipe_r1cs_info_get(&ri, r->r1cs);
    zkpipe_zkey_info_get(&zi, r->zkey);
    if (ri.curve != zi.curve || ri.num_wires != zi.num_vars ||
        ri.num_outputs + ri.num_pub_inputs != zi.num_public) {
        snprintf(detail, ZKPIPE_IO_DETAIL_MAX,
                 "does not match the zkey (%s, %u wires, %u public; the zkey: %s, %u, %u)",
                 zkpipe_curve_name(ri.curve), (unsigned)ri.num_wires,
                 (unsigned)(ri.num_outputs + ri.num_pub_inputs), zkpipe_curve_name(zi.curve),
                 (unsigned)zi.num_vars, (unsigned)zi.num_public);
        return fail(o->r1cs, ZKPIPE_EMISMATCH, detail);
    }
    zkpipe_status st =
        zkpipe_r1cs_load(&r->cs, detail, ZKPIPE_IO_DETAIL_MAX, r->r1cs, r->wtns, NULL);
    if (st != ZKPIPE_OK)
        return fail(st == ZKPIPE_EMISMATCH ? o->wtns : o->r1cs, st, detail);
    size_t bad;
    if ((st = zkpipe_cs_check(r->cs, &bad)) != ZKPIPE_OK) {
        snprintf(detail, ZKPIPE_IO_DETAIL_MAX, "constraint %zu is not satisfied by the witness",
                 bad);
        return fail(o->wtns, st, detail);
    }
    return 0;
}

static zkpipe_status write_metrics(run *r, const zkpipe_groth16_timings *t, double open_s,
                                   double check_s)
{
    zkpipe_snapshot snap;
    size_t snap_len = 0;
    zkpipe_status st = zkpipe_acct_snapshot(r->acct, &snap);
    if (st == ZKPIPE_OK)
        st = zkpipe_snapshot_json(NULL, 0, &snap_len, &snap);
    if (st != ZKPIPE_OK)
        return st;
    size_t cap = snap_len + 1024;
    char *buf = r->metrics_json = malloc(cap);
    if (buf == NULL)
        return ZKPIPE_ENOMEM;
    int n = snprintf(buf, cap,
                     "{\"timings\":{\"open\":%.6f,\"r1cs_check\":%.6f,\"abc\":%.6f,\"h\":%.6f,"
                     "\"msm_a\":%.6f,\"msm_b1\":%.6f,\"msm_c\":%.6f,\"msm_b2\":%.6f,"
                     "\"verify\":%.6f,\"prove_total\":%.6f},\"threads\":%u,\"backend\":\"%s\","
                     "\"cpu\":%s,\"accounting\":",
                     open_s, check_s, t->synth, t->h, t->msm_a, t->msm_b1, t->msm_c, t->msm_b2,
                     t->verify, t->total, zkpipe_pool_threads(r->pool),
                     zkpipe_backend_name(r->backend), zkpipe_cpu_json());
    size_t len;
    st = zkpipe_snapshot_json(buf + n, cap - (size_t)n, &len, &snap);
    if (st == ZKPIPE_OK) {
        /* the snapshot ends in a newline: close the object after it */
        snprintf(buf + n + len - 1, cap - (size_t)n - len + 1, "}\n");
    }
    return st;
}

int main(int argc, char **argv)
{
    /* a, b, c, h and the MSM scratch go back as each dies: the peak is one phase's, not the
     * sum of every phase's (glibc would keep them in its heaps, about a third of the peak) */
    cli_memory_return_freed();
    options o;
    int rc = parse(&o, argc, argv);
    if (rc != 0)
        return rc == 1 ? 0 : 2;
    run r;
    memset(&r, 0, sizeof r);
    char detail[ZKPIPE_IO_DETAIL_MAX];
    /* Metrics first and proof.json last: a proof.json that is new means the rest is too. */
    cli_output outs[3] = {{o.metrics, NULL, 0}, {o.pub, NULL, 0}, {o.proof, NULL, 0}};
    cli_output *set = o.metrics != NULL ? outs : outs + 1;
    size_t nset = o.metrics != NULL ? 3 : 2;
    cli_error oe;
    if (cli_outputs_check(set, nset, &oe) != 0)
        return output_failed(set, &oe);
    const char *inputs[3] = {o.zkey, o.wtns, o.r1cs};
    char clash[2 * CLI_ERROR_TEXT_MAX];
    if (cli_outputs_check_inputs(set, nset, inputs, 3, clash, sizeof clash) != 0) {
        fprintf(stderr, "%s: %s\n", prog, clash);
        return 1;
    }
    /* A file size limit (ulimit -f) makes writes fail with EFBIG, reported, instead of
     * killing the process with SIGXFSZ. */
    signal(SIGXFSZ, SIG_IGN);
    if (cli_mapped_guard(prog, inputs, 3) != 0) {
        fprintf(stderr, "%s: cannot watch the mapped inputs: %s\n", prog, strerror(errno));
        return 1;
    }
    const char *why = NULL;
    zkpipe_status st = zkpipe_backend_resolve(&r.backend, o.backend, &why);
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "%s: --backend %s: %s (%s)\n", prog, zkpipe_backend_name(o.backend),
                why != NULL ? why : zkpipe_status_str(st), zkpipe_status_name(st));
        return 1;
    }
    st = zkpipe_acct_create(NULL, &r.acct);
    if (st == ZKPIPE_OK)
        st = zkpipe_pool_create(&r.pool, o.threads, NULL);
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "%s: cannot start: %s\n", prog, zkpipe_status_str(st));
        run_free(&r);
        return 1;
    }
    zkpipe_io_options io;
    zkpipe_io_options_init(&io);
    io.pool = r.pool;
    io.acct = r.acct;
    io.flags = o.full_check ? 0 : ZKPIPE_IO_DEFER_SUBGROUP;
    zkpipe_groth16_timings t = {0};
    double t0 = now(), open_s, check_s = 0;
    progress pg = {PHASE_ZKEY, o.full_check, t0, {t0}, r.acct, {0}};
    cli_progress ticker;
    if (cli_progress_start(&ticker, progress_line, NULL, &pg, o.progress) != 0)
        ticker.started = 0; /* no progress line, nothing else lost */
    rc = 1;
    if ((st = zkpipe_zkey_open(&r.zkey, detail, sizeof detail, o.zkey, &io)) != ZKPIPE_OK) {
        fail(o.zkey, st, detail);
        goto out;
    }
    enter(&pg, PHASE_WTNS);
    if ((st = zkpipe_wtns_open(&r.wtns, detail, sizeof detail, o.wtns, &io)) != ZKPIPE_OK) {
        fail(o.wtns, st, detail);
        goto out;
    }
    if (o.r1cs != NULL &&
        (st = zkpipe_r1cs_open(&r.r1cs, detail, sizeof detail, o.r1cs, &io)) != ZKPIPE_OK) {
        fail(o.r1cs, st, detail);
        goto out;
    }
    open_s = now() - t0;
    if (r.r1cs != NULL) {
        enter(&pg, PHASE_R1CS);
        if (check_r1cs(&r, &o, detail) != 0)
            goto out;
        check_s = now() - t0 - open_s;
    }
    zkpipe_groth16_proof proof;
    zkpipe_zkey_info zinfo;
    zkpipe_zkey_info_get(&zinfo, r.zkey);
    if (zkpipe_wtns_curve(r.wtns) != zinfo.curve) {
        snprintf(detail, sizeof detail, "the witness is for %s, the zkey for %s",
                 zkpipe_curve_name(zkpipe_wtns_curve(r.wtns)), zkpipe_curve_name(zinfo.curve));
        fail(o.wtns, ZKPIPE_EMISMATCH, detail);
        goto out;
    }
    zkpipe_groth16_vk *vk;
    if ((st = zkpipe_zkey_vk(&vk, r.zkey, NULL)) == ZKPIPE_OK) {
        st = zkpipe_groth16_pvk_create(&r.pvk, vk, NULL);
        zkpipe_groth16_vk_destroy(vk);
    }
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "%s: cannot prepare the verifying key: %s\n", prog, zkpipe_status_str(st));
        goto out;
    }
    enter(&pg, PHASE_PROVE);
    if ((st = zkpipe_ledger_open(&r.ledger, r.acct, ZKPIPE_STAGE_SYNTH)) == ZKPIPE_OK)
        st = zkpipe_groth16_prove_witness(&proof, &t, detail, sizeof detail, zkpipe_zkey_pk(r.zkey),
                                          zkpipe_wtns_values(r.wtns), zkpipe_wtns_count(r.wtns),
                                          r.pvk, r.pool, r.backend, &r.ledger);
    if (st == ZKPIPE_EUNSATISFIED && r.r1cs != NULL) {
        /* Every constraint held (check_r1cs): a proof that fails the zkey's own verifying key
         * comes from its proving key, not from the witness. */
        st = ZKPIPE_EVERIFY;
        snprintf(detail, sizeof detail,
                 "every constraint of %s holds, yet the proof fails the zkey's verifying key: "
                 "its proving key does not match it (a wrong point)",
                 o.r1cs);
    }
    if (st != ZKPIPE_OK) {
        const char *blame = st == ZKPIPE_EMISMATCH || st == ZKPIPE_EUNSATISFIED ? o.wtns
                            : st == ZKPIPE_EDEVICE                              ? "cuda"
                                                                                : o.zkey;
        fail(blame, st, detail);
        goto out;
    }
    zkpipe_ledger_close(&r.ledger);
    enter(&pg, PHASE_WRITE);

    zkpipe_zkey_info zi;
    zkpipe_zkey_info_get(&zi, r.zkey);
    zkpipe_scalar *pub = calloc(zi.num_public + 1u, sizeof *pub);
    for (size_t i = 0; pub != NULL && i < zi.num_public; i++)
        zkpipe_wtns_get(&pub[i], r.wtns, i + 1);
    st = pub == NULL ? ZKPIPE_ENOMEM
                     : cli_proof_render(&r.proof_json, &outs[2].len, &r.public_json, &outs[1].len,
                                        &proof, pub, zi.num_public);
    free(pub);
    if (st == ZKPIPE_OK && o.metrics != NULL)
        st = write_metrics(&r, &t, open_s, check_s);
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "%s: cannot render the output: %s\n", prog, zkpipe_status_str(st));
        goto out;
    }
    outs[0].text = r.metrics_json;
    outs[0].len = r.metrics_json != NULL ? strlen(r.metrics_json) : 0;
    outs[1].text = r.public_json;
    outs[2].text = r.proof_json;
    if (cli_outputs_write(set, nset, o.durable ? CLI_OUTPUTS_DURABLE : 0, &oe) != 0) {
        output_failed(set, &oe);
        goto out;
    }
    rc = 0;
out:
    cli_progress_stop(&ticker);
    run_free(&r);
    return rc;
}
