/* Randomness from the operating system (getrandom), for the prover's blinding factors. */
#ifndef ZKPIPE_CORE_RANDOM_H
#define ZKPIPE_CORE_RANDOM_H

#include <stddef.h>
#include <stdint.h>

#include "zkpipe/status.h"

/* Fills `out` with n bytes. ZKPIPE_OK, or ZKPIPE_EIO when the system refuses. */
zkpipe_status zkpipe__os_random(uint8_t *out, size_t n);

#endif
