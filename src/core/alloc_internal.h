/* Internal allocation helpers: every allocation in zkpipe goes through an object's copy of
 * its zkpipe_allocator, so tests can fail any allocation site on demand. */
#ifndef ZKPIPE_CORE_ALLOC_INTERNAL_H
#define ZKPIPE_CORE_ALLOC_INTERNAL_H

#include "zkpipe/alloc.h"

/* The allocator a create function should copy: `a` itself, or the default when `a` is NULL.
 * Returns NULL when `a` is non-NULL but lacks a callback (the caller reports ZKPIPE_EINVAL). */
const zkpipe_allocator *zkpipe__allocator_or_default(const zkpipe_allocator *a);

/* `size` bytes aligned to `align` (power of two), or NULL (also for size 0 overflow cases). */
void *zkpipe__alloc(const zkpipe_allocator *a, size_t size, size_t align);
/* Zero-filled variant of zkpipe__alloc for n * size bytes; NULL on overflow. */
void *zkpipe__calloc(const zkpipe_allocator *a, size_t n, size_t size, size_t align);
/* Frees `p`; NULL is a no-op. */
void zkpipe__free(const zkpipe_allocator *a, void *p);

#endif
