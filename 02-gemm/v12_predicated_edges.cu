/**
 * @file v12_predicated_edges.cu
 * @brief v12: v11 with the tiles on the border copied by cp.async too, each copy predicated on
 * its own bounds, instead of through registers by checked loads and stores.
 *
 * v11 keeps its asynchronous copies for tiles that lie wholly inside matrices whose rows are
 * 16-byte aligned; every other tile loads into registers and stores to shared memory, and the
 * thread waits for those loads before its FMAs. A size one past a multiple of 4 (4097) makes
 * every tile such a tile, and a size that is no multiple of the 128 × 256 tile makes a row and a
 * column of them: the sweep shows v11 at 0.63× cuBLAS at 4097³ and 0.68× at 2039³. Here a tile
 * on the border or in unaligned matrices copies element by element: cp.async (4 bytes) for an
 * element inside the matrix, a plain store of the semiring's padding for one outside (cp.async
 * cannot write +∞, which min-plus needs). B's 4-byte copies go one column per thread, so that a
 * warp's copies still read whole 128-byte lines. No thread waits on a load any more, at any size.
 * Interior tiles take exactly v11's copies, and A's 4-byte copies never needed aligned rows: only
 * B's 16-byte copies ask for n % 4 == 0.
 */
#include <cuda_pipeline.h>

#include "cl_cuda_check.h"
#include "gemm.h"

#define BM           128
#define BN           256
#define BK           8
#define WARPS_N      4  /* 2 × 4 warps */
#define TM           16 /* rows per thread: 4 groups of 4, 16 apart */
#define TN           8  /* columns per thread: 2 groups of 4, 32 apart */
#define WARP_M       64
#define WARP_N       64
#define THREADS      (BM * BN / (TM * TN)) /* 256 */
#define STAGES       2 /* tiles in shared memory: the one in use and the one being copied */
#define A_COPIES     (BM * BK / THREADS)     /* 4-byte copies of A per thread per step */
#define B_COPIES     (BK * BN / 4 / THREADS) /* 16-byte copies of B per thread per step */
#define A_ROWS_APART (THREADS / BK)          /* rows between a thread's copies of A */
#define B_ROWS_APART (THREADS / (BN / 4))    /* rows between its copies of B */
#define A_STRIDE     (BM + 4)                /* floats per k in the transposed A tile */
static_assert(THREADS == BN, "the edge copies of B take one column per thread");

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

typedef struct {
    float a[STAGES][BK * A_STRIDE]; /* a[s][p * A_STRIDE + row]: A transposed */
    float b[STAGES][BK * BN];
} stage_tiles;

/* Starts the copies of the step at k = @p t into stage @p s: v11's unchecked cp.async when the
   step lies inside aligned matrices (@p inside), else one predicated copy per element: cp.async
   inside the matrix, the semiring's padding stored outside it. */
static __device__ __forceinline__ void copy_step(stage_tiles *tiles, int s, int t, const float *a,
                                                 const float *b, int m, int n, int k, int block_row,
                                                 int block_col, int inside, float pad)
{
    float *ta = tiles->a[s], *tb = tiles->b[s];
    const int a_row = threadIdx.x / BK, a_k = threadIdx.x % BK;
    const int b_row = threadIdx.x / (BN / 4), b_col = threadIdx.x % (BN / 4) * 4;
    if (inside) {
        const float *src_a = a + (size_t)(block_row + a_row) * k + t + a_k;
        const float *src_b = b + (size_t)(t + b_row) * n + block_col + b_col;
#pragma unroll
        for (int l = 0; l < A_COPIES; l++)
            __pipeline_memcpy_async(&ta[a_k * A_STRIDE + a_row + l * A_ROWS_APART],
                                    src_a + (size_t)l * A_ROWS_APART * k, 4);
#pragma unroll
        for (int l = 0; l < B_COPIES; l++)
            __pipeline_memcpy_async(&tb[(b_row + l * B_ROWS_APART) * BN + b_col],
                                    src_b + (size_t)l * B_ROWS_APART * n, 16);
        return;
    }
#pragma unroll
    for (int l = 0; l < A_COPIES; l++) {
        const int row = block_row + a_row + l * A_ROWS_APART, col = t + a_k;
        float *dst = &ta[a_k * A_STRIDE + a_row + l * A_ROWS_APART];
        if (row < m && col < k)
            __pipeline_memcpy_async(dst, a + (size_t)row * k + col, 4);
        else
            *dst = pad;
    }
    /* B element by element, one column per thread (THREADS == BN): a warp's 32 copies take 32
       consecutive floats of a row, one 128-byte line, where four copies per thread of its four
       columns would touch four lines with each instruction */
#pragma unroll
    for (int p = 0; p < BK; p++) {
        const int row = t + p, col = block_col + (int)threadIdx.x;
        float *dst = &tb[p * BN + threadIdx.x];
        if (row < k && col < n)
            __pipeline_memcpy_async(dst, b + (size_t)row * n + col, 4);
        else
            *dst = pad;
    }
}

static __device__ __forceinline__ void blocked_tile(const float *a, const float *b, float *c, int m,
                                                    int n, int k, semiring ring)
{
    __shared__ __align__(16) stage_tiles tiles;
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
    const int interior = block_row + BM <= m && block_col + BN <= n && n % 4 == 0;
    const int steps = (k + BK - 1) / BK;
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < steps)
            copy_step(&tiles, s, s * BK, a, b, m, n, k, block_row, block_col,
                      interior && (s + 1) * BK <= k, pad);
        __pipeline_commit(); /* one group per step, empty or not, so that the count below holds */
    }
    for (int t = 0, stage = 0; t < steps; t++, stage = stage == STAGES - 1 ? 0 : stage + 1) {
        __pipeline_wait_prior(STAGES - 2); /* this thread's copies of step t have landed */
        __syncthreads(); /* everyone's have, and everyone is done with step t - 1's stage */
        const int next = t + STAGES - 1;
        const float *ta = tiles.a[stage], *tb = tiles.b[stage];
        /* this step's first operands before the copies of the next: they go first in the queue
           to shared memory, and two sets alternate, so each k's loads precede the previous k's
           FMAs */
        float a_values[2][TM], b_values[2][TN];
        fragments(ta, tb, 0, row0, col0, a_values[0], b_values[0]);
        if (next < steps)
            copy_step(&tiles, stage == 0 ? STAGES - 1 : stage - 1, next * BK, a, b, m, n, k,
                      block_row, block_col, interior && (next + 1) * BK <= k, pad);
        __pipeline_commit();
#pragma unroll
        for (int p = 0; p < BK; p++) {
            if (p + 1 < BK)
                fragments(ta, tb, p + 1, row0, col0, a_values[(p + 1) % 2], b_values[(p + 1) % 2]);
#pragma unroll
            for (int q = 0; q < TN; q++)
#pragma unroll
                for (int r = 0; r < TM; r++)
                    acc[r][q] =
                        semiring_mac(acc[r][q], a_values[p % 2][r], b_values[p % 2][q], ring);
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
    gemm_predicated_edges(const float *a, const float *b, float *c, int m, int n, int k,
                          semiring ring)
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
    gemm_predicated_edges<<<grid, THREADS, 0, stream>>>(a, b, c, m, n, k, ring);
    CL_LAUNCH_CHECK("gemm_predicated_edges");
}
