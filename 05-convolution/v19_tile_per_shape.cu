/**
 * @file v19_tile_per_shape.cu
 * @brief v19: v18 with the tile's height picked per layer: 32, 64 or 128 output channels, each a
 * kernel of its own calling one tile loop with the height as a constant.
 *
 * v18's block computes 64 output channels. A layer of 16 or 32 channels fills a quarter or half of
 * those rows (the rest multiply weights copied as zeros and are never stored), and a layer of 128
 * copies each input slice twice, once for each block of 64 rows: the copies, mostly four 4-byte
 * cp.async per group since a tap's row starts off a 16-byte boundary, are what the FMAs do not
 * hide there. Every height keeps a thread's 8 × 8 outputs, a warp's 32 × 64 and 2 × bm threads, so
 * one tile loop serves all three; a kernel per height gives each its own launch bounds (8, 4 or 2
 * blocks of 120 registers per SM) and compiles the loop with the height folded in. The 128-row
 * tile also takes k slices 16 deep: a block of 8 warps waits at its barrier for the slowest of 8,
 * and deeper slices halve the barriers per FMA.
 *
 * The pick is a count, not a table: the rows a height computes, ceil(C_out / bm) · bm, the fewest
 * wins, and on a tie the taller tile, which copies each input slice for more rows. The 128-row
 * tile also needs a k loop of at least 24 slices (C·K ≥ 384): it fills its two-stage pipeline once
 * per block, and over a shorter loop that fill is not repaid (the page has the sweep).
 */
#include <cuda_pipeline.h>

#include "cl_cuda_check.h"
#include "conv.h"

#define BN      128
#define TM      8 /* rows per thread: 2 groups of 4, 16 apart */
#define WARP_M  32
#define WARPS_N 2 /* (bm / 32) × 2 warps of 32 × 64: 2 · bm threads */
#define TN      8 /* columns per thread: 2 groups of 4, 32 apart */
#define WARP_N  64
#define STAGES  2
/* For a tile of bm rows and slices bk deep (bm threads × 2): each thread copies bk / 8 16-byte
   groups of the weights, rows 8 apart (bm / 4 threads to a row of k), and 16·bk / bm 4-float
   groups of the input, rows bm / 16 apart (32 threads to a row). */
