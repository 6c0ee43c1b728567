#include "core/random.h"

#include <errno.h>
#include <sys/random.h>

zkpipe_status zkpipe__os_random(uint8_t *out, size_t n)
{
    while (n > 0) {
        ssize_t got = getrandom(out, n, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return ZKPIPE_EIO;
        }
        out += got;
        n -= (size_t)got;
    }
    return ZKPIPE_OK;
}
