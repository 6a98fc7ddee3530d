/**
 * @file v7_coarsened.cu
 * @brief v7: v6 with thread coarsening — a grid sized to fill the GPU once, each thread summing
 * many elements in a grid-stride loop, then one small second launch over the block sums.
 *
 * v1 to v6 start one thread per two inputs and pay for a whole block sum per 512 inputs, and a
 * launch per pass. Here each thread first adds ~n / (blocks × 512) elements in registers (no
 * shared memory, no barrier), and v6's block sum runs once per block. The grid is what the GPU
 * holds at once (multiprocessors × resident blocks, at least 256 blocks so that no thread chains
 * more than n/65536 additions), and blocks grow to 512 threads: with one block sum per block, a
 * bigger block means fewer block sums for the second launch (512 measured best for v9 on the H100
 * at 2^20 and 2^28, so v7 to v9 share it). Past 2^24 it gains little on v6: one 4-byte load in
 * flight per thread is too little to cover DRAM latency with a grid this small (see v8). The course
 * notes' coarsened kernel uses `unsigned int` indices, so `i += gridSize` wraps for n near 2^32;
 * here indices are size_t.
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
    const size_t stride = (size_t)gridDim.x * BLOCK_SIZE;
    float x = 0.0f;
    for (size_t i = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x; i < n; i += stride)
        x += in[i];
    x = block_sum(x);
    if (threadIdx.x == 0)
        block_sums[blockIdx.x] = x;
}

static size_t grid_for(size_t n)
{
    const size_t wanted = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    /* blocks the whole GPU holds at once, and at least MIN_BLOCKS */
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
