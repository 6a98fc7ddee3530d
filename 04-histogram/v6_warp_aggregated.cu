/**
 * @file v6_warp_aggregated.cu
 * @brief v6: warp aggregation — `__match_any_sync` finds the lanes holding the same value, and one
 * lane adds their count with a single atomic.
 *
 * The fix aimed at the one-bin case: 32 lanes adding 1 to the same counter become one lane adding
 * 32. It is not free: `__match_any_sync` compares every lane's value with every other's, costing
 * far more than the shared-memory atomic it saves when the values differ, and every lane must take
 * part, so the loops run warp-uniformly with invalid lanes marked. The page measures whether it
 * pays on any distribution; since CUDA 9 the compiler also aggregates some atomics by itself.
 *
 * Measured at the lesson's headline case (the lesson page has every case, device and date):
 * <!-- measured:begin -->
 * n=2^28 bins=256 type=u32 dist=uniform: 2.06608 ms, 129.93 Gelem/s, 17.0% of ceiling, 0.282x cub
 * <!-- measured:end -->
 */
#include "cl_cuda_check.h"
#include "cl_device.h"
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

#define NO_VALUE 0xffffffffu /* never < bins (bins <= 2^24) */

/* Counts v once for every lane holding it, with one atomic per distinct value. All 32 lanes of the
   warp must call it together; a lane with nothing to count passes NO_VALUE. */
static __device__ void count_aggregated(unsigned *block_hist, unsigned v, unsigned bins)
{
    const unsigned peers = __match_any_sync(0xffffffffu, v);
    if (v < bins && threadIdx.x % 32 == (unsigned)(__ffs(peers) - 1))
        atomicAdd(&block_hist[v], (unsigned)__popc(peers));
}

__global__ void histogram_warp_aggregated(const void *in, size_t n, int is_u8, unsigned bins,
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
    const size_t lane = threadIdx.x % 32;
    /* warp-uniform loops: they run while the warp's first lane has work */
    for (size_t i = first; i - lane < vectors; i += stride) {
        const int valid = i < vectors;
        const uint4 w = valid ? ((const uint4 *)in)[i] : make_uint4(0, 0, 0, 0);
        const unsigned words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
        for (int k = 0; k < 4; k++) {
            if (is_u8) {
#pragma unroll
                for (int byte = 0; byte < 4; byte++)
                    count_aggregated(block_hist,
                                     valid ? (words[k] >> (8 * byte)) & 0xffu : NO_VALUE, bins);
            } else {
                count_aggregated(block_hist, valid ? words[k] : NO_VALUE, bins);
            }
        }
    }
    for (size_t i = vectors * per_vector + first; i - lane < n; i += stride) {
        unsigned v = NO_VALUE;
        if (i < n)
            v = is_u8 ? ((const unsigned char *)in)[i] : ((const unsigned *)in)[i];
        count_aggregated(block_hist, v, bins);
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
    const size_t resident = cl_resident_blocks((const void *)histogram_warp_aggregated, BLOCK_SIZE,
                                               copies_for(bins) * bins * sizeof(unsigned));
    const size_t grid = wanted < resident ? wanted : resident;
    const unsigned copies = copies_for(bins);
    histogram_warp_aggregated<<<(unsigned)grid, BLOCK_SIZE, copies * bins * sizeof(unsigned),
                                stream>>>(in, n, type == TYPE_U8, bins, copies, hist);
    CL_LAUNCH_CHECK("histogram_warp_aggregated");
}
