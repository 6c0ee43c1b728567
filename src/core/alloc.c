#include "core/alloc_internal.h"

#include <stdlib.h>
#include <string.h>

static void *libc_alloc(void *ctx, size_t size, size_t align)
{
    (void)ctx;
    void *p = NULL;
    if (align < sizeof(void *))
        align = sizeof(void *);
    if (posix_memalign(&p, align, size) != 0)
        return NULL;
    return p;
}

static void libc_free(void *ctx, void *ptr)
{
    (void)ctx;
    free(ptr);
}

static const zkpipe_allocator libc_allocator = {libc_alloc, libc_free, NULL};

const zkpipe_allocator *zkpipe_allocator_default(void)
{
    return &libc_allocator;
}

const zkpipe_allocator *zkpipe__allocator_or_default(const zkpipe_allocator *a)
{
    if (a == NULL)
        return &libc_allocator;
    if (a->alloc == NULL || a->free == NULL)
        return NULL;
    return a;
}

void *zkpipe__alloc(const zkpipe_allocator *a, size_t size, size_t align)
{
    if (size == 0)
        size = 1;
    return a->alloc(a->ctx, size, align);
}

void *zkpipe__calloc(const zkpipe_allocator *a, size_t n, size_t size, size_t align)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    void *p = zkpipe__alloc(a, n * size, align);
    if (p != NULL)
        memset(p, 0, n * size);
    return p;
}

void zkpipe__free(const zkpipe_allocator *a, void *p)
{
    if (p != NULL)
        a->free(a->ctx, p);
}
