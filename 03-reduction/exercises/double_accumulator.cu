/**
 * @file double_accumulator.cu
 * @brief Exercise "A double accumulator" of 03-reduction, a solution: v9 with each thread's
 * running sum in double.
 *
 * The loop adds ~n / (blocks × 512) floats per thread, the longest addition chain of the whole
 * sum; in double its rounding error is 2^29 times smaller, while the block sums and the final sum
 * stay in float. The loop's float4 adds still pair values in float before they reach the double.
 * Whether it costs time depends on the GPU's FP64 rate: the loop adds one double per 64 bytes read
 * (four float4 summed in float first).
 */
#include "cl_cuda_check.h"
#include "cl_device.h"
#include "reduction.h"

#define BLOCK_SIZE 512
#define WARPS      (BLOCK_SIZE / 32)
#define MIN_BLOCKS 256

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

/* workspace: a counter in the first 16 bytes, then one sum per block (16-byte aligned). */
#define SUMS_OFFSET 4

__global__ void reduce_kernel(const float *in, size_t n, float *sum, unsigned *blocks_done,
                              float *block_sums)
{
    __shared__ bool is_last_block;
    const float4 *in4 = (const float4 *)in;
    const size_t n4 = n / 4;
    const size_t stride = (size_t)gridDim.x * BLOCK_SIZE;
    const size_t thread = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    size_t i = thread;
    double x = 0.0; /* the one change: each thread's running sum in double */
    for (; i + 3 * stride < n4; i += 4 * stride) {
        const float4 a = in4[i], b = in4[i + stride], c = in4[i + 2 * stride],
                     d = in4[i + 3 * stride];
        x += ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w)) +
             (((c.x + c.y) + (c.z + c.w)) + ((d.x + d.y) + (d.z + d.w)));
    }
    for (; i < n4; i += stride) {
        const float4 a = in4[i];
        x += (a.x + a.y) + (a.z + a.w);
    }
    if (4 * n4 + thread < n)
        x += in[4 * n4 + thread];
    const float block_total = block_sum((float)x);
    if (threadIdx.x == 0) {
        block_sums[blockIdx.x] = block_total;
        __threadfence();
        is_last_block = atomicAdd(blocks_done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last_block)
        return;
    float y = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK_SIZE)
        y += __ldcg(&block_sums[b]);
    y = block_sum(y);
    if (threadIdx.x == 0) {
        *sum = y;
        *blocks_done = 0;
    }
}

static size_t grid_for(size_t n)
{
    /* four float4 a thread, the loop's whole body (64 bytes in flight), up to the blocks the
       whole GPU holds at once (at least MIN_BLOCKS); a small input needs no more blocks than
       that, and each block more is one more sum to add at the end */
    const size_t wanted = (n + 16 * BLOCK_SIZE - 1) / (16 * BLOCK_SIZE);
    size_t limit = cl_resident_blocks((const void *)reduce_kernel, BLOCK_SIZE, 0);
    limit = limit > MIN_BLOCKS ? limit : MIN_BLOCKS;
    return wanted < limit ? wanted : limit;
}

size_t reduce_workspace_bytes(size_t n)
{
    return (SUMS_OFFSET + grid_for(n)) * sizeof(float);
}

void reduce_sum(const float *in, size_t n, float *sum, void *workspace, cudaStream_t stream)
{
    unsigned *blocks_done = (unsigned *)workspace;
    float *block_sums = (float *)workspace + SUMS_OFFSET;
    reduce_kernel<<<(unsigned)grid_for(n), BLOCK_SIZE, 0, stream>>>(in, n, sum, blocks_done,
                                                                    block_sums);
    CL_LAUNCH_CHECK("reduce_kernel");
}
