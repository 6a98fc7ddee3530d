/**
 * @file v12_side_by_side.cu
 * @brief v12: v11 with the products of one tile row (m ≤ 128) laid out for their shape: the
 * cluster's two tiles side by side instead of one above the other, and A's box no taller than A.
 *
 * Since v9 a cluster holds two vertically adjacent tiles that share B. When m ≤ 128 the lower
 * tile lies wholly past m: half the blocks multiply zeros, and the product, bound by reading B
 * (m · n · k operations on n · k elements), is read by half the SMs. Here such a product pairs
 * neighbouring tiles of its row: each block copies its own B and computes a real tile. A's box,
 * 128 rows in v11, shrinks to m rounded up to 8 rows: the copy engine fills the rows of a box
 * that lie past the matrix with zeros, which takes it time although nothing is read. The rows of
 * the shared-memory tile past the box keep stale values; they only make rows of C past m, which
 * the stores leave out.
 */
#include "cl_cuda_check.h"
#include "launch.h"
#include "ptx.h"
#include "tensor_gemm.h"

#define BM                 128
#define BN                 256
#define BK                 64  /* 64 BF16 = 128 bytes: one swizzled row */
#define THREADS            384 /* a producer warpgroup and two consumers */
#define STAGES             4
#define ROW_BYTES          128
#define B_BLOCK            64 /* columns of B per box: B's tile is BN / 64 boxes */
#define WGMMA_K            16
#define A_TILE_BYTES       (BM * BK * 2)
#define B_BOX_BYTES        (BK * B_BLOCK * 2)
#define STAGE_BYTES        (A_TILE_BYTES + BN / B_BLOCK * B_BOX_BYTES)
#define C_BOX_COLS         32 /* 32 floats = 128 bytes: one swizzled row */
#define C_BOX_BYTES        (64 * C_BOX_COLS * 4)
#define C_ROUND_COLS       64 /* a consumer's results leave 64 columns (two boxes) at a time */
#define STAGING_BYTES      (2 * 2 * C_BOX_BYTES) /* two boxes per consumer */
#define SMEM_BYTES         (STAGES * STAGE_BYTES + STAGING_BYTES + 1024 + 2 * STAGES * 8)
#define GROUP_ROWS         8  /* tile rows walked down before moving one column on */
#define CLUSTER            2  /* blocks per cluster, on vertically adjacent tiles */
#define ALIGN_A            8  /* BF16 elements: TMA's 16-byte row pitch */
#define ALIGN_C            4  /* floats: the same for C */
#define LINE_A             64 /* BF16 elements: a padded row is whole 128-byte lines */
#define LINE_C             32 /* floats: the same for C */
#define COPY_BLOCKS_PER_SM 8  /* of 256 threads: 2048, all an SM holds */
#define MAX_SLICES         128
/* A step (128 × 256 × 64, 4.2 MFLOP) takes a block about 0.7 µs at v10's rate shared by 132
   SMs; the memory moves about 2 MB, 2^19 floats, in that time. */
#define FLOATS_PER_STEP (1 << 19)
/* The epilogue (64 KB of C per consumer through shared memory) holds the consumers about as long
   as one step. */
#define EPILOGUE_STEPS 1

#if PTX_HAVE_WGMMA
/* Asks the copy engine for step @p step's boxes into @p stage, completing on @p full: A's box for
   this block alone, and B's boxes j with j % CLUSTER == @p rank into every block of the cluster. */
static __device__ __forceinline__ void load_step(char *stage, uint64_t *full,
                                                 const CUtensorMap *map_a, const CUtensorMap *map_b,
                                                 int step, int block_row, int block_col,
                                                 unsigned rank, int wide, int a_bytes)
{
    /* the other block's boxes included */
    ptx_mbarrier_arrive_expect_bytes(full, a_bytes + BN / B_BLOCK * B_BOX_BYTES);
    ptx_tma_load_2d(stage, map_a, step * BK, block_row, full);
    /* side by side (wide), a block copies all its own boxes of B: a multicast to itself alone */
    for (int j = wide ? 0 : rank; j < BN / B_BLOCK; j += wide ? 1 : CLUSTER)
        ptx_tma_load_2d_multicast(stage + A_TILE_BYTES + j * B_BOX_BYTES, map_b,
                                  block_col + j * B_BLOCK, step * BK, full,
                                  wide ? 1 << rank : (1 << CLUSTER) - 1);
}

