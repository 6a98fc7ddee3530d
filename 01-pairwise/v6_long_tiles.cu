/**
 * @file v6_long_tiles.cu
 * @brief v6: v5 with each block walking 4096 b values in tiles of 1024, its float sums moved
 * to double after each tile.
 *
 * v5 gives each block one tile of 256 b values: a block loads its 8 a values per thread, runs a
 * short loop, reduces and issues an atomic, and that fixed cost is paid every 256 × 2048 pairs.
 * Here a block walks 4096 b values in tiles of 1024 (a barrier before each tile is overwritten
 * and after it is loaded), so the loads of a, the block sum and the atomic are paid 16 times less
 * often and the inner loop runs four times longer. A float sum then lives for one tile of 1024 b
 * values and moves to a double (a few DADDs per 8192 FADDs): float chains stay at 1024, so the
 * error bound holds at any n. The loop over one tile moves into pairs_with_tile().
 */
#include "cal.h"
#include "cl_cuda_check.h"
#include "pairwise.h"

#define BLOCK_SIZE   256
#define A_PER_THREAD 8
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

/* Adds, for each of the thread's a values, cal against tile[0..count) to totals (float inside the
   tile, double across tiles). */
static __device__ void pairs_with_tile(const float4 *tile, unsigned count,
                                       const float a_reg[A_PER_THREAD], double totals[A_PER_THREAD])
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
#pragma unroll
    for (int r = 0; r < A_PER_THREAD; r++)
        totals[r] += partial[r];
}

__global__ void __launch_bounds__(BLOCK_SIZE)
    pairs_kernel(const float *a, const float *b, size_t n, double *sum)
{
    __shared__ float4 tile_b[RUN / 4];
    __shared__ double warp_sums[WARPS];
    const size_t a_first = (size_t)blockIdx.x * A_PER_BLOCK + threadIdx.x;
    float a_reg[A_PER_THREAD];
    double totals[A_PER_THREAD];
#pragma unroll
    for (int r = 0; r < A_PER_THREAD; r++) {
        const size_t i = a_first + (size_t)r * BLOCK_SIZE;
        a_reg[r] = i < n ? a[i] : 0.0f;
        totals[r] = 0.0;
    }
    const size_t b_begin = (size_t)blockIdx.y * B_PER_BLOCK;
    const size_t b_end = n - b_begin < B_PER_BLOCK ? n : b_begin + B_PER_BLOCK;
    for (size_t t0 = b_begin; t0 < b_end; t0 += RUN) {
        const unsigned count = (unsigned)(b_end - t0 < RUN ? b_end - t0 : RUN);
        __syncthreads(); /* every warp is done with the previous tile */
        for (unsigned k = threadIdx.x; k < count; k += BLOCK_SIZE)
            ((float *)tile_b)[k] = b[t0 + k];
        __syncthreads();
        pairs_with_tile(tile_b, count, a_reg, totals);
    }
    double s = 0.0;
#pragma unroll
    for (int r = 0; r < A_PER_THREAD; r++)
        if (a_first + (size_t)r * BLOCK_SIZE < n) /* a values past n were placeholders */
            s += totals[r];
    s = warp_sum(s);
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
