/**
 * @file v8_warp_copies.cu
 * @brief v8: v7 with one copy of the histogram per warp instead of one per lane index: the
 * textbook remedy for contention, a dead end kept to be measured.
 *
 * The usual advice for skewed data is more private copies, one per warp, so that only the lanes
 * of one warp can collide on a counter. v5 went further, with a copy per lane index whose words
 * all sit in the lane's own bank. Here each of the block's 16 warps counts into its own copy of B
 * counters, laid out one after another: fewer copies (16 × B, so up to 768 bins fit in 48 KB
 * instead of 384), but a warp's 32 atomics land in whatever banks their bins fall in, as in v4:
 * bins 32 apart share a bank and are served one after another. The page measures
 * what that gives back against v7. Loads, runs, grid and merge are v7's.
 */
#include "cl_cuda_check.h"
#include "cl_device.h"
#include "histogram.h"

#define BLOCK_SIZE           512
#define SHARED_BINS_MAX      12288 /* v4's one histogram per block, 48 KB */
#define WARPS                (BLOCK_SIZE / 32)
#define WARP_COPIES_BINS_MAX 768 /* 16 copies × 768 bins × 4 B = 48 KB */

/* At most 32 registers per thread, so that 4 blocks of 512 threads fill an SM's 64 warps: the
   compiler would otherwise take 48 and fit only 2, which measured slower than the few bytes this
   spills to local memory. (Only where an SM holds 2048 threads: sm_80 and sm_90.) */
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

/* Counts `count` values of bin v in this warp's copy: word v of it, in bank v % 32 whichever lane
   counts. */
static __device__ void count_in_copy(unsigned *warp_copy, unsigned v, unsigned count, unsigned bins)
{
    if (v < bins)
        atomicAdd(&warp_copy[v], count);
}

/* Counts the four pixels of a word: one add of 4 when they are equal (a run), else one add each. */
static __device__ void count_pixels(unsigned *warp_copy, unsigned word, unsigned bins)
{
    const unsigned first = word & 0xffu;
    if (word == first * 0x01010101u) {
        count_in_copy(warp_copy, first, 4u, bins);
        return;
    }
#pragma unroll
    for (int byte = 0; byte < 4; byte++)
        count_in_copy(warp_copy, (word >> (8 * byte)) & 0xffu, 1u, bins);
}

__global__ void __launch_bounds__(BLOCK_SIZE, BLOCKS_PER_SM)
    histogram_warp_copies(const void *in, size_t n, int is_u8, unsigned bins,
                          unsigned long long *hist)
{
    extern __shared__ unsigned copies[]; /* one copy per warp, one after another */
    unsigned *warp_copy = copies + threadIdx.x / 32 * bins;
    for (unsigned w = threadIdx.x; w < bins * WARPS; w += BLOCK_SIZE)
        copies[w] = 0;
    __syncthreads();
    const size_t stride = (size_t)gridDim.x * BLOCK_SIZE;
    const size_t first = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    const size_t per_vector = is_u8 ? 16 : 4;
    const size_t vectors = n / per_vector;
    const uint4 *vec = (const uint4 *)in;
    size_t i = first;
    for (; i + stride < vectors; i += 2 * stride) {
        const uint4 w0 = __ldg(vec + i), w1 = __ldg(vec + i + stride);
        const unsigned words[8] = {w0.x, w0.y, w0.z, w0.w, w1.x, w1.y, w1.z, w1.w};
#pragma unroll
        for (int k = 0; k < 8; k++) {
            if (is_u8)
                count_pixels(warp_copy, words[k], bins);
            else
                count_in_copy(warp_copy, words[k], 1u, bins);
        }
    }
    for (; i < vectors; i += stride) {
        const uint4 w = __ldg(vec + i);
        const unsigned words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
        for (int k = 0; k < 4; k++) {
            if (is_u8)
                count_pixels(warp_copy, words[k], bins);
            else
                count_in_copy(warp_copy, words[k], 1u, bins);
        }
    }
    for (i = vectors * per_vector + first; i < n; i += stride)
        count_in_copy(warp_copy, is_u8 ? ((const unsigned char *)in)[i] : ((const unsigned *)in)[i],
                      1u, bins);
    __syncthreads();
    /* A copy counts at most this block's share of n, far below 2^32 for any n that fits on a GPU
       (the grid has at least one block per SM); the copies are summed in 64 bits. */
    for (unsigned b = threadIdx.x; b < bins; b += BLOCK_SIZE) {
        unsigned long long count = 0;
        for (unsigned c = 0; c < WARPS; c++) /* consecutive threads, consecutive words */
            count += copies[c * bins + b];
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
    if (bins > WARP_COPIES_BINS_MAX) {
        const size_t shared_bytes = bins * sizeof(unsigned);
        const size_t resident =
            cl_resident_blocks((const void *)histogram_vectorized, BLOCK_SIZE, shared_bytes);
        const size_t grid = wanted < resident ? wanted : resident;
        histogram_vectorized<<<(unsigned)grid, BLOCK_SIZE, shared_bytes, stream>>>(
            in, n, type == TYPE_U8, bins, hist);
        CL_LAUNCH_CHECK("histogram_vectorized");
        return;
    }
    const size_t shared_bytes = WARPS * bins * sizeof(unsigned);
    const size_t resident =
        cl_resident_blocks((const void *)histogram_warp_copies, BLOCK_SIZE, shared_bytes);
    const size_t grid = wanted < resident ? wanted : resident;
    histogram_warp_copies<<<(unsigned)grid, BLOCK_SIZE, shared_bytes, stream>>>(
        in, n, type == TYPE_U8, bins, hist);
    CL_LAUNCH_CHECK("histogram_warp_copies");
}
