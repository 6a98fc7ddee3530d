/**
 * @file v4_1d_blocking.cu
 * @brief v4: v3 with each thread computing 8 elements of a column of C, held in registers (1D
 * blocking).
 *
 * v3 does two shared-memory loads per FMA, and shared memory delivers far fewer loads per clock
 * than the SM does FMAs. Here a block computes a 64×64 tile of C with 512 threads, each thread 8
 * elements stacked in one column (TM = 8). At each step of the 8-deep k slice a thread loads one
 * float of B into a register and reuses it for its 8 rows, so a step costs 9 shared loads for 8
 * FMAs instead of 16. The tiles of A (64×8) and B (8×64) are one float per thread to load.
 */
#include "cl_cuda_check.h"
#include "gemm.h"

#define BM      64
#define BN      64
#define BK      8
#define TM      8
#define THREADS (BM * BN / TM) /* 512 */

static __device__ __forceinline__ void blocked_tile(const float *a, const float *b, float *c, int m,
                                                    int n, int k, semiring ring)
{
    __shared__ float tile_a[BM * BK], tile_b[BK * BN];
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;
    const int thread_col = threadIdx.x % BN, thread_row = threadIdx.x / BN; /* 8 rows of TM */
    const int a_row = threadIdx.x / BK, a_col = threadIdx.x % BK;           /* this thread loads */
    const int b_row = threadIdx.x / BN, b_col = threadIdx.x % BN;
    const float pad = semiring_zero(ring);
    float acc[TM];
    for (int r = 0; r < TM; r++)
        acc[r] = semiring_zero(ring);
    for (int t = 0; t < k; t += BK) {
        const int ga_row = block_row + a_row, ga_col = t + a_col;
        const int gb_row = t + b_row, gb_col = block_col + b_col;
        tile_a[a_row * BK + a_col] =
            ga_row < m && ga_col < k ? a[(size_t)ga_row * k + ga_col] : pad;
        tile_b[b_row * BN + b_col] =
            gb_row < k && gb_col < n ? b[(size_t)gb_row * n + gb_col] : pad;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < BK; p++) {
            const float b_value = tile_b[p * BN + thread_col];
#pragma unroll
            for (int r = 0; r < TM; r++)
                acc[r] =
                    semiring_mac(acc[r], tile_a[(thread_row * TM + r) * BK + p], b_value, ring);
        }
        __syncthreads();
    }
    const int col = block_col + thread_col;
    for (int r = 0; r < TM; r++) {
        const int row = block_row + thread_row * TM + r;
        if (row < m && col < n)
            c[(size_t)row * n + col] = acc[r];
    }
}

/* The semiring is a constant in each branch, so each gets its own loop, free of the test. */
__global__ void __launch_bounds__(THREADS)
    gemm_1d_blocking(const float *a, const float *b, float *c, int m, int n, int k, semiring ring)
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
    gemm_1d_blocking<<<grid, THREADS, 0, stream>>>(a, b, c, m, n, k, ring);
    CL_LAUNCH_CHECK("gemm_1d_blocking");
}
