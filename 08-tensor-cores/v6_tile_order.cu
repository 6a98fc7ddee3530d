/**
 * @file v6_tile_order.cu
 * @brief v6: v5 with the blocks' tiles taken in groups of 8 tile rows, column by column, so that
 * the blocks running at once share their operands in L2.
 *
 * v5 numbers its tiles row by row (blockIdx.x across the columns of C). At 8192³ a row of C is 32
 * tiles, so the 132 blocks running at once cover about 4 rows of tiles by 32 columns: together
 * they read 4 × 128 rows of A and 32 × 256 columns of B, 8704 rows and columns whose data few
 * other running blocks share, and B's part no longer stays in L2 until its next use. Here
 * the grid is one-dimensional and tile t walks down a group of 8 tile rows before it moves one
 * column on: the blocks running at once cover about 8 rows by 17 columns, 1024 rows of A and 4352
 * columns of B, about 60% of the bytes for the same work. Smaller matrices change little: their
 * operands fit in L2 in any order.
 */
#include "cl_cuda_check.h"
#include "launch.h"
#include "ptx.h"
#include "tensor_gemm.h"

#define BM           128
#define BN           256
#define BK           64  /* 64 BF16 = 128 bytes: one swizzled row */
#define THREADS      384 /* a producer warpgroup and two consumers */
#define STAGES       4
#define ROW_BYTES    128
#define B_BLOCK      64 /* columns of B per box: B's tile is BN / 64 boxes */
#define WGMMA_K      16
#define A_TILE_BYTES (BM * BK * 2)
#define B_BOX_BYTES  (BK * B_BLOCK * 2)
#define STAGE_BYTES  (A_TILE_BYTES + BN / B_BLOCK * B_BOX_BYTES)
#define SMEM_BYTES   (STAGES * STAGE_BYTES + 1024 + 2 * STAGES * 8) /* align, then barriers */
#define GROUP_ROWS   8    /* tile rows walked down before moving one column on */
#define ALIGN        8    /* elements: TMA's 16-byte row pitch in BF16 */
#define LINE         64   /* elements: a padded row is whole 128-byte lines */
#define PAD_BLOCKS   2048 /* enough rows in flight to fill the GPU */

#if PTX_HAVE_WGMMA
/* Asks the copy engine for step @p step's boxes into @p stage, completing on @p full. */
static __device__ __forceinline__ void load_step(char *stage, uint64_t *full,
                                                 const CUtensorMap *map_a, const CUtensorMap *map_b,
                                                 int step, int block_row, int block_col)
{
    ptx_mbarrier_arrive_expect_bytes(full, STAGE_BYTES);
    ptx_tma_load_2d(stage, map_a, step * BK, block_row, full);
    for (int j = 0; j < BN / B_BLOCK; j++)
        ptx_tma_load_2d(stage + A_TILE_BYTES + j * B_BOX_BYTES, map_b, block_col + j * B_BLOCK,
                        step * BK, full);
}
#endif

