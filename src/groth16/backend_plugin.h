/* A device backend as a run-time plug-in: the contract between the core library and
 * libzkpipe_cuda (cuda/plugin.c), and the loader that finds it (backend_plugin.c).
 *
 * The core links no CUDA runtime. On the first request for backend auto or cuda it looks for
 * the plug-in, once per process:
 *   1. linked in: a static program that links libzkpipe_cuda.a (zkpipe::cuda_static) defines
 *      the entry point itself, and the core calls it directly;
 *   2. $ZKPIPE_CUDA_PLUGIN, when set and not empty: that file and nothing else (a path that
 *      does not exist simulates a machine without the plug-in);
 *   3. the file ZKPIPE__CUDA_PLUGIN_FILE beside the object holding the core (libzkpipe.so's
 *      folder, where the install puts it);
 *   4. that name through the dynamic linker's search (LD_LIBRARY_PATH, the program's run path,
 *      the system's folders).
 * Before steps 3 and 4 it loads the CUDA driver's library (libcuda.so.1) by name: where there
 * is none, no device can be usable, and the plug-in is not loaded at all (the answer says no
 * driver); a run on a machine without a GPU then pays for one failed search only.
 * The plug-in links nothing of zkpipe (it may be loaded into a program whose zkpipe is linked
 * statically): what it needs of the core, the ledger calls that charge device memory, comes
 * in a table from the core. Its backend table is internal (groth16/prove.h), so a plug-in
 * serves only the release it was built with: the entry point refuses any other.
 *
 * The plug-in is never unloaded: its table is used for the rest of the process. */
#ifndef ZKPIPE_GROTH16_BACKEND_PLUGIN_H
#define ZKPIPE_GROTH16_BACKEND_PLUGIN_H

#include "groth16/prove.h"

ZKPIPE_EXTERN_C_BEGIN

/* Grows with every change of this contract or of the structs it passes (zkpipe__g16_backend,
 * zkpipe__curve_ops). */
#define ZKPIPE__PLUGIN_ABI 1u

/* The entry point's name, the one symbol the plug-in exports (cuda/plugin.map). */
#define ZKPIPE__CUDA_PLUGIN_ENTRY "zkpipe__cuda_plugin_entry"

/* What the core lends the plug-in. Owned by the core; the plug-in copies it. */
typedef struct zkpipe__plugin_host {
    size_t struct_size;  /* sizeof(zkpipe__plugin_host) of the core */
    unsigned abi;        /* ZKPIPE__PLUGIN_ABI of the core */
    const char *version; /* ZKPIPE_VERSION_STRING of the core */
    zkpipe_status (*ledger_charge)(zkpipe_ledger *ledger, uint32_t kind, uint64_t bytes);
    zkpipe_status (*ledger_release)(zkpipe_ledger *ledger, uint32_t kind, uint64_t bytes);
} zkpipe__plugin_host;

/* The entry point: checks that `host` is the release and ABI the plug-in was built for, keeps
 * its functions and sets *out to the backend table (static, for the process's lifetime).
 * ZKPIPE_OK; ZKPIPE_EUNSUPPORTED with *why (a static line) for another release or ABI;
 * ZKPIPE_EINVAL for a NULL argument. Called once, by the core's loader. */
typedef zkpipe_status zkpipe__plugin_entry_fn(const zkpipe__plugin_host *host,
                                              const zkpipe__g16_backend **out, const char **why);

/* The CUDA backend for a request of backend auto or cuda: loads and probes the plug-in on the
 * first call (the steps above; thread-safe, once per process), then returns the same answer
 * every time. *out is its table when the plug-in is there and a device is usable, else NULL;
 * *why (may be NULL) a line valid for the process's lifetime saying which, worded for
 * `requested` (for auto: that the CPU runs the proof instead). */
void zkpipe__g16_cuda_backend(const zkpipe__g16_backend **out, zkpipe_backend requested,
                              const char **why);

ZKPIPE_EXTERN_C_END

#endif
