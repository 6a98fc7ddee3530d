/**
 * @file v3_diagonal.cu
 * @brief v3: v2 with the blog post's "diagonal" order — thread t reads tile slot (t − i) mod 256 at
 * step i. A dead end, kept because measuring it teaches.
 *
 * The blog post's claim: when threads of a warp read the same shared-memory address there is a bank
 * conflict, so each lane should read a different slot. That is a myth: 32 lanes reading one word
 * is a broadcast, served in one pass, while 32 lanes reading 32 consecutive words hit 32 different
 * banks, also one pass. Neither order conflicts; the diagonal only adds index arithmetic and a
 * bounds test per pair. Kept as a version because measuring it teaches: the page shows the ncu
 * bank-conflict counters of v2 and v3 and what the extra instructions cost.
 */
#include "cal.h"
#include "cl_cuda_check.h"
#include "pairwise.h"

#define BLOCK_SIZE 256
#define RUN        BLOCK_SIZE /* one b value loaded per thread */

__global__ void pairs_diagonal(const float *a, const float *b, size_t n, double *sum)
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
    pairs_diagonal<<<grid, BLOCK_SIZE, 0, stream>>>(a, b, n, sum);
    CL_LAUNCH_CHECK("pairs_diagonal");
}