/* When the output is one row of tiles, the cluster's second tile sits beside the first: pair
   @p pair is tiles 2·pair and 2·pair + 1 of the row (the second may be past n). */
static __device__ __forceinline__ void wide_origin(int pair, int *block_row, int *block_col)
{
    *block_row = 0;
    *block_col = pair * CLUSTER * BN;
}

/* The origin of the cluster's first tile of pair @p pair, in v6's order over pairs of tiles
   (CLUSTER × BM rows): groups of GROUP_ROWS pair rows, column-major within a group. */
static __device__ __forceinline__ void pair_origin(int pair, int m, int n, int *pair_row,
                                                   int *block_col)
{
    const int pair_rows = (m + CLUSTER * BM - 1) / (CLUSTER * BM), tile_cols = (n + BN - 1) / BN;
    const int first_row = pair / (GROUP_ROWS * tile_cols) * GROUP_ROWS;
    const int rows_in_group = min(GROUP_ROWS, pair_rows - first_row);
    const int in_group = pair % (GROUP_ROWS * tile_cols);
    *pair_row = (first_row + in_group % rows_in_group) * CLUSTER * BM;
    *block_col = in_group / rows_in_group * BN;
}
#endif

__global__ void __launch_bounds__(THREADS, 1)
    gemm_side_by_side(const __grid_constant__ CUtensorMap map_a,
                      const __grid_constant__ CUtensorMap map_b,
                      const __grid_constant__ CUtensorMap map_c, int m, int n, int k, int slices,
                      int slice_steps)
{
#if PTX_HAVE_WGMMA
    extern __shared__ char smem_raw[];
    char *stages = (char *)(((size_t)smem_raw + 1023) / 1024 * 1024); /* swizzle atoms: 1024 */
    char *staging = stages + STAGES * STAGE_BYTES; /* 1024-aligned, as the swizzle needs */
    uint64_t *full = (uint64_t *)(staging + STAGING_BYTES);
    uint64_t *empty = full + STAGES;
    const int warpgroup = threadIdx.x / 128, thread = threadIdx.x % 128;
    const int wide = m <= BM; /* one row of tiles: pairs side by side */
    const int pairs = wide ? (n + CLUSTER * BN - 1) / (CLUSTER * BN)
                           : ((m + CLUSTER * BM - 1) / (CLUSTER * BM)) * ((n + BN - 1) / BN);
    const int units = pairs * slices; /* a unit: one pair of tiles, one slice of k */
    const int a_bytes = min(BM, (m + 7) / 8 * 8) * ROW_BYTES; /* A's box: no rows past m */
    const int steps = (k + BK - 1) / BK;
    const unsigned rank = ptx_cluster_rank();
    const int cluster = blockIdx.x / CLUSTER, clusters = gridDim.x / CLUSTER;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            ptx_mbarrier_init(&full[s], 1);            /* the producer's arrival, and the bytes */
            ptx_mbarrier_init(&empty[s], 2 * CLUSTER); /* per consumer warpgroup of the cluster */
        }
        ptx_fence_barrier_init(); /* the barriers, visible to the copy engine and the cluster */
    }
    ptx_cluster_sync(); /* both blocks' barriers are set up before either signals the other's */

    if (warpgroup == 0) {
        /* the producer: `issued` counts the steps of all this block's tiles, and picks the stage
           and the phase */
        ptx_setmaxnreg_dec_40();
        if (thread == 0) {
            int issued = 0;
            for (int unit = cluster; unit < units; unit += clusters) {
                const int first = unit % slices * slice_steps;
                const int last = min(steps, first + slice_steps);
                int block_row, block_col;
                if (wide) {
                    wide_origin(unit / slices, &block_row, &block_col);
                    block_col += rank * BN;
                } else {
                    pair_origin(unit / slices, m, n, &block_row, &block_col);
                    block_row += rank * BM;
                }
                for (int step = first; step < last; step++, issued++) {
                    const int s = issued % STAGES;
                    if (issued >= STAGES) /* the consumers' release of this stage's last use */
                        ptx_mbarrier_wait(&empty[s], (issued / STAGES + 1) % 2);
                    load_step(stages + s * STAGE_BYTES, &full[s], &map_a, &map_b, step, block_row,
                              block_col, rank, wide, a_bytes);
                }
            }
        }
    } else {
        /* a consumer: rows 64·(warpgroup − 1) of each tile's 128 */
        ptx_setmaxnreg_inc_232();
        const int consumer = warpgroup - 1;
        const int warp = thread / 32, lane = thread % 32;
        int used = 0; /* the producer's `issued`, as seen from here */
        for (int unit = cluster; unit < units; unit += clusters) {
            const int first = unit % slices * slice_steps;
            const int last = min(steps, first + slice_steps);
            int block_row, block_col;
            if (wide) {
                wide_origin(unit / slices, &block_row, &block_col);
                block_col += rank * BN;
            } else {
                pair_origin(unit / slices, m, n, &block_row, &block_col);
                block_row += rank * BM;
            }
            float d[128];
#pragma unroll
            for (int j = 0; j < 128; j++)
                d[j] = 0.0f;
            for (int step = first; step < last; step++, used++) {
                const int s = used % STAGES;
                ptx_mbarrier_wait(&full[s], used / STAGES % 2);
                const char *stage = stages + s * STAGE_BYTES;
                const uint64_t desc_a = ptx_wgmma_descriptor(
                    ptx_smem_address(stage + consumer * 64 * ROW_BYTES), 16, 1024);
                const uint64_t desc_b =
                    ptx_wgmma_descriptor(ptx_smem_address(stage + A_TILE_BYTES), B_BOX_BYTES, 1024);
                ptx_wgmma_fence();
#pragma unroll
                for (int p = 0; p < BK / WGMMA_K; p++) /* 16 of k: 32 bytes on in A, 16 rows in B */
                    ptx_wgmma_m64n256k16_bf16(d, desc_a + (p * WGMMA_K * 2 >> 4),
                                              desc_b + (p * WGMMA_K * ROW_BYTES >> 4), 1);
                ptx_wgmma_commit();
                ptx_wgmma_wait_all_but_one();         /* the previous step's group is done */
                if (step > first && thread < CLUSTER) /* thread r tells block r: both copy here */
                    ptx_mbarrier_arrive_cluster(&empty[(used - 1) % STAGES], thread);
            }
            ptx_wgmma_wait_all();
            if (thread < CLUSTER) /* the tile's last stage, to both producers before the stores */
                ptx_mbarrier_arrive_cluster(&empty[(used - 1) % STAGES], thread);

            /* d[4j + e] is row 16·(warp % 4) + lane/4 + 8·(e/2), column 8j + 2·(lane%4) + e%2
               of this consumer's 64 × 256. In a 128-byte swizzled box, 16-byte chunk q of row r
               sits at chunk q ^ (r % 8): the 8 rows of a warp's store hit different banks. */
            char *buffer = staging + consumer * 2 * C_BOX_BYTES;
#pragma unroll
            for (int j = 0; j < BN / 8; j++) {
                const int col = 8 * j % C_ROUND_COLS + 2 * (lane % 4); /* in this round */
                if (j % (C_ROUND_COLS / 8) == 0) { /* a round's first: wait for a free buffer */
                    if (thread == 0) /* the engine has read the previous round out of it */
                        ptx_bulk_wait_read_all();
                    ptx_named_barrier(1 + consumer, 128);
                }
                char *box = buffer + col / C_BOX_COLS * C_BOX_BYTES;
                const int chunk = col % C_BOX_COLS / 4;
#pragma unroll
                for (int half = 0; half < 2; half++) {
                    const int row = 16 * warp + lane / 4 + 8 * half;
                    *(float2 *)(box + row * 128 + (chunk ^ row % 8) * 16 + col % 4 * 4) =
                        make_float2(d[4 * j + 2 * half], d[4 * j + 2 * half + 1]);
                }
                if ((j + 1) % (C_ROUND_COLS / 8) == 0) { /* the round's last: store it */
                    ptx_fence_proxy_async(); /* these writes, visible to the copy engine */
                    ptx_named_barrier(1 + consumer, 128);
                    if (thread == 0) {
                        const int row = block_row + consumer * 64;
                        const int col0 = block_col + (j + 1) * 8 - C_ROUND_COLS;
                        if (slices == 1) {
                            ptx_tma_store_2d(&map_c, buffer, col0, row);
                            ptx_tma_store_2d(&map_c, buffer + C_BOX_BYTES, col0 + C_BOX_COLS, row);
                        } else { /* C += the box: the slices of this tile meet in L2 */
                            ptx_tma_reduce_add_2d(&map_c, buffer, col0, row);
                            ptx_tma_reduce_add_2d(&map_c, buffer + C_BOX_BYTES, col0 + C_BOX_COLS,
                                                  row);
                        }
                        ptx_bulk_commit();
                    }
                }
            }
        }
        if (thread == 0) /* the last stores finish before the block, and its shared memory, go */
            ptx_bulk_wait_all();
    }
    ptx_cluster_sync(); /* neither block leaves while the other may still signal its barriers */