#define THREADS_OF(bm)       (2 * (bm))
#define A_STRIDE_OF(bm)      ((bm) + 4)
#define STAGE_FLOATS(bm, bk) ((bk)*A_STRIDE_OF(bm) + (bk)*BN)

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
                                                 int col0, int a_stride, float *a_values,
                                                 float *b_values)
{
#pragma unroll
    for (int g = 0; g < TM / 4; g++) {
        const float4 v = *(const float4 *)&ta[p * a_stride + row0 + 16 * g];
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

/* Starts the copies of the step at k = @p t into the stage at @p ta (the weights, transposed:
   ta[p * (bm + 4) + row]) and @p tb (rows of the im2col matrix: tb[p * BN + col]). @p x is this
   batch's input, @p w the weights transposed (depth × out_channels). */
static __device__ __forceinline__ void copy_step(float *ta, float *tb, int t, const float *w,
                                                 const float *x, const layer *g, int block_row,
                                                 size_t block_col, int a_inside, int b_inside,
                                                 const int bm, const int bk)
{
    const int threads = THREADS_OF(bm), a_stride = A_STRIDE_OF(bm);
    const int a_rows_apart = threads / (bm / 4), b_rows_apart = threads / (BN / 4);
    /* w is C·K × C_out here: the tile's row k is bm consecutive output channels, as in shared */
    const int a_k = threadIdx.x / (bm / 4), a_row = threadIdx.x % (bm / 4) * 4;
    const int b_row = threadIdx.x / (BN / 4), b_col = threadIdx.x % (BN / 4) * 4;
    const size_t r = (size_t)(g->mask - 1) / 2;
#pragma unroll
    for (int l = 0; l < bm * bk / 4 / threads; l++) {
        const int row = block_row + a_row, col = t + a_k + l * a_rows_apart;
        float *dst = &ta[(a_k + l * a_rows_apart) * a_stride + a_row];
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
    for (int l = 0; l < bk * BN / 4 / threads; l++) {
        const int ck = t + b_row + l * b_rows_apart; /* the im2col row: ci·K + j */
        const int ci = channel_of(ck, g), j = ck - ci * g->mask;
        float *dst = &tb[(b_row + l * b_rows_apart) * BN + b_col];
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

/* The block's tile of bm output channels × BN positions, k slices bk deep. */
static __device__ __forceinline__ void conv_tile(const float *w, const float *x, float *y,
                                                 const layer *gp, const int bm, const int bk)
{
    extern __shared__ __align__(16) float stages[]; /* STAGES × STAGE_FLOATS(bm, bk) */
    const layer g = *gp;
    const int a_stride = A_STRIDE_OF(bm);
    const int block_row = blockIdx.y * bm;
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
    const int rows_inside = block_row + bm <= g.out_channels && g.out_channels % 4 == 0;
    const int steps = (g.depth + bk - 1) / bk;
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < steps) {
            const int whole = (s + 1) * bk <= g.depth;
            float *ta = stages + s * STAGE_FLOATS(bm, bk), *tb = ta + bk * a_stride;
            copy_step(ta, tb, s * bk, w, x_batch, &g, block_row, block_col, rows_inside && whole,
                      columns_inside && whole, bm, bk);
        }
        __pipeline_commit();
    }
    for (int t = 0, stage = 0; t < steps; t++, stage = stage == STAGES - 1 ? 0 : stage + 1) {
        __pipeline_wait_prior(STAGES - 2);
        __syncthreads();
        const int next = t + STAGES - 1;
        const float *ta = stages + stage * STAGE_FLOATS(bm, bk), *tb = ta + bk * a_stride;
        float a_values[2][TM], b_values[2][TN];
        fragments(ta, tb, 0, row0, col0, a_stride, a_values[0], b_values[0]);
        if (next < steps) {
            const int whole = (next + 1) * bk <= g.depth;
            float *na = stages + (stage == 0 ? STAGES - 1 : stage - 1) * STAGE_FLOATS(bm, bk);
            copy_step(na, na + bk * a_stride, next * bk, w, x_batch, &g, block_row, block_col,
                      rows_inside && whole, columns_inside && whole, bm, bk);
        }
        __pipeline_commit();
#pragma unroll
        for (int p = 0; p < bk; p++) {
            if (p + 1 < bk)
                fragments(ta, tb, p + 1, row0, col0, a_stride, a_values[(p + 1) % 2],
                          b_values[(p + 1) % 2]);
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

/* One kernel per height, each with its own launch bounds: 2 · bm threads of 120 registers, 512
   threads per SM in all three. */
__global__ void __launch_bounds__(THREADS_OF(32), 8)
    conv_rows32(const float *w, const float *x, float *y, layer g)
{
    conv_tile(w, x, y, &g, 32, 8);
}

__global__ void __launch_bounds__(THREADS_OF(64), 4)
    conv_rows64(const float *w, const float *x, float *y, layer g)
{
    conv_tile(w, x, y, &g, 64, 8);
}

__global__ void __launch_bounds__(THREADS_OF(128), 2)
    conv_rows128(const float *w, const float *x, float *y, layer g)
{
    conv_tile(w, x, y, &g, 128, 16);
}

/* The height that computes the fewest rows, ceil(C_out / bm) · bm, the taller on a tie (each
   input slice copied for more rows); 128 rows only over a loop of at least 24 slices of 16, which
   repays the block's pipeline fill. */
static int tile_height(int out_channels, int depth)
{
    int best = 32;
    for (int bm = 64; bm <= 128; bm *= 2) {
        const long long rows = (long long)(out_channels + bm - 1) / bm * bm;
        const long long best_rows = (long long)(out_channels + best - 1) / best * best;
        if (rows <= best_rows && (bm < 128 || depth >= 24 * 16))
            best = bm;
    }
    return best;
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
    const int bm = tile_height(g.out_channels, g.depth), bk = bm == 128 ? 16 : 8;
    const dim3 grid((unsigned)((s->length + BN - 1) / BN), (unsigned)((s->channels + bm - 1) / bm),
                    (unsigned)s->batch);
    const size_t shared = STAGES * STAGE_FLOATS(bm, bk) * sizeof(float);
    float *wt = (float *)workspace;
    transpose_weights<<<dim3((unsigned)((g.depth + 255) / 256), (unsigned)g.out_channels), 256, 0,
                        stream>>>(w, wt, g.out_channels, g.depth);
    CL_LAUNCH_CHECK("transpose_weights");
    if (bm == 32)
        conv_rows32<<<grid, THREADS_OF(32), shared, stream>>>(wt, x, y, g);
    else if (bm == 64)
        conv_rows64<<<grid, THREADS_OF(64), shared, stream>>>(wt, x, y, g);
    else
        conv_rows128<<<grid, THREADS_OF(128), shared, stream>>>(wt, x, y, g);
    CL_LAUNCH_CHECK("conv_rows");
}
