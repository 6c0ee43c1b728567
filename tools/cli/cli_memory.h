/* How the pipeline binaries make the C library hand freed partition buffers back to the
 * operating system at once, so that the process's RSS follows the ledgers. */
#ifndef ZKPIPE_EXAMPLES_CLI_MEMORY_H
#define ZKPIPE_EXAMPLES_CLI_MEMORY_H

/* With glibc, blocks of at least 256 KiB get their own mappings, returned on free, for the
 * whole process. Without it glibc raises its mapping threshold to the size of every large
 * block freed (up to 32 MiB), and from then on partition buffers come from heaps that keep
 * their freed pages: a pipeline's RSS then stays above what its ledgers hold by about one
 * partition per worker thread. A no-op with other C libraries. Call once, first in main. */
void cli_memory_return_freed(void);

#endif
