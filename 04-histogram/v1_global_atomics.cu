/**
 * @file v1_global_atomics.cu
 * @brief v1: one thread per value, one atomicAdd on the global histogram per value (seed 001's
 * "simple" kernel, one element per thread).
 *
 * Every count is a read-modify-write in L2. With values spread over 256 bins, 256 addresses share
 * all the traffic; with every value in one bin, all n atomics queue on one L2 address and run one
 * after another. Unlike the seed, a value past the last bin is skipped instead of written out of
 * bounds, and counters are 64-bit (one bin can pass 2^32 at n >= 2^32).
 *
 * <!-- measured:begin -->
 * Measured on NVIDIA H100 80GB HBM3, 2026-11-22 (generated from docs/results/04-histogram.csv):
 * - n=2^28 bins=256 type=u32 dist=uniform:
 *   42.79709 ms, 6.27 Gelem/s = 0.8% of read bandwidth; 1.00x v1, 0.014x cub
 * - n=2^28 bins=256 type=u32 dist=one:
 *   196.98537 ms, 1.36 Gelem/s = 0.2% of read bandwidth; 1.00x v1, 0.003x cub
 * - n=2^28 bins=256 type=u32 dist=zipf:
 *   87.90482 ms, 3.05 Gelem/s = 0.4% of read bandwidth; 1.00x v1, 0.007x cub
 * - n=2^28 bins=4096 type=u32 dist=uniform:
 *   3.97674 ms, 67.50 Gelem/s = 9.0% of read bandwidth; 1.00x v1, 0.806x cub
 * - n=2^28 bins=4096 type=u32 dist=one:
 *   198.53131 ms, 1.35 Gelem/s = 0.2% of read bandwidth; 1.00x v1, 0.004x cub
 * - n=2^28 bins=4096 type=u32 dist=zipf:
 *   65.60274 ms, 4.09 Gelem/s = 0.5% of read bandwidth; 1.00x v1, 0.050x cub
 * - n=2^30 bins=256 type=u8 dist=uniform:
 *   170.91160 ms, 6.28 Gelem/s = 0.2% of read bandwidth; 1.00x v1, 0.003x cub
 * - n=2^30 bins=256 type=u8 dist=one:
 *   785.78491 ms, 1.37 Gelem/s = 0.0% of read bandwidth; 1.00x v1, 0.001x cub
 * - n=2^30 bins=256 type=u8 dist=zipf:
 *   350.56912 ms, 3.06 Gelem/s = 0.1% of read bandwidth; 1.00x v1, 0.001x cub
 * <!-- measured:end -->
 */
#include "cl_cuda_check.h"
#include "histogram.h"

#define BLOCK_SIZE 256

__global__ void histogram_global(const void *in, size_t n, int is_u8, unsigned bins,
                                 unsigned long long *hist)
{
    const size_t i = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (i >= n)
        return;
    const unsigned v = is_u8 ? ((const unsigned char *)in)[i] : ((const unsigned *)in)[i];
    if (v < bins)
        atomicAdd(&hist[v], 1ull);
}

size_t histogram_workspace_bytes(size_t n, unsigned bins, input_type type)
{
    (void)n, (void)bins, (void)type;
    return 0;
}

void histogram(const void *in, size_t n, input_type type, unsigned bins, unsigned long long *hist,
               void *workspace, cudaStream_t stream)
{
    (void)workspace;
    CL_CUDA_CHECK(cudaMemsetAsync(hist, 0, bins * sizeof(unsigned long long), stream));
    const size_t blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    histogram_global<<<(unsigned)blocks, BLOCK_SIZE, 0, stream>>>(in, n, type == TYPE_U8, bins,
                                                                  hist);
    CL_LAUNCH_CHECK("histogram_global");
}
