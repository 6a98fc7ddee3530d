/**
 * @file v18_transposed_weights.cu
 * @brief v18: v17 with the weights transposed once per call into the workspace, so that each
 * thread copies its part of the A tile with one 16-byte cp.async per k step instead of four 4-byte
 * ones.
 *
 * The A tile sits in shared memory transposed (a row of k holds BM output channels) so that a
 * thread reads its 8 weights of a k as two 16-byte loads. From w as stored (C_out × C·K,
 * row-major) the 4 weights a thread copies are 4 rows apart in shared memory, and cp.async cannot
 * scatter: four 4-byte copies. From wt = wᵀ (C·K × C_out) they are 4 consecutive floats both in
 * global and in shared memory: one 16-byte copy, three fewer copy instructions and their address
 * arithmetic per thread per k step (of about 50 besides 512 FFMAs). The transposition is a second
 * launch on the stream, C·C·K floats read and written (192 KB at C = 128, K = 3): a few
 * microseconds, counted in every timed call. The same change on v15's 128-row tile, whose
 * misaligned 4-byte input copies dominated, bought little (the tries); here the
 * inputs are copied as v17 copies them and the weights' copies are what is left.
 */
#include <cuda_pipeline.h>

#include "cl_cuda_check.h"
#include "conv.h"

#define BM           64
#define BN           128
#define TM           8 /* rows per thread: 2 groups of 4, 16 apart */
#define WARP_M       32
#define WARPS_N      2 /* 2 × 2 warps of 32 × 64: 128 threads */
#define MIN_BLOCKS   4 /* 115 registers: four blocks per SM */
#define BK           8
#define TN           8 /* columns per thread: 2 groups of 4, 32 apart */
#define WARP_N       64
#define THREADS      (BM * BN / (TM * TN))
#define STAGES       2
#define A_COPIES     (BM * BK / 4 / THREADS) /* 16-byte copies of the weights per thread per step */
#define A_ROWS_APART (THREADS / (BM / 4))    /* ... BM / 4 threads to a row of k */
#define B_COPIES     (BK * BN / 4 / THREADS) /* 4-float groups of the input per thread per step */
#define B_ROWS_APART (THREADS / (BN / 4))
#define A_STRIDE     (BM + 4)

/** What the kernel needs to know of the layer. */
typedef struct {
    int out_channels;      /* m: rows of the product */
    int depth;             /* k = C·K: the dot product's length */
    int mask;              /* K */
    unsigned mask_inverse; /* ⌈2^31 / K⌉: a division by K as a multiply-high */
    size_t length;         /* n = L */
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

/* umulhi(2·ck, ⌈2^31 / K⌉) = ck / K exactly for every ck here (the bound is in v17's header). */
static __device__ int channel_of(int ck, const layer *g)
{
    return (int)__umulhi(2u * (unsigned)ck, g->mask_inverse);
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
    /* w is C·K × C_out here: the tile's row k is BM consecutive output channels, as in shared */
    const int a_k = threadIdx.x / (BM / 4), a_row = threadIdx.x % (BM / 4) * 4;
    const int b_row = threadIdx.x / (BN / 4), b_col = threadIdx.x % (BN / 4) * 4;
    const size_t r = (size_t)(g->mask - 1) / 2;
#pragma unroll
    for (int l = 0; l < A_COPIES; l++) {
        const int row = block_row + a_row, col = t + a_k + l * A_ROWS_APART;
        float *dst = &ta[(a_k + l * A_ROWS_APART) * A_STRIDE + a_row];
        if (a_inside) {
            __pipeline_memcpy_async(dst, w + (size_t)col * g->out_channels + row, 16);
        } else {
            for (int q = 0; q < 4; q++)
                dst[q] = row + q < g->out_channels && col < g->depth
                             ? w[(size_t)col * g->out_channels + row + q]
                             : 0.0f;
        }
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
    /* (transposed weights: a 16-byte copy also needs C_out % 4 == 0 to stay aligned) */
    const int rows_inside = block_row + BM <= g.out_channels && g.out_channels % 4 == 0;
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
    return (size_t)s->channels * (size_t)s->channels * (size_t)s->mask * sizeof(float);
}

/* wt[k][co] = w[co][k]. C·C·K floats, 192 KB at C = 128, K = 3: a few microseconds per call, left
   simple (the writes are strided by C_out). */
__global__ void transpose_weights(const float *w, float *wt, int out_channels, int depth)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x, co = blockIdx.y;
    if (k < depth)
        wt[(size_t)k * out_channels + co] = w[(size_t)co * depth + k];
}

void conv1d(const float *x, const float *w, float *y, const conv_shape *s, void *workspace,
            cudaStream_t stream)
{
    const unsigned inverse =
        (unsigned)((0x80000000ull + (unsigned)s->mask - 1) / (unsigned)s->mask);
    const layer g = {s->channels, s->channels * s->mask, s->mask, inverse, s->length};
    const dim3 grid((unsigned)((s->length + BN - 1) / BN), (unsigned)((s->channels + BM - 1) / BM),
                    (unsigned)s->batch);
    float *wt = (float *)workspace;
    transpose_weights<<<dim3((unsigned)((g.depth + 255) / 256), (unsigned)g.out_channels), 256, 0,
                        stream>>>(w, wt, g.out_channels, g.depth);
    CL_LAUNCH_CHECK("transpose_weights");
    w = wt;
    conv_implicit_gemm<<<grid, THREADS, 0, stream>>>(w, x, y, g);
    CL_LAUNCH_CHECK("conv_implicit_gemm");
}
