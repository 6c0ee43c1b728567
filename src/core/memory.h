/* The process's and the machine's memory as the operating system reports it (Linux /proc):
 * what admission and the unaccounted-bytes gauge compare the ledgers with. */
#ifndef ZKPIPE_CORE_MEMORY_H
#define ZKPIPE_CORE_MEMORY_H

#include <stdint.h>

#include "zkpipe/status.h"

/* The process's resident set now, in bytes (/proc/self/statm's resident pages times the page
 * size). ZKPIPE_OK, or ZKPIPE_EUNSUPPORTED where it cannot be read. Opens, reads and closes
 * one file: a few microseconds; no allocation. Any thread. */
zkpipe_status zkpipe__rss_bytes(uint64_t *out);

/* The machine's MemAvailable (/proc/meminfo), in bytes. ZKPIPE_OK, or ZKPIPE_EUNSUPPORTED
 * where it cannot be read. No allocation. Any thread. */
zkpipe_status zkpipe__mem_available_bytes(uint64_t *out);

#endif
