/**
 * @file baseline_cub.cu
 * @brief The library baseline: cub::DeviceReduce::Sum from the CUDA toolkit's CCCL.
 *
 * CUB picks its tile size and grid per architecture and, above one tile, reduces in two launches
 * (tiles to partial sums, then the partial sums). It is the speed to match.
 *
 * <!-- measured:begin -->
 * Measured on NVIDIA H100 80GB HBM3, 2026-11-22 (generated from docs/results/03-reduction.csv):
 * - n=2^20 dist=real:
 *   0.01085 ms, 386.64 GB/s = 12.9% of read bandwidth; 1.43x v1, 1.000x cub
 * - n=2^22 dist=real:
 *   0.01672 ms, 1003.42 GB/s = 33.4% of read bandwidth; 1.86x v1, 1.000x cub
 * - n=2^24 dist=real:
 *   0.03939 ms, 1703.62 GB/s = 56.8% of read bandwidth; 2.32x v1, 1.000x cub
 * - n=2^26 dist=real:
 *   0.11802 ms, 2274.57 GB/s = 75.9% of read bandwidth; 2.62x v1, 1.000x cub
 * - n=2^28 dist=real:
 *   0.35890 ms, 2991.79 GB/s = 99.7% of read bandwidth; 3.30x v1, 1.000x cub
 * <!-- measured:end -->
 */
#include "cl_cuda_check.h"
#include "reduction.h"

#include <cub/device/device_reduce.cuh>

size_t reduce_workspace_bytes(size_t n)
{
    /* Asked once per size: the query is host work that should stay out of the timed launches. */
    static size_t cached_n = 0, cached_bytes = 0;
    if (n != cached_n) {
        cached_bytes = 0;
        CL_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, cached_bytes, (const float *)nullptr,
                                             (float *)nullptr, n));
        cached_n = n;
    }
    return cached_bytes;
}

void reduce_sum(const float *in, size_t n, float *sum, void *workspace, cudaStream_t stream)
{
    size_t bytes = reduce_workspace_bytes(n);
    CL_CUDA_CHECK(cub::DeviceReduce::Sum(workspace, bytes, in, sum, n, stream));
}
