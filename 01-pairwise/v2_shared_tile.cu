/**
 * @file v2_shared_tile.cu
 * @brief v2: v1 with the block's run of b staged in shared memory once (tiling), every thread
 * reading it from there.
 *
 * In v1 each of the 256 threads of a block loads the same 256 b values from global memory (through
 * L1): 65536 load instructions per block. Here each thread loads one b value into the tile, and
 * the loop reads shared memory, which all 32 lanes of a warp read at one address (a broadcast). The
 * `__syncthreads()` between the loads and the loop is the barrier the blog post forgot: without it
 * a thread can read tile slots that other warps have not written yet (the page shows racecheck's
 * report on the blog post's form).
 */
#include "cal.h"
#include "cl_cuda_check.h"
#include "pairwise.h"

#define BLOCK_SIZE 256
#define RUN        BLOCK_SIZE /* one b value loaded per thread */

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
        for (unsigned i = 0; i < count; i++)
            s += cal(ax, tile_b[i]);
    }
    atomicAdd(sum, (double)s);
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
