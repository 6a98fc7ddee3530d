/**
 * @file v5_2d_blocking.cu
 * @brief v5: v4 with each thread computing an 8×8 block of C from 8 values of A and 8 of B per
 * step (2D blocking).
 *
 * v4 reuses each B value 8 times but loads an A value per FMA. Here a block computes a 128×128
 * tile of C with 256 threads, each an 8×8 sub-block: at each step of the k slice it loads 8
 * values of A (a column of its rows) and 8 of B (a row of its columns) into registers and does
 * their 64 FMAs (an outer product), so 16 shared loads feed 64 FMAs. Each thread now loads 4
 * floats of each 128×8 tile. The 64 accumulators live in registers: the compiler takes 129 per
 * thread (ptxas -v), one too many for a second block of 256 threads per SM. The FMAs go column by
 * column (for q, for r): 8 FMAs in a row share b_values[q], which the hardware can keep in its
 * operand reuse cache; every later version keeps that order (row by row measured slower in v7, v8
 * and v10: docs/results/02-gemm-part1-steps.txt).
 */
#include "cl_cuda_check.h"
#include "gemm.h"

#define BM      128
#define BN      128
#define BK      8
#define TM      8
#define TN      8
#define THREADS (BM * BN / (TM * TN)) /* 256 */

static __device__ __forceinline__ void blocked_tile(const float *a, const float *b, float *c, int m,
                                                    int n, int k, semiring ring)
{
    __shared__ float tile_a[BM * BK], tile_b[BK * BN];
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;
    const int thread_col = threadIdx.x % (BN / TN), thread_row = threadIdx.x / (BN / TN);
    const float pad = semiring_zero(ring);
    float acc[TM][TN], a_values[TM], b_values[TN];
    for (int r = 0; r < TM; r++)
        for (int q = 0; q < TN; q++)
            acc[r][q] = semiring_zero(ring);
    for (int t = 0; t < k; t += BK) {
        /* 1024 floats per tile, 256 threads: 4 each, THREADS apart */
        for (int e = threadIdx.x; e < BM * BK; e += THREADS) {
            const int row = block_row + e / BK, col = t + e % BK;
            tile_a[e] = row < m && col < k ? a[(size_t)row * k + col] : pad;
        }
        for (int e = threadIdx.x; e < BK * BN; e += THREADS) {
            const int row = t + e / BN, col = block_col + e % BN;
            tile_b[e] = row < k && col < n ? b[(size_t)row * n + col] : pad;
        }
        __syncthreads();
#pragma unroll
        for (int p = 0; p < BK; p++) {
#pragma unroll
            for (int r = 0; r < TM; r++)
                a_values[r] = tile_a[(thread_row * TM + r) * BK + p];
#pragma unroll
            for (int q = 0; q < TN; q++)
                b_values[q] = tile_b[p * BN + thread_col * TN + q];
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
    gemm_2d_blocking(const float *a, const float *b, float *c, int m, int n, int k, semiring ring)
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
    gemm_2d_blocking<<<grid, THREADS, 0, stream>>>(a, b, c, m, n, k, ring);
    CL_LAUNCH_CHECK("gemm_2d_blocking");
}
