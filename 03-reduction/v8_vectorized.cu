/**
 * @file v8_vectorized.cu
 * @brief v8: v7 with 16-byte loads, four of them in flight per thread before the first is used.
 *
 * v7 issues one 4-byte load per loop trip and waits for it before the next trip's add. A memory
 * system that takes ~600 ns per request needs about bandwidth × latency ≈ 2 MB in flight on an
 * H100 to stay busy; here each thread has 4 × 16 = 64 bytes outstanding instead of 4, with a
 * quarter of the load instructions (`LDG.E.128`). The n % 4 elements past the last whole vector are
 * added by the first threads. The input must be 16-byte aligned (cudaMalloc gives 256).
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

__global__ void reduce_kernel(const float *in, size_t n, float *block_sums)
{
    const float4 *in4 = (const float4 *)in;
    const size_t n4 = n / 4;
    const size_t stride = (size_t)gridDim.x * BLOCK_SIZE;
    const size_t thread = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    size_t i = thread;
    float x = 0.0f;
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
    x = block_sum(x);
    if (threadIdx.x == 0)
        block_sums[blockIdx.x] = x;
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
    return grid_for(n) * sizeof(float);
}

void reduce_sum(const float *in, size_t n, float *sum, void *workspace, cudaStream_t stream)
{
    float *block_sums = (float *)workspace;
    const size_t blocks = grid_for(n);
    reduce_kernel<<<(unsigned)blocks, BLOCK_SIZE, 0, stream>>>(in, n, block_sums);
    CL_LAUNCH_CHECK("reduce_kernel");
    reduce_kernel<<<1, BLOCK_SIZE, 0, stream>>>(block_sums, blocks, sum);
    CL_LAUNCH_CHECK("reduce_kernel (block sums)");
}
