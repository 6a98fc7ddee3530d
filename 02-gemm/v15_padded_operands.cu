/**
 * @file v15_padded_operands.cu
 * @brief v15: v14 with A and B copied into buffers padded to whole tiles when B's rows are not
 * 16-byte aligned, so that every tile takes the fast copies.
 *
 * v12's predicated copies made odd sizes correct at full speed only where few tiles sit on the
 * border. When n is no multiple of 4, B's rows start at addresses that are no multiple of 16
 * bytes, no 16-byte cp.async can take them, and every tile copies element by element: three times
 * the copy instructions in the loop that shares the issue slots with the FMAs (the sweep: v14 at
 * 0.78× cuBLAS at 4097³ against 0.93× at 4096³). Here, for such shapes, the launch first copies A
 * into an m' × k' buffer and B into a k' × n' one, m', n', k' rounded up to whole tiles and the
 * new elements set to the semiring's zero (a padded row or column adds nothing to a sum, +∞
 * nothing to a min), runs v14's kernels on the padded product, and copies the m × n corner out
 * (the slices' reduction does that in the same pass). The copies cost one read and one write of
 * A and B and one more of C: a few percent at these sizes, against every tile slowed. Aligned
 * shapes run as in v14. This is what a library does with operands it cannot address well
 * (cuBLAS's fast paths need aligned leading dimensions too).
 */
#include <cuda_pipeline.h>

#include "cl_cuda_check.h"
#include "gemm.h"

#define BM_LARGE 128 /* rows of the tiles: 256 threads, one block per SM */
#define BM_SMALL 64  /* 128 threads, two blocks per SM */
#define BN       256
#define BK       8
#define WARPS_N  4  /* 2 × 4 or 1 × 4 warps */
#define TM       16 /* rows per thread: 4 groups of 4, 16 apart */
#define TN       8  /* columns per thread: 2 groups of 4, 32 apart */
#define WARP_M   64
#define WARP_N   64
#define STAGES   2 /* tiles in shared memory: the one in use and the one being copied */
#define A_COPIES 4 /* 4-byte copies of A per thread per step: BM·BK / (2·BM) for either tile */
#define A_STRIDE (BM_LARGE + 4) /* floats per k in the transposed A tile */

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
   inside the matrix, the semiring's padding stored outside it. A's rows are @p lda floats apart;
   the tile has @p bm rows and 2·bm threads. */
static __device__ __forceinline__ void copy_step(stage_tiles *tiles, int s, int t, const float *a,
                                                 const float *b, int m, int n, int k, int lda,
                                                 int block_row, int block_col, int inside,
                                                 float pad, int bm)
{
    float *ta = tiles->a[s], *tb = tiles->b[s];
    const int threads = 2 * bm;
    const int a_rows_apart = threads / BK, b_copies = BK * BN / 4 / threads;
    const int b_rows_apart = threads / (BN / 4);
    const int a_row = threadIdx.x / BK, a_k = threadIdx.x % BK;
    const int b_row = threadIdx.x / (BN / 4), b_col = threadIdx.x % (BN / 4) * 4;
    if (inside) {
        const float *src_a = a + (size_t)(block_row + a_row) * lda + t + a_k;
        const float *src_b = b + (size_t)(t + b_row) * n + block_col + b_col;
#pragma unroll
        for (int l = 0; l < A_COPIES; l++)
            __pipeline_memcpy_async(&ta[a_k * A_STRIDE + a_row + l * a_rows_apart],
                                    src_a + (size_t)l * a_rows_apart * lda, 4);
#pragma unroll
        for (int l = 0; l < b_copies; l++)
            __pipeline_memcpy_async(&tb[(b_row + l * b_rows_apart) * BN + b_col],
                                    src_b + (size_t)l * b_rows_apart * n, 16);
        return;
    }
#pragma unroll
    for (int l = 0; l < A_COPIES; l++) {
        const int row = block_row + a_row + l * a_rows_apart, col = t + a_k;
        float *dst = &ta[a_k * A_STRIDE + a_row + l * a_rows_apart];
        if (row < m && col < k)
            __pipeline_memcpy_async(dst, a + (size_t)row * lda + col, 4);
        else
            *dst = pad;
    }
    /* B element by element, consecutive threads on consecutive columns: a warp's 32 copies
       take 32 consecutive floats of a row, one 128-byte line, where four copies per thread of its
       four columns would touch four lines with each instruction */
#pragma unroll
    for (int p = 0; p < BK; p++)
#pragma unroll
        for (int c = 0; c < BN / threads; c++) {
            const int j = (int)threadIdx.x + c * threads, row = t + p, col = block_col + j;
            float *dst = &tb[p * BN + j];
            if (row < k && col < n)
                __pipeline_memcpy_async(dst, b + (size_t)row * n + col, 4);
            else
                *dst = pad;
        }
}

