/* Backend names. Resolving a request (zkpipe_backend_resolve) is the prover's:
 * groth16/backend.c. */
#include "zkpipe/backend.h"

#include <stddef.h>
#include <strings.h>

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
