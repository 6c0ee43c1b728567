/* What the launchers share (C++, for the .cu files only): CUDA errors turned into zkpipe_status
 * with the message kept, one device allocation carved into sub-buffers and charged to a
 * ledger, a pinned staging buffer, launch sizes, and the CUB calls (sort.cu). */
#ifndef ZKPIPE_CUDA_DEVICE_CUH
#define ZKPIPE_CUDA_DEVICE_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpipe/acct.h"
#include "zkpipe/status.h"

/* C linkage, so that the library's internal names stay plain zkpipe__ symbols in the archive
 * (tests/test_static_symbols.sh). */
extern "C" {

/* Threads per block of every kernel. */
#define ZKPIPE__CUDA_BLOCK 256u

/* Records "what: name: text" for `err` as this thread's last error; ZKPIPE_EDEVICE. */
zkpipe_status zkpipe__cuda_fail(cudaError_t err, const char *what);

/* Blocks for `threads` threads (0 when none: the caller skips the launch). */
static inline unsigned zkpipe__cuda_blocks(size_t threads)
{
    return (unsigned)((threads + ZKPIPE__CUDA_BLOCK - 1) / ZKPIPE__CUDA_BLOCK);
}

/* One device allocation: sub-buffers are planned (zkpipe__cuda_arena_plan returns each one's
 * offset), then allocated at once and addressed with zkpipe__cuda_arena_at. */
typedef struct zkpipe__cuda_arena {
    unsigned char *base;
    size_t bytes;
    zkpipe_ledger *ledger;
} zkpipe__cuda_arena;

size_t zkpipe__cuda_arena_plan(zkpipe__cuda_arena *a, size_t bytes);
/* Charges the ledger, then allocates; on error nothing stays charged or allocated. */
zkpipe_status zkpipe__cuda_arena_alloc(zkpipe__cuda_arena *a, zkpipe_ledger *ledger);
void zkpipe__cuda_arena_free(zkpipe__cuda_arena *a);
static inline void *zkpipe__cuda_arena_at(const zkpipe__cuda_arena *a, size_t offset)
{
    return a->base + offset;
}

/* Events around a call's device work: stop() waits for it and keeps the milliseconds between
 * start() and stop() as this thread's zkpipe__cuda_last_device_ms (-1 when an event call
 * failed: timing never fails a call). */
typedef struct zkpipe__cuda_timer {
    cudaEvent_t start, stop;
    bool ok;
} zkpipe__cuda_timer;

void zkpipe__cuda_timer_start(zkpipe__cuda_timer *t, cudaStream_t stream);
void zkpipe__cuda_timer_stop(zkpipe__cuda_timer *t, cudaStream_t stream);

/* Pinned host memory charged as ZKPIPE_KIND_ABC; free releases it (NULL p: a no-op). */
zkpipe_status zkpipe__cuda_pinned_alloc(void **p, size_t bytes, zkpipe_ledger *ledger);
void zkpipe__cuda_pinned_free(void *p, size_t bytes, zkpipe_ledger *ledger);

/* CUB's two-call pattern: with temp NULL, *temp_bytes receives the scratch size and nothing
 * runs. The sort orders (key, value) pairs by the keys' low end_bit bits; on return
 * *current says which of keys[0..1] / vals[0..1] holds the result. */
cudaError_t zkpipe__cuda_sort_pairs(void *temp, size_t *temp_bytes, uint32_t **keys,
                                    uint32_t **vals, int *current, uint32_t n, int end_bit,
                                    cudaStream_t stream);
cudaError_t zkpipe__cuda_exclusive_sum(void *temp, size_t *temp_bytes, const uint32_t *in,
                                       uint32_t *out, uint32_t n, cudaStream_t stream);
}

#endif
