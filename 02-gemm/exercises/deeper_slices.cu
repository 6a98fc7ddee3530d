/**
 * @file deeper_slices.cu
 * @brief Exercise "Deeper slices" of 02-gemm (part 2), a solution: the "Register staging"
 * solution with k slices 16 deep instead of 8: one barrier per 16 × 64 FMAs instead of 8 × 64.
 *
 * Half the barriers, and twice the registers for the next tile's loads, so one block per SM (a
 * 128-register build spilled and lost). It was a numbered step once; the warp tiles of v11 keep
 * slices of 8, so it is an exercise now (the candidates files have its numbers under its old name).
 */
#include "cl_cuda_check.h"
#include "gemm.h"

#define BM       128
#define BN       128
#define BK       16
#define TM       8
#define TN       8
#define THREADS  (BM * BN / (TM * TN)) /* 256 */
#define A_STRIDE (BM + 4)              /* floats per k in the transposed A tile */
#define LOADS    (BK / 8)              /* float4 of A (and of B) per thread per step */

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
    __shared__ __align__(16) float tile_a[2][BK * A_STRIDE]; /* tile_a[.][p * A_STRIDE + row] */
    __shared__ __align__(16) float tile_b[2][BK * BN];
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;
    const int thread_col = threadIdx.x % (BN / TN), thread_row = threadIdx.x / (BN / TN);
    const float pad = semiring_zero(ring);
    const float4 pad4 = make_float4(pad, pad, pad, pad);
    float acc[TM][TN], a_values[TM], b_values[TN];
    for (int r = 0; r < TM; r++)
        for (int q = 0; q < TN; q++)
            acc[r][q] = semiring_zero(ring);
    /* this thread's share of a step's tiles: LOADS float4 of A and of B, THREADS apart */
    float4 av[LOADS], bv[LOADS];
    for (int l = 0; l < LOADS; l++) { /* step 0's loads; later ones are issued a step ahead */
        const int e = threadIdx.x + l * THREADS;
        const int a_row = block_row + e / (BK / 4), b_row = e / (BN / 4);
        av[l] =
            a_row < m ? load4(a + (size_t)a_row * k, e % (BK / 4) * 4, k, k % 4 == 0, pad) : pad4;
        bv[l] = b_row < k
                    ? load4(b + (size_t)b_row * n, block_col + e % (BN / 4) * 4, n, n % 4 == 0, pad)
                    : pad4;
    }
    /* buffer flips every step: the next store goes to the buffer nobody reads in this one */
    for (int t = 0, buffer = 0; t < k; t += BK, buffer ^= 1) {
        float *ta = tile_a[buffer], *tb = tile_b[buffer];
        for (int l = 0; l < LOADS; l++) {
            const int e = threadIdx.x + l * THREADS;
            const int a_row = e / (BK / 4), a_col = e % (BK / 4) * 4;
            ta[(a_col + 0) * A_STRIDE + a_row] = av[l].x;
            ta[(a_col + 1) * A_STRIDE + a_row] = av[l].y;
            ta[(a_col + 2) * A_STRIDE + a_row] = av[l].z;
            ta[(a_col + 3) * A_STRIDE + a_row] = av[l].w;
            *(float4 *)&tb[e / (BN / 4) * BN + e % (BN / 4) * 4] = bv[l];
        }
        __syncthreads();
        if (t + BK < k) /* step t + 1's loads, in flight during this step's FMAs */
            for (int l = 0; l < LOADS; l++) {
                const int e = threadIdx.x + l * THREADS;
                const int a_row = block_row + e / (BK / 4), b_row = t + BK + e / (BN / 4);
                av[l] = a_row < m ? load4(a + (size_t)a_row * k, t + BK + e % (BK / 4) * 4, k,
                                          k % 4 == 0, pad)
                                  : pad4;
                bv[l] = b_row < k ? load4(b + (size_t)b_row * n, block_col + e % (BN / 4) * 4, n,
                                          n % 4 == 0, pad)
                                  : pad4;
            }
#pragma unroll
        for (int p = 0; p < BK; p++) {
            const float4 a0 = *(const float4 *)&ta[p * A_STRIDE + thread_row * TM];
            const float4 a1 = *(const float4 *)&ta[p * A_STRIDE + thread_row * TM + 4];
            const float4 b0 = *(const float4 *)&tb[p * BN + thread_col * 4];
            const float4 b1 = *(const float4 *)&tb[p * BN + BN / 2 + thread_col * 4];
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
    }
    for (int r = 0; r < TM; r++) {
        const int row = block_row + thread_row * TM + r;
        for (int q = 0; q < TN; q++) {
            const int col =
                block_col + (q < 4 ? thread_col * 4 + q : BN / 2 + thread_col * 4 + q - 4);
            if (row < m && col < n)
                c[(size_t)row * n + col] = acc[r][q];
        }
    }
}

/* The semiring is a constant in each branch, so each gets its own loop, free of the test. */
__global__ void __launch_bounds__(THREADS, 1)
    gemm_deeper_slices(const float *a, const float *b, float *c, int m, int n, int k, semiring ring)
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
    gemm_deeper_slices<<<grid, THREADS, 0, stream>>>(a, b, c, m, n, k, ring);
    CL_LAUNCH_CHECK("gemm_deeper_slices");
}
