/**
 * @file unaggregated_atomics.cu
 * @brief Exercise "Unaggregated atomics" of 06-atomics-counting (part 1), a solution: v1 with one
 * atomic per container over the limit, the post's first version as the post imagined it, by an
 * address the compiler cannot prove is one.
 *
 * For `atomicAdd(count, 1ull)` ptxas emits a warp vote, a popcount and one reduction per warp
 * (v1's SASS), and it does the same for a `red.global.add` written as inline PTX: the aggregation
 * is in the PTX assembler, which sees the asm too. It aggregates only what it can prove goes to one
 * address, so here the address is count + (threadIdx.x & spread), where spread is a kernel argument
 * that is 0 at run time: the same counter, one reduction per hit thread, all on one L2 address.
 */
#include "cl_cuda_check.h"
#include "counting.h"

#define BLOCK_SIZE 256

__global__ void __launch_bounds__(BLOCK_SIZE)
    count_thread_atomics(const float *values, const size_t *offsets, size_t n, float limit,
                         unsigned long long *count, unsigned spread)
{
    const size_t c = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (c >= n)
        return;
    float sum = 0.0f;
    for (size_t j = offsets[c]; j < offsets[c + 1]; j++)
        sum += values[j];
    if (sum > limit) /* spread is 0: one counter, but no address ptxas can prove warp-uniform */
        atomicAdd(count + (threadIdx.x & spread), 1ull);
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
                                                                      count, 0u);
    CL_LAUNCH_CHECK("count_thread_atomics");
}
