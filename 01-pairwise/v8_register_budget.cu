/**
 * @file v8_register_budget.cu
 * @brief v8: v7 with 16 a values per thread, and the registers to schedule them: each 16-byte
 * broadcast of b feeds 64 pairs, and `__launch_bounds__(128, 1)` lets the compiler use up to 255
 * registers.
 *
 * v7 issues one LDS.128 per 64 FADDs and keeps a double per a value. Here a thread holds 16 a
 * values (one LDS.128 per 128 FADDs), and at the end of each 1024-value tile it adds its 16 float
 * sums in float (a chain of at most 1024 + 16 additions, inside PAIRWISE_MAX_FLOAT_CHAIN) into one
 * double, instead of 16 doubles. With only those changes the compiler keeps the kernel far
 * smaller, with room for several blocks per SM, short of the ceiling (exercise 2 measures it).
 * Declaring that one block per SM is enough (`__launch_bounds__(BLOCK_SIZE, 1)`) raises its
 * register budget: 151 registers, 3 blocks (12 warps) per SM, and a schedule that loses fewer issue
 * slots (ncu, on the results page: dispatch and barrier stalls nearly vanish). The candidates
 * measured on the way, with raw numbers, are in docs/results/01-pairwise-more-tries.txt.
 */
#include "cal.h"
#include "cl_cuda_check.h"
#include "pairwise.h"

#define BLOCK_SIZE   128
#define A_PER_THREAD 16
#define A_PER_BLOCK  (BLOCK_SIZE * A_PER_THREAD)
#define RUN          1024
#define B_PER_BLOCK  (4 * RUN)
#define WARPS        (BLOCK_SIZE / 32)

static __device__ double warp_sum(double x)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        x += __shfl_down_sync(0xffffffffu, x, offset);
    return x;
}

/* Returns the sum of cal over this thread's valid a values (the first @p valid) against
   tile[0..count), in float: each a value's sum over the tile, then those sums. */
static __device__ float pairs_with_tile(const float4 *tile, unsigned count,
                                        const float a_reg[A_PER_THREAD], int valid)
{
    float partial[A_PER_THREAD];
#pragma unroll
    for (int r = 0; r < A_PER_THREAD; r++)
        partial[r] = 0.0f;
    if (count == RUN) {
#pragma unroll 4
        for (unsigned q = 0; q < RUN / 4; q++) {
            const float4 v = tile[q]; /* every lane reads the same address: one broadcast */
#pragma unroll
            for (int r = 0; r < A_PER_THREAD; r++) {
                partial[r] += cal(a_reg[r], v.x);
                partial[r] += cal(a_reg[r], v.y);
                partial[r] += cal(a_reg[r], v.z);
                partial[r] += cal(a_reg[r], v.w);
            }
        }
    } else {
        const float *scalars = (const float *)tile;
        for (unsigned k = 0; k < count; k++) {
            const float v = scalars[k];
#pragma unroll
            for (int r = 0; r < A_PER_THREAD; r++)
                partial[r] += cal(a_reg[r], v);
        }
    }
    float tile_sum = 0.0f;
#pragma unroll
    for (int r = 0; r < A_PER_THREAD; r++)
        if (r < valid) /* a values past n were placeholders */
            tile_sum += partial[r];
    return tile_sum;
}

__global__ void __launch_bounds__(BLOCK_SIZE, 1)
    pairs_kernel(const float *a, const float *b, size_t n, double *sum)
{
    __shared__ float4 tile_b[RUN / 4];
    __shared__ double warp_sums[WARPS];
    const size_t a_first = (size_t)blockIdx.x * A_PER_BLOCK + threadIdx.x;
    float a_reg[A_PER_THREAD];
    int valid = 0; /* a values of this thread inside a[0..n): a_reg[0..valid) */
#pragma unroll
    for (int r = 0; r < A_PER_THREAD; r++) {
        const size_t i = a_first + (size_t)r * BLOCK_SIZE;
        a_reg[r] = i < n ? a[i] : 0.0f;
        valid += i < n;
    }
    double total = 0.0;
    const size_t b_begin = (size_t)blockIdx.y * B_PER_BLOCK;
    const size_t b_end = n - b_begin < B_PER_BLOCK ? n : b_begin + B_PER_BLOCK;
    for (size_t t0 = b_begin; t0 < b_end; t0 += RUN) {
        const unsigned count = (unsigned)(b_end - t0 < RUN ? b_end - t0 : RUN);
        __syncthreads(); /* every warp is done with the previous tile */
        for (unsigned k = threadIdx.x; k < count; k += BLOCK_SIZE)
            ((float *)tile_b)[k] = b[t0 + k];
        __syncthreads();
        total += pairs_with_tile(tile_b, count, a_reg, valid);
    }
    double s = warp_sum(total);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = warp_sum(threadIdx.x < WARPS ? warp_sums[threadIdx.x] : 0.0);
        if (threadIdx.x == 0)
            atomicAdd(sum, s);
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
                    (unsigned)((n + B_PER_BLOCK - 1) / B_PER_BLOCK));
    CL_CUDA_CHECK(cudaMemsetAsync(sum, 0, sizeof(double), stream));
    pairs_kernel<<<grid, BLOCK_SIZE, 0, stream>>>(a, b, n, sum);
    CL_LAUNCH_CHECK("pairs_kernel");
}
