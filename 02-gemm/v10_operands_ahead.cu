/**
 * @file v10_operands_ahead.cu
 * @brief v10: v9 with each k's operands read from shared memory one k ahead, into a second set
 * of registers.
 *
 * v9 reads a k's 6 float4 of operands and then runs the 128 FMAs that need them: each k starts
 * with the shared-memory latency exposed, and 8 warps per SM are too few to hide it. One block
 * per SM lets a thread take up to 255 registers, and cp.async needs none to stage a tile: the
 * spare registers now hold two sets of operands: k + 1's are read while k's FMAs run, and after the
 * barrier a thread reads its first operands before it issues the next step's copies, so that they
 * go first in the queue to shared memory. The reads move into `fragments()`, called in both places.
 * Over 250 registers, no spills, one block per SM.
 */
#include <cuda_pipeline.h>

#include "cl_cuda_check.h"
#include "gemm.h"

#define BM           128
#define BN           256
#define BK           8
#define TM           16
#define TN           8
#define THREADS      (BM * BN / (TM * TN)) /* 256 */
#define STAGES       2 /* tiles in shared memory: the one in use and the one being copied */
#define A_COPIES     (BM * BK / THREADS)     /* 4-byte copies of A per thread per step */
#define B_COPIES     (BK * BN / 4 / THREADS) /* 16-byte copies of B per thread per step */
#define A_ROWS_APART (THREADS / BK)          /* rows between a thread's copies of A */
#define B_ROWS_APART (THREADS / (BN / 4))    /* rows between its copies of B */
#define A_STRIDE     (BM + 4)                /* floats per k in the transposed A tile */

/* This thread's operands for one k: rows row0 + 4g + i of A, columns col0 + 128h + j of B. */
static __device__ __forceinline__ void fragments(const float *ta, const float *tb, int p, int row0,
                                                 int col0, float *a_values, float *b_values)
{
#pragma unroll
    for (int g = 0; g < TM / 4; g++) {
        const float4 v = *(const float4 *)&ta[p * A_STRIDE + row0 + 4 * g];
        a_values[4 * g] = v.x, a_values[4 * g + 1] = v.y;
        a_values[4 * g + 2] = v.z, a_values[4 * g + 3] = v.w;
    }
#pragma unroll
    for (int h = 0; h < TN / 4; h++) {
        const float4 v = *(const float4 *)&tb[p * BN + col0 + BN / 2 * h];
        b_values[4 * h] = v.x, b_values[4 * h + 1] = v.y;
        b_values[4 * h + 2] = v.z, b_values[4 * h + 3] = v.w;
    }
}

typedef struct {
    float a[STAGES][BK * A_STRIDE]; /* a[s][p * A_STRIDE + row]: A transposed */
    float b[STAGES][BK * BN];
} stage_tiles;

/* Starts the copies of the step at k = @p t into stage @p s: cp.async when the step lies inside
   aligned matrices (@p inside), else checked loads and plain stores with the semiring's padding. */
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
    for (int l = 0; l < A_COPIES; l++) {
        const int row = block_row + a_row + l * A_ROWS_APART, col = t + a_k;
        ta[a_k * A_STRIDE + a_row + l * A_ROWS_APART] =
            row < m && col < k ? a[(size_t)row * k + col] : pad;
    }
    for (int l = 0; l < B_COPIES; l++) {
        const int row = t + b_row + l * B_ROWS_APART;
        for (int j = 0; j < 4; j++) {
            const int col = block_col + b_col + j;
            tb[(b_row + l * B_ROWS_APART) * BN + b_col + j] =
                row < k && col < n ? b[(size_t)row * n + col] : pad;
        }
    }
}

static __device__ __forceinline__ void blocked_tile(const float *a, const float *b, float *c, int m,
                                                    int n, int k, semiring ring)
{
    __shared__ __align__(16) stage_tiles tiles;
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;
    const int thread_col = threadIdx.x % (BN / TN), thread_row = threadIdx.x / (BN / TN);
    const float pad = semiring_zero(ring);
    float acc[TM][TN];
    for (int r = 0; r < TM; r++)
        for (int q = 0; q < TN; q++)
            acc[r][q] = semiring_zero(ring);
    const int interior = block_row + BM <= m && block_col + BN <= n && k % 4 == 0 && n % 4 == 0;
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
        fragments(ta, tb, 0, thread_row * TM, thread_col * 4, a_values[0], b_values[0]);
        if (next < steps)
            copy_step(&tiles, stage == 0 ? STAGES - 1 : stage - 1, next * BK, a, b, m, n, k,
                      block_row, block_col, interior && (next + 1) * BK <= k, pad);
        __pipeline_commit();
#pragma unroll
        for (int p = 0; p < BK; p++) {
            if (p + 1 < BK)
                fragments(ta, tb, p + 1, thread_row * TM, thread_col * 4, a_values[(p + 1) % 2],
                          b_values[(p + 1) % 2]);
#pragma unroll
            for (int q = 0; q < TN; q++)
#pragma unroll
                for (int r = 0; r < TM; r++)
                    acc[r][q] =
                        semiring_mac(acc[r][q], a_values[p % 2][r], b_values[p % 2][q], ring);
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
    gemm_operands_ahead(const float *a, const float *b, float *c, int m, int n, int k,
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
    gemm_operands_ahead<<<grid, THREADS, 0, stream>>>(a, b, c, m, n, k, ring);
    CL_LAUNCH_CHECK("gemm_operands_ahead");
}
