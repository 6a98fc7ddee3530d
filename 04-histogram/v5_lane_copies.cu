/**
 * @file v5_lane_copies.cu
 * @brief v5: v4 with 32 copies of the histogram per block, one per lane index, laid out so that
 * lane l only ever touches shared-memory bank l — no bank conflicts on any distribution.
 *
 * With 8-bit pixels v4 makes one shared-memory atomic per byte it reads, and the shared-memory
 * pipe, not DRAM, sets the pace: the 32 lanes of a warp add to random bins, the busiest of the 32
 * banks gets several of them (ncu counts the shared wavefronts per atomic instruction: the page),
 * and each atomic instruction costs that many cycles (lanes adding 1 to the same word are merged
 * into one update, so equal values cost nothing extra). Here lane l counts bin v in word 32v + l,
 * whose bank is l whatever v is, so a warp's 32 atomics take one wavefront, on uniform data and
 * when every value is the same. Lane l of every warp of the block shares copy l, so the adds stay
 * atomic. The copies cost 32 × B counters (32 KB for 256 bins), which is why this is used up to
 * LANE_COPIES_BINS_MAX bins (v4's single histogram above, v1's global atomics past 12288 bins),
 * and why a block has 512 threads: 4 blocks of 32 KB fill an SM's 64 warps. At the end each bin's
 * 32 copies are added, read diagonally so that a warp's reads fall in different banks.
 */
#include "cl_cuda_check.h"
#include "cl_device.h"
#include "histogram.h"

#define BLOCK_SIZE           512
#define SHARED_BINS_MAX      12288 /* v4's one histogram per block, 48 KB */
#define LANE_COPIES_BINS_MAX 384   /* 32 copies × 384 bins × 4 B = 48 KB */

/* At most 32 registers per thread, so that 4 blocks of 512 threads fill an SM's 64 warps: the
   compiler would otherwise take 48 and fit only 2, which measured slower on uniform pixels than
   the few bytes this spills to local memory. (Only where an SM holds
   2048 threads: sm_80 and sm_90.) */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 800 || __CUDA_ARCH__ >= 900)
#define BLOCKS_PER_SM (2048 / BLOCK_SIZE)
#else
#define BLOCKS_PER_SM 1
#endif

__global__ void histogram_global(const void *in, size_t n, int is_u8, unsigned bins,
                                 unsigned long long *hist)
{
    const size_t i = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (i >= n)
        return;
    const unsigned v = is_u8 ? ((const unsigned char *)in)[i] : ((const unsigned *)in)[i];
    if (v < bins)
        atomicAdd(&hist[v], 1ull);
}

__global__ void histogram_vectorized(const void *in, size_t n, int is_u8, unsigned bins,
                                     unsigned long long *hist)
{
    extern __shared__ unsigned block_hist[];
    for (unsigned b = threadIdx.x; b < bins; b += BLOCK_SIZE)
        block_hist[b] = 0;
    __syncthreads();
    const size_t stride = (size_t)gridDim.x * BLOCK_SIZE;
    const size_t first = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    const size_t per_vector = is_u8 ? 16 : 4;
    const size_t vectors = n / per_vector;
    for (size_t i = first; i < vectors; i += stride) {
        const uint4 w = ((const uint4 *)in)[i];
        const unsigned words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
        for (int k = 0; k < 4; k++) {
            if (is_u8) {
#pragma unroll
                for (int byte = 0; byte < 4; byte++) {
                    const unsigned v = (words[k] >> (8 * byte)) & 0xffu;
                    if (v < bins)
                        atomicAdd(&block_hist[v], 1u);
                }
            } else if (words[k] < bins) {
                atomicAdd(&block_hist[words[k]], 1u);
            }
        }
    }
    for (size_t i = vectors * per_vector + first; i < n; i += stride) {
        const unsigned v = is_u8 ? ((const unsigned char *)in)[i] : ((const unsigned *)in)[i];
        if (v < bins)
            atomicAdd(&block_hist[v], 1u);
    }
    __syncthreads();
    for (unsigned b = threadIdx.x; b < bins; b += BLOCK_SIZE) {
        const unsigned count = block_hist[b];
        if (count)
            atomicAdd(&hist[b], (unsigned long long)count);
    }
}

