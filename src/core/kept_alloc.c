/* The kept-block allocator (core/kept_alloc.h). */
#include "core/kept_alloc.h"

#include "core/alloc_internal.h"

static void *kept_alloc(void *ctx, size_t size, size_t align)
{
    zkpipe__kept *k = ctx;
    if (k->busy)
        return zkpipe__alloc(&k->base, size, align);
    if (k->block == NULL || size > k->size || align > k->align) {
        size_t want = size > k->min_size ? size : k->min_size;
        zkpipe__kept_release(k);
        if ((k->block = zkpipe__alloc(&k->base, want, align)) == NULL)
            return NULL;
        k->size = want;
        k->align = align;
    }
    k->busy = 1;
    return k->block;
}

static void kept_free(void *ctx, void *ptr)
{
    zkpipe__kept *k = ctx;
    if (ptr == k->block)
        k->busy = 0;
    else
        zkpipe__free(&k->base, ptr);
}

zkpipe_allocator zkpipe__kept_allocator(zkpipe__kept *k)
{
    zkpipe_allocator a = {kept_alloc, kept_free, k};
    return a;
}

void zkpipe__kept_release(zkpipe__kept *k)
{
    zkpipe__free(&k->base, k->block);
    k->block = NULL;
    k->size = k->align = 0;
    k->busy = 0;
}