/* The tile's product A·B, A m × k with rows @p lda floats apart, B k × n; written to @p out (C,
   or a slice's partial matrix: both m × n, row-major). */
static __device__ __forceinline__ void blocked_tile(const float *a, const float *b, float *out,
                                                    int m, int n, int k, int lda, int bm,
                                                    semiring ring)
{
    __shared__ __align__(16) stage_tiles tiles;
    const int block_row = blockIdx.y * bm, block_col = blockIdx.x * BN;
    /* rows row0 + 16g + i, columns col0 + 32h + j, for g < 4, h < 2, i, j < 4 */
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row0 = warp / WARPS_N * WARP_M + lane / 8 * 4;
    const int col0 = warp % WARPS_N * WARP_N + lane % 8 * 4;
    const float pad = semiring_zero(ring);
    float acc[TM][TN];
    for (int r = 0; r < TM; r++)
        for (int q = 0; q < TN; q++)
            acc[r][q] = semiring_zero(ring);
    const int interior = block_row + bm <= m && block_col + BN <= n && n % 4 == 0;
    const int steps = (k + BK - 1) / BK;
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < steps)
            copy_step(&tiles, s, s * BK, a, b, m, n, k, lda, block_row, block_col,
                      interior && (s + 1) * BK <= k, pad, bm);
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
            copy_step(&tiles, stage == 0 ? STAGES - 1 : stage - 1, next * BK, a, b, m, n, k, lda,
                      block_row, block_col, interior && (next + 1) * BK <= k, pad, bm);
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
                out[(size_t)row * n + col] = acc[r][q];
        }
    }
}

/* Block (x, y, z) computes tile (y, x) of slice z: the product of A's columns and B's rows
   [z·slice_k, (z + 1)·slice_k) (fewer in the last slice). With one slice it writes C; with more,
   slice z's partial matrix, at out + z·m·n. */
static __device__ __forceinline__ void slice_product(const float *a, const float *b, float *out,
                                                     int m, int n, int k, int slice_k, int bm,
                                                     semiring ring)
{
    const int first = blockIdx.z * slice_k;
    const int width = min(slice_k, k - first);
    const float *slice_a = a + first;                     /* columns from first on, rows k apart */
    const float *slice_b = b + (size_t)first * (size_t)n; /* rows from first on */
    float *slice_out = out + (size_t)blockIdx.z * (size_t)m * (size_t)n;
    /* The semiring is a constant in each branch, so each gets its own loop, free of the test. */
    if (ring == SEMIRING_MIN_PLUS)
        blocked_tile(slice_a, slice_b, slice_out, m, n, width, k, bm, SEMIRING_MIN_PLUS);
    else
        blocked_tile(slice_a, slice_b, slice_out, m, n, width, k, bm, SEMIRING_PLUS_TIMES);
}

/* One kernel per tile height, each compiled on its own (its registers and its schedule are its
   own, as v13's were): 256 threads for 128-row tiles, one block per SM ... */
