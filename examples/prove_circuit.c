/* zkpipe-prove-circuit: seeded setup, synthesis, proof and verification of the built-in test
 * circuit, with the time of each phase.
 *
 *   zkpipe-prove-circuit --curve bls12-381|bn254 --log-constraints K --threads N [--json]
 *
 * The circuit has 2^K rows (2^K - 2 constraints and one public input besides the one). With
 * --json the last line of stdout is a JSON summary. Exits 0 only when the proof verifies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zkpipe/testcircuit.h"
#include "zkpipe/zkpipe.h"

typedef struct options {
    zkpipe_curve curve;
    unsigned log_constraints;
    unsigned threads;
    int json;
} options;

static int usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s --curve bls12-381|bn254 --log-constraints K --threads N [--json]\n"
            "  K in 4..28; N = 0 uses every online CPU\n",
            prog);
    return 2;
}

static int parse(options *o, int argc, char **argv)
{
    o->curve = ZKPIPE_CURVE_BLS12_381;
    o->log_constraints = 10;
    o->threads = 0;
    o->json = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--json") == 0) {
            o->json = 1;
            continue;
        }
        if (val == NULL)
            return 0;
        i++;
        if (strcmp(arg, "--curve") == 0) {
            if (zkpipe_curve_parse(&o->curve, val) != ZKPIPE_OK)
                return 0;
        } else if (strcmp(arg, "--log-constraints") == 0) {
            o->log_constraints = (unsigned)strtoul(val, NULL, 10);
            if (o->log_constraints < 4 || o->log_constraints > 28)
                return 0;
        } else if (strcmp(arg, "--threads") == 0) {
            o->threads = (unsigned)strtoul(val, NULL, 10);
        } else {
            return 0;
        }
    }
    return 1;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Peak resident set size in KiB (VmHWM), or 0 when /proc is not there. */
static long peak_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = 0;
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "VmHWM:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    fclose(f);
    return kib;
}

static int fail(const char *what, zkpipe_status st)
{
    fprintf(stderr, "%s: %s\n", what, zkpipe_status_str(st));
    return 1;
}

int main(int argc, char **argv)
{
    options o;
    if (!parse(&o, argc, argv))
        return usage(argv[0]);
    static const uint8_t seed[ZKPIPE_GROTH16_SEED_BYTES] = {'z', 'k', 'p', 'i', 'p', 'e'};
    zkpipe_pool *pool = NULL;
    zkpipe_cs *cs = NULL;
    zkpipe_groth16_pk *pk = NULL;
    zkpipe_groth16_vk *vk = NULL;
    zkpipe_groth16_pvk *pvk = NULL;
    zkpipe_groth16_proof proof;
    zkpipe_groth16_timings t;
    zkpipe_scalar input;
    zkpipe_status st;
    int rc = 1;

    if ((st = zkpipe_pool_create(&pool, o.threads, NULL)) != ZKPIPE_OK)
        return fail("pool", st);
    double t0 = now();
    if ((st = zkpipe_cs_create(&cs, o.curve, ZKPIPE_CS_WITNESS, NULL)) != ZKPIPE_OK ||
        (st = zkpipe_testcircuit_build(cs, o.log_constraints, 1, 1)) != ZKPIPE_OK) {
        rc = fail("circuit", st);
        goto out;
    }
    double t1 = now();
    if ((st = zkpipe_groth16_setup_insecure(&pk, &vk, cs, seed, pool, NULL)) != ZKPIPE_OK ||
        (st = zkpipe_groth16_pvk_create(&pvk, vk, NULL)) != ZKPIPE_OK) {
        rc = fail("setup", st);
        goto out;
    }
    double t2 = now();
    if ((st = zkpipe_groth16_prove(&proof, NULL, &t, pk, cs, pool, NULL)) != ZKPIPE_OK) {
        rc = fail("prove", st);
        goto out;
    }
    double t3 = now();
    if ((st = zkpipe_cs_value(cs, &input, 1)) != ZKPIPE_OK) {
        rc = fail("input", st);
        goto out;
    }
    st = zkpipe_groth16_verify(pvk, &input, 1, &proof);
    double t4 = now();
    int verified = st == ZKPIPE_OK;
    rc = verified ? 0 : 1;

    size_t m = zkpipe_cs_num_constraints(cs);
    double us_per = 1e6 * t.total / (double)m;
    long rss = peak_rss_kib();
    printf("curve %s, 2^%u rows, %zu constraints, %u threads\n", zkpipe_curve_name(o.curve),
           o.log_constraints, m, zkpipe_pool_threads(pool));
    printf("  witness    %9.3f s\n  setup      %9.3f s\n", t1 - t0, t2 - t1);
    printf("  synthesis  %9.3f s\n  ntt/h      %9.3f s\n", t.synth, t.h);
    printf("  msm A      %9.3f s\n  msm B(G1)  %9.3f s\n", t.msm_a, t.msm_b1);
    printf("  msm B(G2)  %9.3f s  (own thread, beside the G1 MSMs)\n", t.msm_b2);
    printf("  msm C      %9.3f s  (L and H queries)\n", t.msm_c);
    printf("  prove      %9.3f s  (%.2f us per constraint; wall %.3f s)\n", t.total, us_per,
           t3 - t2);
    printf("  verify     %9.3f s: %s\n", t4 - t3, verified ? "ok" : zkpipe_status_str(st));
    printf("  peak RSS   %ld KiB\n", rss);
    if (o.json)
        printf("{\"curve\":\"%s\",\"log_constraints\":%u,\"constraints\":%zu,\"threads\":%u,"
               "\"setup_s\":%.6f,\"synth_s\":%.6f,\"h_s\":%.6f,\"msm_a_s\":%.6f,"
               "\"msm_b1_s\":%.6f,\"msm_b2_s\":%.6f,\"msm_c_s\":%.6f,\"prove_s\":%.6f,"
               "\"us_per_constraint\":%.3f,\"verify_s\":%.6f,\"peak_rss_kib\":%ld,"
               "\"verified\":%s,\"cpu\":%s}\n",
               zkpipe_curve_name(o.curve), o.log_constraints, m, zkpipe_pool_threads(pool), t2 - t1,
               t.synth, t.h, t.msm_a, t.msm_b1, t.msm_b2, t.msm_c, t.total, us_per, t4 - t3, rss,
               verified ? "true" : "false", zkpipe_cpu_json());
out:
    zkpipe_groth16_pvk_destroy(pvk);
    zkpipe_groth16_pk_destroy(pk);
    zkpipe_groth16_vk_destroy(vk);
    zkpipe_cs_destroy(cs);
    zkpipe_pool_destroy(pool);
    return rc;
}