#else
    (void)map_a, (void)map_b, (void)map_c, (void)m, (void)n, (void)k; /* wgmma: sm_90a only */
    (void)slices, (void)slice_steps;
#endif
}

/* to[row][col] = from[row][col] for col < cols, 0 up to @p pitch (a multiple of 8): vector v of
   the rows' pitch / 8 vectors per row is written by one thread, 16 bytes at once. */
__global__ void pad_rows(const __nv_bfloat16 *__restrict__ from, __nv_bfloat16 *__restrict__ to,
                         int rows, int cols, int pitch)
{
    const size_t per_row = (size_t)pitch / 8, vectors = (size_t)rows * per_row;
    for (size_t v = (size_t)blockIdx.x * blockDim.x + threadIdx.x; v < vectors;
         v += (size_t)gridDim.x * blockDim.x) {
        const size_t row = v / per_row;
        const int col = (int)(v % per_row) * 8;
        const __nv_bfloat16 *source = from + row * cols;
        __align__(16) __nv_bfloat16 values[8];
#pragma unroll
        for (int e = 0; e < 8; e++)
            values[e] = col + e < cols ? source[col + e] : __float2bfloat16(0.0f);
        *(uint4 *)(to + row * pitch + col) = *(const uint4 *)values;
    }
}

/* to[row][col] = from[row][col] for col < cols, where @p from's rows are @p pitch long (a
   multiple of 4): C out of its padded buffer, one float4 read per thread. */
