/**
 * @file v15_implicit_gemm.cu
 * @brief v15: v14 without the im2col copy — implicit GEMM: the B tile is copied straight from the
 * input rows, shifted per tap.
 *
 * v14's product is unchanged; only the loads of its B tile change: row ck = ci·K + j,
 * column i of the im2col matrix is x[b][ci][i + j − r], so each row of a B tile is a contiguous
 * (shifted) run of one input row, copied straight from x into shared memory. Nothing is written to
 * a workspace, and the K-fold copy of v14 is gone.
 *
 * A row's shift j − r makes its start 16-byte aligned only when it is a multiple of 4: such rows
 * go in 16-byte copies, the others in four 4-byte ones (the 32 threads of a warp copy one row, so
 * the choice never splits a warp). Tiles at the ends of the signal (where the shift reaches past
 * them) and past the weights' last row or column take checked loads with zero padding. The tile
 * is 128 output channels tall: at C = 64 half of it multiplies zeros, and with one channel nearly
 * all of it — a kernel for C ≥ 128, correct but slow elsewhere.
 */
#include <cuda_pipeline.h>

#include "cl_cuda_check.h"
#include "conv.h"

#define BM           128
#define BN           256
#define TM           16 /* rows per thread: 4 groups of 4, 16 apart */
#define WARP_M       64
#define WARPS_N      4 /* 2 × 4 warps of 64 × 64: 256 threads */
#define MIN_BLOCKS   1 /* 223 registers: one block per SM */
#define BK           8
#define TN           8 /* columns per thread: 2 groups of 4, 32 apart */
#define WARP_N       64
#define THREADS      (BM * BN / (TM * TN))
#define STAGES       2
#define A_COPIES     (BM * BK / THREADS) /* 4-byte copies of the weights per thread per step */
#define A_ROWS_APART (THREADS / BK)
#define B_COPIES     (BK * BN / 4 / THREADS) /* 4-float groups of the input per thread per step */
#define B_ROWS_APART (THREADS / (BN / 4))
#define A_STRIDE     (BM + 4)

/** What the kernel needs to know of the layer. */
typedef struct {
    int out_channels; /* m: rows of the product */
    int depth;        /* k = C·K: the dot product's length */
    int mask;         /* K */
    size_t length;    /* n = L */
} layer;

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

/* K is known only at run time: an integer division routine. */
static __device__ int channel_of(int ck, const layer *g)
{
    return ck / g->mask;
}

typedef struct {
    float a[STAGES][BK * A_STRIDE]; /* a[s][p * A_STRIDE + row]: the weights, transposed */
    float b[STAGES][BK * BN];       /* b[s][p * BN + col]: rows of the im2col matrix */
} stage_tiles;

/* Starts the copies of the step at k = @p t into stage @p s. @p x is this batch's input, @p w the
   weights (out_channels × depth, row-major). */
static __device__ __forceinline__ void copy_step(stage_tiles *tiles, int s, int t, const float *w,
                                                 const float *x, const layer *g, int block_row,
                                                 size_t block_col, int a_inside, int b_inside)
{
    float *ta = tiles->a[s], *tb = tiles->b[s];
    const int a_row = threadIdx.x / BK, a_k = threadIdx.x % BK;
    const int b_row = threadIdx.x / (BN / 4), b_col = threadIdx.x % (BN / 4) * 4;
    const size_t r = (size_t)(g->mask - 1) / 2;
#pragma unroll
    for (int l = 0; l < A_COPIES; l++) {
        const int row = block_row + a_row + l * A_ROWS_APART, col = t + a_k;
        float *dst = &ta[a_k * A_STRIDE + a_row + l * A_ROWS_APART];
        if (a_inside)
            __pipeline_memcpy_async(dst, w + (size_t)row * g->depth + col, 4);
        else
            *dst = row < g->out_channels && col < g->depth ? w[(size_t)row * g->depth + col] : 0.0f;
    }
#pragma unroll
    for (int l = 0; l < B_COPIES; l++) {
        const int ck = t + b_row + l * B_ROWS_APART; /* the im2col row: ci·K + j */
        const int ci = channel_of(ck, g), j = ck - ci * g->mask;
        float *dst = &tb[(b_row + l * B_ROWS_APART) * BN + b_col];
        /* column i of this row is x[ci][i + j - r]; first = the input index of column b_col, + r */
        const size_t first = block_col + (size_t)b_col + (size_t)j;
        if (b_inside) { /* every column of the tile reads inside the row: first >= r */
            const float *src = x + (size_t)ci * g->length + (first - r);
            if ((g->length % 4 == 0) && ((first - r) % 4 == 0)) {
                __pipeline_memcpy_async(dst, src, 16);
            } else {
#pragma unroll
                for (int q = 0; q < 4; q++)
                    __pipeline_memcpy_async(dst + q, src + q, 4);
            }
            continue;
        }
        const float *row = x + (size_t)ci * g->length;
        for (int q = 0; q < 4; q++) {
            const size_t i = first + (size_t)q; /* the input index plus r */
            dst[q] = ck < g->depth && i >= r && i - r < g->length ? row[i - r] : 0.0f;
        }
    }
}

