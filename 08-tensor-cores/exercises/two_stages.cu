/**
 * @file two_stages.cu
 * @brief Exercise "Two stages" of 08-tensor-cores (part 1), a solution: v3 with two cp.async
 * stages instead of three (cc 8.0 on).
 *
 * With three stages two tiles are in flight while one is multiplied; with two, one. The shared
 * memory per block falls by a third.
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
#define STAGES  2
#define CHUNK   8 /* BF16 values per 16-byte copy */
/* rows padded by 8 BF16 (16 bytes): consecutive rows start in different banks, and every
   row still starts 16-byte aligned, as ldmatrix needs */
#define A_STRIDE (BK + 8)
#define B_STRIDE (BN + 8)

typedef struct {
    __nv_bfloat16 a[STAGES][BM * A_STRIDE];
    __nv_bfloat16 b[STAGES][BK * B_STRIDE];
} stage_tiles;

#if !defined(__CUDA_ARCH__) ||                                                                     \
    __CUDA_ARCH__ >= 800 /* the kernel's helpers: BF16 tensor cores from sm_80 */
/* One 16-byte chunk (row, col) of a rows × cols matrix into shared memory. With @p aligned (cols
   a multiple of 8), cp.async; a chunk outside copies 0 bytes and fills 16 bytes of zeros. Else
   element by element, zeros outside. */
static __device__ __forceinline__ void copy_chunk(__nv_bfloat16 *to, const __nv_bfloat16 *matrix,
                                                  int rows, int cols, int row, int col, int aligned)
{
    if (aligned) {
        const int inside = row < rows && col < cols;
        const __nv_bfloat16 *from = inside ? &matrix[(size_t)row * cols + col] : matrix;
        ptx_cp_async_16(to, from, inside ? 16 : 0);
        return;
    }
    for (int e = 0; e < CHUNK; e++)
        to[e] = row < rows && col + e < cols ? matrix[(size_t)row * cols + col + e]
                                             : __float2bfloat16(0.0f);
}

/* The copies of the step at k = @p t into stage @p s, closed as one cp.async group. */
static __device__ __forceinline__ void copy_step(stage_tiles *tiles, int s, int t,
                                                 const __nv_bfloat16 *a, const __nv_bfloat16 *b,
                                                 int m, int n, int k, int block_row, int block_col,
                                                 int aligned)
{
    /* 128 × 32 of A and 32 × 128 of B: 512 chunks each, two per thread */
    for (int chunk = threadIdx.x; chunk < BM * BK / CHUNK; chunk += THREADS) {
        const int row = chunk / (BK / CHUNK), col = chunk % (BK / CHUNK) * CHUNK;
        copy_chunk(&tiles->a[s][row * A_STRIDE + col], a, m, k, block_row + row, t + col, aligned);
    }
    for (int chunk = threadIdx.x; chunk < BK * BN / CHUNK; chunk += THREADS) {
        const int row = chunk / (BN / CHUNK), col = chunk % (BN / CHUNK) * CHUNK;
        copy_chunk(&tiles->b[s][row * B_STRIDE + col], b, k, n, t + row, block_col + col, aligned);
    }
    ptx_cp_async_commit();
}

#endif

__global__ void __launch_bounds__(THREADS)
    gemm_two_stages(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ __align__(128) unsigned char shared_bytes[];
    stage_tiles *tiles = (stage_tiles *)shared_bytes;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_row = warp / WARPS_N * WARP_M, warp_col = warp % WARPS_N * WARP_N;
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;
    const int aligned = k % CHUNK == 0 && n % CHUNK == 0;
    const int steps = (k + BK - 1) / BK;

    float acc[WARP_M / MMA_M][WARP_N / MMA_N][4] = {};
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < steps)
            copy_step(tiles, s, s * BK, a, b, m, n, k, block_row, block_col, aligned);
        else
            ptx_cp_async_commit(); /* keep the group count */
    }
    for (int step = 0; step < steps; step++) {
        /* this step's group is done when at most STAGES - 2 newer ones are pending */
        ptx_cp_async_wait_group(STAGES - 2);
        __syncthreads(); /* everyone's copies are in, and everyone is done with step - 1 */
        const int next = step + STAGES - 1;
        if (next < steps)
            copy_step(tiles, next % STAGES, next * BK, a, b, m, n, k, block_row, block_col,
                      aligned);
        else
            ptx_cp_async_commit();

        const __nv_bfloat16 *tile_a = tiles->a[step % STAGES], *tile_b = tiles->b[step % STAGES];
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
    tc_allow_shared((const void *)gemm_two_stages,
                    sizeof(stage_tiles)); /* past 48 KB a kernel must ask */
    const dim3 grid((n + BN - 1) / BN, (m + BM - 1) / BM);
    gemm_two_stages<<<grid, THREADS, sizeof(stage_tiles), stream>>>(a, b, c, m, n, k);
    CL_LAUNCH_CHECK("gemm_two_stages");
}
