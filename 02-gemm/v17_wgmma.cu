/**
 * @file v17_wgmma.cu
 * @brief v17: v16 with Hopper's warpgroup instruction: `wgmma.mma_async` multiplies tiles that
 * stay in shared memory (read through descriptors, 128-byte swizzle), a 128 × 256 block tile and
 * four stages of 64 k.
 *
 * In v16 every BF16 operand passes through registers: ldmatrix copies it out of shared memory,
 * then each warp's mma.sync (HMMA in SASS) multiplies 16 × 8 × 16. On Hopper that path feeds the
 * tensor cores at a fraction of their rate. wgmma (HGMMA) is issued by a warpgroup, four
 * consecutive warps, 128 threads, and reads A and B from shared memory itself: one instruction
 * here is 64 × 256 × 16 (524288 flops), asynchronous, its 64 × 256 FP32 result spread over the
 * warpgroup's registers (128 per thread).
 *  - The operands are described, not loaded: a 64-bit descriptor gives the tile's shared-memory
 *    address, the byte distance between groups of 8 rows, and the swizzle the tile is stored with
 *    (cl_wgmma_descriptor, common/cl_hopper.h). The swizzle is the 128-byte one: rows of 128
 *    bytes, chunk c of row r at c ^ (r % 8), the pattern the copy engine (v18) writes. A is
 *    K-major (a row of the tile is 64 values of k); B is N-major (64 values of n per row) and
 *    wgmma reads it transposed (the instruction's last argument, 1).
 *  - Asynchronous: `wgmma.fence` before, `commit_group` after, `wait_group` before the registers
 *    or the stage are used again. The copies are still cp.async by every thread (v16's), and the
 *    tensor cores read shared memory through the "async proxy": each thread fences its copies
 *    into it (`fence.proxy.async`) before the barrier.
 * Two warpgroups per block, each 64 rows of the 128 × 256 tile; one block per SM (192 KB of
 * stages).
 */
#include "cl_cuda_check.h"
#include "cl_hopper.h"
#include "gemm.h"

#define BM           128
#define BN           256
#define BK           64  /* 64 BF16 = 128 bytes: one swizzled row of A */
#define THREADS      256 /* two warpgroups */
#define STAGES       4
#define CHUNK        8   /* BF16 values per 16-byte copy */
#define ROW_BYTES    128 /* of every swizzled tile row */
#define B_BLOCK      64  /* columns of B per 128-byte row: B is stored as BN / 64 column blocks */
#define WGMMA_K      16
#define A_TILE_BYTES (BM * BK * 2)
#define B_TILE_BYTES (BK * BN * 2)
#define STAGE_BYTES  (A_TILE_BYTES + B_TILE_BYTES)
#define SMEM_BYTES   (STAGES * STAGE_BYTES + 1024) /* + room to align the stages to 1024 */

#ifdef CL_HAS_SM90A
#define BUILT_FOR_SM90A 1
#else
#define BUILT_FOR_SM90A 0
#endif

/* the kernel's helpers exist where its body does: sm_90a */
#if CL_HAVE_WGMMA
/* Byte offset of 16-byte chunk @p chunk of row @p row in a 128-byte-swizzled tile. */
static __device__ __forceinline__ int swizzled(int row, int chunk)
{
    return row * ROW_BYTES + ((chunk ^ (row % 8)) * 16);
}

/* One 16-byte chunk (row, col) of a rows × cols matrix to shared memory at @p to: cp.async when
   the rows are 16-byte aligned (0 bytes, so 16 zeros, outside), else element by element. */
static __device__ __forceinline__ void copy_chunk(char *to, const __nv_bfloat16 *matrix, int rows,
                                                  int cols, int row, int col, int aligned)
{
    if (aligned) {
        const int inside = row < rows && col < cols;
        const __nv_bfloat16 *from = inside ? &matrix[(size_t)row * cols + col] : matrix;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
                         (unsigned)__cvta_generic_to_shared(to)),
                     "l"(from), "r"(inside ? 16 : 0)
                     : "memory");
        return;
    }
    __nv_bfloat16 *values = (__nv_bfloat16 *)to;
    for (int e = 0; e < CHUNK; e++)
        values[e] = row < rows && col + e < cols ? matrix[(size_t)row * cols + col + e]
                                                 : __float2bfloat16(0.0f);
}

/* The step at k = @p t into @p stage: A as 128 rows of 64 k; B as 4 column blocks, each 64 rows
   (k) of 64 columns. One cp.async group. */
