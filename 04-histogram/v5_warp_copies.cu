/**
 * @file v5_warp_copies.cu
 * @brief v5: several sub-histograms per block — each warp counts into its own copy when the bins
 * are few enough, and the copies are added at the merge.
 *
 * In v4 the 8 warps of a block hit one shared histogram; when the data piles into few bins (`one`,
 * `zipf`) their atomics on the same words queue behind each other. With one copy per warp (8 × B
 * counters, as long as they fit in 48 KB), only the lanes of one warp can collide, and the merge
 * reads the copies of a bin and adds them before the one global atomic.
 *
 * <!-- measured:begin -->
 * Measured on NVIDIA H100 80GB HBM3, 2026-11-22 (generated from docs/results/04-histogram.csv):
 * - n=2^28 bins=256 type=u32 dist=uniform:
 *   0.36453 ms, 736.39 Gelem/s = 98.0% of read bandwidth; 117.40x v1, 1.602x cub
 * - n=2^28 bins=256 type=u32 dist=one:
 *   0.36230 ms, 740.91 Gelem/s = 99.0% of read bandwidth; 543.71x v1, 1.425x cub
 * - n=2^28 bins=256 type=u32 dist=zipf:
 *   0.36466 ms, 736.13 Gelem/s = 98.2% of read bandwidth; 241.06x v1, 1.622x cub
 * - n=2^28 bins=4096 type=u32 dist=uniform:
 *   0.41032 ms, 654.21 Gelem/s = 87.6% of read bandwidth; 9.69x v1, 7.814x cub
 * - n=2^28 bins=4096 type=u32 dist=one:
 *   0.40989 ms, 654.90 Gelem/s = 87.2% of read bandwidth; 484.35x v1, 1.982x cub
 * - n=2^28 bins=4096 type=u32 dist=zipf:
 *   0.41029 ms, 654.26 Gelem/s = 87.3% of read bandwidth; 159.89x v1, 7.993x cub
 * - n=2^30 bins=256 type=u8 dist=uniform:
 *   0.53526 ms, 2006.00 Gelem/s = 66.9% of read bandwidth; 319.31x v1, 0.937x cub
 * - n=2^30 bins=256 type=u8 dist=one:
 *   0.53989 ms, 1988.82 Gelem/s = 66.3% of read bandwidth; 1455.45x v1, 0.736x cub
 * - n=2^30 bins=256 type=u8 dist=zipf:
 *   0.54107 ms, 1984.47 Gelem/s = 66.2% of read bandwidth; 647.92x v1, 0.771x cub
 * <!-- measured:end -->
 */
#include "cl_cuda_check.h"
#include "histogram.h"

#define BLOCK_SIZE      256
#define SHARED_BINS_MAX 12288
#define WARPS           (BLOCK_SIZE / 32)

/* One copy per warp when they fit in the 48 KB a block gets by default, else as many as fit. */
static unsigned copies_for(unsigned bins)
{
    const unsigned fit = SHARED_BINS_MAX / bins;
    return fit < WARPS ? (fit > 0 ? fit : 1) : WARPS;
}

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

__global__ void histogram_warp_copies(const void *in, size_t n, int is_u8, unsigned bins,
                                      unsigned copies, unsigned long long *hist)
{
    extern __shared__ unsigned copies_hist[];
    unsigned *block_hist = copies_hist + (threadIdx.x / 32) % copies * bins;
    for (unsigned b = threadIdx.x; b < copies * bins; b += BLOCK_SIZE)
        copies_hist[b] = 0;
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
        unsigned count = 0;
        for (unsigned c = 0; c < copies; c++)
            count += copies_hist[c * bins + b];
        if (count)
            atomicAdd(&hist[b], (unsigned long long)count);
    }
}

/* Blocks the whole GPU holds at once with this much shared memory each; asked once per bin count,
   outside the timed launches that follow. */
static size_t resident_blocks(unsigned bins)
{
    static unsigned cached_bins = 0;
    static size_t cached_blocks = 0;
    if (bins != cached_bins) {
        int device, sms, per_sm;
        CL_CUDA_CHECK(cudaGetDevice(&device));
        CL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        CL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, histogram_warp_copies, BLOCK_SIZE,
            copies_for(bins) * bins * sizeof(unsigned)));
        cached_blocks = (size_t)sms * (size_t)(per_sm > 0 ? per_sm : 1);
        cached_bins = bins;
    }
    return cached_blocks;
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
    const size_t grid = wanted < resident_blocks(bins) ? wanted : resident_blocks(bins);
    const unsigned copies = copies_for(bins);
    histogram_warp_copies<<<(unsigned)grid, BLOCK_SIZE, copies * bins * sizeof(unsigned), stream>>>(
        in, n, type == TYPE_U8, bins, copies, hist);
    CL_LAUNCH_CHECK("histogram_warp_copies");
}
