/**
 * @file v1_global_atomics.cu
 * @brief v1: one thread per value, one atomicAdd on the global histogram per value (the course
 * notes' "simple" kernel, one element per thread).
 *
 * Every count is a read-modify-write in L2. With values spread over 256 bins, 256 addresses share
 * all the traffic; with every value in one bin, all n atomics queue on one L2 address and run one
 * after another. Unlike the course notes, a value past the last bin is skipped instead of written
 * out of bounds, and counters are 64-bit (one bin can pass 2^32 at n >= 2^32).
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
