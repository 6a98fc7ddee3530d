/**
 * @file v1_thread_atomics.cu
 * @brief v1: one thread per container, one `atomicAdd` on the global count per container over the
 * limit (the post's first version, on CSR instead of its fixed-size structs).
 *
 * Each thread walks its own container. Neighbouring threads read floats 16 apart on average, so a
 * warp's load touches up to 32 different 32-byte sectors for 4 useful bytes each: the reads are not
 * coalesced, and only the L1 cache (which keeps the rest of each sector for the thread's next
 * loads) saves the bandwidth. On skewed lengths one thread may walk 65536 floats alone while its
 * warp waits. Every hit is an atomic on one address in L2; the page shows from the SASS whether
 * the compiler already aggregates them per warp.
 */
#include "cl_cuda_check.h"
#include "counting.h"

#define BLOCK_SIZE 256

__global__ void __launch_bounds__(BLOCK_SIZE)
    count_thread_atomics(const float *values, const size_t *offsets, size_t n, float limit,
                         unsigned long long *count)
{
    const size_t c = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (c >= n)
        return;
    float sum = 0.0f;
    for (size_t j = offsets[c]; j < offsets[c + 1]; j++)
        sum += values[j];
    if (sum > limit)
        atomicAdd(count, 1ull);
}

size_t count_workspace_bytes(size_t n, size_t total)
{
    (void)n, (void)total;
    return 0;
}

void count_over_limit(const float *values, const size_t *offsets, size_t n, size_t total,
                      float limit, unsigned long long *count, void *workspace, cudaStream_t stream)
{
    (void)total, (void)workspace;
    CL_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof *count, stream));
    const size_t blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    count_thread_atomics<<<(unsigned)blocks, BLOCK_SIZE, 0, stream>>>(values, offsets, n, limit,
                                                                      count);
    CL_LAUNCH_CHECK("count_thread_atomics");
}