__global__ void __launch_bounds__(2 * BM_LARGE, 1)
    gemm_tall_tiles(const float *a, const float *b, float *out, int m, int n, int k, int slice_k,
                    semiring ring)
{
    slice_product(a, b, out, m, n, k, slice_k, BM_LARGE, ring);
}

/* ... 128 threads for 64-row tiles, two blocks per SM. */
__global__ void __launch_bounds__(2 * BM_SMALL, 2)
    gemm_short_tiles(const float *a, const float *b, float *out, int m, int n, int k, int slice_k,
                     semiring ring)
{
    slice_product(a, b, out, m, n, k, slice_k, BM_SMALL, ring);
}

/* c[i][j] = partials[0][i][j] ⊕ partials[1][i][j] ⊕ … in slice order: a fixed order, so a
   deterministic sum. The partial matrices have rows @p pitch floats long (the padded width, or n),
   one every @p slice_floats; C is m × n. Reads S floats and writes one per element: memory-bound,
   consecutive threads on consecutive columns, blocks over rows. */
__global__ void add_slices(const float *partials, int pitch, size_t slice_floats, float *c, int m,
                           int n, int slices, semiring ring)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= n)
        return;
    for (int row = blockIdx.y; row < m; row += gridDim.y) {
        const size_t at = (size_t)row * (size_t)pitch + (size_t)col;
        float sum = partials[at];
        for (int s = 1; s < slices; s++)
            sum = semiring_add(sum, partials[(size_t)s * slice_floats + at], ring);
        c[(size_t)row * (size_t)n + (size_t)col] = sum;
    }
}

/* dst (padded_rows × padded_cols, row-major) = src (rows × cols) with @p pad in the new rows and
   columns. */
__global__ void pad_matrix(const float *src, int rows, int cols, float *dst, int padded_rows,
                           int padded_cols, float pad)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= padded_cols)
        return;
    for (int row = blockIdx.y; row < padded_rows; row += gridDim.y)
        dst[(size_t)row * (size_t)padded_cols + (size_t)col] =
            row < rows && col < cols ? src[(size_t)row * (size_t)cols + (size_t)col] : pad;
}

/* One step of one SM's tiles, 2·128·BN·BK flops on its 128 FP32 lanes, is 2048 clocks at the full
   FMA rate, about a microsecond; HBM's few TB/s move about this many floats in that time. */
#define FLOATS_PER_STEP (1 << 20)
#define MAX_SLICES      128

typedef struct {
    int bm;      /* rows of the tile: BM_LARGE or BM_SMALL */
    int slices;  /* S */
    int padded;  /* 1: the product runs on copies of A and B padded to whole tiles */
    int m, n, k; /* the shape the kernels see: m, n, k, or the padded m', n', k' */
} launch_shape;

static int round_up(int x, int multiple)
{
    return (x + multiple - 1) / multiple * multiple;
}

/* The tile and the S of the rule above (the file's comment), for this shape on this device. */
static launch_shape choose_shape(int m, int n, int k)
{
    int device, sms;
    CL_CUDA_CHECK(cudaGetDevice(&device));
    CL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const int steps = (k + BK - 1) / BK;
    const int heights[2] = {BM_LARGE, BM_SMALL};
    launch_shape best = {BM_LARGE, 1, 0, m, n, k};
    double best_time = -1.0;
    for (int h = 0; h < 2; h++) {
        const int bm = heights[h];
        const double tiles = (double)((m + bm - 1) / bm) * (double)((n + BN - 1) / BN);
        const double resident = (double)sms * (BM_LARGE / bm); /* blocks at once */
        for (int s = 1; s <= MAX_SLICES && s <= steps; s++) {
            const int per_slice = (steps + s - 1) / s;
            if (s > 1 && (steps + per_slice - 1) / per_slice < s)
                continue; /* the same slices as a smaller S: one would be empty */
            const double waves = ceil(tiles * s / resident);
            const double reduction =
                s > 1 ? (2.0 * s + 1.0) * m * (double)n / FLOATS_PER_STEP : 0.0;
            const double time = waves * per_slice + reduction;
            if (best_time < 0.0 || time < best_time) {
                best.bm = bm, best.slices = s;
                best_time = time;
            }
        }
    }
    /* B's rows are 16-byte aligned only when n is a multiple of 4 (cudaMalloc aligns the start) */
    best.padded = n % 4 != 0;
    best.m = best.padded ? round_up(m, best.bm) : m;
    best.n = best.padded ? round_up(n, BN) : n;
    best.k = best.padded ? round_up(k, BK) : k;
    return best;
}

