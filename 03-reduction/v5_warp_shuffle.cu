/**
 * @file v5_warp_shuffle.cu
 * @brief v5: v4 with the last five steps in warp shuffles instead of shared memory and barriers.
 *
 * Once 64 partial sums remain, one warp finishes: each lane adds its two values, then
 * `__shfl_down_sync` moves registers between lanes directly — no shared-memory round trip and no
 * `__syncthreads()` for the 5 steps where only one warp works. The course notes' shuffle kernel
 * does the same; its excerpt sums `int` inputs in a `float` (exact only below 2^24) and writes the
 * float to an `int` array. Warp-synchronous code without `_sync` (the older recipe) is a race since
 * Volta.
 */
#include "cl_cuda_check.h"
#include "reduction.h"

#define BLOCK_SIZE         256
#define ELEMENTS_PER_BLOCK (2 * BLOCK_SIZE)

__global__ void reduce_kernel(const float *in, size_t n, float *block_sums)
{
    __shared__ float partial[BLOCK_SIZE];
    const unsigned t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * ELEMENTS_PER_BLOCK + t;
    float x = i < n ? in[i] : 0.0f;
    if (i + BLOCK_SIZE < n)
        x += in[i + BLOCK_SIZE];
    partial[t] = x;
    __syncthreads();
    for (unsigned stride = BLOCK_SIZE / 2; stride > 32; stride >>= 1) {
        if (t < stride)
            partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t < 32) {
        float s = partial[t] + partial[t + 32];
        for (int offset = 16; offset > 0; offset >>= 1)
            s += __shfl_down_sync(0xffffffffu, s, offset);
        if (t == 0)
            block_sums[blockIdx.x] = s;
    }
}

static void launch_pass(const float *in, size_t n, float *block_sums, size_t blocks,
                        cudaStream_t stream)
{
    reduce_kernel<<<(unsigned)blocks, BLOCK_SIZE, 0, stream>>>(in, n, block_sums);
    CL_LAUNCH_CHECK("reduce_kernel");
}

size_t reduce_workspace_bytes(size_t n)
{
    return passes_workspace_bytes(n, ELEMENTS_PER_BLOCK);
}

void reduce_sum(const float *in, size_t n, float *sum, void *workspace, cudaStream_t stream)
{
    reduce_in_passes(launch_pass, ELEMENTS_PER_BLOCK, in, n, sum, workspace, stream);
}
