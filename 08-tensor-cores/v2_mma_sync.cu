/**
 * @file v2_mma_sync.cu
 * @brief v2: v1 with the tensor-core instruction itself: `mma.sync` m16n8k16, its operands
 * loaded by `ldmatrix`, its results stored from the registers where the PTX manual puts them.
 *
 * WMMA hides where a fragment's elements sit in the registers: v1 loads fragments with
 * load_matrix_sync and must pass every result through shared memory to find it. The PTX
 * instruction underneath (HMMA in SASS) documents the layout:
 *  - `mma.sync.m16n8k16` multiplies a 16 × 16 BF16 tile of A by a 16 × 8 tile of B into a
 *    16 × 8 FP32 accumulator, for the whole warp: each thread holds 4 registers of A (8 values), 2
 *    of B and 4 accumulators, at places the manual lists.
 *  - `ldmatrix.x4` loads four 8 × 8 BF16 matrices for a warp in one instruction, each lane giving
 *    the address of one 16-byte row, and leaves them exactly where mma wants its A operand; the
 *    `.trans` form transposes on the way, which is what B (k × n, row-major) needs to become
 *    mma's column operand. v1's padded rows (80 and 272 bytes) already put the 8 rows of every
 *    8 × 8 matrix in 8 different groups of banks.
 *  - Each thread stores its accumulators straight to C: two neighbouring columns per row, one
 *    8-byte store where n allows it.
 * A k's fragments are all loaded before its 16 mma's are issued. Tiles, warps and copies are v1's:
 * 128 × 128 per block of 8 warps, each warp 32 × 64 (2 × 8 mma tiles, 64 FP32 accumulators per
 * thread), one shared buffer, 32 values of k per step.
 */
#include "cl_cuda_check.h"
#include "launch.h"
#include "ptx.h"
#include "tensor_gemm.h"

#define BM      128
#define BN      128
#define BK      32
#define WARPS_N 2 /* 4 × 2 warps */
#define WARP_M  32
#define WARP_N  64
#define MMA_M   16
#define MMA_N   8
#define MMA_K   16
#define THREADS 256
#define CHUNK   8 /* BF16 values per 16-byte load */
/* rows padded by 8 BF16 (16 bytes): consecutive rows start in different banks, and every
   row still starts 16-byte aligned, as ldmatrix needs */
#define A_STRIDE (BK + 8)
#define B_STRIDE (BN + 8)

#if !defined(__CUDA_ARCH__) ||                                                                     \
    __CUDA_ARCH__ >= 800 /* the kernel's helpers: BF16 tensor cores from sm_80 */
/* One BF16 chunk of 8 at (row, col) of a rows × cols matrix into shared memory: one 16-byte load
   when it lies inside and the rows are 16-byte aligned (cols % 8 == 0), else element by element,
   zeros outside (0 adds nothing to a sum). */
static __device__ __forceinline__ void copy_chunk(__nv_bfloat16 *to, const __nv_bfloat16 *matrix,
                                                  int rows, int cols, int row, int col)
{
    if (row < rows && col + CHUNK <= cols && cols % CHUNK == 0) {
        *(uint4 *)to = *(const uint4 *)&matrix[(size_t)row * cols + col];
        return;
    }
    for (int e = 0; e < CHUNK; e++)
        to[e] = row < rows && col + e < cols ? matrix[(size_t)row * cols + col + e]
                                             : __float2bfloat16(0.0f);
}

#endif

