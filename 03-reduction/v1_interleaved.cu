/**
 * @file v1_interleaved.cu
 * @brief v1: interleaved addressing with the divergent test `t % (2 * stride) == 0`.
 *
 * The classic first tree: each block loads 256 values into shared memory and halves them in
 * log2(256) = 8 steps, and the block sums are reduced again by further passes. At step s only the
 * threads whose index is a multiple of 2s work, but they are spread over every warp, so every warp
 * stays busy issuing instructions for a few active lanes (divergence), and `%` is an integer
 * division. This is the course notes' "naive" loop corrected: its `stride < blockDim.x / 2` stops
 * one step early and it never synchronises between steps.
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
        if (t % (2 * stride) == 0)
            partial[t] += partial[t + stride];
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
