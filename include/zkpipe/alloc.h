/*! zkpipe/alloc.h : the allocator hook.
 *
 * Every zkpipe object that allocates takes a `const zkpipe_allocator *` at creation (NULL
 * selects the C library). The object copies the struct and uses it for all of its memory
 * until it is destroyed, so a host can meter memory or inject failures (the tests do). */
#ifndef ZKPIPE_ALLOC_H
#define ZKPIPE_ALLOC_H

#include "zkpipe/common.h"

ZKPIPE_EXTERN_C_BEGIN

typedef struct zkpipe_allocator {
    /* Returns `size` bytes aligned to `align` (a power of two, at most 4096), or NULL.
     * Must be callable from any thread. */
    void *(*alloc)(void *ctx, size_t size, size_t align);
    /* Frees what `alloc` returned; never called with NULL. Must be callable from any thread. */
    void (*free)(void *ctx, void *ptr);
    void *ctx; /* passed back to both callbacks untouched */
} zkpipe_allocator;

/*! zkpipe_allocator_default() : the C library allocator (posix_memalign and free).
 * @return a pointer to a static, immutable allocator; never NULL. Thread-safe. */
ZKPIPE_API const zkpipe_allocator *zkpipe_allocator_default(void);

ZKPIPE_EXTERN_C_END

#endif
