/**
 * @file v1_per_thread.cu
 * @brief v1: each thread takes one a[i] and a run of 256 b values, then adds its partial sum to
 * the result with one atomicAdd (the blog post's first version).
 *
 * The a reads are coalesced (consecutive threads, consecutive a[i]); every thread of a warp reads
 * the same b[j] at the same time, which the L1 cache serves as one broadcast. The cost is the
 * atomics: n²/256 of them on one address, serialised in L2. Unlike the blog post, the result is a
 * double: one float accumulator receiving n²/256 partial sums of ~100 stops changing once it is
 * large (its ulp passes the increments), see the page. Each partial is a float chain of 256 adds.
 */
#include "cal.h"
#include "cl_cuda_check.h"
#include "pairwise.h"

#define BLOCK_SIZE 256
#define RUN        256 /* b values per thread: the blog post's N_ITERATIONS */

__global__ void pairs_kernel(const float *a, const float *b, size_t n, double *sum)
{
    const size_t x = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    const size_t y = (size_t)blockIdx.y * RUN;
    const size_t count = n - y < RUN ? n - y : RUN;
    float s = 0.0f;
    if (x < n) {
        const float ax = a[x];
        for (size_t i = 0; i < count; i++)
            s += cal(ax, b[y + i]);
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
