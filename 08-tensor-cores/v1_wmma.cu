/**
 * @file v1_wmma.cu
 * @brief v1: a new path, the tensor cores. A and B in BF16, products by WMMA fragments
 * (`nvcuda::wmma`, 16 × 16 × 16) from shared-memory tiles; C stays FP32.
 *
 * 02-gemm's v1–v15 run on the CUDA cores: one FFMA is 2 flops per thread per instruction. A tensor
 * core instruction is a whole small matrix product: here the 32 threads of a warp together multiply
 * a 16 × 16 BF16 tile of A by a 16 × 16 tile of B into a 16 × 16 FP32 accumulator (8192 flops).
 * WMMA is the portable C++ API to it (any GPU of compute capability 7.0 or later; BF16 from 8.0):
 * load fragments from memory, mma_sync, store. The tiles are 02-gemm's v3's idea again: a 128 × 128
 * block of C per block of 8 warps, each warp a 32 × 64 piece (2 × 4 fragments), A and B staged
 * through shared memory 32 columns of k at a time. On Hopper WMMA compiles to HMMA, the mma.sync of
 * the Ampere generation: a warp's instruction, its operands passed through registers. Hopper's own,
 * wgmma (HGMMA in SASS), takes a warpgroup's operands straight from shared memory; WMMA cannot
 * issue it.
 */
#include "cl_cuda_check.h"
#include "launch.h"
#include "tensor_gemm.h"

#include <mma.h>

#define BM      128
#define BN      128
#define BK      32
#define WARPS_N 2 /* 4 × 2 warps */
#define WARP_M  32
#define WARP_N  64
#define FRAG    16 /* WMMA's tile: 16 × 16 × 16 */
#define THREADS 256
#define CHUNK   8 /* BF16 values per 16-byte load */
/* rows padded by 8 BF16 (16 bytes): consecutive rows start in different banks, and every
   fragment still starts 32-byte aligned, as load_matrix_sync needs */
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
    gemm_wmma(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    using namespace nvcuda;
    __shared__ __align__(32) __nv_bfloat16 tile_a[BM * A_STRIDE];
    __shared__ __align__(32) __nv_bfloat16 tile_b[BK * B_STRIDE];
    __shared__ __align__(32) float staging[THREADS / 32][FRAG * FRAG]; /* per warp, for the edges */
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_row = warp / WARPS_N * WARP_M, warp_col = warp % WARPS_N * WARP_N;
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;

    wmma::fragment<wmma::accumulator, FRAG, FRAG, FRAG, float> acc[WARP_M / FRAG][WARP_N / FRAG];
    for (int i = 0; i < WARP_M / FRAG; i++)
        for (int j = 0; j < WARP_N / FRAG; j++)
            wmma::fill_fragment(acc[i][j], 0.0f);

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
        for (int p = 0; p < BK; p += FRAG) {
            wmma::fragment<wmma::matrix_a, FRAG, FRAG, FRAG, __nv_bfloat16, wmma::row_major>
                frag_a[WARP_M / FRAG];
            wmma::fragment<wmma::matrix_b, FRAG, FRAG, FRAG, __nv_bfloat16, wmma::row_major> frag_b;
            for (int i = 0; i < WARP_M / FRAG; i++)
                wmma::load_matrix_sync(frag_a[i], &tile_a[(warp_row + FRAG * i) * A_STRIDE + p],
                                       A_STRIDE);
            for (int j = 0; j < WARP_N / FRAG; j++) {
                wmma::load_matrix_sync(frag_b, &tile_b[p * B_STRIDE + warp_col + FRAG * j],
                                       B_STRIDE);
                for (int i = 0; i < WARP_M / FRAG; i++)
                    wmma::mma_sync(acc[i][j], frag_a[i], frag_b, acc[i][j]);
            }
        }
        __syncthreads();
    }

    /* A fragment's layout in registers is unspecified: each goes through shared memory, and the
       warp writes the part of it inside C */
    for (int i = 0; i < WARP_M / FRAG; i++)
        for (int j = 0; j < WARP_N / FRAG; j++) {
            wmma::store_matrix_sync(staging[warp], acc[i][j], FRAG, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < FRAG * FRAG; e += 32) {
                const int row = block_row + warp_row + FRAG * i + e / FRAG;
                const int col = block_col + warp_col + FRAG * j + e % FRAG;
                if (row < m && col < n)
                    c[(size_t)row * n + col] = staging[warp][e];
            }
            __syncwarp();
        }
#else
    (void)a, (void)b, (void)c, (void)m, (void)n, (void)k; /* no BF16 WMMA before sm_80 */
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
    gemm_require_device(8, 0, 0, 1, "BF16 WMMA");
    const dim3 grid((n + BN - 1) / BN, (m + BM - 1) / BM);
    gemm_wmma<<<grid, THREADS, 0, stream>>>(a, b, c, m, n, k);
    CL_LAUNCH_CHECK("gemm_wmma");
}