/* The workspace: padded A, padded B (when padded), then the partial matrices (when there are
   slices, or padding: the padded product is written there and its corner copied out). */
static size_t padded_a_floats(launch_shape shape)
{
    return shape.padded ? (size_t)shape.m * (size_t)shape.k : 0;
}

static size_t padded_b_floats(launch_shape shape)
{
    return shape.padded ? (size_t)shape.k * (size_t)shape.n : 0;
}

static size_t partial_floats(launch_shape shape)
{
    return shape.slices > 1 || shape.padded
               ? (size_t)shape.slices * (size_t)shape.m * (size_t)shape.n
               : 0;
}

int gemm_supports(semiring ring)
{
    (void)ring;
    return 1;
}

size_t gemm_workspace_bytes(int m, int n, int k)
{
    const launch_shape shape = choose_shape(m, n, k);
    return (padded_a_floats(shape) + padded_b_floats(shape) + partial_floats(shape)) *
           sizeof(float);
}

/* A grid for the two copying kernels: 256 columns per block, a block per row up to the grid's
   limit (rows beyond it are taken by a stride). */
static dim3 rows_grid(int rows, int cols)
{
    return dim3((unsigned)((cols + 255) / 256), (unsigned)(rows < 65535 ? rows : 65535));
}

void gemm(const float *a, const float *b, float *c, int m, int n, int k, semiring ring,
          void *workspace, cudaStream_t stream)
{
    const launch_shape shape = choose_shape(m, n, k);
    const int threads = 256; /* of the copying kernels, as in rows_grid() */
    float *padded_a = (float *)workspace;
    float *padded_b = padded_a + padded_a_floats(shape);
    float *partials = padded_b + padded_b_floats(shape);
    if (shape.padded) {
        pad_matrix<<<rows_grid(shape.m, shape.k), threads, 0, stream>>>(
            a, m, k, padded_a, shape.m, shape.k, semiring_zero(ring));
        pad_matrix<<<rows_grid(shape.k, shape.n), threads, 0, stream>>>(
            b, k, n, padded_b, shape.k, shape.n, semiring_zero(ring));
        CL_LAUNCH_CHECK("pad_matrix");
        a = padded_a, b = padded_b;
    }
    const int steps = (shape.k + BK - 1) / BK;
    /* whole steps: every slice but the last starts and ends on a step */
    const int slice_k = (steps + shape.slices - 1) / shape.slices * BK;
    const dim3 grid((shape.n + BN - 1) / BN, (shape.m + shape.bm - 1) / shape.bm, shape.slices);
    float *out = partial_floats(shape) > 0 ? partials : c;
    if (shape.bm == BM_LARGE)
        gemm_tall_tiles<<<grid, 2 * BM_LARGE, 0, stream>>>(a, b, out, shape.m, shape.n, shape.k,
                                                           slice_k, ring);
    else
        gemm_short_tiles<<<grid, 2 * BM_SMALL, 0, stream>>>(a, b, out, shape.m, shape.n, shape.k,
                                                            slice_k, ring);
    CL_LAUNCH_CHECK("gemm_tall_tiles or gemm_short_tiles");
    if (out == partials) {
        add_slices<<<rows_grid(m, n), threads, 0, stream>>>(
            partials, shape.n, (size_t)shape.m * (size_t)shape.n, c, m, n, shape.slices, ring);
        CL_LAUNCH_CHECK("add_slices");
    }
}
