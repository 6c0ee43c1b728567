/* zkpipe-setup: a Groth16 .zkey for a circom .r1cs, as snarkjs and rapidsnark take it:
 *
 *   zkpipe-setup [--threads N] [--progress] (--insecure-seed N | --ptau FILE) <circuit.r1cs>
 *                <circuit.zkey>
 *
 * --ptau FILE: from a phase-2-prepared snarkjs powers of tau, the zkey `snarkjs groth16 setup`
 * writes, byte for byte but one known case (zkpipe_groth16_setup_zkey_ptau says which): before
 * any contribution, so not for production until `snarkjs zkey contribute` or `beacon`, exactly
 * as snarkjs's.
 * --insecure-seed N: the toxic waste derived from the integer N (zkpipe/groth16.h's
 * zkpipe_groth16_setup_zkey_insecure). Anyone who knows N can forge proofs for the key: it is
 * for tests and benchmarks only, says so on stderr every time, and the zkey carries a
 * contribution named "INSECURE ..." that `snarkjs zkey export json` shows.
 *
 * Exits 0 when the zkey is written; otherwise one line on stderr naming the file and the
 * problem, exit 1 (2 for a usage error), and the output path as it was (the zkey is written
 * beside it and renamed into place: zkpipe_zkey_write). The output is checked before any work:
 * a folder, a missing folder or an input (through links too) is refused. A mapped input
 * truncated while in use is reported as an I/O error naming it (cli_mapped.h). On a terminal
 * (or with --progress) a line on stderr shows the step and the time spent. */
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
#include "cli_progress.h"
#include "zkpipe/io.h"
#include "zkpipe/zkpipe.h"

static const char *prog = "zkpipe-setup";

typedef struct options {
    unsigned threads;
    int progress;
    int seeded;
    unsigned long long seed;
    const char *ptau, *r1cs, *zkey;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s [--threads N] [--progress] (--insecure-seed N | --ptau FILE) "
            "<circuit.r1cs> <circuit.zkey>\n"
            "  --ptau FILE        from a phase-2-prepared powers of tau: the zkey snarkjs's\n"
            "                     groth16 setup writes (no contribution yet)\n"
            "  --insecure-seed N  toxic waste from the integer N: INSECURE, anyone who knows N\n"
            "                     can forge proofs; for tests and benchmarks only\n"
            "  --threads N        threads for the scalar multiplications (0: one per CPU)\n"
            "  --progress         a progress line on stderr even when it is not a terminal\n",
            prog);
}

