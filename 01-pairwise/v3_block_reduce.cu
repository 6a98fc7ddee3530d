/**
 * @file v3_block_reduce.cu
 * @brief v3: v2 with the block adding up its 256 partial sums (warp shuffles, then the 8 warp
 * sums) before one thread issues the block's only atomicAdd.
 *
 * v1 and v2 issue one double atomicAdd per thread to one address: n^2/256 atomics that the L2
 * slice owning the address serialises, and they, not the loop, set the time. Here the block's 256
 * float sums meet in registers (`__shfl_down_sync`, 5 steps per warp), the 8 warp sums in shared
 * memory behind one barrier, and thread 0 adds the block's total: n^2/65536 atomics. From here on
 * the loop over the tile is what the time is made of.
 */
#include "cal.h"
#include "cl_cuda_check.h"
#include "pairwise.h"

#define BLOCK_SIZE 256
#define RUN        BLOCK_SIZE /* one b value loaded per thread */
#define WARPS      (BLOCK_SIZE / 32)

static __device__ float warp_sum(float x)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        x += __shfl_down_sync(0xffffffffu, x, offset);
    return x;
}

__global__ void __launch_bounds__(BLOCK_SIZE)
    pairs_kernel(const float *a, const float *b, size_t n, double *sum)
{
    const size_t x = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    const size_t y = (size_t)blockIdx.y * RUN;
    const size_t count = n - y < RUN ? n - y : RUN;
    __shared__ float tile_b[RUN];
    if (threadIdx.x < count)
        tile_b[threadIdx.x] = b[y + threadIdx.x];
    __syncthreads();
    float s = 0.0f;
    if (x < n) {
        const float ax = a[x];
        for (unsigned i = 0; i < count; i++)
            s += cal(ax, tile_b[i]);
    }
    __shared__ float warp_sums[WARPS];
    s = warp_sum(s);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = warp_sum(threadIdx.x < WARPS ? warp_sums[threadIdx.x] : 0.0f);
        if (threadIdx.x == 0)
            atomicAdd(sum, (double)s);
    }
}

size_t pairwise_workspace_bytes(size_t n)
{
    (void)n;
    return 0;
}

void pairwise_sum(const float *a, const float *b, size_t n, double *sum, void *workspace,
                  cudaStream_t stream)
{
    (void)workspace;
    const dim3 grid((unsigned)((n + BLOCK_SIZE - 1) / BLOCK_SIZE), (unsigned)((n + RUN - 1) / RUN));
    CL_CUDA_CHECK(cudaMemsetAsync(sum, 0, sizeof(double), stream));
    pairs_kernel<<<grid, BLOCK_SIZE, 0, stream>>>(a, b, n, sum);
    CL_LAUNCH_CHECK("pairs_kernel");
}
