/**
 * @file v9_warp_tiles.cu
 * @brief v9: v8 with warp tiles — a 128 × 256 block tile as 2 × 4 warps, each warp a 64 × 64
 * tile of C and each thread 16 × 8 of it, the FMAs ordered column by column.
 *
 * v8 gives each of its 256 threads an 8 × 8 tile: per k a thread reads 4 float4 from shared
 * memory for 64 FMAs. Here the block tile doubles to 128 × 256 (same 256 threads, 8 warps) and a
 * thread computes 16 × 8 outputs: 6 float4 reads (4 of A, 2 of B) for 128 FMAs, and a quarter
 * fewer global loads per FMA. A warp's lanes form a 4 × 8 grid over its 64 × 64 tile; a thread's
 * rows are 4 groups of 4, 16 apart, its columns 2 groups of 4, 32 apart, so that a warp's read of A
 * touches 4 consecutive float4 and its read of B 8: one shared-memory wavefront each. The
 * transposed A tile gets a row stride of BM + 4 floats, which spreads a warp's 32 scalar stores
 * over 32 banks. Three details, each chosen by measurement
 * (docs/results/02-gemm-v9-candidates.txt):
 *  - the 128 FMAs of a k run column by column (for q, for r): consecutive FMAs share b_values[q],
 *    which the hardware can keep in its operand reuse cache (row by row measured slower);
 *  - 128 × 256 beat 256 × 128 (the tile cuBLAS picks for this problem) and two blocks of
 *    128 × 128 per SM;
 *  - blocks whose tiles lie inside aligned matrices load without bounds checks (faster than
 *    checks everywhere).
 * `__launch_bounds__(THREADS, 1)`: 235 registers, one block of 8 warps per SM, as cuBLAS runs.
 * k slices stay 8 deep, as in v7 and v8: 16-deep ones (the exercise deeper_slices.cu) doubled the
 * unrolled loop and measured slower with 16 × 8 per thread. Everything else (register prefetch one
 * step ahead, two shared buffers, one barrier per step) is v8's.
 */
#include "cl_cuda_check.h"
#include "gemm.h"

#define BM       128
#define BN       256
#define BK       8
#define WARPS_N  4  /* 2 × 4 warps */
#define TM       16 /* rows per thread: 4 groups of 4, 16 apart */
#define TN       8  /* columns per thread: 2 groups of 4, 32 apart */
#define WARP_M   64
#define WARP_N   64
#define THREADS  (BM * BN / (TM * TN))   /* 256 */
#define A_LOADS  (BM * BK / 4 / THREADS) /* float4 of A per thread per step */
#define B_LOADS  (BK * BN / 4 / THREADS) /* float4 of B per thread per step */
#define A_STRIDE (BM + 4)                /* floats per k in the transposed A tile */

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

/* Starts this thread's loads of the tiles of the step at k = @p t: A_LOADS float4 of A, B_LOADS
   of B, THREADS apart. @p inside: the whole step lies inside aligned matrices, no checks needed. */
static __device__ __forceinline__ void load_step(float4 *av, float4 *bv, const float *a,
                                                 const float *b, int m, int n, int k, int block_row,
                                                 int block_col, int t, int inside, float pad)
{
    const float4 pad4 = make_float4(pad, pad, pad, pad);
#pragma unroll
    for (int l = 0; l < A_LOADS; l++) {
        const int e = threadIdx.x + l * THREADS;
        const int row = block_row + e / (BK / 4), col = t + e % (BK / 4) * 4;
        if (inside)
            av[l] = *(const float4 *)(a + (size_t)row * k + col);
        else
            av[l] = row < m ? load4(a + (size_t)row * k, col, k, k % 4 == 0, pad) : pad4;
    }
#pragma unroll
    for (int l = 0; l < B_LOADS; l++) {
        const int e = threadIdx.x + l * THREADS;
        const int row = t + e / (BN / 4), col = block_col + e % (BN / 4) * 4;
        if (inside)
            bv[l] = *(const float4 *)(b + (size_t)row * n + col);
        else
            bv[l] = row < k ? load4(b + (size_t)row * n, col, n, n % 4 == 0, pad) : pad4;
    }
}

