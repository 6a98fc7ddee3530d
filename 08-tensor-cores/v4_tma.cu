/**
 * @file v4_tma.cu
 * @brief v4: a new path, Hopper's wgmma fed by TMA. `wgmma.mma_async` multiplies tiles that the
 * copy engine (`cp.async.bulk.tensor`) writes into shared memory, each stage's arrival signalled
 * on an mbarrier.
 *
 * In v3 every BF16 operand passes through registers: ldmatrix copies it out of shared memory,
 * then each warp's mma.sync (HMMA in SASS) multiplies 16 × 8 × 16, and all 256 threads issue the
 * copies. On Hopper that path feeds the tensor cores at a fraction of their rate. Two units
 * replace it, and they come together: wgmma alone, fed by every thread's cp.async, measured no
 * faster than v3 (docs/results/08-tensor-cores-tries.txt), because its threads still spend their
 * issue slots on copies and then wait.
 *  - wgmma (HGMMA) is issued by a warpgroup, four consecutive warps, 128 threads, and reads A and
 *    B from shared memory itself: one instruction here is 64 × 256 × 16 (524288 flops),
 *    asynchronous (`wgmma.fence` before, `commit_group` after, `wait_group` before the registers
 *    or the stage are used again), its 64 × 256 FP32 result spread over the warpgroup's registers
 *    (128 per thread). The operands are described, not loaded: a 64-bit descriptor gives the
 *    tile's shared-memory address, the byte distance between groups of 8 rows, and the swizzle
 *    the tile is stored with (ptx_wgmma_descriptor, common/ptx.h): the 128-byte one, rows of
 *    128 bytes, chunk c of row r at c ^ (r % 8). A is K-major (a row of the tile is 64 values of
 *    k); B is N-major (64 values of n per row) and wgmma reads it transposed (the instruction's
 *    last argument, 1).
 *  - TMA: one thread asks the copy engine for whole boxes (128 × 64 of A, four 64 × 64 of B) by
 *    their coordinates in a tensor map that the host describes once (tma_map_bf16); the
 *    engine writes them in that swizzle, exactly as wgmma reads them, and fills what lies outside
 *    the matrix with zeros (no edge code at all).
 *  - Completion: the copies are asynchronous and no thread issued them but one, so
 *    `cp.async.wait_group` cannot be used. Each stage has an mbarrier: the issuing thread arrives
 *    on it announcing the bytes to come (`arrive.expect_tx`), the engine counts them down as they
 *    land, and the warpgroups wait on the barrier's phase (it flips once per use of the stage).
 *  - Reuse: a stage is refilled only after both warpgroups have finished their wgmmas on it (a
 *    block barrier, then the refill by thread 0): four stages of 64 k, three copies in flight, a
 *    128 × 256 block tile, two warpgroups of 64 rows each, one block per SM.
 *  - TMA reads rows 16 bytes apart at least: when k or n is no multiple of 8, A and B are copied
 *    into buffers whose rows are whole 128-byte lines (zeros after the data) inside the timed call,
 *    one extra read and write of each; C is written directly, at any n. A pitch of whole lines
 *    rather than the least TMA allows: rows starting 16 bytes past a line make every box row touch
 *    one sector and one line more, and the product itself slower.
 */
#include "cl_cuda_check.h"
#include "launch.h"
#include "ptx.h"
#include "tensor_gemm.h"

#define BM           128
#define BN           256
#define BK           64  /* 64 BF16 = 128 bytes: one swizzled row */
#define THREADS      256 /* two warpgroups */
#define STAGES       4
#define ROW_BYTES    128
#define B_BLOCK      64 /* columns of B per box: B's tile is BN / 64 boxes */
#define WGMMA_K      16
#define A_TILE_BYTES (BM * BK * 2)
#define B_BOX_BYTES  (BK * B_BLOCK * 2)
#define STAGE_BYTES  (A_TILE_BYTES + BN / B_BLOCK * B_BOX_BYTES)
#define SMEM_BYTES   (STAGES * STAGE_BYTES + 1024 + STAGES * 8) /* align, then the barriers */
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
    gemm_tma(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
             float *c, int m, int n, int k)
{
#if PTX_HAVE_WGMMA
    extern __shared__ char smem_raw[];
    char *stages = (char *)(((size_t)smem_raw + 1023) / 1024 * 1024); /* swizzle atoms: 1024 */
    uint64_t *full = (uint64_t *)(stages + STAGES * STAGE_BYTES);
    const int warpgroup = threadIdx.x / 128, thread = threadIdx.x % 128;
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;
    const int steps = (k + BK - 1) / BK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++)
            ptx_mbarrier_init(&full[s], 1);
        ptx_fence_barrier_init(); /* the barriers, visible to the copy engine */
        for (int s = 0; s < STAGES && s < steps; s++)
            load_step(stages + s * STAGE_BYTES, &full[s], &map_a, &map_b, s, block_row, block_col);
    }
    __syncthreads();

    float d[128];
#pragma unroll
    for (int j = 0; j < 128; j++)
        d[j] = 0.0f;
    for (int step = 0; step < steps; step++) {
        const int s = step % STAGES;
        ptx_mbarrier_wait(&full[s], step / STAGES % 2); /* this use's phase has completed */
        const char *stage = stages + s * STAGE_BYTES;
        const uint64_t desc_a =
            ptx_wgmma_descriptor(ptx_smem_address(stage + warpgroup * 64 * ROW_BYTES), 16, 1024);
        const uint64_t desc_b =
            ptx_wgmma_descriptor(ptx_smem_address(stage + A_TILE_BYTES), B_BOX_BYTES, 1024);
        ptx_wgmma_fence();
#pragma unroll
        for (int p = 0; p < BK / WGMMA_K; p++) /* 16 of k: 32 bytes on in A, 16 rows on in B */
            ptx_wgmma_m64n256k16_bf16(d, desc_a + (p * WGMMA_K * 2 >> 4),
                                      desc_b + (p * WGMMA_K * ROW_BYTES >> 4), 1);
        ptx_wgmma_commit();
        ptx_wgmma_wait_all();
        __syncthreads(); /* both warpgroups are done with stage s: refill it */
        if (threadIdx.x == 0 && step + STAGES < steps)
            load_step(stages + s * STAGE_BYTES, &full[s], &map_a, &map_b, step + STAGES, block_row,
                      block_col);
    }

    /* d[4j + e] is row 16·(warp % 4) + lane/4 + 8·(e/2), column 8j + 2·(lane%4) + e%2 of this
       warpgroup's 64 × 256 */
    const int warp = thread / 32, lane = thread % 32;
#pragma unroll
    for (int j = 0; j < BN / 8; j++)
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const int row = block_row + warpgroup * 64 + 16 * warp + lane / 4 + 8 * half;
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
    tc_allow_shared((const void *)gemm_tma, SMEM_BYTES); /* past 48 KB a kernel must ask */
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
    const dim3 grid((n + BN - 1) / BN, (m + BM - 1) / BM);
    gemm_tma<<<grid, THREADS, SMEM_BYTES, stream>>>(map_a, map_b, c, m, n, k);
    CL_LAUNCH_CHECK("gemm_tma");
}
