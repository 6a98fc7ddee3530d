/**
 * @file v3_sequential.cu
 * @brief v3: v2 with sequential addressing — the stride starts at half the block and halves.
 *
 * Thread t adds element t + stride to element t. The active threads stay the lowest-numbered ones
 * (no divergence until fewer than 32 remain) and a warp reads 32 consecutive words (no bank
 * conflict). This is the "divergence-free" loop of the course notes and the control-flow slides,
 * corrected: the course notes' `stride >> 1` never changes `stride`, so its loop never ends.
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
    for (unsigned stride = BLOCK_SIZE / 2; stride > 0; stride >>= 1) {
        if (t < stride)
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
