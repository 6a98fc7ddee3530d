/**
 * @file diagonal.cu
 * @brief Exercise "The diagonal" of 01-pairwise, a solution: v3 with the blog post's "diagonal"
 * order of the tile, its cure for bank conflicts.
 *
 * Thread t reads slot (t + RUN - i) % RUN at step i, so the 32 lanes of a warp read 32 different
 * words, one per bank, where v3's lanes all read the same word. A conflict is two lanes reading
 * different words of one bank; all lanes reading one word is a broadcast, served in one pass, so
 * v3 has no conflict to remove, and the diagonal only adds the `%` and a bounds test per pair.
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

__global__ void pairs_kernel(const float *a, const float *b, size_t n, double *sum)
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
        for (unsigned i = 0; i < RUN; i++) {
            const unsigned slot = (threadIdx.x + RUN - i) % RUN;
            if (slot < count)
                s += cal(ax, tile_b[slot]);
        }
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