__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    conv_implicit_gemm(const float *w, const float *x, float *y, layer g)
{
    __shared__ __align__(16) stage_tiles tiles;
    const int block_row = blockIdx.y * BM;
    const size_t block_col = (size_t)blockIdx.x * BN;
    const float *x_batch = x + (size_t)blockIdx.z * (size_t)(g.depth / g.mask) * g.length;
    float *y_batch = y + (size_t)blockIdx.z * (size_t)g.out_channels * g.length;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row0 = warp / WARPS_N * WARP_M + lane / 8 * 4;
    const int col0 = warp % WARPS_N * WARP_N + lane % 8 * 4;
    const size_t r = (size_t)(g.mask - 1) / 2;
    float acc[TM][TN];
    for (int i = 0; i < TM; i++)
        for (int q = 0; q < TN; q++)
            acc[i][q] = 0.0f;
    /* the whole tile's inputs, shifted by up to r either way, lie inside the row */
    const int columns_inside = block_col >= r && block_col + BN + r <= g.length;
    const int rows_inside = block_row + BM <= g.out_channels;
    const int steps = (g.depth + BK - 1) / BK;
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < steps) {
            const int whole = (s + 1) * BK <= g.depth;
            copy_step(&tiles, s, s * BK, w, x_batch, &g, block_row, block_col, rows_inside && whole,
                      columns_inside && whole);
        }
        __pipeline_commit();
    }
    for (int t = 0, stage = 0; t < steps; t++, stage = stage == STAGES - 1 ? 0 : stage + 1) {
        __pipeline_wait_prior(STAGES - 2);
        __syncthreads();
        const int next = t + STAGES - 1;
        const float *ta = tiles.a[stage], *tb = tiles.b[stage];
        float a_values[2][TM], b_values[2][TN];
        fragments(ta, tb, 0, row0, col0, a_values[0], b_values[0]);
        if (next < steps) {
            const int whole = (next + 1) * BK <= g.depth;
            copy_step(&tiles, stage == 0 ? STAGES - 1 : stage - 1, next * BK, w, x_batch, &g,
                      block_row, block_col, rows_inside && whole, columns_inside && whole);
        }
        __pipeline_commit();
#pragma unroll
        for (int p = 0; p < BK; p++) {
            if (p + 1 < BK)
                fragments(ta, tb, p + 1, row0, col0, a_values[(p + 1) % 2], b_values[(p + 1) % 2]);
#pragma unroll
            for (int q = 0; q < TN; q++)
#pragma unroll
                for (int i = 0; i < TM; i++)
                    acc[i][q] = fmaf(a_values[p % 2][i], b_values[p % 2][q], acc[i][q]);
        }
    }
    for (int i = 0; i < TM; i++) {
        const int row = block_row + row0 + 16 * (i / 4) + i % 4;
        for (int q = 0; q < TN; q++) {
            const size_t col = block_col + (size_t)(col0 + 32 * (q / 4) + q % 4);
            if (row < g.out_channels && col < g.length)
                y_batch[(size_t)row * g.length + col] = acc[i][q];
        }
    }
}

size_t conv_workspace_bytes(const conv_shape *s)
{
    (void)s;
    return 0;
}

void conv1d(const float *x, const float *w, float *y, const conv_shape *s, void *workspace,
            cudaStream_t stream)
{
    const layer g = {s->channels, s->channels * s->mask, s->mask, s->length};
    const dim3 grid((unsigned)((s->length + BN - 1) / BN), (unsigned)((s->channels + BM - 1) / BM),
                    (unsigned)s->batch);
    (void)workspace;
    conv_implicit_gemm<<<grid, THREADS, 0, stream>>>(w, x, y, g);
    CL_LAUNCH_CHECK("conv_implicit_gemm");
}