__global__ void unpad_rows(const float *__restrict__ from, float *__restrict__ to, int rows,
                           int cols, int pitch)
{
    const size_t per_row = (size_t)pitch / 4, vectors = (size_t)rows * per_row;
    for (size_t v = (size_t)blockIdx.x * blockDim.x + threadIdx.x; v < vectors;
         v += (size_t)gridDim.x * blockDim.x) {
        const size_t row = v / per_row;
        const int col = (int)(v % per_row) * 4;
        const float4 values = *(const float4 *)(from + row * pitch + col);
        float *out = to + row * cols;
        if (col < cols)
            out[col] = values.x;
        if (col + 1 < cols)
            out[col + 1] = values.y;
        if (col + 2 < cols)
            out[col + 2] = values.z;
        if (col + 3 < cols)
            out[col + 3] = values.w;
    }
}

static int padded(int x, int align)
{
    return (x + align - 1) / align * align;
}

/* The S of the count in the file's comment, for this shape and @p clusters clusters at once. */
static int choose_slices(int m, int n, int k, int clusters)
{
    const int steps = (k + BK - 1) / BK;
    const double pairs =
        m <= BM ? (double)((n + CLUSTER * BN - 1) / (CLUSTER * BN))
                : (double)((m + CLUSTER * BM - 1) / (CLUSTER * BM)) * ((n + BN - 1) / BN);
    int best = 1;
    double best_time = -1.0;
    for (int s = 1; s <= MAX_SLICES && s <= steps; s++) {
        const int per_slice = (steps + s - 1) / s;
        if (s > 1 && (steps + per_slice - 1) / per_slice < s)
            continue; /* the same slices as a smaller S: one would be empty */
        const double waves = ceil(pairs * s / clusters);
        const double reduction = s > 1 ? (s + 1.0) * m * (double)n / FLOATS_PER_STEP : 0.0;
        const double time = waves * (per_slice + EPILOGUE_STEPS) + reduction;
        if (best_time < 0.0 || time < best_time)
            best = s, best_time = time;
    }
    return best;
}

