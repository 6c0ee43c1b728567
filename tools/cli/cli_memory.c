#include "cli_memory.h"

#include <stdlib.h> /* defines __GLIBC__ with glibc */
#if defined(__GLIBC__)
#include <malloc.h>
#endif

void cli_memory_return_freed(void)
{
#if defined(__GLIBC__)
    /* Setting the threshold also turns off its dynamic adjustment. */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
}