/* This thread's operands for one k: rows row0 + 16g + i of A, columns col0 + 32h + j of B. */
static __device__ __forceinline__ void fragments(const float *ta, const float *tb, int p, int row0,
                                                 int col0, float *a_values, float *b_values)
{
#pragma unroll
    for (int g = 0; g < TM / 4; g++) {
        const float4 v = *(const float4 *)&ta[p * A_STRIDE + row0 + 16 * g];
        a_values[4 * g] = v.x, a_values[4 * g + 1] = v.y;
        a_values[4 * g + 2] = v.z, a_values[4 * g + 3] = v.w;
    }
#pragma unroll
    for (int h = 0; h < TN / 4; h++) {
        const float4 v = *(const float4 *)&tb[p * BN + col0 + 32 * h];
        b_values[4 * h] = v.x, b_values[4 * h + 1] = v.y;
        b_values[4 * h + 2] = v.z, b_values[4 * h + 3] = v.w;
    }
}

/* Stores this thread's float4 of a step's tiles into a shared buffer, A transposed. */
static __device__ __forceinline__ void store_step(const float4 *av, const float4 *bv, float *ta,
                                                  float *tb)
{
#pragma unroll
    for (int l = 0; l < A_LOADS; l++) {
        const int e = threadIdx.x + l * THREADS;
        const int a_row = e / (BK / 4), a_col = e % (BK / 4) * 4;
        ta[(a_col + 0) * A_STRIDE + a_row] = av[l].x;
        ta[(a_col + 1) * A_STRIDE + a_row] = av[l].y;
        ta[(a_col + 2) * A_STRIDE + a_row] = av[l].z;
        ta[(a_col + 3) * A_STRIDE + a_row] = av[l].w;
    }
#pragma unroll
    for (int l = 0; l < B_LOADS; l++) {
        const int e = threadIdx.x + l * THREADS;
        *(float4 *)&tb[e / (BN / 4) * BN + e % (BN / 4) * 4] = bv[l];
    }
}

static __device__ __forceinline__ void blocked_tile(const float *a, const float *b, float *c, int m,
                                                    int n, int k, semiring ring)
{
    __shared__ __align__(16) float tile_a[2][BK * A_STRIDE]; /* tile_a[.][p * A_STRIDE + row] */
    __shared__ __align__(16) float tile_b[2][BK * BN];
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;
    /* rows row0 + 16g + i, columns col0 + 32h + j, for g < 4, h < 2, i, j < 4 */
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row0 = warp / WARPS_N * WARP_M + lane / 8 * 4;
    const int col0 = warp % WARPS_N * WARP_N + lane % 8 * 4;
    const float pad = semiring_zero(ring);
    float acc[TM][TN];
    for (int r = 0; r < TM; r++)
        for (int q = 0; q < TN; q++)
            acc[r][q] = semiring_zero(ring);
    /* this thread's share of a step's tiles: float4 of A and of B, THREADS apart; blocks whose
       tiles all lie inside aligned matrices skip the bounds checks */
    const int interior = block_row + BM <= m && block_col + BN <= n && k % 4 == 0 && n % 4 == 0;
    float4 av[A_LOADS], bv[B_LOADS];
    load_step(av, bv, a, b, m, n, k, block_row, block_col, 0, interior && BK <= k, pad);
    /* buffer flips every step: the next store goes to the buffer nobody reads in this one */
    for (int t = 0, buffer = 0; t < k; t += BK, buffer ^= 1) {
        float *ta = tile_a[buffer], *tb = tile_b[buffer];
        store_step(av, bv, ta, tb);
        __syncthreads();
        if (t + BK < k) /* step t + 1's loads, in flight during this step's FMAs */
            load_step(av, bv, a, b, m, n, k, block_row, block_col, t + BK,
                      interior && t + 2 * BK <= k, pad);
#pragma unroll
        for (int p = 0; p < BK; p++) {
            float a_values[TM], b_values[TN];
            fragments(ta, tb, p, row0, col0, a_values, b_values);
#pragma unroll
            for (int q = 0; q < TN; q++)
#pragma unroll
                for (int r = 0; r < TM; r++)
                    acc[r][q] = semiring_mac(acc[r][q], a_values[r], b_values[q], ring);
        }
    }
    for (int r = 0; r < TM; r++) {
        const int row = block_row + row0 + 16 * (r / 4) + r % 4;
        for (int q = 0; q < TN; q++) {
            const int col = block_col + col0 + 32 * (q / 4) + q % 4;
            if (row < m && col < n)
                c[(size_t)row * n + col] = acc[r][q];
        }
    }
}

/* The semiring is a constant in each branch, so each gets its own loop, free of the test. */
__global__ void __launch_bounds__(THREADS, 1)
    gemm_warp_tiles(const float *a, const float *b, float *c, int m, int n, int k, semiring ring)
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
    gemm_warp_tiles<<<grid, THREADS, 0, stream>>>(a, b, c, m, n, k, ring);
    CL_LAUNCH_CHECK("gemm_warp_tiles");
}