/* Counts bin v in this lane's copy, which starts at word l: word v * 32 + l sits in bank l. */
static __device__ void count_in_copy(unsigned *lane_copy, unsigned v, unsigned bins)
{
    if (v < bins)
        atomicAdd(&lane_copy[v * 32], 1u);
}

__global__ void __launch_bounds__(BLOCK_SIZE, BLOCKS_PER_SM)
    histogram_lane_copies(const void *in, size_t n, int is_u8, unsigned bins,
                          unsigned long long *hist)
{
    extern __shared__ unsigned copies[]; /* 32 copies, interleaved: word v * 32 + lane */
    unsigned *lane_copy = copies + threadIdx.x % 32;
    for (unsigned w = threadIdx.x; w < bins * 32; w += BLOCK_SIZE)
        copies[w] = 0;
    __syncthreads();
    const size_t stride = (size_t)gridDim.x * BLOCK_SIZE;
    const size_t first = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    const size_t per_vector = is_u8 ? 16 : 4;
    const size_t vectors = n / per_vector;
    for (size_t i = first; i < vectors; i += stride) {
        const uint4 w = ((const uint4 *)in)[i];
        const unsigned words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
        for (int k = 0; k < 4; k++) {
            if (is_u8) {
#pragma unroll
                for (int byte = 0; byte < 4; byte++)
                    count_in_copy(lane_copy, (words[k] >> (8 * byte)) & 0xffu, bins);
            } else {
                count_in_copy(lane_copy, words[k], bins);
            }
        }
    }
    for (size_t i = vectors * per_vector + first; i < n; i += stride)
        count_in_copy(lane_copy, is_u8 ? ((const unsigned char *)in)[i] : ((const unsigned *)in)[i],
                      bins);
    __syncthreads();
    /* A copy counts at most this block's share of n, far below 2^32 for any n that fits on a GPU
       (the grid has at least one block per SM); the 32 copies are summed in 64 bits. */
    for (unsigned b = threadIdx.x; b < bins; b += BLOCK_SIZE) {
        unsigned long long count = 0;
        for (unsigned l = 0; l < 32; l++) /* lane (l + b) % 32 first: 32 threads, 32 banks */
            count += copies[b * 32 + (l + b) % 32];
        if (count)
            atomicAdd(&hist[b], count);
    }
}

size_t histogram_workspace_bytes(size_t n, unsigned bins, input_type type)
{
    (void)n, (void)bins, (void)type;
    return 0;
}

void histogram(const void *in, size_t n, input_type type, unsigned bins, unsigned long long *hist,
               void *workspace, cudaStream_t stream)
{
    (void)workspace;
    CL_CUDA_CHECK(cudaMemsetAsync(hist, 0, bins * sizeof(unsigned long long), stream));
    const size_t blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE; /* v1's fallback grid */
    if (bins > SHARED_BINS_MAX) {
        histogram_global<<<(unsigned)blocks, BLOCK_SIZE, 0, stream>>>(in, n, type == TYPE_U8, bins,
                                                                      hist);
        CL_LAUNCH_CHECK("histogram_global");
        return;
    }
    const size_t wanted = (n / (type == TYPE_U8 ? 16 : 4) + BLOCK_SIZE) / BLOCK_SIZE;
    if (bins > LANE_COPIES_BINS_MAX) {
        const size_t shared_bytes = bins * sizeof(unsigned);
        const size_t resident =
            cl_resident_blocks((const void *)histogram_vectorized, BLOCK_SIZE, shared_bytes);
        const size_t grid = wanted < resident ? wanted : resident;
        histogram_vectorized<<<(unsigned)grid, BLOCK_SIZE, shared_bytes, stream>>>(
            in, n, type == TYPE_U8, bins, hist);
        CL_LAUNCH_CHECK("histogram_vectorized");
        return;
    }
    const size_t shared_bytes = 32 * bins * sizeof(unsigned);
    const size_t resident =
        cl_resident_blocks((const void *)histogram_lane_copies, BLOCK_SIZE, shared_bytes);
    const size_t grid = wanted < resident ? wanted : resident;
    histogram_lane_copies<<<(unsigned)grid, BLOCK_SIZE, shared_bytes, stream>>>(
        in, n, type == TYPE_U8, bins, hist);
    CL_LAUNCH_CHECK("histogram_lane_copies");
}
