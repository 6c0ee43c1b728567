/* zkpipe-export-circuit: the built-in test circuit (zkpipe/testcircuit.h) as a circom .r1cs
 * and a .wtns, so that fixtures of any size exist without circom or a witness calculator:
 *
 *   zkpipe-export-circuit [--curve bn254|bls12-381] [--log-constraints K] [--public N]
 *                         [--seed S] [--progress] <circuit.r1cs> <witness.wtns>
 *
 * 2^K = constraints + public inputs + 1 (the domain of a zkey made from it, by zkpipe-setup or
 * snarkjs); K 4 to 28, default 16; N public inputs, default 1; the circuit and its witness are
 * fixed by (curve, K, N, S). Each file is written beside its name and renamed into place
 * (zkpipe_r1cs_write, zkpipe_wtns_write); both paths are checked before any work. Exits 0 when
 * both are written, 1 on a failure (one line on stderr), 2 on a usage error. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_args.h"
#include "cli_files.h"
#include "cli_progress.h"
#include "zkpipe/io.h"
#include "zkpipe/testcircuit.h"
#include "zkpipe/zkpipe.h"

static const char *prog = "zkpipe-export-circuit";

typedef struct options {
    zkpipe_curve curve;
    unsigned log_constraints;
    unsigned long long num_public, seed;
    int progress;
    const char *r1cs, *wtns;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s [--curve bn254|bls12-381] [--log-constraints K] [--public N] [--seed S] "
            "[--progress] <circuit.r1cs> <witness.wtns>\n"
            "  --log-constraints K  2^K = constraints + public inputs + 1; 4..28, default 16\n"
            "  --public N           public inputs, default 1\n"
            "  --seed S             the circuit's round constants and witness, default 1\n",
            prog);
}

/* 0: parsed; 1: exit 0 (help, version); 2: usage error (already reported). */
static int parse(options *o, int argc, char **argv)
{
    static const char *const switches[] = {"--progress", NULL};
    const char *pos[2], *flag, *val;
    cli_args a;
    cli_args_init(&a, prog, argc, argv, switches, usage, pos, 2);
    unsigned long long k = 16;
    memset(o, 0, sizeof *o);
    o->curve = ZKPIPE_CURVE_BN254;
    o->num_public = 1;
    o->seed = 1;
    int r;
    while ((r = cli_args_next(&a, &flag, &val)) == CLI_ARGS_FLAG) {
        int ok = 1;
        if (strcmp(flag, "--progress") == 0) {
            o->progress = 1;
        } else if (strcmp(flag, "--curve") == 0) {
            if (zkpipe_curve_parse(&o->curve, val) != ZKPIPE_OK) {
                fprintf(stderr, "%s: --curve %s: not bn254 or bls12-381\n", prog, val);
                ok = 0;
            }
        } else if (strcmp(flag, "--log-constraints") == 0) {
            ok = cli_args_count(&a, flag, val, 4, 28, &k);
        } else if (strcmp(flag, "--public") == 0) {
            ok = cli_args_count(&a, flag, val, 0, UINT32_MAX, &o->num_public);
        } else if (strcmp(flag, "--seed") == 0) {
            ok = cli_args_count(&a, flag, val, 0, UINT64_MAX, &o->seed);
        } else {
            cli_args_unknown(&a, flag);
            ok = 0;
        }
        if (!ok)
            return 2;
    }
    if (r != CLI_ARGS_END)
        return r == CLI_ARGS_EXIT ? 1 : 2;
    if (!cli_args_positionals(&a, 2))
        return 2;
    if (o->num_public > (1ull << (k - 2))) {
        fprintf(stderr, "%s: --public %llu: at most 2^(K - 2) = %llu\n", prog, o->num_public,
                1ull << (k - 2));
        return 2;
    }
    o->log_constraints = (unsigned)k;
    o->r1cs = pos[0];
    o->wtns = pos[1];
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { PHASE_BUILD, PHASE_R1CS, PHASE_WTNS, PHASES };

typedef struct progress {
    _Atomic int phase;
    double t0, phase_t0[PHASES];
} progress;

static void enter(progress *p, int phase)
{
    p->phase_t0[phase] = now();
    atomic_store(&p->phase, phase);
}

static int progress_line(char *buf, size_t cap, void *ctx)
{
    progress *p = ctx;
    static const char *const names[PHASES] = {"building the circuit and its witness",
                                              "writing the r1cs", "writing the witness"};
    int phase = atomic_load(&p->phase);
    double t = now();
    snprintf(buf, cap, "%s: %d/%d %s, %.1f s (%.1f s in all)", prog, phase + 1, PHASES,
             names[phase], t - p->phase_t0[phase], t - p->t0);
    return phase;
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse(&o, argc, argv);
    if (rc != 0)
        return rc == 1 ? 0 : 2;
    cli_output outs[2] = {{o.r1cs, NULL, 0}, {o.wtns, NULL, 0}};
    cli_error oe;
    if (cli_outputs_check(outs, 2, &oe) != 0) {
        char why[CLI_ERROR_TEXT_MAX];
        fprintf(stderr, "%s: %s\n", prog, cli_error_text(why, sizeof why, outs, &oe));
        return 1;
    }
    double t0 = now();
    progress pg = {PHASE_BUILD, t0, {t0}};
    cli_progress ticker;
    if (cli_progress_start(&ticker, progress_line, NULL, &pg, o.progress) != 0)
        ticker.started = 0;
    char detail[ZKPIPE_IO_DETAIL_MAX] = "";
    const char *file = o.r1cs;
    zkpipe_cs *cs = NULL;
    zkpipe_status st = zkpipe_cs_create(&cs, o.curve, ZKPIPE_CS_WITNESS, NULL);
    if (st == ZKPIPE_OK)
        st = zkpipe_testcircuit_build(cs, o.log_constraints, o.seed, (size_t)o.num_public);
    if (st != ZKPIPE_OK)
        snprintf(detail, sizeof detail, "cannot build the test circuit: %s", zkpipe_status_str(st));
    if (st == ZKPIPE_OK) {
        enter(&pg, PHASE_R1CS);
        st = zkpipe_r1cs_write(detail, sizeof detail, o.r1cs, cs);
    }
    if (st == ZKPIPE_OK) {
        enter(&pg, PHASE_WTNS);
        file = o.wtns;
        st = zkpipe_wtns_write(detail, sizeof detail, o.wtns, cs);
    }
    cli_progress_stop(&ticker);
    zkpipe_cs_destroy(cs);
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "%s: %s: %s (%s)\n", prog, file, detail, zkpipe_status_name(st));
        return 1;
    }
    return 0;
}
