/**
 * @file v5_vector_broadcasts.cu
 * @brief v5: v4 with b read from shared memory four values at a time, one 16-byte broadcast.
 *
 * v4 issues one LDS per b value: one load instruction for every 16 FADDs. An LDS.128 of a float4
 * that every lane of the warp reads at the same address is still one broadcast, one pass of shared
 * memory, and it feeds 4 b values × 8 a values = 32 pairs = 64 FADDs: a quarter of the load
 * instructions and of their issue slots. The tile is declared as float4 so that the loads are
 * 16-byte aligned; a partial last tile (count below 256, any remainder) takes v4's scalar loop.
 */
#include "cal.h"
#include "cl_cuda_check.h"
#include "pairwise.h"

#define BLOCK_SIZE   256
#define A_PER_THREAD 8
#define A_PER_BLOCK  (BLOCK_SIZE * A_PER_THREAD)
#define RUN          BLOCK_SIZE /* one b value loaded per thread */
#define WARPS        (BLOCK_SIZE / 32)

static __device__ float warp_sum(float x)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        x += __shfl_down_sync(0xffffffffu, x, offset);
    return x;
}

__global__ void __launch_bounds__(BLOCK_SIZE)
    pairs_kernel(const float *a, const float *b, size_t n, double *sum)
{
    const size_t a_first = (size_t)blockIdx.x * A_PER_BLOCK + threadIdx.x;
    const size_t y = (size_t)blockIdx.y * RUN;
    const size_t count = n - y < RUN ? n - y : RUN;
    __shared__ float4 tile_b[RUN / 4];
    if (threadIdx.x < count)
        ((float *)tile_b)[threadIdx.x] = b[y + threadIdx.x];
    __syncthreads();
    float a_reg[A_PER_THREAD], partial[A_PER_THREAD];
#pragma unroll
    for (int r = 0; r < A_PER_THREAD; r++) {
        const size_t i = a_first + (size_t)r * BLOCK_SIZE;
        a_reg[r] = i < n ? a[i] : 0.0f;
        partial[r] = 0.0f;
    }
    if (count == RUN) {
#pragma unroll 4
        for (unsigned q = 0; q < RUN / 4; q++) {
            const float4 v = tile_b[q]; /* every lane reads the same address: one broadcast */
#pragma unroll
            for (int r = 0; r < A_PER_THREAD; r++) {
                partial[r] += cal(a_reg[r], v.x);
                partial[r] += cal(a_reg[r], v.y);
                partial[r] += cal(a_reg[r], v.z);
                partial[r] += cal(a_reg[r], v.w);
            }
        }
    } else { /* the last, partial tile: one value at a time */
        const float *scalars = (const float *)tile_b;
        for (unsigned i = 0; i < count; i++) {
            const float v = scalars[i];
#pragma unroll
            for (int r = 0; r < A_PER_THREAD; r++)
                partial[r] += cal(a_reg[r], v);
        }
    }
    float s = 0.0f;
#pragma unroll
    for (int r = 0; r < A_PER_THREAD; r++)
        if (a_first + (size_t)r * BLOCK_SIZE < n) /* a values past n were placeholders */
            s += partial[r];
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
    const dim3 grid((unsigned)((n + A_PER_BLOCK - 1) / A_PER_BLOCK),
                    (unsigned)((n + RUN - 1) / RUN));
    CL_CUDA_CHECK(cudaMemsetAsync(sum, 0, sizeof(double), stream));
    pairs_kernel<<<grid, BLOCK_SIZE, 0, stream>>>(a, b, n, sum);
    CL_LAUNCH_CHECK("pairs_kernel");
}
