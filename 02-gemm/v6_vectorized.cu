/**
 * @file v6_vectorized.cu
 * @brief v6: v5 with 16-byte loads from global and shared memory, the tile of A stored
 * transposed.
 *
 * v5 loads the tiles from global memory one float at a time, and its inner loop reads its 8
 * values of A from 8 different rows of the A tile (ptxas already pairs them into 16-byte shared
 * loads across the unrolled loop: v5's SASS has as many LDS.128 as v6's). Here each thread loads
 * one float4 of A and one of B per tile (where the row is 16-byte aligned and the 4 floats are
 * inside the matrix; else 4 scalar loads), and writes the A values transposed, so that a thread's
 * 8 values of A for step p are contiguous. It buys fewer load instructions (2 per tile instead of
 * 8) and one register: 128 instead of v5's 129, so two blocks fit an SM (exercise 4, v5 with two
 * blocks and nothing else, gets about half of v6's gain).
 */
#include "cl_cuda_check.h"
#include "gemm.h"

#define BM      128
#define BN      128
#define BK      8
#define TM      8
#define TN      8
#define THREADS (BM * BN / (TM * TN)) /* 256 */

/* Four floats row[col..col+3], those past @p limit replaced by @p pad: one 16-byte load when the
   row's start is 16-byte aligned (its length a multiple of 4) and all four are inside. */
static __device__ __forceinline__ float4 load4(const float *row, int col, int limit, int aligned,
                                               float pad)
{
    if (aligned && col + 3 < limit)
        return *(const float4 *)(row + col);
    float4 v;
    v.x = col < limit ? row[col] : pad;
    v.y = col + 1 < limit ? row[col + 1] : pad;
    v.z = col + 2 < limit ? row[col + 2] : pad;
    v.w = col + 3 < limit ? row[col + 3] : pad;
    return v;
}

static __device__ __forceinline__ void blocked_tile(const float *a, const float *b, float *c, int m,
                                                    int n, int k, semiring ring)
{
    __shared__ __align__(16) float tile_a[BK * BM]; /* transposed: tile_a[p * BM + row] */
    __shared__ __align__(16) float tile_b[BK * BN];
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;
    const int thread_col = threadIdx.x % (BN / TN), thread_row = threadIdx.x / (BN / TN);
    const int a_row = threadIdx.x / (BK / 4), a_col = threadIdx.x % (BK / 4) * 4;
    const int b_row = threadIdx.x / (BN / 4), b_col = threadIdx.x % (BN / 4) * 4;
    const float pad = semiring_zero(ring);
    float acc[TM][TN], a_values[TM], b_values[TN];
    for (int r = 0; r < TM; r++)
        for (int q = 0; q < TN; q++)
            acc[r][q] = semiring_zero(ring);
    for (int t = 0; t < k; t += BK) {
        const int ga_row = block_row + a_row, gb_row = t + b_row;
        const float4 av = ga_row < m ? load4(a + (size_t)ga_row * k, t + a_col, k, k % 4 == 0, pad)
                                     : make_float4(pad, pad, pad, pad);
        tile_a[(a_col + 0) * BM + a_row] = av.x;
        tile_a[(a_col + 1) * BM + a_row] = av.y;
        tile_a[(a_col + 2) * BM + a_row] = av.z;
        tile_a[(a_col + 3) * BM + a_row] = av.w;
        const float4 bv = gb_row < k
                              ? load4(b + (size_t)gb_row * n, block_col + b_col, n, n % 4 == 0, pad)
                              : make_float4(pad, pad, pad, pad);
        *(float4 *)&tile_b[b_row * BN + b_col] = bv;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < BK; p++) {
            const float4 *a_row_p = (const float4 *)&tile_a[p * BM + thread_row * TM];
            const float4 *b_row_p = (const float4 *)&tile_b[p * BN + thread_col * TN];
            const float4 a0 = a_row_p[0], a1 = a_row_p[1], b0 = b_row_p[0], b1 = b_row_p[1];
            a_values[0] = a0.x, a_values[1] = a0.y, a_values[2] = a0.z, a_values[3] = a0.w;
            a_values[4] = a1.x, a_values[5] = a1.y, a_values[6] = a1.z, a_values[7] = a1.w;
            b_values[0] = b0.x, b_values[1] = b0.y, b_values[2] = b0.z, b_values[3] = b0.w;
            b_values[4] = b1.x, b_values[5] = b1.y, b_values[6] = b1.z, b_values[7] = b1.w;
#pragma unroll
            for (int q = 0; q < TN; q++)
#pragma unroll
                for (int r = 0; r < TM; r++)
                    acc[r][q] = semiring_mac(acc[r][q], a_values[r], b_values[q], ring);
        }
        __syncthreads();
    }
    for (int r = 0; r < TM; r++) {
        const int row = block_row + thread_row * TM + r;
        for (int q = 0; q < TN; q++) {
            const int col = block_col + thread_col * TN + q;
            if (row < m && col < n)
                c[(size_t)row * n + col] = acc[r][q];
        }
    }
}

/* The semiring is a constant in each branch, so each gets its own loop, free of the test. */
__global__ void __launch_bounds__(THREADS)
    gemm_vectorized(const float *a, const float *b, float *c, int m, int n, int k, semiring ring)
{
    if (ring == SEMIRING_MIN_PLUS)
        blocked_tile(a, b, c, m, n, k, SEMIRING_MIN_PLUS);
    else
        blocked_tile(a, b, c, m, n, k, SEMIRING_PLUS_TIMES);
}

int gemm_supports(semiring ring)
{
    (void)ring;
    return 1;
}

size_t gemm_workspace_bytes(int m, int n, int k)
{
    (void)m, (void)n, (void)k;
    return 0;
}

void gemm(const float *a, const float *b, float *c, int m, int n, int k, semiring ring,
          void *workspace, cudaStream_t stream)
{
    (void)workspace;
    const dim3 grid((n + BN - 1) / BN, (m + BM - 1) / BM);
    gemm_vectorized<<<grid, THREADS, 0, stream>>>(a, b, c, m, n, k, ring);
    CL_LAUNCH_CHECK("gemm_vectorized");
}
