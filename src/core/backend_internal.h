/* The seam between backend selection and the CUDA backend. */
#ifndef ZKPIPE_CORE_BACKEND_INTERNAL_H
#define ZKPIPE_CORE_BACKEND_INTERNAL_H

#include <stdbool.h>

/* True when the CUDA backend is built and a device is present; *why says which (a static
 * string). Without the CUDA backend (src/core/no_cuda.c) it is always false. */
bool zkpipe__cuda_device_usable(const char **why);

#endif
