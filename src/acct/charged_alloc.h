/* An allocator that charges a ledger for each block it hands out and releases the charge when
 * the block is freed, so memory made by code that only takes a zkpipe_allocator (a circuit, an
 * NTT domain, MSM scratch) shows in the ledger exactly while it exists. */
#ifndef ZKPIPE_ACCT_CHARGED_ALLOC_H
#define ZKPIPE_ACCT_CHARGED_ALLOC_H

#include "zkpipe/acct.h"
#include "zkpipe/alloc.h"

typedef struct zkpipe__charged {
    zkpipe_allocator base; /* where the blocks come from */
    zkpipe_ledger *ledger; /* open while any block is live */
    uint32_t kind;
} zkpipe__charged;

/* The most a block is charged beyond its size: the header of the largest alignment a
 * zkpipe_allocator allows. */
#define ZKPIPE__CHARGED_HEADER_MAX 4096

/* An allocator over *c, valid while *c is. Each block is charged to c->ledger as one buffer
 * of c->kind with its whole size: the request plus a header of max(align, 16) bytes that
 * records it. A failed charge fails the allocation (NULL) with nothing left charged or held.
 * Its calls change the ledger, so they must not race with other calls on that ledger.
 * With no ledger (c->ledger NULL) there is nothing to charge: it is c->base itself. */
zkpipe_allocator zkpipe__charged_allocator(zkpipe__charged *c);

#endif
