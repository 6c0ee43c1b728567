/* Device discovery for backend selection, CUDA error messages, device and pinned memory. */
#include <stdio.h>

#include "cuda/cuda_backend.h"
#include "cuda/device.cuh"

/* Sub-buffers start on 256 bytes, the alignment cudaMalloc gives the whole block. */
#define ARENA_ALIGN 256

static thread_local char last_error[256];
static thread_local double last_device_ms = -1;

double zkpipe__cuda_last_device_ms(void)
{
    return last_device_ms;
}

void zkpipe__cuda_timer_start(zkpipe__cuda_timer *t, cudaStream_t stream)
{
    last_device_ms = -1;
    t->ok = cudaEventCreate(&t->start) == cudaSuccess;
    if (t->ok && cudaEventCreate(&t->stop) != cudaSuccess) {
        cudaEventDestroy(t->start);
        t->ok = false;
    }
    if (t->ok)
        t->ok = cudaEventRecord(t->start, stream) == cudaSuccess;
}

void zkpipe__cuda_timer_stop(zkpipe__cuda_timer *t, cudaStream_t stream)
{
    float ms;
    if (t->ok && cudaEventRecord(t->stop, stream) == cudaSuccess &&
        cudaEventSynchronize(t->stop) == cudaSuccess &&
        cudaEventElapsedTime(&ms, t->start, t->stop) == cudaSuccess)
        last_device_ms = ms;
    cudaGetLastError();
    if (t->ok) {
        cudaEventDestroy(t->start);
        cudaEventDestroy(t->stop);
    }
    t->ok = false;
}

const char *zkpipe__cuda_last_error(void)
{
    return last_error;
}

zkpipe_status zkpipe__cuda_fail(cudaError_t err, const char *what)
{
    snprintf(last_error, sizeof last_error, "%s: %s: %s", what, cudaGetErrorName(err),
             cudaGetErrorString(err));
    cudaGetLastError(); /* clears a non-sticky error so the thread's next call starts clean */
    return ZKPIPE_EDEVICE;
}

int zkpipe__cuda_probe(const char **why)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    cudaGetLastError();
    switch (err) {
    case cudaSuccess:
        break;
    case cudaErrorNoDevice:
        *why = "no CUDA device is present (cudaErrorNoDevice)";
        return 0;
    case cudaErrorInsufficientDriver:
        *why = "no CUDA driver, or one older than the plug-in's CUDA runtime, is installed "
               "(cudaErrorInsufficientDriver)";
        return 0;
    default:
        *why = "no CUDA device is usable (cudaGetDeviceCount failed)";
        return 0;
    }
    if (count == 0) {
        *why = "no CUDA device is present";
        return 0;
    }
    *why = "a CUDA device is present: the GPU runs the NTTs and G1 MSMs";
    return 1;
}

size_t zkpipe__cuda_arena_plan(zkpipe__cuda_arena *a, size_t bytes)
{
    size_t at = a->bytes;
    a->bytes += (bytes + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
    return at;
}

zkpipe_status zkpipe__cuda_arena_alloc(zkpipe__cuda_arena *a, zkpipe_ledger *ledger)
{
    zkpipe_status st;
    a->base = NULL;
    a->ledger = ledger;
    if (ledger != NULL &&
        (st = zkpipe__cuda_charge(ledger, ZKPIPE_KIND_DEVICE, a->bytes)) != ZKPIPE_OK) {
        a->ledger = NULL;
        return st;
    }
    cudaError_t err = cudaMalloc((void **)&a->base, a->bytes);
    if (err != cudaSuccess) {
        if (ledger != NULL)
            zkpipe__cuda_release(ledger, ZKPIPE_KIND_DEVICE, a->bytes);
        a->ledger = NULL;
        a->base = NULL;
        return zkpipe__cuda_fail(err, "cudaMalloc");
    }
    return ZKPIPE_OK;
}

void zkpipe__cuda_arena_free(zkpipe__cuda_arena *a)
{
    if (a->base == NULL)
        return;
    cudaFree(a->base);
    if (a->ledger != NULL)
        zkpipe__cuda_release(a->ledger, ZKPIPE_KIND_DEVICE, a->bytes);
    a->base = NULL;
}

zkpipe_status zkpipe__cuda_pinned_alloc(void **p, size_t bytes, zkpipe_ledger *ledger)
{
    zkpipe_status st;
    *p = NULL;
    if (ledger != NULL && (st = zkpipe__cuda_charge(ledger, ZKPIPE_KIND_ABC, bytes)) != ZKPIPE_OK)
        return st;
    cudaError_t err = cudaHostAlloc(p, bytes ? bytes : 1, cudaHostAllocDefault);
    if (err != cudaSuccess) {
        if (ledger != NULL)
            zkpipe__cuda_release(ledger, ZKPIPE_KIND_ABC, bytes);
        *p = NULL;
        return zkpipe__cuda_fail(err, "cudaHostAlloc");
    }
    return ZKPIPE_OK;
}

void zkpipe__cuda_pinned_free(void *p, size_t bytes, zkpipe_ledger *ledger)
{
    if (p == NULL)
        return;
    cudaFreeHost(p);
    if (ledger != NULL)
        zkpipe__cuda_release(ledger, ZKPIPE_KIND_ABC, bytes);
}
