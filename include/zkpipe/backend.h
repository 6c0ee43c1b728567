/*! zkpipe/backend.h : where a proof's NTTs and MSMs run.
 *
 * The CPU backend is always there. The CUDA backend is a plug-in, libzkpipe_cuda.so (built with
 * CUDA builds and installed beside libzkpipe.so), which the library loads by itself on the
 * first request for `auto` or `cuda`: linked into a static program, else the file named by
 * $ZKPIPE_CUDA_PLUGIN, else beside libzkpipe.so, else through the dynamic linker's search
 * (README.md, "The CUDA backend: a plug-in"). `auto` picks CUDA when the plug-in is there and
 * a device is usable, and the CPU otherwise. */
#ifndef ZKPIPE_BACKEND_H
#define ZKPIPE_BACKEND_H

#include "zkpipe/common.h"
#include "zkpipe/status.h"

ZKPIPE_EXTERN_C_BEGIN

typedef enum zkpipe_backend {
    ZKPIPE_BACKEND_AUTO = 0, /* CUDA when a device is usable, else CPU */
    ZKPIPE_BACKEND_CPU = 1,
    ZKPIPE_BACKEND_CUDA = 2
} zkpipe_backend;

/*! zkpipe_backend_name() : "auto", "cpu" or "cuda".
 * @return a static string, or NULL for a value that is not a zkpipe_backend.
 * Thread safety: any thread. Does not allocate. */
ZKPIPE_API const char *zkpipe_backend_name(zkpipe_backend backend);

/*! zkpipe_backend_parse() : the backend named `name` ("auto", "cpu" or "cuda", any case).
 * @param out receives the backend; untouched on error.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL argument or unknown name).
 * Thread safety: any thread. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_backend_parse(zkpipe_backend *out, const char *name);

/*! zkpipe_backend_resolve() : the backend a request runs on. CPU stays CPU; CUDA and AUTO
 * become CUDA when the CUDA plug-in is there and a device is usable; otherwise AUTO becomes
 * CPU and CUDA is an error. The first AUTO or CUDA request of the process loads the plug-in
 * and probes for a device (unless the plug-in is searched for and the CUDA driver's library,
 * libcuda.so.1, cannot be loaded: then no device can be usable and the plug-in is not
 * loaded); every later one gets the same answer.
 * @param out receives ZKPIPE_BACKEND_CPU or ZKPIPE_BACKEND_CUDA; untouched on error.
 * @param why NULL, or receives a one-line reason for the choice (for a log line), valid for
 *        the rest of the process: the plug-in not available (and why), refused (another
 *        release's), no driver or no device, or a device present; for AUTO on the CPU it ends
 *        "the CPU runs the proof".
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL out, unknown request), ZKPIPE_ENODEVICE (CUDA asked
 *         for, the plug-in or a device missing).
 * Thread safety: any thread. The first AUTO or CUDA request loads the plug-in (dlopen) and
 * initialises the CUDA runtime; concurrent first requests wait for one another. */
ZKPIPE_API zkpipe_status zkpipe_backend_resolve(zkpipe_backend *out, zkpipe_backend requested,
                                                const char **why);

ZKPIPE_EXTERN_C_END

#endif
