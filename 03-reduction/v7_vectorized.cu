/**
 * @file v7_vectorized.cu
 * @brief v7: 16-byte loads, four of them in flight per thread before the first is used.
 *
 * v6 issues one 4-byte load per loop trip and waits for it before the next trip's add. A memory
 * system that takes ~600 ns per request needs about bandwidth × latency ≈ 2 MB in flight on an
 * H100 to stay busy; here each thread has 4 × 16 = 64 bytes outstanding instead of 4, with a
 * quarter of the load instructions (`LDG.E.128`). The n % 4 elements past the last whole vector are
 * added by the first threads. The input must be 16-byte aligned (cudaMalloc gives 256).
 *
 *
 * <!-- measured:begin -->
 * Measured on NVIDIA H100 80GB HBM3, 2026-11-22 (generated from docs/results/03-reduction.csv):
 * - n=2^20 dist=real:
 *   0.01043 ms, 402.06 GB/s = 13.4% of read bandwidth; 1.49x v1, 1.040x cub
 * - n=2^22 dist=real:
 *   0.01722 ms, 974.51 GB/s = 32.5% of read bandwidth; 1.80x v1, 0.971x cub
 * - n=2^24 dist=real:
 *   0.04006 ms, 1675.04 GB/s = 55.7% of read bandwidth; 2.28x v1, 0.983x cub
 * - n=2^26 dist=real:
 *   0.11763 ms, 2281.99 GB/s = 76.1% of read bandwidth; 2.63x v1, 1.003x cub
 * - n=2^28 dist=real:
 *   0.36058 ms, 2977.85 GB/s = 99.1% of read bandwidth; 3.29x v1, 0.995x cub
 * <!-- measured:end -->
 */
#include "cl_cuda_check.h"
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

__global__ void reduce_vectorized(const float *in, size_t n, float *block_sums)
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

/* Blocks the whole GPU holds at once; asked once, outside the timed launches that follow. */
static size_t resident_blocks(void)
{
    static size_t blocks = 0;
    if (blocks == 0) {
        int device, sms, per_sm;
        CL_CUDA_CHECK(cudaGetDevice(&device));
        CL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        CL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_vectorized,
                                                                    BLOCK_SIZE, 0));
        blocks = (size_t)sms * (size_t)per_sm;
        if (blocks < MIN_BLOCKS)
            blocks = MIN_BLOCKS;
    }
    return blocks;
}

static size_t grid_for(size_t n)
{
    const size_t wanted = (n + 4 * BLOCK_SIZE - 1) / (4 * BLOCK_SIZE);
    const size_t limit = resident_blocks();
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
    reduce_vectorized<<<(unsigned)blocks, BLOCK_SIZE, 0, stream>>>(in, n, block_sums);
    CL_LAUNCH_CHECK("reduce_vectorized");
    reduce_vectorized<<<1, BLOCK_SIZE, 0, stream>>>(block_sums, blocks, sum);
    CL_LAUNCH_CHECK("reduce_vectorized (block sums)");
}
