/* An allocator that keeps one block mapped from one use to the next: a run of scratch blocks
 * allocated and freed one after another (the prover's G1 sums) then faults its pages in once,
 * not once a block. The kept block is as large as the largest request it served, at least the
 * size it was made with, and stays allocated from `base` (charged, when base is a charged
 * allocator) until zkpipe__kept_release. */
#ifndef ZKPIPE_CORE_KEPT_ALLOC_H
#define ZKPIPE_CORE_KEPT_ALLOC_H

#include "zkpipe/alloc.h"

typedef struct zkpipe__kept {
    zkpipe_allocator base; /* where every block comes from */
    size_t min_size;       /* the kept block's least size: the largest request expected */
    void *block;           /* the kept block, or NULL before the first request */
    size_t size, align;    /* its size and alignment */
    int busy;              /* handed out and not yet freed */
} zkpipe__kept;

/* An allocator over *k, valid while *k is; *k starts with no block (k->base and k->min_size
 * set by the caller, the rest zeroed). A request while the kept block is free takes it when it
 * fits, else the block is given back to base and a new one of max(size, min_size) bytes kept
 * instead; a request while it is out goes to base alone. Freeing the kept block keeps it.
 * Not thread-safe: calls must not race (as the charged allocator's, which it usually wraps). */
zkpipe_allocator zkpipe__kept_allocator(zkpipe__kept *k);

/* Gives the kept block back to base; it must not be out. Safe with no block. */
void zkpipe__kept_release(zkpipe__kept *k);

#endif