__global__ void __launch_bounds__(THREADS)
    gemm_mma_sync(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    __shared__ __align__(32) __nv_bfloat16 tile_a[BM * A_STRIDE];
    __shared__ __align__(32) __nv_bfloat16 tile_b[BK * B_STRIDE];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_row = warp / WARPS_N * WARP_M, warp_col = warp % WARPS_N * WARP_N;
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;

    float acc[WARP_M / MMA_M][WARP_N / MMA_N][4] = {};

    for (int t = 0; t < k; t += BK) {
        /* 128 × 32 of A and 32 × 128 of B: 512 chunks each, two per thread */
        for (int chunk = threadIdx.x; chunk < BM * BK / CHUNK; chunk += THREADS) {
            const int row = chunk / (BK / CHUNK), col = chunk % (BK / CHUNK) * CHUNK;
            copy_chunk(&tile_a[row * A_STRIDE + col], a, m, k, block_row + row, t + col);
        }
        for (int chunk = threadIdx.x; chunk < BK * BN / CHUNK; chunk += THREADS) {
            const int row = chunk / (BN / CHUNK), col = chunk % (BN / CHUNK) * CHUNK;
            copy_chunk(&tile_b[row * B_STRIDE + col], b, k, n, t + row, block_col + col);
        }
        __syncthreads();
#pragma unroll
        for (int p = 0; p < BK; p += MMA_K) {
            unsigned frag_a[WARP_M / MMA_M][4], frag_b[WARP_N / MMA_N][2];
            /* lanes 0-15 give rows 0-15 at k = p, lanes 16-31 the same rows at p + 8: the four
               8 × 8 matrices are mma's a0 … a3 */
#pragma unroll
            for (int i = 0; i < WARP_M / MMA_M; i++) {
                ptx_ldmatrix_x4(
                    frag_a[i],
                    &tile_a[(warp_row + MMA_M * i + lane % 16) * A_STRIDE + p + lane / 16 * 8]);
            }
            /* lanes 0-15 give rows k = p … p + 15 at column n0, lanes 16-31 at n0 + 8: transposed,
               b0 b1 of two 8-column tiles */
#pragma unroll
            for (int j = 0; j < WARP_N / MMA_N; j += 2) {
                unsigned r[4];
                ptx_ldmatrix_x4_trans(
                    r, &tile_b[(p + lane % 16) * B_STRIDE + warp_col + MMA_N * j + lane / 16 * 8]);
                frag_b[j][0] = r[0], frag_b[j][1] = r[1];
                frag_b[j + 1][0] = r[2], frag_b[j + 1][1] = r[3];
            }
#pragma unroll
            for (int i = 0; i < WARP_M / MMA_M; i++)
#pragma unroll
                for (int j = 0; j < WARP_N / MMA_N; j++)
                    ptx_mma_m16n8k16_bf16(acc[i][j], frag_a[i], frag_b[j]);
        }
        __syncthreads();
    }

    /* acc[i][j][e] is row g + 8·(e/2), column 2·(lane%4) + e%2 of its 16 × 8 tile, g = lane/4 */
#pragma unroll
    for (int i = 0; i < WARP_M / MMA_M; i++)
#pragma unroll
        for (int j = 0; j < WARP_N / MMA_N; j++)
#pragma unroll
            for (int half = 0; half < 2; half++) {
                const int row = block_row + warp_row + MMA_M * i + lane / 4 + 8 * half;
                const int col = block_col + warp_col + MMA_N * j + 2 * (lane % 4);
                if (row >= m)
                    continue;
                float *out = &c[(size_t)row * n + col];
                if (col + 1 < n && n % 2 == 0) {
                    *(float2 *)out = make_float2(acc[i][j][2 * half], acc[i][j][2 * half + 1]);
                } else {
                    if (col < n)
                        out[0] = acc[i][j][2 * half];
                    if (col + 1 < n)
                        out[1] = acc[i][j][2 * half + 1];
                }
            }
#else
    (void)a, (void)b, (void)c, (void)m, (void)n, (void)k; /* no BF16 mma.sync before sm_80 */
#endif
}

size_t gemm_workspace_bytes(int m, int n, int k)
{
    (void)m, (void)n, (void)k;
    return 0;
}

void gemm(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k,
          void *workspace, cudaStream_t stream)
{
    (void)workspace;
    gemm_require_device(8, 0, 0, 1, "BF16 mma.sync");
    const dim3 grid((n + BN - 1) / BN, (m + BM - 1) / BM);
    gemm_mma_sync<<<grid, THREADS, 0, stream>>>(a, b, c, m, n, k);
    CL_LAUNCH_CHECK("gemm_mma_sync");
}
