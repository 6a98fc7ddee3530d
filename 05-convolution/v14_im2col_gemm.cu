/**
 * @file v14_im2col_gemm.cu
 * @brief v14: a new path — the layer with many channels as a matrix product, starting again from
 * v1's problem statement: im2col copies, for every output position i, the C·K inputs its dot
 * product reads into column i of a (C·K) × L matrix, and lesson 02's v11 kernel multiplies the
 * C_out × (C·K) weights by it.
 *
 * v1 to v13 are built for one long signal, where the work per output is a short dot product; a
 * layer with C channels makes each output a dot product of C·K terms, the shape of a GEMM. The
 * product is 02's v11 (128 × 256 tiles, 16 × 8 outputs per thread, cp.async double buffering,
 * operands read one k ahead), with B the im2col matrix of one batch and C a run of y's row. The
 * price is the copy: K times the input is written and read back (7× at K = 7), and for one
 * channel the product is a matrix times a vector (C_out = 1), which no GEMM makes fast. The
 * workspace is capped at 2^28 floats (1 GiB): longer signals go through in chunks of positions.
 * The tile is 128 output channels tall: at C = 64 half of it multiplies zeros — a kernel for
 * C ≥ 128, correct but slow elsewhere.
 */
#include <cuda_pipeline.h>

#include "cl_cuda_check.h"
#include "conv.h"

#define BM            128
#define BN            256
#define TM            16 /* rows per thread: 4 groups of 4, 16 apart */
#define WARP_M        64
#define WARPS_N       4 /* 2 × 4 warps of 64 × 64: 256 threads */
#define MIN_BLOCKS    1 /* 226 registers: one block per SM */
#define BK            8
#define TN            8 /* columns per thread: 2 groups of 4, 32 apart */
#define WARP_N        64
#define THREADS       (BM * BN / (TM * TN))
#define STAGES        2
#define A_COPIES      (BM * BK / THREADS) /* 4-byte copies of the weights per thread per step */
#define A_ROWS_APART  (THREADS / BK)
#define B_COPIES      (BK * BN / 4 / THREADS) /* 4-float groups of the input per thread per step */
#define B_ROWS_APART  (THREADS / (BN / 4))
#define A_STRIDE      (BM + 4)
#define PER_THREAD    8                 /* im2col: entries per thread, a block apart */
#define MAX_WORKSPACE ((size_t)1 << 28) /* floats */

/** What the kernel needs to know of the layer and of this chunk of its positions. */
typedef struct {
    int out_channels; /* m: rows of the product */
    int depth;        /* k = C·K: the dot product's length */
    size_t length;    /* L: y's row length */
    size_t columns;   /* n: positions in this chunk */
    size_t stride;    /* the im2col matrix's row length: the chunk's */
} layer;

/* Positions per chunk: the whole row when the columns of every batch fit the cap. */
static size_t chunk_length(const conv_shape *s)
{
    const size_t column = (size_t)s->batch * (size_t)s->channels * (size_t)s->mask;
    size_t chunk = MAX_WORKSPACE / column;
    if (chunk < 1)
        chunk = 1;
    return chunk < s->length ? chunk : s->length;
}

/* cols[b][ci·K + j][t] = x[b][ci][first + t + j − r], zero outside the row. The grid's y runs
   over matrix rows (b, ci, j), so a row's indices are divided out once per thread, not per entry;
   along t each thread copies PER_THREAD entries a block apart — loads first, then stores, so that
   8 loads are in flight per thread — and consecutive threads take consecutive t: coalesced. */
