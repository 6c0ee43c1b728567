/* The CUDA backend's plug-in loader (groth16/backend_plugin.h) as a user meets it: what
 * backend auto and cuda resolve to, the line that says why, an engine's backend, and a proof.
 * One mode per ctest entry (tests/CMakeLists.txt), since the loader answers once per process:
 *
 *   test_plugin absent   $ZKPIPE_CUDA_PLUGIN names a file that does not exist: auto falls back
 *                        to the CPU and says the plug-in is not available, cuda is refused
 *   test_plugin foreign  it names a shared library without the entry point
 *   test_plugin refused  it names tests/support/fake_plugin.c's plug-in, which refuses this
 *                        release (as a plug-in of another release does)
 *   test_plugin fake     the same plug-in accepting: its always-present "device" is chosen, the
 *                        prover dispatches into its table, its charges reach the core's ledger
 *                        and its failure comes back in the detail line
 *   test_plugin present  this build's libzkpipe_cuda, found without $ZKPIPE_CUDA_PLUGIN (the
 *                        program's run path): it loads and probes; without a GPU, auto falls
 *                        back to the CPU saying no device is usable, with one cuda resolves */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixtures.h"
#include "groth16/prove.h"
#include "prove_synth.h"
#include "zkpipe/testcircuit.h"
#include "zkpipe/zkpipe.h"

#ifndef ZKPIPE_CUDA_PLUGIN_FILE
#error "the build names the plug-in's file"
#endif

static const char *mode;

static int is(const char *m)
{
    return strcmp(mode, m) == 0;
}

static void contains(const char *text, const char *part)
{
    if (strstr(text, part) == NULL)
        fail_msg("\"%s\" does not contain \"%s\"", text, part);
}

/* Whether the mode's plug-in gives a usable device. */
static int device_expected(void)
{
    if (is("fake"))
        return 1;
    if (!is("present"))
        return 0;
    zkpipe_backend b;
    assert_int_equal(zkpipe_backend_resolve(&b, ZKPIPE_BACKEND_AUTO, NULL), ZKPIPE_OK);
    return b == ZKPIPE_BACKEND_CUDA;
}

/* The test circuit's build callback for a circuit partition (the fixture's shape). */
static zkpipe_status build_test_circuit(zkpipe_cs *cs, void *ctx, size_t partition)
{
    (void)ctx;
    (void)partition;
    return zkpipe_testcircuit_build(cs, 4, 42, 1);
}

static void cpu_is_always_the_cpu(void **state)
{
    (void)state;
    zkpipe_backend b = ZKPIPE_BACKEND_AUTO;
    const char *why = NULL;
    assert_int_equal(zkpipe_backend_resolve(&b, ZKPIPE_BACKEND_CPU, &why), ZKPIPE_OK);
    assert_int_equal(b, ZKPIPE_BACKEND_CPU);
    assert_string_equal(why, "the CPU backend was requested");
}

/* Whether the mode's plug-in file is mapped into this process now (/proc/self/maps). */
static int plugin_mapped(void)
{
    const char *env = getenv("ZKPIPE_CUDA_PLUGIN");
    const char *path = is("present") ? ZKPIPE_CUDA_PLUGIN_FILE : env;
    const char *slash = strrchr(path, '/');
    const char *name = slash != NULL ? slash + 1 : path;
    FILE *f = fopen("/proc/self/maps", "r");
    assert_non_null(f);
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f) != NULL)
        found = strstr(line, name) != NULL;
    fclose(f);
    return found;
}

/* Whether the CUDA driver's library loads in this process, asked here and not of the loader
 * (a failed dlopen changes nothing; a loaded one was to be loaded by the plug-in anyway). */
static int driver_loads(void)
{
    return dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) != NULL;
}

