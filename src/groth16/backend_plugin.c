/* The CUDA backend's plug-in loader (groth16/backend_plugin.h): finds libzkpipe_cuda once per
 * process, lets it check this release, probes for a device and keeps the answer, so that every
 * later request is a read. */
#define _GNU_SOURCE /* dladdr, secure_getenv */
#include "groth16/backend_plugin.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zkpipe/version.h"

#ifndef ZKPIPE_CUDA_PLUGIN_FILE
#error "the build names the plug-in's file (ZKPIPE_CUDA_PLUGIN_FILE)"
#endif

/* The CUDA driver's library as the CUDA runtime loads it (Linux). */
#define CUDA_DRIVER_FILE "libcuda.so.1"

/* Defined only in a program that links the plug-in's static library (zkpipe::cuda_static,
 * whose link options pull it in). Hidden, so that the shared core never binds it to a symbol
 * of another object. */
extern zkpipe__plugin_entry_fn zkpipe__cuda_plugin_entry
    __attribute__((weak, visibility("hidden")));

static const zkpipe__plugin_host host = {
    .struct_size = sizeof(zkpipe__plugin_host),
    .abi = ZKPIPE__PLUGIN_ABI,
    .version = ZKPIPE_VERSION_STRING,
    .ledger_charge = zkpipe_ledger_charge,
    .ledger_release = zkpipe_ledger_release,
};

/* Written once, under `once`, and only read after it. */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static const zkpipe__g16_backend *usable; /* the table when a device is usable */
static char why_cuda[PATH_MAX + 512], why_auto[PATH_MAX + 512];

/* One of the lines above (truncated to fit, which only a path near PATH_MAX can make it). */
__attribute__((format(printf, 2, 3))) static void say(char *line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof why_cuda, fmt, ap);
    va_end(ap);
}

/* Opens `path` (searched for by the dynamic linker when it has no slash) and finds the entry
 * point; NULL with the reason in err otherwise. */
static zkpipe__plugin_entry_fn *open_plugin(const char *path, char *err, size_t cap)
{
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *e = dlerror();
        snprintf(err, cap, "%s", e != NULL ? e : path);
        return NULL;
    }
    void *sym = dlsym(handle, ZKPIPE__CUDA_PLUGIN_ENTRY);
    if (sym == NULL) {
        snprintf(err, cap, "%s has no entry point %s", path, ZKPIPE__CUDA_PLUGIN_ENTRY);
        dlclose(handle);
        return NULL;
    }
    zkpipe__plugin_entry_fn *entry;
    memcpy(&entry, &sym, sizeof entry); /* POSIX: dlsym's object pointer is the function's */
    return entry;
}

/* Where the plug-in is, by the search order of backend_plugin.h: *entry when it is linked in,
 * else its path (or bare name) in `from`; 1 when the driver gate below applies (steps 3 and 4:
 * $ZKPIPE_CUDA_PLUGIN names a file the caller chose, which is loaded whatever it is). */
static int locate_plugin(zkpipe__plugin_entry_fn **entry, char *from, size_t from_cap)
{
    *entry = NULL;
    if (zkpipe__cuda_plugin_entry != NULL) {
        snprintf(from, from_cap, "linked in");
        *entry = zkpipe__cuda_plugin_entry;
        return 0;
    }
    const char *env = secure_getenv("ZKPIPE_CUDA_PLUGIN");
    if (env != NULL && env[0] != '\0') {
        snprintf(from, from_cap, "%s", env);
        return 0;
    }
    /* Beside the core: the folder of the object that holds this file's data. */
    Dl_info info;
    const char *slash;
    if (dladdr(&once, &info) != 0 && info.dli_fname != NULL &&
        (slash = strrchr(info.dli_fname, '/')) != NULL) {
        int n = snprintf(from, from_cap, "%.*s/%s", (int)(slash - info.dli_fname), info.dli_fname,
                         ZKPIPE_CUDA_PLUGIN_FILE);
        if (n > 0 && (size_t)n < from_cap && access(from, F_OK) == 0)
            return 1;
    }
    snprintf(from, from_cap, "%s", ZKPIPE_CUDA_PLUGIN_FILE);
    return 1;
}

/* Whether the CUDA driver's library can be loaded; dlerror's reason in err when not. The
 * plug-in's CUDA runtime finds every device through it, loading it by this name through the
 * dynamic linker's search, and the plug-in has no run path of its own, so a search from here
 * (the core's run path, if any, added) finds it wherever that one would: when this one fails,
 * no device can be usable, and loading the plug-in (megabytes of kernels, the C++ library,
 * their relocations, milliseconds of a small proof's run) only to be told so is skipped. When
 * it is found it stays loaded, as the runtime would keep it. */
static int driver_present(char *err, size_t cap)
{
    if (dlopen(CUDA_DRIVER_FILE, RTLD_LAZY | RTLD_LOCAL) != NULL)
        return 1;
    const char *e = dlerror();
    snprintf(err, cap, "%s", e != NULL ? e : CUDA_DRIVER_FILE);
    return 0;
}

static void load(void)
{
    char from[PATH_MAX], err[PATH_MAX + 128] = "";
    zkpipe__plugin_entry_fn *entry;
    if (locate_plugin(&entry, from, sizeof from) && !driver_present(err, sizeof err)) {
        say(why_cuda, "no CUDA device is usable: no CUDA driver (%s) (CUDA plug-in %s)", err, from);
        say(why_auto,
            "no CUDA device is usable: no CUDA driver (%s): the CPU runs the proof "
            "(CUDA plug-in %s)",
            err, from);
        return;
    }
    if (entry == NULL)
        entry = open_plugin(from, err, sizeof err);
    if (entry == NULL) {
        say(why_cuda, "the CUDA backend's plug-in is not available (%s)", err);
        say(why_auto, "%s: the CPU runs the proof", why_cuda);
        return;
    }
    const zkpipe__g16_backend *table = NULL;
    const char *refused = "";
    zkpipe_status st = entry(&host, &table, &refused);
    if (st != ZKPIPE_OK || table == NULL || table->probe == NULL) {
        say(why_cuda, "the CUDA plug-in %s does not serve zkpipe %s: %s", from,
            ZKPIPE_VERSION_STRING,
            st != ZKPIPE_OK && refused != NULL ? refused : "no backend table");
        say(why_auto, "%s: the CPU runs the proof", why_cuda);
        return;
    }
    const char *probe = "";
    int ok = table->probe(&probe);
    if (probe == NULL)
        probe = ok ? "a CUDA device is usable" : "no CUDA device is usable";
    say(why_cuda, "%s (CUDA plug-in %s)", probe, from);
    if (ok) {
        say(why_auto, "%s", why_cuda);
        usable = table;
    } else {
        say(why_auto, "%s: the CPU runs the proof (CUDA plug-in %s)", probe, from);
    }
}

void zkpipe__g16_cuda_backend(const zkpipe__g16_backend **out, zkpipe_backend requested,
                              const char **why)
{
    pthread_once(&once, load);
    *out = usable;
    if (why != NULL)
        *why = requested == ZKPIPE_BACKEND_AUTO ? why_auto : why_cuda;
}
