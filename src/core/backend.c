#include "zkpipe/backend.h"

#include <stddef.h>
#include <strings.h>

#include "core/backend_internal.h"

static const char *const names[] = {"auto", "cpu", "cuda"};

const char *zkpipe_backend_name(zkpipe_backend backend)
{
    if ((unsigned)backend >= sizeof names / sizeof names[0])
        return NULL;
    return names[backend];
}

zkpipe_status zkpipe_backend_parse(zkpipe_backend *out, const char *name)
{
    if (out == NULL || name == NULL)
        return ZKPIPE_EINVAL;
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcasecmp(name, names[i]) == 0) {
            *out = (zkpipe_backend)i;
            return ZKPIPE_OK;
        }
    }
    return ZKPIPE_EINVAL;
}

zkpipe_status zkpipe_backend_resolve(zkpipe_backend *out, zkpipe_backend requested,
                                     const char **why)
{
    if (out == NULL || zkpipe_backend_name(requested) == NULL)
        return ZKPIPE_EINVAL;
    const char *reason = "the CPU backend was requested";
    zkpipe_backend got = ZKPIPE_BACKEND_CPU;
    if (requested != ZKPIPE_BACKEND_CPU) {
        if (zkpipe__cuda_device_usable(&reason)) {
            got = ZKPIPE_BACKEND_CUDA;
        } else if (requested == ZKPIPE_BACKEND_CUDA) {
            if (why != NULL)
                *why = reason;
            return ZKPIPE_ENODEVICE;
        }
    }
    if (why != NULL)
        *why = reason;
    *out = got;
    return ZKPIPE_OK;
}