size_t gemm_workspace_bytes(int m, int n, int k)
{
    size_t bytes = 0;
    if (k % ALIGN_A != 0 || n % ALIGN_A != 0)
        bytes +=
            ((size_t)m * padded(k, LINE_A) + (size_t)k * padded(n, LINE_A)) * sizeof(__nv_bfloat16);
    if (n % ALIGN_C != 0)
        bytes += (size_t)m * padded(n, LINE_C) * sizeof(float);
    return bytes;
}

void gemm(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k,
          void *workspace, cudaStream_t stream)
{
    gemm_require_device(9, 0, 1, BUILT_FOR_SM90A, "wgmma and TMA (sm_90a)");
    const int sms = tc_sm_count();
    const int copy_blocks = COPY_BLOCKS_PER_SM * sms;
    char *free_space = (char *)workspace;
    int pitch_a = k, pitch_b = n, pitch_c = n;
    if (k % ALIGN_A != 0 || n % ALIGN_A != 0) {
        __nv_bfloat16 *padded_a = (__nv_bfloat16 *)free_space;
        __nv_bfloat16 *padded_b = padded_a + (size_t)m * padded(k, LINE_A);
        pitch_a = padded(k, LINE_A), pitch_b = padded(n, LINE_A);
        free_space = (char *)(padded_b + (size_t)k * pitch_b);
        pad_rows<<<copy_blocks, 256, 0, stream>>>(a, padded_a, m, k, pitch_a);
        CL_LAUNCH_CHECK("pad_rows");
        pad_rows<<<copy_blocks, 256, 0, stream>>>(b, padded_b, k, n, pitch_b);
        CL_LAUNCH_CHECK("pad_rows");
        a = padded_a, b = padded_b;
    }
    float *c_out = c;
    if (n % ALIGN_C != 0)
        c_out = (float *)free_space, pitch_c = padded(n, LINE_C);
    CUtensorMap map_a, map_b, map_c; /* by value: the kernel reads them from its parameters */
    tma_map_bf16(&map_a, a, m, k, pitch_a, m < BM ? (m + 7) / 8 * 8 : BM, BK);
    tma_map_bf16(&map_b, b, k, n, pitch_b, BK, B_BLOCK);
    tma_map_f32(&map_c, c_out, m, n, pitch_c, 64, C_BOX_COLS);
    /* as many clusters as run at once (a GPC holds a whole cluster, so maybe fewer than half the
       SMs), never more than pairs of tiles */
    tc_cluster_launch launch;
    tc_cluster_launch_init(&launch, (const void *)gemm_side_by_side, CLUSTER, THREADS, SMEM_BYTES,
                           stream);
    const int clusters = launch.resident_clusters;
    const int slices = choose_slices(m, n, k, clusters);
    const int slice_steps = ((k + BK - 1) / BK + slices - 1) / slices;
    const long long units =
        (m <= BM ? (long long)((n + CLUSTER * BN - 1) / (CLUSTER * BN))
                 : (long long)((n + BN - 1) / BN) * ((m + CLUSTER * BM - 1) / (CLUSTER * BM))) *
        slices;
    tc_cluster_grid(&launch, units);
    if (slices > 1) /* the slices add into zeros */
        CL_CUDA_CHECK(cudaMemsetAsync(c_out, 0, (size_t)m * pitch_c * sizeof(float), stream));
    CL_CUDA_CHECK(cudaLaunchKernelEx(&launch.config, gemm_side_by_side, map_a, map_b, map_c, m, n,
                                     k, slices, slice_steps));
    if (c_out != c) {
        unpad_rows<<<copy_blocks, 256, 0, stream>>>(c_out, c, m, n, pitch_c);
        CL_LAUNCH_CHECK("unpad_rows");
    }
}
