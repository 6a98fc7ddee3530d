/**
 * @file v6_block_shuffle.cu
 * @brief v6: v5 with the whole block sum in warp shuffles — each warp shuffles its 32 values down
 * to one, the warp sums meet in shared memory behind one barrier, and one warp adds them.
 *
 * v5 still walks three levels of the tree through shared memory (256 → 128 → 64 values), each
 * behind a `__syncthreads()` that stalls the whole block, before its last warp shuffles. Here every
 * warp reduces its own 32 values in registers at once (5 shuffles, no barrier: a warp's lanes are
 * in step), lane 0 of each writes one warp sum, and after a single barrier the first warp shuffles
 * the 8 warp sums. Fewer barriers and fewer shared-memory round trips per 512 inputs; the launch
 * and the loads are v5's.
 */
#include "cl_cuda_check.h"
#include "reduction.h"

#define BLOCK_SIZE         256
#define WARPS              (BLOCK_SIZE / 32)
#define ELEMENTS_PER_BLOCK (2 * BLOCK_SIZE)

static __device__ float warp_sum(float x)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        x += __shfl_down_sync(0xffffffffu, x, offset);
    return x;
}

/* The block's total, valid in thread 0. */
static __device__ float block_sum(float x)
{
    __shared__ float warp_sums[WARPS];
    x = warp_sum(x);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = x;
    __syncthreads();
    x = threadIdx.x < WARPS ? warp_sums[threadIdx.x] : 0.0f;
    return threadIdx.x < 32 ? warp_sum(x) : x;
}

__global__ void reduce_kernel(const float *in, size_t n, float *block_sums)
{
    const unsigned t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * ELEMENTS_PER_BLOCK + t;
    float x = i < n ? in[i] : 0.0f;
    if (i + BLOCK_SIZE < n)
        x += in[i + BLOCK_SIZE];
    x = block_sum(x);
    if (t == 0)
        block_sums[blockIdx.x] = x;
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