/* 0: parsed; 1: exit 0 (help, version); 2: usage error (already reported). */
static int parse(options *o, int argc, char **argv)
{
    static const char *const switches[] = {"--progress", NULL};
    const char *pos[2], *flag, *val;
    cli_args a;
    cli_args_init(&a, prog, argc, argv, switches, usage, pos, 2);
    memset(o, 0, sizeof *o);
    int r;
    unsigned long long v;
    while ((r = cli_args_next(&a, &flag, &val)) == CLI_ARGS_FLAG) {
        if (strcmp(flag, "--progress") == 0) {
            o->progress = 1;
        } else if (strcmp(flag, "--threads") == 0) {
            if (!cli_args_count(&a, flag, val, 0, ZKPIPE_POOL_MAX_THREADS, &v))
                return 2;
            o->threads = (unsigned)v;
        } else if (strcmp(flag, "--insecure-seed") == 0) {
            if (!cli_args_count(&a, flag, val, 0, UINT64_MAX, &o->seed))
                return 2;
            o->seeded = 1;
        } else if (strcmp(flag, "--ptau") == 0) {
            o->ptau = val;
        } else {
            cli_args_unknown(&a, flag);
            return 2;
        }
    }
    if (r != CLI_ARGS_END)
        return r == CLI_ARGS_EXIT ? 1 : 2;
    if (o->seeded == (o->ptau != NULL)) {
        fprintf(stderr,
                "%s: say where the toxic waste comes from: --insecure-seed N or --ptau "
                "FILE, one of them\n",
                prog);
        return 2;
    }
    if (!cli_args_positionals(&a, 2))
        return 2;
    o->r1cs = pos[0];
    o->zkey = pos[1];
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { PHASE_R1CS, PHASE_PTAU, PHASE_POINTS, PHASE_WRITE, PHASES };

typedef struct progress {
    _Atomic int phase;
    double t0, phase_t0[PHASES];
} progress;

static void enter(progress *p, int phase)
{
    p->phase_t0[phase] = now();
    atomic_store(&p->phase, phase);
}

/* A cli_progress_fn: "zkpipe-setup: 2/3 computing the points, 12.0 s (13.1 s in all)". */
static int progress_line(char *buf, size_t cap, void *ctx)
{
    progress *p = ctx;
    static const char *const names[PHASES] = {"reading the r1cs", "checking the powers of tau",
                                              "computing the points", "writing the zkey"};
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
    cli_output out = {o.zkey, NULL, 0};
    cli_error oe;
    char why[2 * CLI_ERROR_TEXT_MAX];
    if (cli_outputs_check(&out, 1, &oe) != 0) {
        fprintf(stderr, "%s: %s\n", prog, cli_error_text(why, sizeof why, &out, &oe));
        return 1;
    }
    const char *inputs[2] = {o.r1cs, o.ptau};
    if (cli_outputs_check_inputs(&out, 1, inputs, 2, why, sizeof why) != 0) {
        fprintf(stderr, "%s: %s\n", prog, why);
        return 1;
    }
    signal(SIGXFSZ, SIG_IGN);
    if (cli_mapped_guard(prog, inputs, 2) != 0) {
        fprintf(stderr, "%s: cannot watch the mapped inputs: %s\n", prog, strerror(errno));
        return 1;
    }
    zkpipe_pool *pool = NULL;
    zkpipe_r1cs *r1cs = NULL;
    zkpipe_ptau *ptau = NULL;
    zkpipe_cs *cs = NULL;
    zkpipe_groth16_pk *pk = NULL;
    zkpipe_groth16_vk *vk = NULL;
    char detail[ZKPIPE_IO_DETAIL_MAX] = "";
    const char *file = o.r1cs;
    double t0 = now();
    progress pg = {PHASE_R1CS, t0, {t0}};
    cli_progress ticker;
    if (cli_progress_start(&ticker, progress_line, NULL, &pg, o.progress) != 0)
        ticker.started = 0;
    zkpipe_io_options io;
    zkpipe_io_options_init(&io);
    zkpipe_status st = zkpipe_pool_create(&pool, o.threads, NULL);
    io.pool = pool;
    if (st == ZKPIPE_OK)
        st = zkpipe_r1cs_open(&r1cs, detail, sizeof detail, o.r1cs, &io);
    if (st == ZKPIPE_OK)
        st = zkpipe_r1cs_load(&cs, detail, sizeof detail, r1cs, NULL, NULL);
    /* The system is a copy: unmapped now, no later truncation of the r1cs can reach the
     * setup or the write. */
    zkpipe_r1cs_destroy(r1cs);
    r1cs = NULL;
    zkpipe_groth16_ptau pts;
    if (st == ZKPIPE_OK && o.ptau != NULL) {
        enter(&pg, PHASE_PTAU);
        file = o.ptau;
        st = zkpipe_ptau_open(&ptau, detail, sizeof detail, o.ptau, &io);
        zkpipe_ptau_info pi;
        if (st == ZKPIPE_OK && zkpipe_ptau_info_get(&pi, ptau) == ZKPIPE_OK &&
            pi.curve != zkpipe_cs_curve(cs)) {
            st = ZKPIPE_EMISMATCH;
            snprintf(detail, sizeof detail, "the powers of tau is for %s, %s for %s",
                     zkpipe_curve_name(pi.curve), o.r1cs, zkpipe_curve_name(zkpipe_cs_curve(cs)));
        }
        unsigned log_n = 0;
        uint64_t bytes;
        if (st == ZKPIPE_OK)
            st = zkpipe_cs_synth_bytes(cs, &bytes, &log_n);
        if (st == ZKPIPE_OK)
            st = zkpipe_ptau_points(&pts, detail, sizeof detail, ptau, log_n, pool);
    }
    if (st == ZKPIPE_OK && o.seeded) {
        char line[512];
        snprintf(line, sizeof line,
                 "%s: INSECURE: toxic waste from --insecure-seed %llu; anyone who knows the seed "
                 "can forge proofs for %s: for tests and benchmarks only",
                 prog, o.seed, o.zkey);
        if (ticker.started)
            cli_progress_print(&ticker, stderr, line);
        else
            fprintf(stderr, "%s\n", line);
    }
    if (st == ZKPIPE_OK) {
        enter(&pg, PHASE_POINTS);
        file = o.zkey;
        uint8_t seed[ZKPIPE_GROTH16_SEED_BYTES] = {0};
        for (int k = 0; k < 8; k++)
            seed[k] = (uint8_t)(o.seed >> (8 * k));
        st = o.seeded ? zkpipe_groth16_setup_zkey_insecure(&pk, &vk, cs, seed, pool, NULL)
                      : zkpipe_groth16_setup_zkey_ptau(&pk, &vk, cs, &pts, pool, NULL);
        if (st != ZKPIPE_OK)
            snprintf(detail, sizeof detail, "cannot make the keys: %s", zkpipe_status_str(st));
    }
    /* The keys hold copies: no truncation of the ptau can reach the write. */
    zkpipe_ptau_destroy(ptau);
    ptau = NULL;
    if (st == ZKPIPE_OK) {
        enter(&pg, PHASE_WRITE);
        st = zkpipe_zkey_write(detail, sizeof detail, o.zkey, pk, vk);
    }
    cli_progress_stop(&ticker);
    zkpipe_groth16_pk_destroy(pk);
    zkpipe_groth16_vk_destroy(vk);
    zkpipe_cs_destroy(cs);
    zkpipe_ptau_destroy(ptau);
    zkpipe_r1cs_destroy(r1cs);
    zkpipe_pool_destroy(pool);
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "%s: %s: %s (%s)\n", prog, file, detail[0] ? detail : zkpipe_status_str(st),
                zkpipe_status_name(st));
        return 1;
    }
    if (o.seeded)
        fprintf(stderr, "%s: wrote %s (INSECURE, seed %llu) in %.1f s\n", prog, o.zkey, o.seed,
                now() - t0);
    else
        fprintf(stderr, "%s: wrote %s in %.1f s\n", prog, o.zkey, now() - t0);
    return 0;
}
