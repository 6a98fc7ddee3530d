/**
 * @file v3_syncthreads_count.cu
 * @brief v3: v2 with `__syncthreads_count` — the barrier itself counts the threads whose container
 * is over the limit, and thread (0, 0) issues the block's one `atomicAdd`.
 *
 * v2's flags array and the 256-step serial sum in one thread disappear, and the barrier does the
 * counting: the hardware reduces a predicate across the block while it synchronizes, in the time
 * of a barrier.
 * What remains is the same uncoalesced walk of one container per thread.
 */
#include "cl_cuda_check.h"
#include "counting.h"

#define SIDE 16 /* blocks of SIDE x SIDE threads, as the post's BLOCK_SIZE */

__global__ void __launch_bounds__(SIDE *SIDE)
    count_syncthreads_count(const float *values, const size_t *offsets, size_t n, float limit,
                            unsigned long long *count)
{
    const size_t c = (size_t)blockIdx.x * SIDE * SIDE + threadIdx.y * SIDE + threadIdx.x;
    float sum = 0.0f;
    if (c < n)
        for (size_t j = offsets[c]; j < offsets[c + 1]; j++)
            sum += values[j];
    const int block_count = __syncthreads_count(c < n && sum > limit);
    if (threadIdx.x == 0 && threadIdx.y == 0 && block_count)
        atomicAdd(count, (unsigned long long)block_count);
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
    const size_t blocks = (n + SIDE * SIDE - 1) / (SIDE * SIDE);
    count_syncthreads_count<<<(unsigned)blocks, dim3(SIDE, SIDE), 0, stream>>>(values, offsets, n,
                                                                               limit, count);
    CL_LAUNCH_CHECK("count_syncthreads_count");
}
