/**
 * @file v2_strided_index.cu
 * @brief v2: v1 with thread t working on element 2 * stride * t: interleaved addressing without
 * the divergent test.
 *
 * Same tree as v1, new mapping: the active threads are now the lowest-numbered ones, so whole warps
 * drop out together and the `%` is gone (less divergence, fewer instructions). The cost moves to
 * shared memory: at stride s, lane t touches word 2st, so a warp's accesses fall into fewer banks
 * as s grows — a 2-, 4-, then 8-way bank conflict (in a block of 256, the lanes at work share 4
 * banks at stride 4, 2 at stride 8 and one at stride 16).
 */
#include "cl_cuda_check.h"
#include "reduction.h"

#define BLOCK_SIZE 256

__global__ void reduce_kernel(const float *in, size_t n, float *block_sums)
{
    __shared__ float partial[BLOCK_SIZE];
    const unsigned t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * BLOCK_SIZE + t;
    partial[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = 1; stride < BLOCK_SIZE; stride *= 2) {
        const unsigned index = 2 * stride * t;
        if (index < BLOCK_SIZE)
            partial[index] += partial[index + stride];
        __syncthreads();
    }
    if (t == 0)
        block_sums[blockIdx.x] = partial[0];
}

static void launch_pass(const float *in, size_t n, float *block_sums, size_t blocks,
                        cudaStream_t stream)
{
    reduce_kernel<<<(unsigned)blocks, BLOCK_SIZE, 0, stream>>>(in, n, block_sums);
    CL_LAUNCH_CHECK("reduce_kernel");
}

size_t reduce_workspace_bytes(size_t n)
{
    return passes_workspace_bytes(n, BLOCK_SIZE);
}

void reduce_sum(const float *in, size_t n, float *sum, void *workspace, cudaStream_t stream)
{
    reduce_in_passes(launch_pass, BLOCK_SIZE, in, n, sum, workspace, stream);
}
