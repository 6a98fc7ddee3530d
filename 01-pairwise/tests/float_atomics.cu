/**
 * @file float_atomics.cu
 * @brief v1 as the blog post wrote it: the result accumulated in one float by one atomicAdd per
 * thread. Linked with the real harness, so it is checked like a version; at n = 2^20 the check
 * fails, and the lesson page shows by how much. Not a lesson version: it is wrong on purpose.
 */
#include "cal.h"
#include "cl_cuda_check.h"
#include "pairwise.h"

#define BLOCK_SIZE 256
#define RUN        256

__global__ void pairs_float_total(const float *a, const float *b, size_t n, float *total)
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
    atomicAdd(total, s);
}

__global__ void float_to_double(const float *total, double *sum)
{
    *sum = *total;
}

size_t pairwise_workspace_bytes(size_t n)
{
    (void)n;
    return sizeof(float);
}

void pairwise_sum(const float *a, const float *b, size_t n, double *sum, void *workspace,
                  cudaStream_t stream)
{
    float *total = (float *)workspace;
    const dim3 grid((unsigned)((n + BLOCK_SIZE - 1) / BLOCK_SIZE), (unsigned)((n + RUN - 1) / RUN));
    CL_CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(float), stream));
    pairs_float_total<<<grid, BLOCK_SIZE, 0, stream>>>(a, b, n, total);
    CL_LAUNCH_CHECK("pairs_float_total");
    float_to_double<<<1, 1, 0, stream>>>(total, sum);
    CL_LAUNCH_CHECK("float_to_double");
}
