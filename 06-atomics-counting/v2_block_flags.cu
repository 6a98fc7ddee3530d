/**
 * @file v2_block_flags.cu
 * @brief v2: v1 with the post's block version — a shared array of flags, one thread adds them up,
 * one `atomicAdd` per block.
 *
 * Blocks of 16 × 16 threads as in the post, each thread writes 1 or 0 into the shared array, and
 * after a barrier thread (0, 0) adds the 256 flags one by one: 256 dependent shared loads and adds
 * while 255 threads wait, to save 255 atomics that the hardware would have spread over time. The
 * post's index `y*(blockDim.x*blockIdx.x) + x` is replaced by the block's containers numbered row
 * by row (the page shows what the post's formula reads: half the containers never, others 16
 * times), its grid of n / 256 blocks is rounded up, and threads past the last container flag 0.
 * The flags are stored row-major, `flags[y][x]`; the post's `r[x][y]` made the 16 threads of a
 * row write 16 words apart: a warp's 32 flags land in 4 banks, an 8-way bank conflict.
 */
#include "cl_cuda_check.h"
#include "counting.h"

#define SIDE 16 /* blocks of SIDE x SIDE threads, as the post's BLOCK_SIZE */

__global__ void __launch_bounds__(SIDE *SIDE)
    count_block_flags(const float *values, const size_t *offsets, size_t n, float limit,
                      unsigned long long *count)
{
    __shared__ int flags[SIDE][SIDE];
    const size_t c = (size_t)blockIdx.x * SIDE * SIDE + threadIdx.y * SIDE + threadIdx.x;
    float sum = 0.0f;
    if (c < n)
        for (size_t j = offsets[c]; j < offsets[c + 1]; j++)
            sum += values[j];
    flags[threadIdx.y][threadIdx.x] = c < n && sum > limit;
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        unsigned long long block_count = 0;
        for (int y = 0; y < SIDE; y++)
            for (int x = 0; x < SIDE; x++)
                block_count += flags[y][x];
        if (block_count)
            atomicAdd(count, block_count);
    }
}

size_t count_workspace_bytes(size_t n, size_t total)
{
    (void)n, (void)total;
    return 0;
}

void count_over_limit(const float *values, const size_t *offsets, size_t n, size_t total,
                      float limit, unsigned long long *count, void *workspace, cudaStream_t stream)
{
    (void)total, (void)workspace;
    CL_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof *count, stream));
    const size_t blocks = (n + SIDE * SIDE - 1) / (SIDE * SIDE);
    count_block_flags<<<(unsigned)blocks, dim3(SIDE, SIDE), 0, stream>>>(values, offsets, n, limit,
                                                                         count);
    CL_LAUNCH_CHECK("count_block_flags");
}