static void auto_and_cuda_say_why(void **state)
{
    (void)state;
    const char *path = getenv("ZKPIPE_CUDA_PLUGIN");
    zkpipe_backend b = ZKPIPE_BACKEND_AUTO, c = ZKPIPE_BACKEND_AUTO;
    const char *why_auto = NULL, *why_cuda = NULL;
    assert_int_equal(zkpipe_backend_resolve(&b, ZKPIPE_BACKEND_AUTO, &why_auto), ZKPIPE_OK);
    zkpipe_status st = zkpipe_backend_resolve(&c, ZKPIPE_BACKEND_CUDA, &why_cuda);
    print_message("auto: %s: %s\ncuda: %s: %s\n", zkpipe_backend_name(b), why_auto,
                  zkpipe_status_name(st), why_cuda);
    assert_non_null(why_auto);
    assert_non_null(why_cuda);
    /* the same answer every time */
    const char *again = NULL;
    zkpipe_backend b2;
    assert_int_equal(zkpipe_backend_resolve(&b2, ZKPIPE_BACKEND_AUTO, &again), ZKPIPE_OK);
    assert_int_equal(b2, b);
    assert_string_equal(again, why_auto);

    if (device_expected()) {
        assert_int_equal(b, ZKPIPE_BACKEND_CUDA);
        assert_int_equal(st, ZKPIPE_OK);
        assert_int_equal(c, ZKPIPE_BACKEND_CUDA);
        assert_string_equal(why_auto, why_cuda);
        if (is("fake")) {
            contains(why_cuda, "a fake CUDA device is present (CUDA plug-in ");
            contains(why_cuda, path);
        } else {
            contains(why_cuda, "a CUDA device is present");
        }
        return;
    }
    assert_int_equal(b, ZKPIPE_BACKEND_CPU);
    assert_int_equal(st, ZKPIPE_ENODEVICE);
    assert_int_equal(c, ZKPIPE_BACKEND_AUTO); /* untouched */
    contains(why_auto, "the CPU runs the proof");
    assert_null(strstr(why_cuda, "the CPU runs the proof"));
    if (is("absent")) {
        contains(why_cuda, "the CUDA backend's plug-in is not available (");
        contains(why_cuda, path);
        contains(why_cuda, "No such file");
    } else if (is("foreign")) {
        contains(why_cuda, "has no entry point zkpipe__cuda_plugin_entry");
        contains(why_cuda, path);
    } else if (is("refused")) {
        contains(why_cuda, "does not serve zkpipe " ZKPIPE_VERSION_STRING);
        contains(why_cuda, "only zkpipe 9.9.9");
    } else if (is("present")) {
        /* found by name through the run path; what is missing is a driver or a device, never
         * the plug-in: without the driver's library it is not even loaded, else it is probed */
        contains(why_cuda, "(CUDA plug-in " ZKPIPE_CUDA_PLUGIN_FILE ")");
        contains(why_cuda, "CUDA d");
        assert_null(strstr(why_cuda, "not available"));
        if (driver_loads()) {
            assert_null(strstr(why_cuda, "no CUDA driver ("));
            assert_true(plugin_mapped());
        } else {
            contains(why_cuda, "no CUDA device is usable: no CUDA driver (libcuda.so.1");
            assert_false(plugin_mapped());
        }
    } else {
        fail_msg("unknown mode %s", mode);
    }
}

/* A host's stage operations that hold nothing: what the engine passes them is all they see. */
static atomic_int seen_backend = -1;

static zkpipe_status host_synthesize(const zkpipe_stage_call *call, void **item)
{
    *item = call->ctx;
    return ZKPIPE_OK;
}

static zkpipe_status host_prove(const zkpipe_stage_call *call, void *item,
                                zkpipe_partition_result *out)
{
    (void)item;
    (void)out;
    atomic_store(&seen_backend, (int)call->backend);
    return ZKPIPE_OK;
}

static void host_discard(const zkpipe_stage_call *call, void *item)
{
    (void)call;
    (void)item;
}

static const zkpipe_stage_ops host_ops = {
    .struct_size = sizeof(zkpipe_stage_ops),
    .name = "host",
    .synthesize = host_synthesize,
    .prove = host_prove,
    .discard = host_discard,
};

