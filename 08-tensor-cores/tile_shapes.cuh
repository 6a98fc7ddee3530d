/**
 * @file tile_shapes.cuh
 * @brief v13's tiles, reused unchanged from v14 on: the tile and ring constants, a unit's tile and
 * slice of k, the copy of one k-step, and the count of waves and bytes that picks the tile's width
 * and the slices (see v13's file comment). v13 holds these in its own file.
 */
#ifndef TILE_SHAPES_CUH
#define TILE_SHAPES_CUH

#include "ptx.h"

#define BM                 128
#define BN_MAX             256 /* tiles are 128 × 256 or 128 × 64 */
#define BK                 64  /* 64 BF16 = 128 bytes: one swizzled row */
#define THREADS            384 /* a producer warpgroup and two consumers */
#define ROW_BYTES          128
#define B_BLOCK            64 /* columns of B per box: B's tile is bn / 64 boxes */
#define WGMMA_K            16
#define A_TILE_BYTES       (BM * BK * 2)
#define B_BOX_BYTES        (BK * B_BLOCK * 2)
#define STAGE_BYTES(bn)    (A_TILE_BYTES + (bn) / B_BLOCK * B_BOX_BYTES)
#define RING_BYTES         (4 * STAGE_BYTES(BN_MAX))
#define STAGES(bn)         (RING_BYTES / STAGE_BYTES(bn))
#define MAX_STAGES         STAGES(64) /* 8 */
#define C_BOX_COLS         32         /* 32 floats = 128 bytes: one swizzled row */
#define C_BOX_BYTES        (64 * C_BOX_COLS * 4)
#define C_ROUND_COLS       64 /* a consumer's results leave 64 columns (two boxes) at a time */
#define STAGING_BYTES      (2 * 2 * C_BOX_BYTES) /* two boxes per consumer */
#define SMEM_BYTES         (RING_BYTES + STAGING_BYTES + 1024 + 2 * MAX_STAGES * 8)
#define GROUP_ROWS         8         /* tile rows walked down before moving one column on */
#define CLUSTER            2         /* blocks per cluster, on vertically adjacent tiles */
#define ALIGN_A            8         /* BF16 elements: TMA's 16-byte row pitch */
#define ALIGN_C            4         /* floats: the same for C */
#define LINE_A             64        /* BF16 elements: a padded row is whole 128-byte lines */
#define LINE_C             32        /* floats: the same for C */
#define COPY_BLOCKS_PER_SM 8         /* of 256 threads: 2048, all an SM holds */
#define FLOATS_PER_STEP    (1 << 19) /* a 128 × 256 step, 0.7 µs: the memory moves 2 MB */
#define EPILOGUE_STEPS     1 /* 64 KB of C per consumer through shared memory: about a step */
#define LAUNCH_STEPS       2 /* zeroing C is one more launch, a few µs */
/* Pairs of tiles bn wide (side by side when the product is one row of tiles, as in v12). */
static __host__ __device__ long long count_pairs(int m, int n, int bn)
{
    if (m <= BM)
        return (n + CLUSTER * bn - 1) / (CLUSTER * bn);
    return (long long)((n + bn - 1) / bn) * ((m + CLUSTER * BM - 1) / (CLUSTER * BM));
}

#if PTX_HAVE_WGMMA
/* Step @p step's boxes into @p stage, completing on @p full: A's for this block, B's j with
   j % CLUSTER == @p rank into both blocks (side by side, all of B's into this block alone). */
static __device__ __forceinline__ void load_step(char *stage, uint64_t *full,
                                                 const CUtensorMap *map_a, const CUtensorMap *map_b,
                                                 int step, int block_row, int block_col,
                                                 unsigned rank, int wide, int bn, int a_bytes)
{
    ptx_mbarrier_arrive_expect_bytes(full, a_bytes + bn / B_BLOCK * B_BOX_BYTES); /* both blocks' */
    ptx_tma_load_2d(stage, map_a, step * BK, block_row, full);
    for (int j = wide ? 0 : rank; j < bn / B_BLOCK; j += wide ? 1 : CLUSTER)
        ptx_tma_load_2d_multicast(stage + A_TILE_BYTES + j * B_BOX_BYTES, map_b,
                                  block_col + j * B_BLOCK, step * BK, full,
                                  wide ? 1 << rank : (1 << CLUSTER) - 1);
}

/* This block's tile and k-steps in unit @p unit: side by side in one row of tiles (v12), else in
   v6's order over pairs of tiles (groups of GROUP_ROWS pair rows, column-major in a group). */
static __device__ __forceinline__ void unit_origin(int unit, int slices, int slice_steps, int k,
                                                   int m, int n, int bn, unsigned rank,
                                                   int *block_row, int *block_col, int *first,
                                                   int *last)
{
    const int pair = unit / slices;
    *first = unit % slices * slice_steps; /* its slice: steps first to last − 1 */
    *last = min((k + BK - 1) / BK, *first + slice_steps);
    if (m <= BM) {
        *block_row = 0;
        *block_col = (pair * CLUSTER + rank) * bn;
        return;
    }
    const int pair_rows = (m + CLUSTER * BM - 1) / (CLUSTER * BM), tile_cols = (n + bn - 1) / bn;
    const int first_row = pair / (GROUP_ROWS * tile_cols) * GROUP_ROWS;
    const int rows_in_group = min(GROUP_ROWS, pair_rows - first_row);
    const int in_group = pair % (GROUP_ROWS * tile_cols);
    *block_row = ((first_row + in_group % rows_in_group) * CLUSTER + rank) * BM;
    *block_col = in_group / rows_in_group * bn;
}
#endif

static int padded(int x, int align)
{
    return (x + align - 1) / align * align;
}

/* The S of the count in the file's comment, for this shape and @p clusters clusters at once; the
   tile's width goes to @p width (0 or 1: 256 or 64 columns). */
static int choose_shape(int m, int n, int k, int clusters, int *width)
{
    const int steps = (k + BK - 1) / BK;
    /* A and B read and C written once at the memory's rate: a floor for any schedule */
    const double memory =
        (2.0 * ((double)m * k + (double)k * n) + 4.0 * m * (double)n) / 4.0 / FLOATS_PER_STEP;
    int best = 1;
    double best_time = -1.0;
    for (int w = 0; w < 2; w++) {
        const int bn = BN_MAX >> 2 * w;
        const double pairs = (double)count_pairs(m, n, bn);
        /* a step costs what it copies (A's box, as tall as A, and B's), against 128 × 256's */
        const double step =
            (double)(min(BM, (m + 7) / 8 * 8) * ROW_BYTES + bn * ROW_BYTES) / STAGE_BYTES(BN_MAX);
        for (int s = 1; s <= steps; s++) {
            const int per_slice = (steps + s - 1) / s;
            if (s > 1 && (steps + per_slice - 1) / per_slice < s)
                continue; /* the same slices as a smaller S: one would be empty */
            const double units = pairs * s, waves = ceil(units / clusters);
            const double bytes = memory * clusters / fmin(units, clusters);
            const double reduction =
                s > 1 ? LAUNCH_STEPS + (s + 1.0) * m * (double)n / FLOATS_PER_STEP : 0.0;
            const double time =
                fmax(waves * (per_slice * step + EPILOGUE_STEPS * bn / BN_MAX), bytes) + reduction;
            if (best_time < 0.0 || time < best_time)
                best = s, *width = w, best_time = time;
        }
    }
    return best;
}

#endif
