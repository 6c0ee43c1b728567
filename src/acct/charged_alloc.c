/* Ledger-charging allocator: a header in front of each block says how far back the block
 * starts and how many bytes were charged, so the free releases exactly the charge. */
#include <string.h>

#include "acct/charged_alloc.h"

#define HEADER_MIN 16 /* room for the two words below */

typedef struct header {
    uint64_t offset; /* from the block's start to the pointer handed out */
    uint64_t bytes;  /* charged: the whole block */
} header;

static void *charged_alloc(void *ctx, size_t size, size_t align)
{
    zkpipe__charged *c = ctx;
    size_t offset = align > HEADER_MIN ? align : HEADER_MIN;
    if (size > SIZE_MAX - offset)
        return NULL;
    unsigned char *block = c->base.alloc(c->base.ctx, size + offset, offset);
    if (block == NULL)
        return NULL;
    header h = {offset, size + offset};
    if (zkpipe_ledger_charge(c->ledger, c->kind, h.bytes) != ZKPIPE_OK) {
        c->base.free(c->base.ctx, block);
        return NULL;
    }
    memcpy(block + offset - sizeof h, &h, sizeof h);
    return block + offset;
}

static void charged_free(void *ctx, void *ptr)
{
    zkpipe__charged *c = ctx;
    header h;
    memcpy(&h, (unsigned char *)ptr - sizeof h, sizeof h);
    zkpipe_ledger_release(c->ledger, c->kind, h.bytes);
    c->base.free(c->base.ctx, (unsigned char *)ptr - h.offset);
}

zkpipe_allocator zkpipe__charged_allocator(zkpipe__charged *c)
{
    if (c->ledger == NULL)
        return c->base;
    zkpipe_allocator a = {charged_alloc, charged_free, c};
    return a;
}
