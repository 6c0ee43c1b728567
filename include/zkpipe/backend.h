/*! zkpipe/backend.h : where a proof's NTTs and MSMs run.
 *
 * The CPU backend is always built. The CUDA backend exists when the library was built with
 * CUDA (ZKPIPE_CUDA) and a device is present at run time; `auto` picks it then and the CPU
 * otherwise. */
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
 * become CUDA when the library has the CUDA backend and a device is present; otherwise AUTO
 * becomes CPU and CUDA is an error.
 * @param out receives ZKPIPE_BACKEND_CPU or ZKPIPE_BACKEND_CUDA; untouched on error.
 * @param why NULL, or receives a static one-line reason for the choice (for a log line).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL out, unknown request), ZKPIPE_ENODEVICE (CUDA asked
 *         for, none usable).
 * Thread safety: any thread. May initialise the CUDA runtime on first use. */
ZKPIPE_API zkpipe_status zkpipe_backend_resolve(zkpipe_backend *out, zkpipe_backend requested,
                                                const char **why);

ZKPIPE_EXTERN_C_END

#endif
