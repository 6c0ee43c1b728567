/* Backend selection in a library built without the CUDA backend. */
#include "core/backend_internal.h"

bool zkpipe__cuda_device_usable(const char **why)
{
    *why = "this zkpipe was built without the CUDA backend";
    return false;
}
