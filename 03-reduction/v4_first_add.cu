/**
 * @file v4_first_add.cu
 * @brief v4: v3 with the first addition done during the load — each block covers 2 × 256
 * elements.
 *
 * In v3 half the threads go idle after the first step, and each pass launches one block per 256
 * inputs. Here every thread loads two elements 256 apart (both loads coalesced) and adds them
 * before the tree: half the blocks, half the shared-memory traffic per input, the same tree.
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
    return passes_workspace_bytes(n, ELEMENTS_PER_BLOCK);
}

void reduce_sum(const float *in, size_t n, float *sum, void *workspace, cudaStream_t stream)
{
    reduce_in_passes(launch_pass, ELEMENTS_PER_BLOCK, in, n, sum, workspace, stream);
}