/* Runs one partition of `ops` on an engine of `backend`; its result in *out. */
static void run_one(zkpipe_backend backend, const zkpipe_stage_ops *ops, void *ctx,
                    zkpipe_partition_result *out)
{
    zkpipe_engine_config cfg;
    zkpipe_engine_config_init(&cfg);
    cfg.acct = fixture_acct;
    cfg.backend = backend;
    zkpipe_engine *e = NULL;
    assert_int_equal(zkpipe_engine_create(&e, &cfg), ZKPIPE_OK);
    zkpipe_partition part = {ops, ctx, {0, 0}};
    zkpipe_job *job = NULL;
    assert_int_equal(zkpipe_engine_submit(e, &job, &part, 1, NULL, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_wait(job), ZKPIPE_OK);
    assert_int_equal(zkpipe_job_result(job, 0, out), ZKPIPE_OK);
    out->host = NULL; /* freed with the job below */
    zkpipe_job_destroy(job);
    zkpipe_engine_destroy(e);
}

/* Runs first, before anything in the process resolves a backend: an engine of a host's stages
 * with the default backend (auto) never loads the plug-in, and passes the request on as it is. */
static void a_host_engine_loads_no_plugin(void **state)
{
    (void)state;
    static int ctx;
    zkpipe_partition_result r;
    run_one(ZKPIPE_BACKEND_AUTO, &host_ops, &ctx, &r);
    assert_int_equal(r.status, ZKPIPE_OK);
    assert_int_equal(atomic_load(&seen_backend), ZKPIPE_BACKEND_AUTO);
    if (is("present") || is("fake") || is("refused"))
        assert_false(plugin_mapped());
    /* a built-in prover's first need of it is what loads it */
    if (is("fake") || (is("present") && driver_loads())) {
        zkpipe_backend b;
        assert_int_equal(zkpipe_backend_resolve(&b, ZKPIPE_BACKEND_AUTO, NULL), ZKPIPE_OK);
        assert_true(plugin_mapped());
    }
}

/* The engine passes cuda on unresolved; the built-in operations resolve it as they prove: the
 * proof is made on it, or, with no usable device, the partition fails saying why. */
static void the_stages_resolve_the_backend(void **state)
{
    (void)state;
    zkpipe_backend want;
    assert_int_equal(zkpipe_backend_resolve(&want, ZKPIPE_BACKEND_AUTO, NULL), ZKPIPE_OK);
    static int ctx;
    zkpipe_partition_result r;
    run_one(ZKPIPE_BACKEND_CUDA, &host_ops, &ctx, &r);
    assert_int_equal(r.status, ZKPIPE_OK);
    assert_int_equal(atomic_load(&seen_backend), ZKPIPE_BACKEND_CUDA);

    static const uint8_t seed[32] = {9};
    fixture_keys k;
    fixture_keys_make(&k, ZKPIPE_CURVE_BN254, 4, seed, NULL);
    zkpipe_circuit_partition cp = {build_test_circuit, NULL, 0, k.pk};
    run_one(ZKPIPE_BACKEND_CUDA, zkpipe_circuit_stage_ops(), &cp, &r);
    if (want == ZKPIPE_BACKEND_CUDA) {
        /* the fake device fails every call, saying so */
        assert_int_equal(r.status, is("fake") ? ZKPIPE_EDEVICE : ZKPIPE_OK);
    } else {
        assert_int_equal(r.status, ZKPIPE_ENODEVICE);
        contains(r.detail, "the cuda backend: ");
    }
    fixture_keys_free(&k);
}

/* auto proves (on the CPU unless a device is usable); on the fake device the proof fails with
 * its message, after its charges went through the core's ledger. */
static void a_proof_on_auto(void **state)
{
    (void)state;
    static const uint8_t seed[32] = {7};
    fixture_keys k;
    fixture_keys_make(&k, ZKPIPE_CURVE_BN254, 4, seed, NULL);
    const zkpipe__g16_backend *be = NULL;
    assert_int_equal(zkpipe__g16_backend_resolve(&be, ZKPIPE_BACKEND_AUTO, NULL), ZKPIPE_OK);
    uint64_t r[4], s[4];
    assert_int_equal(random_scalar(r, ZKPIPE_CURVE_BN254), ZKPIPE_OK);
    assert_int_equal(random_scalar(s, ZKPIPE_CURVE_BN254), ZKPIPE_OK);
    zkpipe_ledger ledger;
    zkpipe__synth_result res;
    assert_int_equal(zkpipe_acct_reset_peaks(fixture_acct), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_open(&ledger, fixture_acct, ZKPIPE_STAGE_QUEUED), ZKPIPE_OK);
    assert_int_equal(zkpipe__synth(&res, k.cs, NULL, &ledger), ZKPIPE_OK);
    char detail[256] = "";
    zkpipe_groth16_proof proof;
    zkpipe__g16_prove_args args = {r, s, NULL, be, k.pvk, NULL, NULL, detail, sizeof detail};
    zkpipe_status st = zkpipe__g16_prove(&proof, k.pk, &res, &args);
    zkpipe_ledger_close(&ledger);
    zkpipe_snapshot snap;
    assert_int_equal(zkpipe_acct_snapshot(fixture_acct, &snap), ZKPIPE_OK);
    assert_int_equal(snap.live_bytes, 0);
    uint64_t device_peak = 0;
    for (int stage = 0; stage < ZKPIPE_STAGE_BUILTIN_COUNT; stage++)
        if (snap.stage[stage].kind[ZKPIPE_KIND_DEVICE].peak_bytes > device_peak)
            device_peak = snap.stage[stage].kind[ZKPIPE_KIND_DEVICE].peak_bytes;
    if (is("fake")) {
        assert_int_equal(st, ZKPIPE_EDEVICE);
        contains(detail, "proving failed on the cuda backend");
        contains(detail, "fake device: every call fails");
        assert_int_equal(device_peak, 1u << 20);
    } else {
        assert_int_equal(st, ZKPIPE_OK);
        zkpipe_scalar in;
        assert_int_equal(zkpipe_cs_value(k.cs, &in, 1), ZKPIPE_OK);
        assert_int_equal(zkpipe_groth16_verify(k.pvk, &in, 1, &proof), ZKPIPE_OK);
        if (be->id == ZKPIPE_BACKEND_CPU)
            assert_int_equal(device_peak, 0);
    }
    fixture_keys_free(&k);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_plugin absent|foreign|refused|fake|present\n");
        return 2;
    }
    mode = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_host_engine_loads_no_plugin),
        cmocka_unit_test(cpu_is_always_the_cpu),
        cmocka_unit_test(auto_and_cuda_say_why),
        cmocka_unit_test(the_stages_resolve_the_backend),
        cmocka_unit_test(a_proof_on_auto),
    };
    return cmocka_run_group_tests(tests, fixture_acct_setup, fixture_acct_teardown);
}
