/* The CUB primitives the MSM uses, instantiated once here (CUB's radix sort is the slowest
 * thing in the build to compile). */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "cuda/device.cuh"

cudaError_t zkpipe__cuda_sort_pairs(void *temp, size_t *temp_bytes, uint32_t **keys,
                                    uint32_t **vals, int *current, uint32_t n, int end_bit,
                                    cudaStream_t stream)
{
    cub::DoubleBuffer<uint32_t> k(keys[0], keys[1]), v(vals[0], vals[1]);
    cudaError_t err =
        cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, k, v, n, 0, end_bit, stream);
    *current = k.selector;
    return err;
}

cudaError_t zkpipe__cuda_exclusive_sum(void *temp, size_t *temp_bytes, const uint32_t *in,
                                       uint32_t *out, uint32_t n, cudaStream_t stream)
{
    return cub::DeviceScan::ExclusiveSum(temp, *temp_bytes, in, out, n, stream);
}