__global__ void __launch_bounds__(THREADS, 1)
    gemm_tile_order(const __grid_constant__ CUtensorMap map_a,
                    const __grid_constant__ CUtensorMap map_b, float *c, int m, int n, int k)
{
#if PTX_HAVE_WGMMA
    extern __shared__ char smem_raw[];
    char *stages = (char *)(((size_t)smem_raw + 1023) / 1024 * 1024); /* swizzle atoms: 1024 */
    uint64_t *full = (uint64_t *)(stages + STAGES * STAGE_BYTES);
    uint64_t *empty = full + STAGES;
    const int warpgroup = threadIdx.x / 128, thread = threadIdx.x % 128;
    /* tile blockIdx.x: groups of GROUP_ROWS tile rows (fewer in the last group), column-major
       within a group */
    const int tile_rows = (m + BM - 1) / BM, tile_cols = (n + BN - 1) / BN;
    const int group = blockIdx.x / (GROUP_ROWS * tile_cols);
    const int first_row = group * GROUP_ROWS;
    const int rows_in_group = min(GROUP_ROWS, tile_rows - first_row);
    const int in_group = blockIdx.x % (GROUP_ROWS * tile_cols);
    const int block_row = (first_row + in_group % rows_in_group) * BM;
    const int block_col = in_group / rows_in_group * BN;
    const int steps = (k + BK - 1) / BK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            ptx_mbarrier_init(&full[s], 1);  /* the producer's arrival, and the bytes */
            ptx_mbarrier_init(&empty[s], 2); /* one arrival per consumer warpgroup */
        }
        ptx_fence_barrier_init(); /* the barriers, visible to the copy engine */
    }
    __syncthreads();

    if (warpgroup == 0) {
        /* the producer */
        ptx_setmaxnreg_dec_40();
        if (thread == 0)
            for (int step = 0; step < steps; step++) {
                const int s = step % STAGES;
                if (step >= STAGES) /* the consumers' release of this stage's previous use */
                    ptx_mbarrier_wait(&empty[s], (step / STAGES + 1) % 2);
                load_step(stages + s * STAGE_BYTES, &full[s], &map_a, &map_b, step, block_row,
                          block_col);
            }
    } else {
        /* a consumer: rows 64·(warpgroup − 1) of the block's 128 */
        ptx_setmaxnreg_inc_232();
        const int consumer = warpgroup - 1;
        float d[128];
#pragma unroll
        for (int j = 0; j < 128; j++)
            d[j] = 0.0f;
        for (int step = 0; step < steps; step++) {
            const int s = step % STAGES;
            ptx_mbarrier_wait(&full[s], step / STAGES % 2);
            const char *stage = stages + s * STAGE_BYTES;
            const uint64_t desc_a =
                ptx_wgmma_descriptor(ptx_smem_address(stage + consumer * 64 * ROW_BYTES), 16, 1024);
            const uint64_t desc_b =
                ptx_wgmma_descriptor(ptx_smem_address(stage + A_TILE_BYTES), B_BOX_BYTES, 1024);
            ptx_wgmma_fence();
#pragma unroll
            for (int p = 0; p < BK / WGMMA_K; p++) /* 16 of k: 32 bytes on in A, 16 rows in B */
                ptx_wgmma_m64n256k16_bf16(d, desc_a + (p * WGMMA_K * 2 >> 4),
                                          desc_b + (p * WGMMA_K * ROW_BYTES >> 4), 1);
            ptx_wgmma_commit();
            ptx_wgmma_wait_all_but_one(); /* the previous step's group is done: its stage is free */
            if (step > 0 && thread == 0)
                ptx_mbarrier_arrive(&empty[(step - 1) % STAGES]);
        }
        ptx_wgmma_wait_all();

        /* d[4j + e] is row 16·(warp % 4) + lane/4 + 8·(e/2), column 8j + 2·(lane%4) + e%2 of
           this consumer's 64 × 256 */
        const int warp = thread / 32, lane = thread % 32;
#pragma unroll
        for (int j = 0; j < BN / 8; j++)
#pragma unroll
            for (int half = 0; half < 2; half++) {
                const int row = block_row + consumer * 64 + 16 * warp + lane / 4 + 8 * half;
                const int col = block_col + 8 * j + 2 * (lane % 4);
                if (row >= m)
                    continue;
                float *out = &c[(size_t)row * n + col];
                if (col + 1 < n && n % 2 == 0) {
                    *(float2 *)out = make_float2(d[4 * j + 2 * half], d[4 * j + 2 * half + 1]);
                } else {
                    if (col < n)
                        out[0] = d[4 * j + 2 * half];
                    if (col + 1 < n)
                        out[1] = d[4 * j + 2 * half + 1];
                }
            }
    }
#else
    (void)map_a, (void)map_b, (void)c, (void)m, (void)n, (void)k; /* wgmma: sm_90a only */
#endif
}

/* to[row][col] = from[row][col] for col < cols, 0 up to @p pitch: rows padded to whole lines. A
   block per row at a time, its threads along the row: no division per element. */
__global__ void pad_rows(const __nv_bfloat16 *from, __nv_bfloat16 *to, int rows, int cols,
                         int pitch)
{
    for (int row = blockIdx.x; row < rows; row += gridDim.x)
        for (int col = threadIdx.x; col < pitch; col += blockDim.x)
            to[(size_t)row * pitch + col] =
                col < cols ? from[(size_t)row * cols + col] : __float2bfloat16(0.0f);
}

static int padded(int x)
{
    return (x + LINE - 1) / LINE * LINE;
}

size_t gemm_workspace_bytes(int m, int n, int k)
{
    if (k % ALIGN == 0 && n % ALIGN == 0)
        return 0;
    return ((size_t)m * padded(k) + (size_t)k * padded(n)) * sizeof(__nv_bfloat16);
}

void gemm(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k,
          void *workspace, cudaStream_t stream)
{
    gemm_require_device(9, 0, 1, BUILT_FOR_SM90A, "wgmma and TMA (sm_90a)");
    tc_allow_shared((const void *)gemm_tile_order, SMEM_BYTES); /* past 48 KB a kernel must ask */
    int pitch_a = k, pitch_b = n;
    if (k % ALIGN != 0 || n % ALIGN != 0) {
        __nv_bfloat16 *padded_a = (__nv_bfloat16 *)workspace;
        __nv_bfloat16 *padded_b = padded_a + (size_t)m * padded(k);
        pitch_a = padded(k), pitch_b = padded(n);
        pad_rows<<<PAD_BLOCKS, 256, 0, stream>>>(a, padded_a, m, k, pitch_a);
        CL_LAUNCH_CHECK("pad_rows");
        pad_rows<<<PAD_BLOCKS, 256, 0, stream>>>(b, padded_b, k, n, pitch_b);
        CL_LAUNCH_CHECK("pad_rows");
        a = padded_a, b = padded_b;
    }
    CUtensorMap map_a, map_b; /* passed by value: the kernel reads them from its parameters */
    tma_map_bf16(&map_a, a, m, k, pitch_a, BM, BK);
    tma_map_bf16(&map_b, b, k, n, pitch_b, BK, B_BLOCK);
    const unsigned tiles = (unsigned)((n + BN - 1) / BN) * (unsigned)((m + BM - 1) / BM);
    gemm_tile_order<<<tiles, THREADS, SMEM_BYTES, stream>>>(map_a, map_b, c, m, n, k);
    CL_LAUNCH_CHECK("gemm_tile_order");
}
