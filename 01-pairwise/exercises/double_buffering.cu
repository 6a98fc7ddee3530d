/**
 * @file double_buffering.cu
 * @brief Exercise "Double buffering" of 01-pairwise, a solution: v6 with the next tile of b loaded
 * into registers while the block computes on the current one.
 *
 * In v6 a block loads a tile, waits at a barrier, and only then computes: the global loads of each
 * tile are in flight while the block's warps wait. Here registers are the second buffer. Right
 * after the barrier that publishes tile t, each thread issues the loads of its share of tile t + 1
 * into registers and computes on tile t; the loads land during the FADDs, and after the next
 * barrier the thread only copies registers to shared memory. The barriers stay two per tile (the
 * one shared tile is overwritten), and each thread keeps RUN / BLOCK_SIZE more values live across
 * the loop, which ptxas may fit in v6's registers or pay for in occupancy (-Xptxas -v says).
 * Whether the prefetch pays depends on how much of v6's time goes to waiting for those loads: its
 * loop already issues mostly FADDs, and other warps of the SM compute while one block waits.
 */
#include "cal.h"
#include "cl_cuda_check.h"
#include "pairwise.h"

#define BLOCK_SIZE   256
#define A_PER_THREAD 8
#define A_PER_BLOCK  (BLOCK_SIZE * A_PER_THREAD)
#define RUN          1024
#define B_PER_BLOCK  (4 * RUN)
#define WARPS        (BLOCK_SIZE / 32)
#define B_PER_THREAD (RUN / BLOCK_SIZE) /* the b values of a tile that each thread loads */

#if RUN % BLOCK_SIZE != 0
#error "every thread loads the same number of b values of a tile"
#endif

static __device__ double warp_sum(double x)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        x += __shfl_down_sync(0xffffffffu, x, offset);
    return x;
}

/* The length of the tile of b that starts at t0: RUN, or what is left before b_end. */
static __device__ unsigned tile_count(size_t t0, size_t b_end)
{
    return (unsigned)(b_end - t0 < RUN ? b_end - t0 : RUN);
}

/* Issues the loads of this thread's share of the tile at b[t0..t0 + count): value threadIdx.x +
   j * BLOCK_SIZE into next[j] (consecutive threads, consecutive addresses: coalesced), zero past
   count. Nothing waits for them until store_tile() reads next[]. */
static __device__ void load_tile(const float *b, size_t t0, unsigned count,
                                 float next[B_PER_THREAD])
{
#pragma unroll
    for (int j = 0; j < B_PER_THREAD; j++) {
        const unsigned k = threadIdx.x + j * BLOCK_SIZE;
        next[j] = k < count ? b[t0 + k] : 0.0f;
    }
}

/* Copies this thread's share of a tile from registers to shared memory. The slots past the tile's
   count get load_tile()'s zeros, which pairs_with_tile() never reads. */
static __device__ void store_tile(float4 *tile, const float next[B_PER_THREAD])
{
#pragma unroll
    for (int j = 0; j < B_PER_THREAD; j++)
        ((float *)tile)[threadIdx.x + j * BLOCK_SIZE] = next[j];
}

/* Adds, for each of the thread's a values, cal against tile[0..count) to totals (float inside the
   tile, double across tiles). v6's, unchanged. */
static __device__ void pairs_with_tile(const float4 *tile, unsigned count,
                                       const float a_reg[A_PER_THREAD], double totals[A_PER_THREAD])
{
    float partial[A_PER_THREAD];
#pragma unroll
    for (int r = 0; r < A_PER_THREAD; r++)
        partial[r] = 0.0f;
    if (count == RUN) {
#pragma unroll 4
        for (unsigned q = 0; q < RUN / 4; q++) {
            const float4 v = tile[q]; /* every lane reads the same address: one broadcast */
#pragma unroll
            for (int r = 0; r < A_PER_THREAD; r++) {
                partial[r] += cal(a_reg[r], v.x);
                partial[r] += cal(a_reg[r], v.y);
                partial[r] += cal(a_reg[r], v.z);
                partial[r] += cal(a_reg[r], v.w);
            }
        }
    } else {
        const float *scalars = (const float *)tile;
        for (unsigned k = 0; k < count; k++) {
            const float v = scalars[k];
#pragma unroll
            for (int r = 0; r < A_PER_THREAD; r++)
                partial[r] += cal(a_reg[r], v);
        }
    }
#pragma unroll
    for (int r = 0; r < A_PER_THREAD; r++)
        totals[r] += partial[r];
}

__global__ void __launch_bounds__(BLOCK_SIZE)
    pairs_kernel(const float *a, const float *b, size_t n, double *sum)
{
    __shared__ float4 tile_b[RUN / 4];
    __shared__ double warp_sums[WARPS];
    const size_t a_first = (size_t)blockIdx.x * A_PER_BLOCK + threadIdx.x;
    float a_reg[A_PER_THREAD];
    double totals[A_PER_THREAD];
#pragma unroll
    for (int r = 0; r < A_PER_THREAD; r++) {
        const size_t i = a_first + (size_t)r * BLOCK_SIZE;
        a_reg[r] = i < n ? a[i] : 0.0f;
        totals[r] = 0.0;
    }
    const size_t b_begin = (size_t)blockIdx.y * B_PER_BLOCK;
    const size_t b_end = n - b_begin < B_PER_BLOCK ? n : b_begin + B_PER_BLOCK;
    /* the second buffer: the tile after the one in shared memory (the first tile's loads have no
       work to hide behind) */
    float next[B_PER_THREAD];
    load_tile(b, b_begin, tile_count(b_begin, b_end), next);
    for (size_t t0 = b_begin; t0 < b_end; t0 += RUN) {
        __syncthreads(); /* every warp is done with the previous tile */
        store_tile(tile_b, next);
        __syncthreads();
        if (t0 + RUN < b_end) /* the next tile's loads are in flight during this tile's FADDs */
            load_tile(b, t0 + RUN, tile_count(t0 + RUN, b_end), next);
        pairs_with_tile(tile_b, tile_count(t0, b_end), a_reg, totals);
    }
    double s = 0.0;
#pragma unroll
    for (int r = 0; r < A_PER_THREAD; r++)
        if (a_first + (size_t)r * BLOCK_SIZE < n) /* a values past n were placeholders */
            s += totals[r];
    s = warp_sum(s);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = warp_sum(threadIdx.x < WARPS ? warp_sums[threadIdx.x] : 0.0);
        if (threadIdx.x == 0)
            atomicAdd(sum, s);
    }
}

size_t pairwise_workspace_bytes(size_t n)
{
    (void)n;
    return 0;
}

void pairwise_sum(const float *a, const float *b, size_t n, double *sum, void *workspace,
                  cudaStream_t stream)
{
    (void)workspace;
    const dim3 grid((unsigned)((n + A_PER_BLOCK - 1) / A_PER_BLOCK),
                    (unsigned)((n + B_PER_BLOCK - 1) / B_PER_BLOCK));
    CL_CUDA_CHECK(cudaMemsetAsync(sum, 0, sizeof(double), stream));
    pairs_kernel<<<grid, BLOCK_SIZE, 0, stream>>>(a, b, n, sum);
    CL_LAUNCH_CHECK("pairs_kernel");
}