__global__ void __launch_bounds__(THREADS)
    im2col(const float *x, float *cols, int mask, size_t length, size_t first, size_t chunk,
           size_t rows)
{
    const size_t r = (size_t)(mask - 1) / 2;
    const size_t t0 = (size_t)blockIdx.x * THREADS * PER_THREAD + threadIdx.x;
    for (size_t row = blockIdx.y; row < rows; row += gridDim.y) { /* row = (b · C + ci) · K + j */
        const size_t j = row % (size_t)mask;
        const float *in = x + row / (size_t)mask * length; /* x[b][ci][·] */
        float v[PER_THREAD];
#pragma unroll
        for (int k = 0; k < PER_THREAD; k++) {
            const size_t i = first + t0 + (size_t)k * THREADS + j; /* input index + r, >= 0 */
            v[k] = t0 + (size_t)k * THREADS < chunk && i >= r && i - r < length ? in[i - r] : 0.0f;
        }
        float *out = cols + row * chunk;
#pragma unroll
        for (int k = 0; k < PER_THREAD; k++)
            if (t0 + (size_t)k * THREADS < chunk)
                out[t0 + (size_t)k * THREADS] = v[k];
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

typedef struct {
    float a[STAGES][BK * A_STRIDE]; /* a[s][p * A_STRIDE + row]: the weights, transposed */
    float b[STAGES][BK * BN];       /* b[s][p * BN + col]: rows of the im2col matrix */
} stage_tiles;

/* Starts the copies of the step at k = @p t into stage @p s. @p cols is this batch's im2col
   matrix, @p w the weights (out_channels × depth, row-major). */
static __device__ __forceinline__ void copy_step(stage_tiles *tiles, int s, int t, const float *w,
                                                 const float *cols, const layer *g, int block_row,
                                                 size_t block_col, int a_inside, int b_inside)
{
    float *ta = tiles->a[s], *tb = tiles->b[s];
    const int a_row = threadIdx.x / BK, a_k = threadIdx.x % BK;
    const int b_row = threadIdx.x / (BN / 4), b_col = threadIdx.x % (BN / 4) * 4;
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
        float *dst = &tb[(b_row + l * B_ROWS_APART) * BN + b_col];
        const size_t first = block_col + (size_t)b_col;
        if (b_inside) { /* every column of the tile lies inside the chunk */
            const float *src = cols + (size_t)ck * g->stride + first;
            if (g->stride % 4 == 0) {
                __pipeline_memcpy_async(dst, src, 16);
            } else {
#pragma unroll
                for (int q = 0; q < 4; q++)
                    __pipeline_memcpy_async(dst + q, src + q, 4);
            }
            continue;
        }
        const float *row = cols + (size_t)ck * g->stride;
        for (int q = 0; q < 4; q++) {
            const size_t i = first + (size_t)q;
            dst[q] = ck < g->depth && i < g->columns ? row[i] : 0.0f;
        }
    }
}

__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    conv_im2col_gemm(const float *w, const float *cols, float *y, layer g)
{
    __shared__ __align__(16) stage_tiles tiles;
    const int block_row = blockIdx.y * BM;
    const size_t block_col = (size_t)blockIdx.x * BN;
    const float *cols_batch = cols + (size_t)blockIdx.z * (size_t)g.depth * g.stride;
    float *y_batch = y + (size_t)blockIdx.z * (size_t)g.out_channels * g.length;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row0 = warp / WARPS_N * WARP_M + lane / 8 * 4;
    const int col0 = warp % WARPS_N * WARP_N + lane % 8 * 4;
    float acc[TM][TN];
    for (int i = 0; i < TM; i++)
        for (int q = 0; q < TN; q++)
            acc[i][q] = 0.0f;
    const int columns_inside = block_col + BN <= g.columns;
    const int rows_inside = block_row + BM <= g.out_channels;
    const int steps = (g.depth + BK - 1) / BK;
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < steps) {
            const int whole = (s + 1) * BK <= g.depth;
            copy_step(&tiles, s, s * BK, w, cols_batch, &g, block_row, block_col,
                      rows_inside && whole, columns_inside && whole);
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
            copy_step(&tiles, stage == 0 ? STAGES - 1 : stage - 1, next * BK, w, cols_batch, &g,
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
            if (row < g.out_channels && col < g.columns)
                y_batch[(size_t)row * g.length + col] = acc[i][q];
        }
    }
}

size_t conv_workspace_bytes(const conv_shape *s)
{
    return (size_t)s->batch * (size_t)s->channels * (size_t)s->mask * chunk_length(s) *
           sizeof(float);
}

void conv1d(const float *x, const float *w, float *y, const conv_shape *s, void *workspace,
            cudaStream_t stream)
{
    float *cols = (float *)workspace;
    const size_t chunk = chunk_length(s);
    for (size_t first = 0; first < s->length; first += chunk) {
        const size_t positions = s->length - first < chunk ? s->length - first : chunk;
        const size_t rows = (size_t)s->batch * (size_t)s->channels * (size_t)s->mask;
        const size_t across = (positions + THREADS * PER_THREAD - 1) / (THREADS * PER_THREAD);
        const dim3 copy_grid((unsigned)across, (unsigned)(rows < 65535 ? rows : 65535));
        im2col<<<copy_grid, THREADS, 0, stream>>>(x, cols, s->mask, s->length, first, positions,
                                                  rows);
        CL_LAUNCH_CHECK("im2col");
        const layer g = {s->channels, s->channels * s->mask, s->length, positions, positions};
        const dim3 grid((unsigned)((positions + BN - 1) / BN),
                        (unsigned)((s->channels + BM - 1) / BM), (unsigned)s->batch);
        conv_im2col_gemm<<<grid, THREADS, 0, stream>>>(w, cols, y + first, g);
        CL_LAUNCH_CHECK("conv_im2col_gemm");
    }
}