static __device__ __forceinline__ void copy_step(char *stage, int t, const __nv_bfloat16 *a,
                                                 const __nv_bfloat16 *b, int m, int n, int k,
                                                 int block_row, int block_col, int aligned)
{
    for (int chunk = threadIdx.x; chunk < BM * BK / CHUNK; chunk += THREADS) {
        const int row = chunk / (BK / CHUNK), c = chunk % (BK / CHUNK);
        copy_chunk(stage + swizzled(row, c), a, m, k, block_row + row, t + c * CHUNK, aligned);
    }
    char *tile_b = stage + A_TILE_BYTES;
    for (int chunk = threadIdx.x; chunk < BK * BN / CHUNK; chunk += THREADS) {
        const int row = chunk / (BN / CHUNK), col = chunk % (BN / CHUNK) * CHUNK;
        const int block = col / B_BLOCK, c = col % B_BLOCK / CHUNK;
        copy_chunk(tile_b + block * BK * ROW_BYTES + swizzled(row, c), b, k, n, t + row,
                   block_col + col, aligned);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

#endif

__global__ void __launch_bounds__(THREADS, 1)
    gemm_wgmma(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k)
{
#if CL_HAVE_WGMMA
    extern __shared__ char smem_raw[];
    /* the swizzle pattern repeats every 1024 bytes, and wgmma computes it from the address:
       every tile starts 1024-aligned */
    char *stages = (char *)(((size_t)smem_raw + 1023) / 1024 * 1024);
    const int warpgroup = threadIdx.x / 128, thread = threadIdx.x % 128;
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;
    const int aligned = k % CHUNK == 0 && n % CHUNK == 0;
    const int steps = (k + BK - 1) / BK;

    float d[128];
#pragma unroll
    for (int j = 0; j < 128; j++)
        d[j] = 0.0f;
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < steps)
            copy_step(stages + s * STAGE_BYTES, s * BK, a, b, m, n, k, block_row, block_col,
                      aligned);
        else
            asm volatile("cp.async.commit_group;\n" ::: "memory");
    }
    for (int step = 0; step < steps; step++) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2) : "memory");
        cl_fence_proxy_async(); /* this thread's copies, visible to the tensor cores */
        __syncthreads();        /* everyone's; and step - 1's wgmmas are finished */
        const int next = step + STAGES - 1;
        if (next < steps)
            copy_step(stages + next % STAGES * STAGE_BYTES, next * BK, a, b, m, n, k, block_row,
                      block_col, aligned);
        else
            asm volatile("cp.async.commit_group;\n" ::: "memory");

        const char *stage = stages + step % STAGES * STAGE_BYTES;
        /* this warpgroup's 64 rows of A: groups of 8 rows 1024 bytes apart; B: groups of 8 rows
           of k 1024 bytes apart, column blocks of 64 one block (64 rows × 128 bytes) apart */
        const uint64_t desc_a =
            cl_wgmma_descriptor(cl_smem_address(stage + warpgroup * 64 * ROW_BYTES), 16, 1024);
        const uint64_t desc_b =
            cl_wgmma_descriptor(cl_smem_address(stage + A_TILE_BYTES), BK * ROW_BYTES, 1024);
        cl_wgmma_fence();
#pragma unroll
        for (int p = 0; p < BK / WGMMA_K; p++) /* 16 of k: 32 bytes on in A, 16 rows on in B */
            cl_wgmma_m64n256k16_bf16(d, desc_a + (p * WGMMA_K * 2 >> 4),
                                     desc_b + (p * WGMMA_K * ROW_BYTES >> 4), 1);
        cl_wgmma_commit();
        cl_wgmma_wait_all();
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
    (void)a, (void)b, (void)c, (void)m, (void)n, (void)k; /* wgmma: sm_90a only */
#endif
}

int gemm_supports(semiring ring)
{
    return ring == SEMIRING_PLUS_TIMES;
}

size_t gemm_workspace_bytes(int m, int n, int k)
{
    (void)m, (void)n, (void)k;
    return 0;
}

void gemm_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k,
               void *workspace, cudaStream_t stream)
{
    (void)workspace;
    gemm_require_device(9, 0, 1, BUILT_FOR_SM90A, "wgmma (sm_90a)");
    static int attribute_set; /* once: more than 48 KB of shared memory must be asked for */
    if (!attribute_set) {
        CL_CUDA_CHECK(cudaFuncSetAttribute(gemm_wgmma, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           SMEM_BYTES));
        attribute_set = 1;
    }
    const dim3 grid((n + BN - 1) / BN, (m + BM - 1) / BM);
    gemm_wgmma<<<grid, THREADS, SMEM_BYTES, stream>>>(a, b, c, m, n, k);
    CL_LAUNCH_CHECK("gemm_wgmma");
}
